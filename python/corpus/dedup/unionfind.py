"""Connected components over candidate edges, labelled by each component's smallest index.

Vectorised union-find ("hook and compress"): every round, each edge whose endpoints still have
different roots hooks the larger root under the smaller one (np.minimum.at, so a root hooked from
several edges takes the smallest offer), then the endpoints' paths are compressed by pointer
jumping. parent[x] <= x holds throughout, so there are no cycles and the surviving root of a
component is its smallest index. The result depends only on the set of edges, never their order.

Incremental use, the global step of stage 04 (roots are the only state kept between bands, 8 B/doc):
    roots = np.arange(n)
    for band in range(bands):
        for edges in candidate_pair_batches(keys_of(band), row_ids):
            edges = verified_edges(edges_across_clusters(edges, roots), sets, threshold)
            roots = cluster_roots(n, edges, roots=roots)
(verify.near_duplicate_clusters is this loop.)
"""

from __future__ import annotations

import numpy as np


def cluster_roots(n: int, edges: np.ndarray, *, roots: np.ndarray | None = None) -> np.ndarray:
    """int64 (n,): for every node, the smallest index of its connected component.

    edges: (E, 2) integer pairs in [0, n). roots: optional result of an earlier call, extended in place
    of a fresh forest (the caller's array is not modified).
    """
    parent = np.arange(n, dtype=np.int64) if roots is None else np.array(roots, dtype=np.int64)
    if parent.shape != (n,):
        raise ValueError(f"roots has shape {parent.shape}, expected ({n},)")
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(edges) == 0:
        _compress(parent)
        return parent
    if edges.min() < 0 or edges.max() >= n:
        raise ValueError(f"edge endpoints must be in [0, {n})")
    _compress(parent)  # a given `roots` may not be flat; from here every pointer is one hop from a root
    left, right = edges[:, 0], edges[:, 1]
    # Nodes whose pointers can change: endpoints and their roots. Hooks only ever point one of them at
    # another, so pointer jumping restricted to this set flattens every tree that changed.
    active = _members(n, (left, right, parent[left], parent[right]))
    while len(left):
        left_root, right_root = parent[left], parent[right]
        open_edges = left_root != right_root
        # Edges already inside one component can never matter again: drop them, so rounds shrink.
        left, right = left[open_edges], right[open_edges]
        if len(left) == 0:
            break
        low = np.minimum(left_root[open_edges], right_root[open_edges])
        high = np.maximum(left_root[open_edges], right_root[open_edges])
        np.minimum.at(parent, high, low)
        _compress(parent, active)
    _compress(parent)  # nodes outside `active` may point at a root that was just hooked
    return parent


def _members(n: int, parts: tuple[np.ndarray, ...]) -> np.ndarray:
    """Sorted distinct values of `parts` (all in [0, n)): a 1 B/node mask, far faster than np.unique."""
    mask = np.zeros(n, dtype=bool)
    for part in parts:
        mask[part] = True
    return np.flatnonzero(mask)


def _compress(parent: np.ndarray, nodes: np.ndarray | None = None) -> None:
    """Point `nodes` (default: all) straight at their roots: pointer jumping halves every path per pass.

    `nodes` must contain the parent of each of its members, so the passes never leave the set.
    """
    while True:
        current = parent if nodes is None else parent[nodes]
        grandparent = parent[current]
        if np.array_equal(grandparent, current):
            return
        if nodes is None:
            parent[:] = grandparent
        else:
            parent[nodes] = grandparent


def edges_across_clusters(edges: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """The edges whose endpoints are not yet in one cluster (the only ones worth confirming)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return edges[roots[edges[:, 0]] != roots[edges[:, 1]]]


def cluster_sizes(roots: np.ndarray) -> np.ndarray:
    """int64 (n,): size of each node's cluster."""
    return np.bincount(roots, minlength=len(roots))[roots]


def pairs_within_clusters(roots: np.ndarray) -> set[tuple[int, int]]:
    """Every (i, j), i < j, in one cluster: quadratic in cluster size, for evaluation only."""
    members: dict[int, list[int]] = {}
    for node in np.flatnonzero(cluster_sizes(roots) > 1):
        members.setdefault(int(roots[node]), []).append(int(node))
    return {(a, b) for group in members.values() for i, a in enumerate(group) for b in group[i + 1 :]}
