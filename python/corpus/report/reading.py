"""Checked reads for the report: stage manifests (schema, parts present) and parts (sha256 on read)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from corpus.config import Config
from corpus.errors import CorpusError
from corpus.store.checksums import read_verified
from corpus.config.layout import STAGE_FILE
from corpus.formats.parts import read_parquet, read_table
from corpus.engine.runner import published_stage


def stage_manifest(config: Config, dirname: str) -> dict:
    d = config.stage_dir(dirname)
    if not (d / STAGE_FILE).is_file():
        raise CorpusError(f"{d}: no published stage output (run `corpus run` first)")
    return published_stage(config, d, dirname.split("-", 1)[-1], verify="size")[0]


def parts_of(manifest: dict, prefix: str = "part-") -> list[dict]:
    return [p for p in manifest["parts"] if p["name"].startswith(prefix)]


def read_part(config: Config, dirname: str, part: dict, columns: list[str] | None = None) -> pa.Table:
    path = config.stage_dir(dirname) / part["name"]
    table = read_table(path, part["sha256"])
    return table.select(columns) if columns else table


def read_shard(config: Config, shard: dict, columns: list[str] | None = None, verify: bool = True) -> pa.Table:
    path = config.dataset_dir / shard["name"]
    if not path.is_file():
        raise CorpusError(f"{path}: shard listed in _MANIFEST.json is missing")
    if not verify:  # only these columns' chunks (see scan.read_columns)
        return read_parquet(path, columns=columns)
    return read_parquet(pa.BufferReader(read_verified(path, shard["sha256"])), columns=columns)


def within(parts: list[dict], budget) -> bool:
    """Whether parts (with their `bytes`) fit the budget, so the report reads and checks them whole."""
    return sum(p.get("bytes", 0) for p in parts) <= budget.part_bytes


def load_json_file(path: Path, what: str) -> dict:
    if not path.is_file():
        raise CorpusError(f"{path}: no {what} (run `corpus run` first)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}:{e.lineno}: invalid JSON: {e.msg}") from None


def with_length(table: pa.Table) -> pa.Table:
    """The table with `n_chars` = len(text) (code points, as everywhere in corpus)."""
    if "n_chars" in table.column_names:
        return table
    return table.append_column("n_chars", pc.utf8_length(table.column("text")).cast(pa.int64()))


def group_counts(table: pa.Table, keys: list[str]) -> dict[tuple, tuple[int, int]]:
    """{(key values): (documents, characters)} of a table with an n_chars column."""
    if table.num_rows == 0:
        return {}
    g = table.select([*keys, "n_chars"]).group_by(keys).aggregate([("n_chars", "count"), ("n_chars", "sum")])
    cols = [g.column(k).to_pylist() for k in keys]
    return {tuple(c[i] for c in cols): (n, s) for i, (n, s) in
            enumerate(zip(g.column("n_chars_count").to_pylist(), g.column("n_chars_sum").to_pylist()))}


def add_counts(total: dict, add: dict) -> None:
    for k, (n, c) in add.items():
        a, b = total.get(k, (0, 0))
        total[k] = (a + n, b + c)
