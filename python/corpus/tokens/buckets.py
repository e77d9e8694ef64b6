"""The shuffle buckets over the work files (tokens.plan has the draws): each shard's index of its
documents grouped by bucket, and the planned order of a partition (a contiguous range of buckets) read
from only its slice of every shard's index.

    <shard key>.<split>.docs.npy     [token offset, length] of each document, grouped by bucket in shard order
    <shard key>.<split>.bstart.npy   where each bucket's documents start in it (BUCKETS + 1 offsets)
    plan.<split>.p<k>-of-<P>.npy     the partition's order: [shard, token offset, length, cumulative tokens]"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.tokens.plan import BUCKETS, buckets_of, shuffle_buckets
from corpus.tokens.workfiles import npy_bytes, write_work_file


def shard_order(seed: int, split: str, index: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(by_bucket, bucket in that order): encode writes a shard's documents of `split` grouped by bucket
    (a stable sort of their buckets in shard order); by_bucket[i] is the shard-order index of row i."""
    bucket = buckets_of(seed, split, index, n)
    by_bucket = np.argsort(bucket, kind="stable")
    return by_bucket, bucket[by_bucket]


def bucket_starts(sorted_buckets: np.ndarray) -> np.ndarray:
    """Where each of the BUCKETS buckets starts in rows sorted by bucket (and the end: BUCKETS + 1 offsets)."""
    return np.searchsorted(sorted_buckets, np.arange(BUCKETS + 1), side="left").astype(np.int64)


def write_bucket_index(work: Path, key: str, split: str, seed: int, index: int, lengths: np.ndarray) -> list[dict]:
    """`<key>.<split>.docs.npy` and `.bstart.npy` of a shard's documents of `split` (token `lengths` in
    shard order; the tokens lie in that order in its .bin): their work file entries."""
    by_bucket, bucket = shard_order(seed, split, index, len(lengths))
    docs = np.stack([np.cumsum(lengths) - lengths, lengths], axis=1).astype(np.int64)[by_bucket]
    return [write_work_file(work, f"{key}.{split}.docs.npy", npy_bytes(docs)),
            write_work_file(work, f"{key}.{split}.bstart.npy", npy_bytes(bucket_starts(bucket)))]


@dataclass(frozen=True)
class OrderUnit:
    key: str                # "<split>/p<k>-of-<P>"
    split: str
    lo: int                 # the partition's buckets: [lo, hi)
    hi: int
    shard_keys: tuple[str, ...]
    work: Path
    out: str                # the partition's plan file, in work
    seed: int
    index: str = ""         # "" (the encoded documents) or "mix" (the mixed train documents, with their source)


def order_partition(u: OrderUnit) -> dict:
    """The planned order of the partition's buckets: from every shard only the slice of its index that
    holds these buckets; out = [shard, token offset, length, cumulative tokens within the partition] (and,
    mixed, the document's source)."""
    shard, docs, bucket = _partition_slices(u)
    if docs:
        docs_arr, shard_arr = np.concatenate(docs), np.concatenate(shard)
        order = shuffle_buckets(u.seed, u.split, np.concatenate(bucket))
        lengths = docs_arr[order, 1]
        plan = np.stack([shard_arr[order], docs_arr[order, 0], lengths, np.cumsum(lengths),
                         *([docs_arr[order, 2]] if u.index else [])], axis=1)
    else:
        plan = np.zeros((0, 5 if u.index else 4), np.int64)
    entry = write_work_file(u.work, u.out, npy_bytes(plan))
    return {"key": u.key, "docs": len(plan), "tokens": int(plan[:, 2].sum()), "work": [entry]}


def _partition_slices(u: OrderUnit) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per shard holding documents of the partition's buckets: (its position, its index rows of them,
    their buckets), in shard order."""
    shard, docs, bucket = [], [], []
    for s, key in enumerate(u.shard_keys):
        bstart = np.load(u.work / f"{key}.{u.split}.{u.index}bstart.npy")
        a, b = int(bstart[u.lo]), int(bstart[u.hi])
        if b == a:
            continue
        docs.append(np.load(u.work / f"{key}.{u.split}.{u.index}docs.npy", mmap_mode="r")[a:b])
        shard.append(np.full(b - a, s, np.int64))
        bucket.append(np.repeat(np.arange(u.lo, u.hi, dtype=np.int64), np.diff(bstart[u.lo:u.hi + 1])))
    return shard, docs, bucket
