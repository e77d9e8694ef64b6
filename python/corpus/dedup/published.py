"""Dedup against published dataset versions, without their texts.

The dedup stage publishes `index/part-<n>.npz` beside its parts: for every document it kept, its id,
the sha256 of its text, its band keys and its shingle-hash set (the arrays the global step already
has). A later version (`[dedup] against = ["<dataset>/<version>"]`) reads those files, verified by
their sha256, and drops a document whose text equals a published one (`exact`) or whose exact
shingle Jaccard with one is at least the threshold (`near`); `duplicate_of` names the published
document as `<dataset>/<version>:<id>`. Candidates come from equal band keys (the same banding must
be used: checked), at most `window` published documents per new document and band."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from corpus.dedup.minhash import DEFAULT_BUCKET_WINDOW, EMPTY_BAND_KEY
from corpus.dedup.verify import ShingleSets, exact_overlaps

# The dedup parameters two versions must share for band keys and shingle sets to be comparable.
COMPATIBLE = ("num_perm", "bands", "seed", "ngram_words")


def index_bytes(ids: list[str], digests: np.ndarray, bands: np.ndarray | None, sets: ShingleSets | None) -> bytes:
    """One part's index file (npz: deterministic bytes for the same arrays)."""
    arrays = {"ids": np.array(ids, dtype=str), "sha": np.ascontiguousarray(digests, dtype=np.uint8)}
    if bands is not None and sets is not None:
        arrays.update(bands=np.ascontiguousarray(bands, dtype=np.uint64),
                      sets=np.ascontiguousarray(sets.flat, dtype=np.uint32),
                      setoffsets=np.ascontiguousarray(sets.offsets, dtype=np.int64))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


@dataclass
class PublishedIndex:
    """The kept documents of one published version, in id (byte) order."""
    name: str                      # "<dataset>/<version>"
    ids: np.ndarray                # str
    digests: np.ndarray            # (N, 32) uint8
    bands: np.ndarray | None       # (N, bands) uint64, None if that version ran without near dedup
    sets: ShingleSets | None

    @classmethod
    def from_files(cls, name: str, files: list[bytes]) -> PublishedIndex:
        parts = [np.load(io.BytesIO(data)) for data in files]
        ids = np.concatenate([p["ids"] for p in parts]) if parts else np.zeros(0, dtype=str)
        digests = np.concatenate([p["sha"] for p in parts]) if parts else np.zeros((0, 32), np.uint8)
        near = bool(parts) and all("bands" in p for p in parts)
        bands = np.concatenate([p["bands"] for p in parts]) if near else None
        sets = ShingleSets.concatenate([ShingleSets(p["sets"], p["setoffsets"]) for p in parts]) if near else None
        order = np.argsort(np.char.encode(ids, "utf-8"), kind="stable")  # smallest id first among equals
        if sets is not None:
            sets = sets.take(order)
        return cls(name, ids[order], digests[order], None if bands is None else bands[order], sets)

    def label(self, i: int) -> str:
        return f"{self.name}:{self.ids[i]}"


def exact_matches(prefix: np.ndarray, full_digest, index: PublishedIndex) -> dict[int, int]:
    """{row: published document} for the rows whose text sha256 equals a published one's (the smallest
    published id among equals). `prefix`: 8-byte big-endian digest prefixes by row; `full_digest(rows)`."""
    old = index.digests[:, :8].copy().view(">u8").ravel()
    order = np.argsort(old, kind="stable")  # stable: among equal prefixes the smallest id comes first
    sorted_old = old[order]
    pos = np.searchsorted(sorted_old, prefix, side="left")
    out: dict[int, int] = {}
    for row in np.flatnonzero((pos < len(sorted_old)) & (sorted_old[np.minimum(pos, len(sorted_old) - 1)] == prefix)):
        mine = full_digest([row])[0]
        p = int(pos[row])
        while p < len(sorted_old) and sorted_old[p] == prefix[row]:
            if np.array_equal(index.digests[order[p]], mine):
                out[int(row)] = int(order[p])
                break
            p += 1
    return out


def near_matches(keys_of_band, n_bands: int, sets, index: PublishedIndex, threshold: float,
                 eligible: np.ndarray, *, window: int = DEFAULT_BUCKET_WINDOW) -> dict[int, tuple[int, int, int]]:
    """{row: (published document, shared shingles, union)} for the eligible rows whose exact Jaccard with
    a published document sharing a band key is >= threshold (the smallest such published id)."""
    best: dict[int, tuple[int, int, int]] = {}
    if index.bands is None or not len(index.ids):
        return best
    for band in range(n_bands):
        old = index.bands[:, band]
        order = np.argsort(old, kind="stable")
        sorted_old = old[order]
        keys = keys_of_band(band)
        rows = np.flatnonzero(eligible & (keys != EMPTY_BAND_KEY))
        lo = np.searchsorted(sorted_old, keys[rows], side="left")
        hi = np.minimum(np.searchsorted(sorted_old, keys[rows], side="right"), lo + window)
        counts = hi - lo
        if not counts.sum():
            continue
        new = np.repeat(rows, counts)
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        olds = order[np.arange(len(new)) + starts]
        shared, union = exact_overlaps(np.stack((new, olds), axis=1), sets, index.sets)
        ok = shared > 0  # as in verify.verified_edges: the same Jaccard, the same comparison
        ok[ok] = shared[ok] / union[ok] >= threshold
        for r, o, a, b in zip(new[ok].tolist(), olds[ok].tolist(), shared[ok].tolist(), union[ok].tolist()):
            if r not in best or o < best[r][0]:
                best[r] = (o, a, b)
    return best
