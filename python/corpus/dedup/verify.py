"""Exact verification of near-duplicate candidates: the Jaccard of the two documents' shingle sets.

The shingle set of a document is the set of the 32-bit shingle hashes its MinHash signature is computed
from (minhash.shingle_hashes: word n-grams of the normalised text, poly_hash32 by default), so the exact
Jaccard here is precisely the quantity the signature estimates. Stored per document as its sorted,
distinct hashes: one flat uint32 array per part plus int64 offsets (N + 1), 4 B per distinct shingle
(about 4 B per word) + 8 B per document, written beside the signatures. Why stored, not re-shingled:
the global step never reads texts, "dedup against a published version" has no texts to re-shingle, and
bench/neardup_truth.py measures re-shingling the candidates' texts as the costlier option.

Hash collisions. Two distinct shingles with the same 32-bit hash only ever *raise* a Jaccard: a shingle
only in A and one only in B that collide count as shared, E = |A-B| |B-A| / 2**32 such pairs (0.02 for
two 10,000-shingle documents at Jaccard 0.8), and two distinct shingles of one document that collide
count once (E = n**2 / 2**33: 0.01 for n = 10,000). For documents under ~100k shingles the expected
error of the Jaccard is below 1e-5, three orders of magnitude below MinHash's standard deviation at 128
permutations (~0.035 at 0.8); bench/neardup_truth.py counts the pairs whose shared/union counts differ
from the exact string-set ones (none of 4-6k candidate and truth pairs on each of its 8-10k-document
sets). 64-bit hashes would make this ~2**-32 smaller at twice the disk: not worth it for a threshold
decision, and the signatures themselves see only 32 bits.

Pipeline of the global step with verification (near_duplicate_clusters does all of it):
    candidate_pair_batches -> edges_across_clusters -> verified_edges(edges, sets, threshold)
        -> unionfind.cluster_roots
where `sets` is a PartedShingleSets over the per-part files (memory-mapped; a batch of edges gathers
only its two endpoints' sets, a chunk of about _GATHER_CHUNK hashes at a time).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple, Protocol, Sequence

import numpy as np

from corpus.dedup.minhash import (DEFAULT_BUCKET_WINDOW, DEFAULT_NGRAM, MinHasher, ShingleHash, batches_by_size,
                      _TEXT_BATCH_CHARS, candidate_pair_batches, shingle_hashes)
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters

SETS_SUFFIX = ".sets.npy"  # flat uint32: every document's sorted distinct shingle hashes, end to end
OFFSETS_SUFFIX = ".setoffsets.npy"  # int64 (N + 1): document d's set is flat[offsets[d]:offsets[d + 1]]
_GATHER_CHUNK = 1 << 19  # hashes gathered per side at once: 2 x 512k x (4 B value + 8 B key + 8 B repeat) + sort buffer ~ 24 MB
_LOW32 = np.uint64(0xFFFFFFFF)


# ---------------------------------------------------------------------------------------------
# Building the sets


@dataclass(frozen=True)
class ShingleSets:
    """Sorted distinct shingle hashes of N documents: flat uint32 values, offsets int64 (N + 1,)."""

    flat: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def set_of(self, row: int) -> np.ndarray:
        return np.asarray(self.flat[self.offsets[row] : self.offsets[row + 1]])

    def sizes(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        return np.asarray(self.offsets[rows + 1]) - np.asarray(self.offsets[rows])

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The sets of `rows`, in that order, end to end (uint32), and their sizes (int64)."""
        rows = np.asarray(rows, dtype=np.int64)
        starts = np.asarray(self.offsets[rows])
        sizes = np.asarray(self.offsets[rows + 1]) - starts
        return np.asarray(self.flat[_ranges(starts, sizes)], dtype=np.uint32), sizes

    def take(self, rows: np.ndarray) -> "ShingleSets":
        """The sets of `rows`, in that order, as sets of their own."""
        flat, sizes = self.gather(rows)
        return ShingleSets(flat, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64))

    def save(self, prefix: Path | str) -> tuple[Path, Path]:
        """Write `<prefix>.sets.npy` and `<prefix>.setoffsets.npy` (e.g. prefix = work / part key)."""
        sets_path, offsets_path = Path(f"{prefix}{SETS_SUFFIX}"), Path(f"{prefix}{OFFSETS_SUFFIX}")
        np.save(sets_path, np.ascontiguousarray(self.flat, dtype=np.uint32))
        np.save(offsets_path, np.ascontiguousarray(self.offsets, dtype=np.int64))
        return sets_path, offsets_path

    @classmethod
    def load(cls, prefix: Path | str, *, mmap: bool = True) -> "ShingleSets":
        mode = "r" if mmap else None
        return cls(np.load(f"{prefix}{SETS_SUFFIX}", mmap_mode=mode), np.load(f"{prefix}{OFFSETS_SUFFIX}", mmap_mode=mode))

    @classmethod
    def concatenate(cls, parts: Sequence["ShingleSets"]) -> "ShingleSets":
        if not parts:
            return cls(np.zeros(0, dtype=np.uint32), np.zeros(1, dtype=np.int64))
        sizes = np.concatenate([np.diff(np.asarray(p.offsets)) for p in parts])
        return cls(np.concatenate([np.asarray(p.flat, dtype=np.uint32) for p in parts]), _offsets(sizes))


def sets_from_hashes(hashes: np.ndarray, shingle_counts: np.ndarray) -> ShingleSets:
    """Each document's sorted distinct hashes from shingle_hashes' output (all documents end to end).

    One sort of (document << 32 | hash) keys: the documents stay in order and equal hashes are adjacent.
    """
    counts = np.asarray(shingle_counts, dtype=np.int64)
    if len(counts) == 1:  # one (long) document alone: sorted distinct hashes, without 8-byte keys
        flat = np.unique(np.asarray(hashes, dtype=np.uint32))
        return ShingleSets(flat, _offsets(np.array([len(flat)], dtype=np.int64)))
    doc = np.repeat(np.arange(len(counts), dtype=np.uint64), counts)
    keys = np.sort((doc << np.uint64(32)) | np.asarray(hashes, dtype=np.uint32).astype(np.uint64))
    distinct = np.ones(len(keys), dtype=bool)
    distinct[1:] = keys[1:] != keys[:-1]
    keys = keys[distinct]
    sizes = np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=len(counts))
    return ShingleSets((keys & _LOW32).astype(np.uint32), _offsets(sizes))


def shingle_sets(texts: Sequence[str], ngram: int = DEFAULT_NGRAM, *,
                 shingle_hash: ShingleHash = "poly64") -> ShingleSets:
    """Sorted distinct 32-bit shingle hashes of every text (the hashes MinHasher(ngram=ngram) uses)."""
    parts = [sets_from_hashes(*shingle_hashes(texts[a:b], ngram, shingle_hash))
             for a, b in batches_by_size(texts, _TEXT_BATCH_CHARS)]
    return ShingleSets.concatenate(parts)


def signatures_and_sets(hasher: MinHasher, texts: Sequence[str], each_batch=None) -> tuple[np.ndarray, ShingleSets]:
    """hasher.signatures(texts) and shingle_sets(texts, hasher.ngram) from one shingling pass
    (each_batch: as MinHasher.shingled).

    What a per-part worker calls: save the signatures as today and the sets with ShingleSets.save.
    """
    sigs = np.empty((len(texts), hasher.num_perm), dtype=hasher.dtype)
    parts = []
    for a, hashes, counts in hasher.shingled(texts, each_batch):
        sigs[a:a + len(counts)] = hasher.signatures_of_hashes(hashes, counts)
        parts.append(sets_from_hashes(hashes, counts))
    return sigs, ShingleSets.concatenate(parts)


# ---------------------------------------------------------------------------------------------
# Sets addressed by row index across parts


class SetRows(Protocol):
    def sizes(self, rows: np.ndarray) -> np.ndarray: ...
    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class PartedShingleSets:
    """Shingle sets of per-part files (memory-mapped, never loaded whole), addressed by row index.

    Same addressing as stages/dedup.PartedRows: by_rank[row index] = position in concatenated part
    order, part p holding positions offsets[p] .. offsets[p + 1] - 1. `prefixes` are the part files'
    common prefix (work / key): `<prefix>.sets.npy` and `<prefix>.setoffsets.npy`. Resident memory is
    the pages touched; nothing per document is held beyond the caller's by_rank.
    """

    def __init__(self, prefixes: Sequence[Path | str], by_rank: np.ndarray | None, offsets: np.ndarray):
        self.parts = _LazyParts(prefixes, np.asarray(offsets, dtype=np.int64))
        self.by_rank = None if by_rank is None else np.asarray(by_rank, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)

    def _locate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64)
        position = rows if self.by_rank is None else self.by_rank[rows]
        part = np.searchsorted(self.offsets, position, side="right") - 1
        return part, position - self.offsets[part]

    def sizes(self, rows: np.ndarray) -> np.ndarray:
        part, local = self._locate(rows)
        sizes = np.empty(len(local), dtype=np.int64)
        for p in sorted(set(part.tolist())):
            mask = part == p
            sizes[mask] = self.parts[p].sizes(local[mask])
        return sizes

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        part, local = self._locate(rows)
        starts = np.empty(len(local), dtype=np.int64)
        sizes = np.empty(len(local), dtype=np.int64)
        for p in sorted(set(part.tolist())):
            mask = part == p
            offsets = self.parts[p].offsets
            starts[mask] = offsets[local[mask]]
            sizes[mask] = np.asarray(offsets[local[mask] + 1]) - starts[mask]
        out = np.empty(int(sizes.sum()), dtype=np.uint32)
        out_starts = np.cumsum(sizes) - sizes
        for p in sorted(set(part.tolist())):
            mask = part == p
            out[_ranges(out_starts[mask], sizes[mask])] = self.parts[p].flat[_ranges(starts[mask], sizes[mask])]
        return out, sizes


class _LazyParts:
    """The parts' ShingleSets, each memory-mapped on first use (a task touching a few parts maps, and
    opens, only those: checking every part up front made each of P tasks open P files), its set count
    checked against the offsets as it is mapped."""

    def __init__(self, prefixes: Sequence[Path | str], offsets: np.ndarray):
        self.prefixes, self.offsets, self.open = list(prefixes), offsets, {}

    def __getitem__(self, i: int) -> ShingleSets:
        if i not in self.open:
            sets = ShingleSets.load(self.prefixes[i])
            expected = self.offsets[i + 1] - self.offsets[i]
            if len(sets) != expected:
                raise ValueError(f"{self.prefixes[i]}: {len(sets)} sets, expected {expected}")
            self.open[i] = sets
        return self.open[i]


# ---------------------------------------------------------------------------------------------
# Exact Jaccard of pairs


def exact_overlaps(pairs: np.ndarray, sets: SetRows, other: SetRows | None = None) -> tuple[np.ndarray, np.ndarray]:
    """int64 (E,) shared shingle count and union size of every pair (i, j) of row indices.

    i indexes `sets`, j indexes `other` (default `sets`): with `other` = a published version's sets,
    new documents are verified against old ones without their texts. Gathers a chunk of pairs' sets at a time (~_GATHER_CHUNK hashes per side, or one pair's sets) and
    counts the shared hashes with one merge (_shared_counts).
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    shared = np.zeros(len(pairs), dtype=np.int64)
    if len(pairs) == 0:
        return shared, np.zeros(0, dtype=np.int64)
    other = sets if other is None else other
    size_a, size_b = sets.sizes(pairs[:, 0]), other.sizes(pairs[:, 1])
    union = size_a + size_b
    cost = np.cumsum(np.maximum(size_a, size_b))
    start = 0
    while start < len(pairs):
        done = int(cost[start - 1]) if start else 0
        stop = max(int(np.searchsorted(cost, done + _GATHER_CHUNK, side="right")), start + 1)
        chunk = pairs[start:stop]
        flat_a, len_a = sets.gather(chunk[:, 0])
        flat_b, len_b = other.gather(chunk[:, 1])
        shared[start:stop] = _shared_counts(flat_a, len_a, flat_b, len_b)
        start = stop
    union -= shared
    return shared, union


def _shared_counts(flat_a: np.ndarray, len_a: np.ndarray, flat_b: np.ndarray, len_b: np.ndarray) -> np.ndarray:
    """|A_p & B_p| for pairs p of sorted distinct sets laid end to end (flat_*, len_*).

    Keys (p << 32 | hash) make each side one sorted run; a stable sort of the two runs is a linear
    merge (2x faster than searchsorted here), and as each set is distinct, an equal neighbour is a
    hash shared by A_p and B_p.
    """
    count = len(len_a)
    pair_high = np.arange(count, dtype=np.uint64) << np.uint64(32)
    keys = np.empty(len(flat_a) + len(flat_b), dtype=np.uint64)
    a_keys, b_keys = keys[: len(flat_a)], keys[len(flat_a) :]
    a_keys[:] = np.repeat(pair_high, len_a)
    a_keys |= flat_a
    b_keys[:] = np.repeat(pair_high, len_b)
    b_keys |= flat_b
    keys.sort(kind="stable")
    shared = keys[1:][keys[1:] == keys[:-1]]
    return np.bincount((shared >> np.uint64(32)).astype(np.int64), minlength=count)


def exact_jaccard(pairs: np.ndarray, sets: SetRows, other: SetRows | None = None) -> np.ndarray:
    """float64 (E,) exact Jaccard |A & B| / |A | B| of every pair (j in `other` if given); 0.0 when
    either set is empty (empty documents never duplicate anything, as with estimated_jaccards)."""
    shared, union = exact_overlaps(pairs, sets, other)
    return _jaccard(shared, union)[0]


def _jaccard(shared: np.ndarray, union: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Jaccard per pair and whether both sets are non-empty (an empty set makes union == shared == 0
    only if both are empty, so emptiness of either is read from union - shared and the sizes)."""
    result = np.zeros(len(shared), dtype=np.float64)
    nonempty = shared > 0  # a pair sharing a shingle has two non-empty sets
    result[nonempty] = shared[nonempty] / union[nonempty]
    return result, nonempty


def verified_edges(edges: np.ndarray, sets: SetRows, threshold: float = 0.8, *,
                   with_overlap: bool = False, other: SetRows | None = None):
    """The edges whose exact Jaccard is >= threshold (order kept): the exact form of minhash.confirmed_edges.

    Pairs sharing no shingle are never kept, even at threshold 0 (so an empty document matches nothing).
    with_overlap=True also returns the kept edges' shared counts and union sizes (int64), which are what
    `corpus why` reports (Jaccard = shared / union). other: as in exact_overlaps (edges' j in it).
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    shared, union = exact_overlaps(edges, sets, other)
    jaccard, overlapping = _jaccard(shared, union)
    keep = overlapping & (jaccard >= threshold)
    if with_overlap:
        return edges[keep], shared[keep], union[keep]
    return edges[keep]


# ---------------------------------------------------------------------------------------------
# The near-duplicate step of the global step


class ConfirmedEdges(NamedTuple):
    """The verified edges that built the clusters (each joined two clusters when it was verified):
    edges (E, 2) int64 row indices (i < j), shared and union int64 shingle counts (Jaccard = shared / union).
    E < n + (edges verified together in one batch): at most ~n, and ~the duplicate count in practice."""

    edges: np.ndarray
    shared: np.ndarray
    union: np.ndarray


def near_duplicate_clusters(n: int, keys_of_band: Callable[[int], np.ndarray], bands: int, sets: SetRows,
                            threshold: float, *, window: int = DEFAULT_BUCKET_WINDOW) -> tuple[np.ndarray, ConfirmedEdges]:
    """Cluster root (smallest row index of its cluster) of every row index, and the edges that made them.

    stage 04's near_roots with exact verification: one band at a time (keys_of_band(band) -> (n,) uint64
    keys indexed by row index), one bucket offset at a time (candidate_pair_batches); only edges joining
    two clusters are verified (verified_edges), then merged (cluster_roots). The confirmed edges are
    what `corpus why` needs: a near-dropped document's own edge (its partner, shared count, union) even
    when its kept root is only reached through a chain. Holds: roots (8 B/doc), one band's keys (the
    caller's), one batch of edges, and the confirmed edges (32 B each).
    """
    roots = np.arange(n, dtype=np.int64)
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for band in range(bands if n else 0):
        for edges in candidate_pair_batches(keys_of_band(band), None, window=window):
            edges, shared, union = verified_edges(edges_across_clusters(edges, roots), sets, threshold,
                                                  with_overlap=True)
            if len(edges):
                kept.append((edges, shared, union))
                roots = cluster_roots(n, edges, roots=roots)
    if not kept:
        empty = np.zeros(0, dtype=np.int64)
        return roots, ConfirmedEdges(np.zeros((0, 2), dtype=np.int64), empty, empty.copy())
    return roots, ConfirmedEdges(*(np.concatenate(column) for column in zip(*kept)))


# ---------------------------------------------------------------------------------------------


def _offsets(sizes: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """int64 concatenation of arange(s, s + n) for every (s, n), vectorised."""
    starts, sizes = np.asarray(starts, dtype=np.int64), np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(sizes)
    step = np.ones(total, dtype=np.int64)
    nonzero = sizes > 0
    first = (ends - sizes)[nonzero]  # output position of each non-empty range's first element
    # At a range's first element, jump from the previous range's last value to this range's start.
    prev_last = np.concatenate(([0], (starts + sizes - 1)[nonzero][:-1]))
    step[first] = starts[nonzero] - prev_last
    step[0] = starts[nonzero][0]
    return np.cumsum(step)
