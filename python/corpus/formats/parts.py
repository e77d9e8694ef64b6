"""Reading and writing the Parquet parts of stages 02–05, each read checked against its manifest sha256.

Stages stream a part: `iter_batches` yields record batches of `BATCH_ROWS` rows while hashing the file
(the sha256 is checked when the last batch has been read, before anything is published), and
`PartWriter` writes row groups as they fill. A row group holds the rows of whole batches until their
Arrow data reaches `ROW_GROUP_BYTES` (64 MiB), so a worker holds at most about one row group of output
and one of input, whatever the part's size. A part under 64 MiB of Arrow data is one row group, exactly as
`write_table` writes it (the same bytes); a larger one gets the row groups of that rule, which depends on
the data only, never on the worker count."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus.store.atomic import naming_enospc, sha256_file
from corpus.store.checksums import VerifiedReader, read_verified
from corpus.errors import CorpusError

ROW_GROUP_BYTES = 64 << 20  # parts' row groups: the contract's limit (a shard's are smaller: shard.ROW_GROUP_BYTES)
BATCH_ROWS = 1024           # rows a stage reads, works on and hands to its writer at a time
READ_BUFFER = 1 << 20       # column chunks are read in pages through a buffer of this size
# ... and never pre-buffered: pyarrow's ParquetFile pre-buffers by default, reading a row group's whole
# column chunks (up to ROW_GROUP_BYTES compressed) before the first batch; a 62 MB shard row group's
# text peaked at 207 MB RSS read that way, 146 MB page by page
PRE_BUFFER = False
# Every Parquet file corpus writes (parts, shards) uses these options. The writer closes a data page at
# the first write batch past 1 MB, and its default batch is 1,024 rows: 1,024 Wikipedia articles made
# ~20 MB pages, and a reader holds a whole page (tokenize's encode of a 22 MB shard of long documents
# held 25 MB of Arrow memory for 128-row batches; 7 MB with 64-row write batches). 64 rows: a page
# ends within 64 documents of 1 MB, the files are 0.2% larger, and writing is no slower.
WRITE_BATCH_ROWS = 64
PARQUET_WRITE_OPTIONS = {"compression": "zstd", "write_batch_size": WRITE_BATCH_ROWS}


def read_table(path: Path, expected_sha256: str) -> pa.Table:
    data = read_verified(path, expected_sha256)
    try:
        return read_parquet(pa.BufferReader(data))
    except pa.ArrowException as e:
        raise CorpusError(f"{path}: unreadable parquet: {e}") from None


_MASKS = {"=": pc.equal, "==": pc.equal, "!=": pc.not_equal, "in": lambda c, v: pc.is_in(c, pa.array(v))}


def read_parquet(source, columns: Sequence[str] | None = None, filters: list[tuple] | None = None) -> pa.Table:
    """A Parquet file (path or buffer) as a table, through `pq.ParquetFile`, never `pq.read_table`: that
    one scans with pyarrow.dataset, whose threads can abort the interpreter at exit ("terminate called
    without an active exception", pyarrow 26: about one `corpus rejects` in three here) and whose import
    costs ~26 MB. Without Arrow's thread pool either (use_threads=False, as PartReader reads): a `corpus
    rejects` under load still aborted at exit once in a full test run with the pool's threads alive, and a
    stage worker is one of several processes on the machine already. `filters`: conjunctive (column, "=" |
    "!=" | "in", value) triples."""
    filters = filters or []
    wanted = None if columns is None else list(dict.fromkeys([*columns, *(f[0] for f in filters)]))
    table = pq.ParquetFile(source).read(columns=wanted, use_threads=False)
    if filters:
        mask = None
        for column, op, value in filters:
            m = _MASKS[op](table.column(column), value)
            mask = m if mask is None else pc.and_(mask, m)
        table = table.filter(mask)
    return table if columns is None else table.select(list(columns))


def rows_per_group(table: pa.Table) -> int:
    if table.num_rows == 0:
        return 1
    per_row = max(1, table.nbytes // table.num_rows)
    return max(1, min(table.num_rows, ROW_GROUP_BYTES // per_row))


def write_table(table: pa.Table, path: Path) -> dict:
    """Write a zstd Parquet file (fsynced) and return its manifest entry {name, sha256, rows, bytes}."""
    with naming_enospc(path, f"a part of {table.num_rows} rows ({table.nbytes:,} bytes before compression)"):
        pq.write_table(table, path, row_group_size=rows_per_group(table), **PARQUET_WRITE_OPTIONS)
        sha, size = hashlib.sha256(), 0
        with open(path, "rb") as f:  # hashed a block at a time: not a second copy of a part with a long document
            while block := f.read(1 << 20):
                sha.update(block)
                size += len(block)
            os.fsync(f.fileno())
    return {"name": path.name, "sha256": sha.hexdigest(), "rows": table.num_rows, "bytes": size}


class PartReader:
    """A published part streamed in record batches while its sha256 is computed: `schema` (checked with
    `validate_columns` before reading), then `batches()`, which checks the sha256 after the last batch."""

    def __init__(self, path: Path, expected_sha256: str, columns: Sequence[str] | None = None,
                 batch_rows: int | None = None):
        self.path, self.columns = path, list(columns) if columns else None
        self.batch_rows = batch_rows or BATCH_ROWS
        self._reader = VerifiedReader(path, expected_sha256)
        try:
            # the footer through a second handle, so the verified reader sees the file in order
            metadata = pq.read_metadata(path)
            self._pf = pq.ParquetFile(self._reader, metadata=metadata, buffer_size=READ_BUFFER,
                                       pre_buffer=PRE_BUFFER)
        except (pa.ArrowException, OSError) as e:
            self._unreadable(e)
        self.schema = self._pf.schema_arrow
        self.num_rows = self._pf.metadata.num_rows

    def _unreadable(self, e: Exception):
        err = self._reader.mismatch()  # a damaged file is reported as the mismatch it is
        self._reader.close()
        raise (err or CorpusError(f"{self.path}: unreadable parquet: {e}")) from None

    def close(self) -> None:
        """Give the file up unread (batches() closes it at its end)."""
        self._reader.close()

    def batches(self) -> Iterator[pa.RecordBatch]:
        try:
            try:
                yield from self._pf.iter_batches(batch_size=self.batch_rows, columns=self.columns,
                                                 use_threads=False)
            except (pa.ArrowException, OSError) as e:
                self._unreadable(e)
            self._reader.finish()
        finally:
            self._reader.close()


class PartWriter:
    """Writes a zstd Parquet part from record batches, a row group at a time (see the module docstring);
    `close()` fsyncs it and returns its manifest entry {name, sha256, rows, bytes}."""

    def __init__(self, path: Path, schema: pa.Schema):
        self.path, self.schema = path, schema
        self._writer: pq.ParquetWriter | None = None
        self._buffer: list[pa.RecordBatch] = []
        self._buffered = 0
        self.rows = 0

    def write(self, batch: pa.RecordBatch | pa.Table) -> None:
        batches = batch.to_batches() if isinstance(batch, pa.Table) else [batch]
        for b in batches:
            if b.num_rows:
                self._buffer.append(b)
                self._buffered += b.nbytes
                self.rows += b.num_rows
        if self._buffered >= ROW_GROUP_BYTES:
            self._flush()

    def _flush(self) -> None:
        # one contiguous table per row group: a chunked one would cut its pages elsewhere (other bytes)
        table = pa.Table.from_batches(self._buffer, schema=self.schema).combine_chunks()
        self._buffer, self._buffered = [], 0
        with naming_enospc(self.path, f"a row group of {table.num_rows} rows ({table.nbytes:,} bytes before compression)"):
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.path, self.schema, **PARQUET_WRITE_OPTIONS)
            self._writer.write_table(table, row_group_size=max(1, table.num_rows))

    def close(self) -> dict:
        if self._buffer or self._writer is None:  # an empty part is one empty row group, as write_table has it
            self._flush()
        with naming_enospc(self.path, "the end of the part"):
            self._writer.close()
            with open(self.path, "rb") as f:
                os.fsync(f.fileno())
        return {"name": self.path.name, "sha256": sha256_file(self.path), "rows": self.rows,
                "bytes": self.path.stat().st_size}


def validate_columns(table: pa.Table | pa.Schema, required: dict[str, pa.DataType], where: Path) -> None:
    schema = table if isinstance(table, pa.Schema) else table.schema
    for name, typ in required.items():
        if name not in schema.names:
            raise CorpusError(f"{where}: missing column '{name}'")
        if not schema.field(name).type.equals(typ):
            raise CorpusError(f"{where}: column '{name}' has type {schema.field(name).type}, expected {typ}")


def schema_of(columns: dict[str, pa.DataType]) -> pa.Schema:
    return pa.schema([(k, t) for k, t in columns.items()])


def fixed_binary_values(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A fixed_size_binary column without nulls (the shards' and spills' sha256s) as an (n, width) uint8
    array: a view of Arrow's buffer for one chunk, else their concatenation."""
    chunks = [c for c in (column.chunks if isinstance(column, pa.ChunkedArray) else [column]) if len(c)]
    width = column.type.byte_width
    parts = [np.frombuffer(c.buffers()[1], np.uint8)[c.offset * width:(c.offset + len(c)) * width] for c in chunks]
    return (parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0, np.uint8)).reshape(-1, width)


def utf8_digests(column: pa.ChunkedArray) -> np.ndarray:
    """(N, 32) uint8: the sha256 of each text's UTF-8 bytes, hashed from Arrow's own buffer (what
    t.encode("utf-8") gives, without that copy of every text: a long document's ~1x more memory)."""
    digests = []
    for chunk in column.chunks:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)) or chunk.null_count:
            digests += [hashlib.sha256(t.encode("utf-8")).digest() for t in chunk.to_pylist()]
            continue
        _, offsets, data = chunk.buffers()
        width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        bounds = np.frombuffer(offsets, dtype=width)[chunk.offset:chunk.offset + len(chunk) + 1].tolist()
        view = memoryview(data) if data is not None else memoryview(b"")
        digests += [hashlib.sha256(view[a:b]).digest() for a, b in zip(bounds[:-1], bounds[1:])]
    return np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32)
