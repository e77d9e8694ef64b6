"""Token planning: the seeded shuffle of each split, the training budgets, and where parts are cut.

The shuffle is a two-level one that a partitioned step can compute without ever holding every document:
each document of a split gets one of BUCKETS buckets, drawn per shard (numpy PCG64 from
`SeedSequence(seed, spawn_key=(split, 0, shard index))`, one uniform draw per document in shard order);
each bucket's documents, in shard order, are permuted by their own stream (`spawn_key=(split, 1,
bucket)`); the split's order is bucket 0's documents, then bucket 1's, and so on. Independent uniform
buckets plus uniform permutations within them make the whole order a uniform random permutation, and
BUCKETS is fixed, so the order depends on the seed and the data only — never on the partition count P
(a partition is a contiguous range of buckets). Pure functions over per-document arrays; the tokenize
stage moves the bytes."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable, Sequence

import numpy as np

BUCKETS = 4096
SPLIT_INDEX = {"train": 0, "val": 1}


def _rng(seed: int, split: str, kind: int, index: int) -> np.random.Generator:
    ss = np.random.SeedSequence(seed, spawn_key=(SPLIT_INDEX[split], kind, index))
    return np.random.Generator(np.random.PCG64(ss))


def buckets_of(seed: int, split: str, shard: int, n: int) -> np.ndarray:
    """The bucket of each of a shard's n documents of `split`, in shard order."""
    return _rng(seed, split, 0, shard).integers(0, BUCKETS, n, dtype=np.int64)


def bucket_ranges(p: int) -> list[tuple[int, int]]:
    """[lo, hi) bucket ranges of p partitions (p <= BUCKETS)."""
    return [(k * BUCKETS // p, (k + 1) * BUCKETS // p) for k in range(p)]


def shuffle_buckets(seed: int, split: str, bucket: np.ndarray) -> np.ndarray:
    """The planned order of documents given their buckets (the documents in shard order): indices into
    `bucket`, grouped by ascending bucket, each group permuted by that bucket's own stream."""
    by_bucket = np.argsort(bucket, kind="stable")
    sorted_b = bucket[by_bucket]
    present, starts = np.unique(sorted_b, return_index=True)
    ends = np.append(starts[1:], len(sorted_b))
    out = by_bucket.copy()
    for b, a, e in zip(present.tolist(), starts.tolist(), ends.tolist()):
        if e - a > 1:  # a bucket of one is its own permutation: its stream (~30 us to seed) is not needed
            out[a:e] = by_bucket[a:e][_rng(seed, split, 1, b).permutation(e - a)]
    return out


def replay_order(seed: int, split: str, per_shard_docs: Sequence[int]) -> np.ndarray:
    """The whole planned order of a split (before budgets) as indices into its documents in shard order:
    what the partitioned plan computes, in one piece (for checks and reports)."""
    bucket = np.concatenate([buckets_of(seed, split, s, n) for s, n in enumerate(per_shard_docs)] or
                            [np.zeros(0, np.int64)])
    return shuffle_buckets(seed, split, bucket)


class Cumulative:
    """C[k] = tokens in the first k documents of the planned order, over P partitions whose inclusive
    local cumulative sums `cum(p)` are read lazily (memory-mapped): the driver holds O(P) numbers."""

    def __init__(self, docs: Sequence[int], tokens: Sequence[int], cum: Callable[[int], np.ndarray]):
        self.docs, self.tokens, self.cum = list(docs), list(tokens), cum
        self.doc_base = np.concatenate([[0], np.cumsum(self.docs)]).astype(np.int64).tolist()
        self.tok_base = np.concatenate([[0], np.cumsum(self.tokens)]).astype(np.int64).tolist()
        self.n = self.doc_base[-1]

    def at(self, k: int) -> int:
        if k <= 0:
            return 0
        p = bisect_right(self.doc_base, k - 1) - 1
        return self.tok_base[p] + int(self.cum(p)[k - 1 - self.doc_base[p]])

    def count(self, x: int, side: str) -> int:
        """How many k in 1..n have C[k] <= x (side 'right') or C[k] < x (side 'left')."""
        p = (bisect_right if side == "right" else bisect_left)(self.tok_base, x) - 1  # the partition x falls in
        if p < 0:
            return 0
        if p >= len(self.docs):
            return self.n
        return self.doc_base[p] + int(np.searchsorted(self.cum(p), x - self.tok_base[p], side=side))


def budget_end(c: Cumulative, max_documents: int | None, train_tokens: int | None) -> int:
    """How many documents of the planned order the budgets keep: at most max_documents, stopping after
    the document that crosses train_tokens."""
    k = c.n if max_documents is None else min(c.n, max_documents)
    if train_tokens is not None and k:
        k = min(k, c.count(train_tokens, "left") + 1)
    return k


def cut_parts(c: Cumulative, end: int, max_tokens: int) -> list[tuple[int, int]]:
    """[first, last) ranges of the first `end` planned documents, each the longest run of at most
    max_tokens (a longer document gets a part of its own)."""
    parts, start = [], 0
    while start < end:
        last = min(end, max(start + 1, c.count(c.at(start) + max_tokens, "right")))
        parts.append((start, last))
        start = last
    return parts
