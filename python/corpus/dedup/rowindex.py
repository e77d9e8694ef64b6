"""Row indices of the dedup input: a document's row index is its rank in the id sort
(corpus.engine.idsort, run with `by_rank`), read here from its range files without any per-document
array in the driver:
  <out>.npy / <out>.off.npy   each part's rows and their ranks: `own_rows`, how a keys unit learns its
                              rows' row indices;
  <out>.pos.npy               by rank: the document's position in concatenated part order, how any task
                              finds a row's digest, shingle set or part;
  <out>.ids.arrow             by rank: the ids, how an apply unit names the document a drop duplicates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from corpus.engine.idsort import part_ranks as own_rows, suffixed  # noqa: F401 (own_rows: for the keys units)


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
