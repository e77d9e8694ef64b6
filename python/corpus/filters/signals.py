"""Signals as data: per part, every document's signals as one table (id, source_id, url, chars, then one
column per signal, `<filter>_<signal>`), kept in the cache (engine.cache, kind "filter-signals") by the
filter stage and named in its unit results (_RUN.json), so that `corpus signals export` writes them as
Parquet and `corpus tune` decides any threshold again from them without reading a text.

A cleaning filter's columns are its failure (`<filter>_rule`, `_value`, `_detail`, null when it kept the
document); a filter after a cleaning filter that dropped the document did not measure it (nulls).
`chars` is the length of the text the filter stage would publish (after every cleaning filter): at this
stage a document's tokens are not known."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from corpus.engine.cache import Cache
from corpus.errors import CorpusError
from corpus.formats.parts import read_parquet

KIND = "filter-signals"
DOC_COLUMNS = {"id": pa.string(), "source_id": pa.string(), "url": pa.string(), "chars": pa.int64()}
FAILURE = {"rule": pa.string(), "value": pa.float64(), "detail": pa.string()}


def table_columns(steps) -> dict[str, pa.DataType]:
    """The signals table's columns for a chain's steps (registry.chain_steps)."""
    out = dict(DOC_COLUMNS)
    for step in steps:
        cols = FAILURE if step.spec.cleans else step.spec.signals(step.params)
        out.update({f"{step.name}_{k}": t for k, t in cols.items()})
    return out


def step_widths(steps) -> list[int]:
    return [len(FAILURE) if s.spec.cleans else len(s.spec.signals(s.params)) for s in steps]


class SignalsTable:
    """One part's signals, added a batch at a time, written as one zstd Parquet entry of the cache under
    `key` (what they depend on: the input part, every step's measuring identity, the cleaning tables);
    nothing is built when the cache already holds that entry, verified (a threshold edit's run), whose
    values `stored()` then gives."""

    def __init__(self, steps, root, key: str):
        self.root, self.key = root, key
        self.data = Cache(root, KIND, ".parquet").get(key)  # None: not in the cache, built by add()
        self.steps, self.columns = steps, table_columns(steps)
        self.widths = step_widths(steps)
        self.schema = pa.schema(list(self.columns.items()))
        self.buf = io.BytesIO()
        self.writer = pq.ParquetWriter(self.buf, self.schema, compression="zstd")
        self.rows = 0
        self._table: pa.Table | None = None  # the known table's rows, read once (add_stored)

    def add(self, ids: list, sources: list, urls: list, measured: list) -> None:
        self.rows += len(ids)
        if self.known:
            return
        cols: list = [ids, sources, urls, [len(m.text) for m in measured]]
        for k, (step, width) in enumerate(zip(self.steps, self.widths)):
            vals = [m.values[k] for m in measured]
            if step.spec.cleans:  # (rule, value) or (rule, value, detail)
                vals = [v if v is None or len(v) == 3 else (*v, None) for v in vals]
            blank = (None,) * width
            cols += list(zip(*[blank if v is None else v for v in vals])) if vals else [()] * width
        self.writer.write_batch(pa.record_batch([pa.array(list(c), type=t) for c, t in zip(cols, self.columns.values())],
                                                schema=self.schema))

    def add_stored(self, other: SignalsTable, rows: list[int]) -> None:
        """Rows (by position) of another known table of the same steps: a takedown's table is the table
        of the version it takes documents out of, without the removed documents' rows."""
        self.rows += len(rows)
        if self.known:
            return
        if other._table is None:
            other._table = read_parquet(pa.BufferReader(other.data))
        self.writer.write_table(other._table.take(pa.array(rows, pa.int64())))

    @property
    def known(self) -> bool:
        return self.data is not None

    def stored(self) -> list[tuple] | None:
        """Per document, in the part's order, what each step measured (step_values), when the cache holds the
        table; else None."""
        return None if self.data is None else step_values(read_parquet(pa.BufferReader(self.data)), self.steps)

    def save(self) -> dict:
        """Put the table in the cache; its entry for the unit's result ({key, rows})."""
        self.writer.close()
        if not self.known:
            Cache(self.root, KIND, ".parquet").put(self.key, self.buf.getvalue())
        return {"key": self.key, "rows": self.rows}


def load(root, entry: dict, where: str) -> pa.Table:
    """A part's signals table from the cache (its bytes checked against the sha256 in the entry's name)."""
    data = Cache(root, KIND, ".parquet").get(entry["key"])
    if data is None:
        raise CorpusError(f"{where}: its signals are not in the cache (removed by `corpus gc --cache`?); a run of "
                          f"the same dataset reuses this part's unit, so build it under another [dataset] name")
    t = read_parquet(pa.BufferReader(data))
    if t.num_rows != entry["rows"]:
        raise CorpusError(f"{where}: the cached signals hold {t.num_rows} rows, the run recorded {entry['rows']}")
    return t


def step_values(table: pa.Table, steps) -> list[tuple]:
    """Per document of a signals table, what each step measured (as decide_document takes it)."""
    names = list(table_columns(steps))[len(DOC_COLUMNS):]
    per_step, c = [], 0
    for step, width in zip(steps, step_widths(steps)):
        cols = [table.column(n).to_pylist() for n in names[c:c + width]]
        c += width
        rows = list(zip(*cols)) if cols else [()] * table.num_rows
        if step.spec.cleans:  # a failure, or None when the step kept the document
            rows = [None if r[0] is None else r for r in rows]
        per_step.append(rows)
    return list(zip(*per_step)) if per_step else [()] * table.num_rows
