"""Token planning: the seeded permutation of each split, the training budgets, and where parts are cut.
Pure functions over per-document lengths; the tokenize stage moves the bytes."""

from __future__ import annotations

import numpy as np


def permutation(seed: int, split: str, n: int) -> np.ndarray:
    """The document order of a split: numpy PCG64 from SeedSequence(seed), one child stream per split."""
    train_ss, val_ss = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.Generator(np.random.PCG64(train_ss if split == "train" else val_ss))
    return rng.permutation(n)


def budget(order: np.ndarray, lengths: np.ndarray, max_documents: int | None, train_tokens: int | None) -> np.ndarray:
    """The prefix of the permuted order within the budgets: stop after the document that crosses train_tokens."""
    if max_documents is not None:
        order = order[:max_documents]
    if train_tokens is not None and len(order):
        cum = np.cumsum(lengths[order])
        order = order[: int(np.searchsorted(cum, train_tokens, side="left")) + 1]
    return order


def cut_parts(order: np.ndarray, lengths: np.ndarray, max_tokens: int) -> list[tuple[int, int]]:
    """[first, last) ranges of `order`, each of at most max_tokens (a longer document gets a part of its own)."""
    parts, start, total = [], 0, 0
    for i, n in enumerate(lengths[order].tolist()):
        if i > start and total + n > max_tokens:
            parts.append((start, i))
            start, total = i, 0
        total += n
    if len(order) > start:
        parts.append((start, len(order)))
    return parts


def document_locations(per_shard_lengths: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths, shard index, token offset within its shard's work file) of every document of a split,
    in shard order."""
    if not per_shard_lengths:
        return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64)
    lengths = np.concatenate(per_shard_lengths)
    shard = np.concatenate([np.full(len(x), i, np.int32) for i, x in enumerate(per_shard_lengths)])
    offset = np.concatenate([np.cumsum(x) - x for x in per_shard_lengths])
    return lengths, shard, offset
