"""Grouped work files: records ordered by destination (a partition, a band) with an offsets array, so a
task reads its group of every file with one positioned read."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def grouped(dest: np.ndarray, records: np.ndarray, n_dest: int) -> tuple[np.ndarray, np.ndarray]:
    """Records ordered by destination (stably), and offsets (n_dest + 1): dest d is [off[d], off[d+1])."""
    order = np.argsort(dest, kind="stable")
    off = np.zeros(n_dest + 1, dtype=np.int64)
    np.cumsum(np.bincount(dest, minlength=n_dest), out=off[1:])
    return records[order], off


class Grouped:
    """A grouped work file (records + offsets): group g is records[off[g]:off[g + 1]]. A group is read
    with one positioned read into fresh memory, never through a memory map: mapped pages would stay in
    the task's RSS until the map goes, and a task reads a slice of every part's file."""

    def __init__(self, prefix: Path):
        self.path = prefix.with_name(prefix.name + ".npy")
        self.off = np.load(prefix.with_name(prefix.name + ".off.npy"))
        self._layout = None

    def __getitem__(self, group: int) -> np.ndarray | None:
        a, b = int(self.off[group]), int(self.off[group + 1])
        if b <= a:
            return None
        with open(self.path, "rb") as f:
            if self._layout is None:
                major, _ = np.lib.format.read_magic(f)
                read = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
                shape, fortran, dtype = read(f)
                self._layout = (f.tell(), dtype)
            start, dtype = self._layout
            f.seek(start + a * dtype.itemsize)
            return np.fromfile(f, dtype=dtype, count=b - a)


def slice_of(prefix: Path, group: int) -> np.ndarray | None:
    """Group `group` of a grouped file."""
    return Grouped(prefix)[group]
