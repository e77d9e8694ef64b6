"""Dedup's distributed connected components (large-star / small-star over partitioned edges) label
every node with the smallest index of its component: exactly the union-find's cluster roots, for any
partition count, on random graphs, long chains and stars."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.dedup.components import components_in_memory
from corpus.dedup.unionfind import cluster_roots


def graphs():
    rng = np.random.default_rng(14)
    for n, e in ((1, 0), (5, 0), (50, 30), (200, 150), (400, 1200), (1000, 700)):
        yield n, rng.integers(0, n, size=(e, 2))
    chain = np.arange(2000)
    yield 2000, np.stack((chain[:-1], chain[1:]), axis=1)                       # one long chain
    perm = rng.permutation(3000)
    yield 3000, np.stack((perm[:-1], perm[1:]), axis=1)                         # a chain in random order
    yield 500, np.stack((np.full(499, 250), np.delete(np.arange(500), 250)), axis=1)  # a star off its minimum
    zig = np.arange(0, 1000, 2)
    yield 1000, np.concatenate([np.stack((zig, zig + 1), axis=1), np.stack((zig[1:] + 1, zig[:-1]), axis=1)])


@pytest.mark.parametrize("p", [1, 2, 3, 8])
def test_labels_equal_union_find_roots(p):
    for n, edges in graphs():
        np.testing.assert_array_equal(components_in_memory(n, edges, p), cluster_roots(n, edges))
