"""The published token parts: where each split's planned order is cut into parts (the budgets and
`max_tokens_per_file`, over the partitions' plan files: tokens.plan), and each part written by moving its
documents' token bytes from the encoded work files in that order, never encoding again."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from corpus.config.layout import WORK_DIR
from corpus.errors import CorpusError
from corpus.formats.megatron import MegatronWriter, manifest_file_entry
from corpus.tokens.plan import Cumulative, budget_end, cut_parts

WRITE_CHUNK_BYTES = 4 << 20  # write_part hands its writer this many bytes of documents at a time


@dataclass(frozen=True)
class PartUnit:
    key: str                # "<split>/part-<nnnnn>"
    slices: tuple[tuple[str, int, int], ...]   # (partition plan file, first row, end row): the part's documents
    shard_keys: tuple[str, ...]
    split: str
    dtype: str
    stage_dir: Path


def split_part_units(split: str, work: Path, plans: list[tuple[str, dict]], budgets: dict,
                     shard_keys: tuple[str, ...], dtype: str, stage_dir: Path) -> list[PartUnit]:
    """The parts of a split, from its partitions' (plan file, order result) in partition order: the
    planned documents the budgets keep (train only), cut at `max_tokens_per_file` on document boundaries."""
    files = [name for name, _ in plans]
    c = Cumulative([r["docs"] for _, r in plans], [r["tokens"] for _, r in plans], _cumulative_tokens(work, files))
    end = budget_end(c, budgets["max_documents"], budgets["train_tokens"]) if split == "train" else c.n
    return [PartUnit(f"{split}/part-{i:05d}", part_slices(c, files, first, last), shard_keys, split, dtype, stage_dir)
            for i, (first, last) in enumerate(cut_parts(c, end, budgets["max_tokens_per_file"]))]


def _cumulative_tokens(work: Path, files: list[str]) -> Callable[[int], np.ndarray]:
    """Cumulative's cum(p): partition p's cumulative tokens, memory-mapped from its plan file once."""
    @functools.cache
    def cum(p: int) -> np.ndarray:
        return np.load(work / files[p], mmap_mode="r")[:, 3]
    return cum


def part_slices(c: Cumulative, files: list[str], first: int, last: int) -> tuple[tuple[str, int, int], ...]:
    """The (plan file, first row, end row) slices of the partitions that hold planned documents [first, last)."""
    out = []
    for p, name in enumerate(files):
        a, b = max(first, c.doc_base[p]), min(last, c.doc_base[p + 1])
        if a < b:
            out.append((name, a - c.doc_base[p], b - c.doc_base[p]))
    return tuple(out)


def write_part(u: PartUnit) -> dict:
    """Move the part's documents' token bytes from the work files, in the planned (shuffled) order."""
    dtype = np.dtype(u.dtype)
    by_source: dict[int, list[int]] = {}
    prefix = u.stage_dir / u.key
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with _TokenFiles(u.stage_dir / WORK_DIR, u.shard_keys, u.split, dtype.itemsize) as tokens, \
            MegatronWriter(prefix, dtype) as w:
        for name, first, end in u.slices:
            plan_rows = np.load(u.stage_dir / WORK_DIR / name, mmap_mode="r")
            rows = np.array(plan_rows[first:end, :3])
            if plan_rows.shape[1] > 4:  # mixed: tokens and documents per source
                _count_sources(by_source, np.array(plan_rows[first:end, 4]), rows[:, 2])
            _copy_documents(w, tokens, rows)
    return _part_result(u, prefix, by_source)


class _TokenFiles:
    """The shards' token work files of a split, each opened when first read. pread, not a memory map: a
    map keeps every page it touched resident (with the kernel's fault-around, ~64 KB per scattered
    document) until the part is done, and this runs in the driver."""

    def __init__(self, work: Path, shard_keys: tuple[str, ...], split: str, itemsize: int):
        self.work, self.shard_keys, self.split, self.itemsize = work, shard_keys, split, itemsize
        self.fds: dict[int, int] = {}

    def __enter__(self) -> _TokenFiles:
        return self

    def __exit__(self, *exc) -> None:
        for fd in self.fds.values():
            os.close(fd)

    def read(self, shard: int, offset: int, n: int) -> bytes:
        """The bytes of `n` tokens from token `offset` of the shard's file."""
        if shard not in self.fds:
            self.fds[shard] = os.open(self.work / f"{self.shard_keys[shard]}.{self.split}.bin", os.O_RDONLY)
        data = os.pread(self.fds[shard], n * self.itemsize, offset * self.itemsize)
        if len(data) != n * self.itemsize:
            raise CorpusError(f"{self.shard_keys[shard]}.{self.split}.bin: short read at token {offset}")
        return data


def _copy_documents(w: MegatronWriter, tokens: _TokenFiles, rows: np.ndarray) -> None:
    """The documents of plan rows [shard, token offset, length] written in order, their bytes gathered
    WRITE_CHUNK_BYTES at a time, then written with their lengths at once."""
    chunk, start, nbytes = [], 0, 0
    for i, (s, a, n) in enumerate(rows.tolist()):
        data = tokens.read(s, a, n)
        chunk.append(data)
        nbytes += len(data)
        if nbytes >= WRITE_CHUNK_BYTES:
            w.add_raw_documents(b"".join(chunk), rows[start:i + 1, 2])
            chunk, start, nbytes = [], i + 1, 0
    if chunk:
        w.add_raw_documents(b"".join(chunk), rows[start:, 2])


def _count_sources(by_source: dict[int, list[int]], sources: np.ndarray, lengths: np.ndarray) -> None:
    """Add each document to its source's [documents, tokens]."""
    for src, n in zip(sources.tolist(), lengths.tolist()):
        c = by_source.setdefault(src, [0, 0])
        c[0], c[1] = c[0] + 1, c[1] + n


def _part_result(u: PartUnit, prefix: Path, by_source: dict[int, list[int]]) -> dict:
    """The unit's result: the manifest's file entry, the part's .bin and .idx, and (mixed) its sources."""
    entry = manifest_file_entry(prefix, u.stage_dir)
    return {"key": u.key, "entry": entry, **({"by_source": {str(k): v for k, v in sorted(by_source.items())}}
                                             if by_source else {}),
            "parts": [{"name": entry["bin"], "sha256": entry["bin_sha256"], "rows": entry["docs"],
                       "bytes": entry["bin_bytes"]},
                      {"name": entry["idx"], "sha256": entry["idx_sha256"], "rows": entry["docs"],
                       "bytes": (u.stage_dir / entry["idx"]).stat().st_size}]}
