"""The dedup global step, on compact arrays: it never holds texts.

Inputs are per-part .npy files (sha256 digests, MinHash signatures, band keys) memmapped and addressed
by *row index* — a document's position in id (byte) order over the dedup input. Exact duplicates come
from sorting an 8-byte digest prefix; near duplicates from sorting one band's keys at a time, confirmed
by the exact Jaccard of the two documents' shingle-hash sets (corpus.dedup.verify; or, with
verify = "estimate", by the MinHash estimate) and merged by union-find (`minhash_cluster` = the smallest
row index of the cluster). First reason wins: decontam, then exact, then near (mode "drop"). For every
exact or near drop the exact Jaccard with the document it duplicates and their shared shingle count are
kept, so `corpus why` can show them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .minhash import candidate_pair_batches, confirmed_edges
from .unionfind import cluster_roots, edges_across_clusters
from .published import PublishedIndex, exact_matches, near_matches
from .verify import PartedShingleSets, exact_overlaps, near_duplicate_clusters

KEEP, DECONTAM, EXACT, NEAR = 0, 1, 2, 3  # decision codes: one byte per document
REASON_NAMES = {DECONTAM: "decontam", EXACT: "exact", NEAR: "near"}


class PartedRows:
    """Rows of per-part .npy files (memmapped, never loaded whole), addressed by row index."""

    def __init__(self, paths: list[Path], by_rank: np.ndarray, offsets: np.ndarray):
        self.arrays = [np.load(p, mmap_mode="r") for p in paths]
        self.by_rank, self.offsets = by_rank, offsets

    def __getitem__(self, ranks) -> np.ndarray:
        g = self.by_rank[np.asarray(ranks, dtype=np.int64)]
        part = np.searchsorted(self.offsets, g, side="right") - 1
        out = np.empty((len(g),) + self.arrays[0].shape[1:], dtype=self.arrays[0].dtype)
        for p in sorted(set(part.tolist())):
            m = part == p
            out[m] = self.arrays[p][g[m] - self.offsets[p]]
        return out


def row_ranks(paths: list[Path]) -> tuple[np.ndarray, pa.Array]:
    """Row index in id order (byte order) of every document, in concatenated part order; and the ids."""
    ids = pa.concat_arrays([pq.read_table(p, columns=["id"]).column("id").combine_chunks() for p in paths]) \
        if paths else pa.array([], pa.string())
    order = pc.sort_indices(ids).to_numpy()
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids), dtype=np.int64)
    return rank, ids


def exact_keepers(prefix_by_rank: np.ndarray, digests: PartedRows) -> np.ndarray:
    """For each row index, the row index of the first (smallest id) document with the same text.

    Sorts an 8-byte prefix of each sha256 (8 B per document); equal prefixes are compared in full."""
    n = len(prefix_by_rank)
    keeper = np.arange(n, dtype=np.int64)
    order = np.lexsort((keeper, prefix_by_rank))
    for i in np.flatnonzero(prefix_by_rank[order][1:] == prefix_by_rank[order][:-1]):
        a, b = order[i], order[i + 1]
        full = digests[[a, b]]
        if np.array_equal(full[0], full[1]):
            keeper[b] = keeper[a]  # chains along a run of twins: keeper[a] is already the smallest
    return keeper


def near_roots(bands: PartedRows, sigs: PartedRows, rank: np.ndarray, n_bands: int,
               threshold: float) -> tuple[np.ndarray, int]:
    """Cluster root (smallest row index of the cluster) of every row index, and the confirmed edge count.
    One band at a time: its keys (8 B per document) are sorted, never put in a dict."""
    n = len(rank)
    roots = np.arange(n, dtype=np.int64)
    keys_of_band = _band_keys(bands, rank, n)
    confirmed = 0
    for band in range(n_bands if n else 0):
        for edges in candidate_pair_batches(keys_of_band(band), None):  # keys are indexed by row index already
            edges = confirmed_edges(edges_across_clusters(edges, roots), sigs, threshold)
            confirmed += len(edges)
            roots = cluster_roots(n, edges, roots=roots)
    return roots, confirmed


@dataclass
class Decisions:
    """Per row index: why it is dropped (KEEP or a code), the row index it duplicates (-1 if none) and
    its cluster root; the decontamination matches {row index: (eval source, n-gram)}; for every exact
    or near drop {row index: (shared shingles, union size)} with the document it duplicates."""
    reason: np.ndarray
    duplicate_of: np.ndarray
    roots: np.ndarray
    decontam: dict[int, tuple[str, str]]
    near_edges: int
    overlap: dict[int, tuple[int, int]]
    published: dict[int, str]      # row index -> "<dataset>/<version>:<id>" it duplicates (dedup `against`)


def decide(decontam_hits: list[list], rank: np.ndarray, offsets: np.ndarray, work: Path, keys: list[str],
           d: dict, against: list[PublishedIndex] = ()) -> Decisions:
    """`decontam_hits[i]`: (row in part i, eval source, n-gram) of part i's decontaminated documents;
    `work/<key>.{sha,sig,bands,sets,setoffsets}.npy`: each part's digests, signatures, band keys and
    shingle sets; `against`: published versions whose documents this one must not repeat."""
    n = len(rank)
    by_rank = np.empty(n, dtype=np.int64)
    by_rank[rank] = np.arange(n)
    reason = np.zeros(n, dtype=np.int8)
    dup = np.full(n, -1, dtype=np.int64)
    decontam: dict[int, tuple[str, str]] = {}
    for i, hits in enumerate(decontam_hits):
        for row, source, gram in hits:
            r = int(rank[offsets[i] + row])
            reason[r], decontam[r] = DECONTAM, (source, gram)
    published: dict[int, str] = {}
    overlap: dict[int, tuple[int, int]] = {}
    if d["exact"] and n:
        digests = PartedRows([work / f"{k}.sha.npy" for k in keys], by_rank, offsets)
        prefix = np.concatenate([a[:, :8].copy().view(">u8").ravel() for a in digests.arrays])[by_rank]
        keeper = exact_keepers(prefix, digests)
        hit = np.flatnonzero((reason == KEEP) & (keeper != np.arange(n)))
        reason[hit], dup[hit] = EXACT, keeper[hit]
        del keeper, hit  # the near step below is the peak: hold nothing it does not need
        for index in against:
            for row, old in exact_matches(prefix, lambda rows: digests[rows], index).items():
                if reason[row] == KEEP:
                    reason[row], published[row] = EXACT, index.label(old)
        del prefix
    roots, edges = np.arange(n, dtype=np.int64), 0
    if d["near"] and n:
        bands = PartedRows([work / f"{k}.bands.npy" for k in keys], by_rank, offsets)
        if d["verify"] == "exact":
            sets = PartedShingleSets([work / k for k in keys], by_rank, offsets)
            roots, confirmed = near_duplicate_clusters(n, _band_keys(bands, rank, n), d["bands"], sets,
                                                       d["jaccard_threshold"])
            edges = len(confirmed.edges)
        else:
            roots, edges = near_roots(bands, PartedRows([work / f"{k}.sig.npy" for k in keys], by_rank, offsets),
                                      rank, d["bands"], d["jaccard_threshold"])
        if d["mode"] == "drop":
            hit = np.flatnonzero((reason == KEEP) & (roots != np.arange(n)))
            reason[hit], dup[hit] = NEAR, roots[hit]
        if d["verify"] == "exact":  # what `corpus why` shows: the overlap with the document kept instead
            pairs = np.flatnonzero(dup >= 0)
            shared, union = exact_overlaps(np.stack((pairs, dup[pairs]), axis=1), sets)
            overlap = {int(r): (int(a), int(b)) for r, a, b in zip(pairs, shared, union)}
            for index in against:
                found = near_matches(_band_keys(bands, rank, n), d["bands"], sets, index, d["jaccard_threshold"],
                                     reason == KEEP)
                for row, (old, a, b) in sorted(found.items()):
                    if reason[row] == KEEP:
                        reason[row], published[row], overlap[row] = NEAR, index.label(old), (a, b)
    return Decisions(reason, dup, roots, decontam, edges, overlap, published)


def _band_keys(bands: PartedRows, rank: np.ndarray, n: int):
    """keys_of_band(band) -> (n,) uint64 band keys by row index, one band at a time (8 B per document)."""
    keys = np.empty(n, dtype=np.uint64)

    def keys_of_band(band: int) -> np.ndarray:
        for a, part in zip(bands.offsets, bands.arrays):  # scatter each part's keys to their row indices
            keys[rank[a:a + len(part)]] = part[:, band]
        return keys

    return keys_of_band
