"""Reading and writing the Parquet parts of stages 02–05, each read checked against its manifest sha256."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .atomic import naming_enospc
from .checksums import read_verified
from .errors import CorpusError

ROW_GROUP_BYTES = 64 << 20  # row groups of at most 64 MiB (the shard contract in the README)


def read_table(path: Path, expected_sha256: str) -> pa.Table:
    data = read_verified(path, expected_sha256)
    try:
        return pq.read_table(pa.BufferReader(data))
    except pa.ArrowException as e:
        raise CorpusError(f"{path}: unreadable parquet: {e}") from None


def rows_per_group(table: pa.Table) -> int:
    if table.num_rows == 0:
        return 1
    per_row = max(1, table.nbytes // table.num_rows)
    return max(1, min(table.num_rows, ROW_GROUP_BYTES // per_row))


def write_table(table: pa.Table, path: Path) -> dict:
    """Write a zstd Parquet file (fsynced) and return its manifest entry {name, sha256, rows, bytes}."""
    with naming_enospc(path, f"a part of {table.num_rows} rows ({table.nbytes:,} bytes before compression)"):
        pq.write_table(table, path, compression="zstd", row_group_size=rows_per_group(table))
        with open(path, "rb") as f:
            data = f.read()
            os.fsync(f.fileno())
    return {"name": path.name, "sha256": hashlib.sha256(data).hexdigest(), "rows": table.num_rows,
            "bytes": len(data)}


def validate_columns(table: pa.Table, required: dict[str, pa.DataType], where: Path) -> None:
    for name, typ in required.items():
        if name not in table.column_names:
            raise CorpusError(f"{where}: missing column '{name}'")
        if not table.schema.field(name).type.equals(typ):
            raise CorpusError(f"{where}: column '{name}' has type {table.schema.field(name).type}, expected {typ}")
