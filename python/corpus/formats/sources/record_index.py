"""Format `warc-records`: a table of WARC record locations (Common Crawl's index columns `warc_filename`,
`warc_record_offset`, `warc_record_length`), Parquet or CSV (by the URL's extension, `.csv`/`.csv.gz`),
each record to be fetched by itself (corpus.store.retrieve.read_range) rather than its whole file.

A filename is a URL or path as it is, or relative to the ledger row's `base_url`. `plan_index_ranges`
cuts the table into fetch units of whole rows (about `unit_bytes` of records, at most UNIT_RECORDS
records); they depend only on the table and `unit_bytes`."""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from corpus.errors import CorpusError
from corpus.web.listing import member_url

COLUMNS = ("warc_filename", "warc_record_offset", "warc_record_length")
UNIT_RECORDS = 1000       # records a fetch unit fetches at most (one request each)
MAX_RECORD_BYTES = 1 << 30


@dataclass(frozen=True)
class RecordAt:
    row: int                # 0-based row of the table
    url: str                # the WARC file
    offset: int
    length: int


def _is_csv(row: dict) -> bool:
    from corpus.store.retrieve import url_path

    return url_path(row["url"]).lower().endswith((".csv", ".csv.gz"))


def _raw_rows(path: Path, row: dict) -> Iterator[tuple]:
    where = row["url"]
    if _is_csv(row):
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        with (gzip.open(path, "rb") if gz else open(path, "rb")) as raw:
            reader = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", newline=""))
            try:
                header = next(reader, None)
                missing = [c for c in COLUMNS if header is None or c not in header]
                if missing:
                    raise CorpusError(f"{where}: line 1: no column '{missing[0]}' (a warc-records table has "
                                      f"{', '.join(COLUMNS)})")
                cols = [header.index(c) for c in COLUMNS]
                for line in reader:
                    if line:
                        yield tuple(line[c] if c < len(line) else None for c in cols)
            except (UnicodeDecodeError, csv.Error, OSError, EOFError) as e:
                raise CorpusError(f"{where}: line {reader.line_num}: unreadable CSV: {e}") from None
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        missing = [c for c in COLUMNS if c not in pf.schema_arrow.names]
        if missing:
            raise CorpusError(f"{where}: no column '{missing[0]}' (a warc-records table has {', '.join(COLUMNS)})")
        for batch in pf.iter_batches(batch_size=4096, columns=list(COLUMNS)):
            cols = [batch.column(c).to_pylist() for c in COLUMNS]
            yield from zip(*cols)
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(f"{where}: unreadable parquet: {e}") from None


def _record(n: int, values: tuple, row: dict) -> RecordAt:
    where = f"{row['url']}: row {n}"
    name, offset, length = values
    try:
        offset, length = int(offset), int(length)
    except (TypeError, ValueError):
        raise CorpusError(f"{where}: warc_record_offset and warc_record_length must be integers, got "
                          f"{offset!r} and {length!r}") from None
    if not name or offset < 0 or not 0 < length <= MAX_RECORD_BYTES:
        raise CorpusError(f"{where}: a record needs a warc_filename, an offset >= 0 and a length in 1.."
                          f"{MAX_RECORD_BYTES} (got {name!r}, {offset}, {length})")
    return RecordAt(n, member_url(str(name), row.get("base_url"), where), offset, length)


def index_records(path: Path, row: dict, start: int = 0, stop: int | None = None) -> Iterator[RecordAt]:
    """The table's records [start, stop) in table order, each checked (an error names the table and row)."""
    for n, values in enumerate(_raw_rows(path, row)):
        if stop is not None and n >= stop:
            return
        if n >= start:
            yield _record(n, values, row)


def plan_index_ranges(path: Path, row: dict, unit_bytes: int) -> list[tuple[int, int]]:
    """[start, stop) row ranges of at most UNIT_RECORDS records, each ending once its records reach
    about unit_bytes: every row read (and checked) once here."""
    cuts, n, size = [0], 0, 0
    for n, rec in enumerate(index_records(path, row), 1):
        size += rec.length
        if n - cuts[-1] >= UNIT_RECORDS or size >= unit_bytes:
            cuts.append(n)
            size = 0
    if n > cuts[-1]:
        cuts.append(n)
    return list(zip(cuts, cuts[1:]))
