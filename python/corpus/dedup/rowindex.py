"""Row indices of the dedup input, partitioned: a document's row index is its position in id (byte)
order over all parts, found as the shard stage finds its global order (corpus.stages.shard: `sample`
per part -> P-1 `splitters` -> `rank` per id range -> prefix sum of the range sizes).

A range unit writes, for its 1/P of the ids, three work files addressed without any per-document
array in the driver:
  <out>.npy / <out>.off.npy   [local row, rank in range] grouped by part (off: where each part starts),
                              read by each part's keys unit to learn its rows' row indices;
  <out>.pos.npy               by rank: the document's position in concatenated part order (int64),
                              how any task finds a row's digest, shingle set or part;
  <out>.ids.arrow             by rank: the ids (Arrow IPC, memory-mapped by readers), how an apply
                              unit names the document a drop duplicates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from corpus.engine.partitioning import range_ids, work_entry


@dataclass(frozen=True)
class RangeUnit:
    key: str
    lo: str | None          # the range is [lo, hi) in byte order; None = unbounded
    hi: str | None
    parts: tuple[tuple[Path, int], ...]   # (path, rows) of every input part
    out: Path
    staging: Path


def suffixed(prefix: Path, suffix: str) -> Path:
    return prefix.with_name(prefix.name + suffix)


def rank_range(u: RangeUnit) -> dict:
    all_ids, rows, offsets = range_ids(u.parts, u.lo, u.hi)
    bases = np.cumsum([0] + [n for _, n in u.parts[:-1]], dtype=np.int64)  # each part's first position
    pos = [picked + base for picked, base in zip(rows, bases)]
    order = pc.sort_indices(all_ids).to_numpy()  # stable: equal ids keep part order, as the one-piece sort
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    table = np.stack([np.concatenate(rows) if rows else np.zeros(0, np.int64), rank], axis=1)
    u.out.parent.mkdir(parents=True, exist_ok=True)
    files = {".npy": table, ".off.npy": np.asarray(offsets, dtype=np.int64),
             ".pos.npy": (np.concatenate(pos) if pos else np.zeros(0, np.int64))[order]}
    work = []
    for suffix, array in files.items():
        np.save(suffixed(u.out, suffix), array)
        work.append(work_entry(suffixed(u.out, suffix), u.staging))
    sorted_ids = all_ids.take(pa.array(order))
    del all_ids
    with pa.OSFile(str(suffixed(u.out, ".ids.arrow")), "wb") as f, \
            ipc.new_file(f, pa.schema([("id", pa.string())])) as w:
        w.write_table(pa.table({"id": sorted_ids}))
    work.append(work_entry(suffixed(u.out, ".ids.arrow"), u.staging))
    return {"key": u.key, "docs": len(order), "work": work}


def own_rows(index: int, ranges: tuple[tuple[Path, int], ...], rows: int, where: str) -> np.ndarray:
    """The row index of each row of part `index`: range base + rank in the range (shard's destinations)."""
    out = np.full(rows, -1, dtype=np.int64)
    for prefix, base in ranges:
        off = np.load(suffixed(prefix, ".off.npy"))
        a, b = int(off[index]), int(off[index + 1])
        if b > a:
            table = np.load(suffixed(prefix, ".npy"), mmap_mode="r")[a:b]
            out[table[:, 0]] = base + table[:, 1]
    if rows and out.min() < 0:
        raise AssertionError(f"{where}: {int((out < 0).sum())} rows in no id range")
    return out


class RowLookup:
    """Position (concatenated part order) and id of any row index, read from the range files: memory-
    mapped, so a task touches only the pages of the rows it asks for."""

    def __init__(self, ranges: tuple[tuple[Path, int], ...]):
        self.prefixes = [p for p, _ in ranges]
        self.bases = np.asarray([b for _, b in ranges], dtype=np.int64)

    def _split(self, rows: np.ndarray):
        rows = np.asarray(rows, dtype=np.int64)
        which = np.searchsorted(self.bases, rows, side="right") - 1
        for j in sorted(set(which.tolist())):
            mask = which == j
            yield j, mask, rows[mask] - self.bases[j]

    def positions(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(len(rows), dtype=np.int64)
        for j, mask, local in self._split(rows):
            out[mask] = np.load(suffixed(self.prefixes[j], ".pos.npy"), mmap_mode="r")[local]
        return out

    def ids(self, rows: np.ndarray) -> list[str]:
        out: list = [None] * len(rows)
        for j, mask, local in self._split(rows):
            got = _ids_file(str(suffixed(self.prefixes[j], ".ids.arrow"))).take(pa.array(local)).to_pylist()
            for i, v in zip(np.flatnonzero(mask).tolist(), got):
                out[i] = v
        return out


def _ids_file(path: str) -> pa.ChunkedArray:
    return ipc.open_file(pa.memory_map(path)).read_all().column("id")  # zero-copy: only taken pages are read
