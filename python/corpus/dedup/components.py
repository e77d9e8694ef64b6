"""Connected components over partitioned edge files: alternating large-star / small-star rounds.

Kiveris et al., "Connected Components in MapReduce and Beyond" (SoCC 2014). Nodes are row indices and
edges are held as directed records (u, v) = "v is a neighbour of u", partition u % P: a round is a map
over the P partitions, each reading its slice of every file the previous round wrote.

- large-star(u): m = min(u, neighbours of u); every neighbour v > u is re-attached to m. Input: both
  directions of every edge. Output: each new edge (v, m), v > m, once, at v's partition (small-star's
  input form).
- small-star(u): m = the smallest of u's smaller neighbours; u and each of those is attached to m.
  Output: both directions (large-star's input form).

Both keep every component's node set and never create an edge to a node outside it, and their
alternation ends with every component a star around its smallest node. large_star also checks whether
its input already is that: every node either has only larger neighbours (a centre) or exactly one
neighbour, smaller (a leaf). When every partition says so, the leaves' (node, centre) pairs are the
labels: the centre of a component is its smallest row index, today's `minhash_cluster`, whatever the
partitioning (the minimum of a set does not depend on the order its edges were seen in).

Per task: its 1/P of the directed edges (16 B each) and their sort; the driver only ANDs P flags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from corpus.dedup.grouped import Grouped, grouped

EDGE = np.dtype([("u", "<i8"), ("v", "<i8")])


def route(u: np.ndarray, v: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Directed records (u, v) grouped by partition u % P."""
    rec = np.empty(len(u), dtype=EDGE)
    rec["u"], rec["v"] = u, v
    return grouped(np.asarray(u, dtype=np.int64) % p, rec, p)


def both_ways(u: np.ndarray, v: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    return route(np.concatenate((u, v)), np.concatenate((v, u)), p)


def read_slices(files: Sequence[tuple[Path, Path]], r: int) -> np.ndarray:
    """Partition r's records from every (records file, offsets file), distinct, sorted by (u, v)."""
    chunks = [c for c in (Grouped(main.with_name(main.name.removesuffix(".npy")))[r] for main, _ in files)
              if c is not None]
    return distinct(chunks)


def distinct(chunks: list[np.ndarray]) -> np.ndarray:
    """The records of `chunks`, distinct, sorted by (u, v) (units emit an edge once per way they find it)."""
    rec = np.concatenate(chunks) if chunks else np.zeros(0, dtype=EDGE)
    rec = rec[np.lexsort((rec["v"], rec["u"]))]
    keep = np.ones(len(rec), dtype=bool)
    keep[1:] = (rec["u"][1:] != rec["u"][:-1]) | (rec["v"][1:] != rec["v"][:-1])
    return rec[keep]


def _groups(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For records sorted by u: each record's group index, the groups' first positions and sizes."""
    first = np.flatnonzero(np.concatenate(([True], u[1:] != u[:-1]))) if len(u) else np.zeros(0, np.int64)
    sizes = np.diff(np.append(first, len(u)))
    return np.repeat(np.arange(len(first)), sizes), first, sizes


def large_star(rec: np.ndarray, p: int) -> tuple[tuple[np.ndarray, np.ndarray], bool, np.ndarray]:
    """One partition's large-star: (small-star input records grouped by partition), whether its input was
    already stars around their minima, and the labels [(leaf, centre)] sorted by leaf (valid when every
    partition's input was)."""
    u, v = rec["u"], rec["v"]
    group, first, sizes = _groups(u)
    low = np.minimum.reduceat(v, first) if len(first) else np.zeros(0, np.int64)
    nodes = u[first]
    m = np.minimum(nodes, low)
    stars = bool(np.all((low > nodes) | (sizes == 1)))
    out = v > u
    new_u, new_v = v[out], m[group][out]
    labels = np.empty(int(np.sum(low < nodes)), dtype=EDGE)
    labels["u"], labels["v"] = nodes[low < nodes], low[low < nodes]
    return route(new_u, new_v, p), stars, labels


def small_star(rec: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """One partition's small-star over records (u, v), v < u: large-star input records by partition."""
    u, v = rec["u"], rec["v"]
    group, first, sizes = _groups(u)
    m = np.minimum.reduceat(v, first) if len(first) else np.zeros(0, np.int64)
    mg = m[group]
    others = v != mg  # (v, m) for each smaller neighbour but m itself, and (u, m) once per node
    a = np.concatenate((v[others], u[first]))
    b = np.concatenate((mg[others], m))
    return both_ways(a, b, p)


def labels_of(rows: np.ndarray, label_files: Sequence[Path], p: int) -> np.ndarray:
    """The component label of each row: its centre if it is a leaf of label file row % P, else itself."""
    rows = np.asarray(rows, dtype=np.int64)
    out = rows.copy()
    for r, path in enumerate(label_files):
        mine = np.flatnonzero(rows % p == r)
        if not len(mine):
            continue
        lab = np.load(path, mmap_mode="r")
        if not len(lab):
            continue
        leaves = lab["u"]
        at = np.searchsorted(leaves, rows[mine])
        hit = at < len(leaves)
        hit[hit] = leaves[at[hit]] == rows[mine][hit]
        out[mine[hit]] = lab["v"][at[hit]]
    return out


def components_in_memory(n: int, edges: np.ndarray, p: int, *, max_rounds: int = 10_000) -> np.ndarray:
    """The whole algorithm in one process (for tests and the bench): labels of 0..n-1 over `edges`."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edges = edges[edges[:, 0] != edges[:, 1]]
    grouped_files = [both_ways(edges[:, 0], edges[:, 1], p)]

    def slices(files, r):  # read_slices over in-memory (records, offsets) pairs
        return distinct([rec[off[r]:off[r + 1]] for rec, off in files])

    for _ in range(max_rounds):
        results = [large_star(slices(grouped_files, r), p) for r in range(p)]
        if all(stars for _, stars, _ in results):
            out = np.arange(n, dtype=np.int64)
            for _, _, lab in results:
                out[lab["u"]] = lab["v"]
            return out
        files = [g for g, _, _ in results]
        grouped_files = [small_star(slices(files, r), p) for r in range(p)]
    raise AssertionError(f"connected components: not converged after {max_rounds} rounds")
