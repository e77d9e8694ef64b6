"""The map units of dedup's connected-components rounds (corpus.dedup.components) over work files.

Round 0 is written by the near units (corpus.dedup.buckets); odd rounds are large-star, even rounds
small-star. Unit r of round t reads partition r of each file of round t - 1 and writes its output
grouped by partition for round t + 1; a large-star unit also reports whether its input already was
stars around their minima, and then writes its labels (leaf row, smallest row of its component)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.dedup.buckets import save, save_grouped
from corpus.dedup.components import large_star, read_slices, small_star
from corpus.dedup.minhash import first_of_runs

# Large-star/small-star needs O(log n) rounds in practice (Kiveris et al. prove O(log^2 n)); a run that
# gets here has a bug, never a large input.
MAX_ROUNDS = 201


@dataclass(frozen=True)
class RoundUnit:
    key: str
    t: int
    r: int
    p: int
    prev: tuple[Path, ...]     # the previous round's file prefixes (one per unit)
    out: Path                  # this unit's file prefix
    staging: Path


def _files(u: RoundUnit) -> list[tuple[Path, Path]]:
    return [(x.with_name(x.name + ".npy"), x.with_name(x.name + ".off.npy")) for x in u.prev]


def large_star_round(u: RoundUnit) -> dict:
    (records, off), stars, labels = large_star(read_slices(_files(u), u.r), u.p)
    u.out.parent.mkdir(parents=True, exist_ok=True)
    work = save_grouped(u.out, records, off, u.staging)
    if stars:  # only read if every partition's input was stars: then these are the labels
        work.append(save(u.out.with_name(u.out.name + ".labels.npy"), labels, u.staging))
    centres = np.sort(labels["v"])  # sorted, not np.unique: that imports numpy.ma on first use (~1 MB)
    clusters = int(np.count_nonzero(first_of_runs(centres))) if stars else 0
    return {"key": u.key, "work": work, "stars": stars, "clusters": clusters}


def small_star_round(u: RoundUnit) -> dict:
    records, off = small_star(read_slices(_files(u), u.r), u.p)
    u.out.parent.mkdir(parents=True, exist_ok=True)
    return {"key": u.key, "work": save_grouped(u.out, records, off, u.staging)}
