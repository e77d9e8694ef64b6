"""Documents and characters of a stage's parts grouped by columns: documents are counted in every part
(only the key columns are read for parts outside the sample), characters are measured in the chosen parts and, when parts were
sampled, scaled per group by documents counted / documents measured (marked as estimates)."""

from __future__ import annotations

import pyarrow as pa

from corpus.config import Config
from corpus.errors import CorpusError
from corpus.store.checksums import read_verified
from corpus.formats.parts import read_parquet
from corpus.report.reading import add_counts, group_counts, with_length
from corpus.report.sampling import PartChoice


def read_columns(config: Config, dirname: str, part: dict, columns: list[str], verify: bool = True,
                 filters=None) -> pa.Table:
    """Columns of a part: the whole file read and checked against its sha256, or (verify=False, for parts
    over the budget) only these columns' chunks read, unchecked — `corpus audit` checks every byte."""
    path = config.stage_dir(dirname) / part["name"]
    if not verify:
        if not path.is_file():
            raise CorpusError(f"{path}: part listed in _STAGE.json is missing")
        return read_parquet(path, columns=columns, filters=filters)
    return read_parquet(pa.BufferReader(read_verified(path, part["sha256"])), columns=columns, filters=filters)


def scan_groups(config: Config, dirname: str, parts: list[dict], choice: PartChoice, keys: list[str]) -> dict:
    """{key tuple: {"docs": int, "chars": int | None, "estimated": bool}}."""
    chosen = {p["name"] for p in choice.parts}
    docs: dict = {}
    measured: dict = {}
    for p in parts:
        if p["name"] in chosen:
            t = with_length(read_columns(config, dirname, p, [*keys, "text"]))
            g = group_counts(t, keys)
            add_counts(measured, g)
        else:
            g = {}
            t = read_columns(config, dirname, p, keys, verify=False)
            if t.num_rows:
                agg = t.group_by(keys).aggregate([([], "count_all")])
                cols = [agg.column(k).to_pylist() for k in keys]
                g = {tuple(c[i] for c in cols): (n, 0) for i, n in enumerate(agg.column("count_all").to_pylist())}
        for k, (n, _) in g.items():
            docs[k] = docs.get(k, 0) + n
    out = {}
    for k, n in docs.items():
        m_docs, m_chars = measured.get(k, (0, 0))
        if m_docs == n:
            out[k] = {"docs": n, "chars": m_chars, "estimated": False}
        elif m_docs:
            out[k] = {"docs": n, "chars": round(m_chars * n / m_docs), "estimated": True}
        else:
            out[k] = {"docs": n, "chars": None, "estimated": True}
    return out
