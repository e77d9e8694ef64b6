"""Hash-partitioned grouping for dedup's global step: exact groups by digest, near candidates by band key.

`keys` (one unit per part) learns its rows' row indices (corpus.dedup.rowindex) and writes them into
P buckets: (digest, row, local) by the digest's first 8 bytes mod P, and for every band (band key, row,
local) by key mod P. All the documents of one digest or one band key land in one bucket, so a bucket
unit sees whole groups, and every cap (the candidate window of a band bucket) applies per key, as in a
one-piece run: the result does not depend on P.

`exact` (one unit per bucket): sorts its (digest, row) pairs; the smallest row of each digest is the
keeper, every other row an exact duplicate of it; a keeper whose digest a published version (`[dedup]
against`) holds duplicates that one. Output: [local, keeper row, against index, published document]
grouped by part.

`near` (one unit per bucket): the rows of its non-singleton keys are its nodes (numbered in row order,
so "the window per key, in row order" is unchanged); corpus.dedup.verify.near_duplicate_clusters (or,
with verify = "estimate", near_roots) confirms the candidate pairs by exact Jaccard, reading
only those rows' shingle sets, and clusters them. Output: the local clusters as edges (row, smallest
row of its local cluster), both directions, grouped by u % P: the first round of
corpus.dedup.components."""

from __future__ import annotations

import contextlib
import functools
import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.store.atomic import disk_full, is_enospc, sha256_bytes, space_reason, temp_beside
from corpus.dedup.components import both_ways
from corpus.dedup.grouped import Grouped, grouped, slice_of
from corpus.dedup.minhash import EMPTY_BAND_KEY, first_of_runs, candidate_pair_batches, confirmed_edges
from corpus.dedup.published import PublishedIndex, exact_matches
from corpus.dedup.rowindex import own_rows
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters
from corpus.dedup.verify import PartedShingleSets, near_duplicate_clusters

EXACT_REC = np.dtype([("sha", "u1", (32,)), ("row", "<i8"), ("local", "<i8")])
BAND_REC = np.dtype([("key", "<u8"), ("row", "<i8"), ("local", "<i8")])
EXACT_OUT = np.dtype([("local", "<i8"), ("keeper", "<i8"), ("index", "<i8"), ("old", "<i8")])
URL_SIGN = np.dtype([("key", "<u8"), ("date", "<i8"), ("web", "?")])     # per row, from the signatures phase
URL_REC = np.dtype([("key", "<u8"), ("date", "<i8"), ("row", "<i8"), ("local", "<i8")])
URL_OUT = np.dtype([("local", "<i8"), ("keeper", "<i8")])


def write_scratch(path: Path, data: bytes) -> None:
    """Write a work file: temp file + rename, but no fsync. A checkpoint records its sha256 and --resume
    verifies it, so a file lost in a crash is redone, never trusted; and on this kind of disk an fsynced
    file costs milliseconds twice (the sync, and the discard when the staging dir is removed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if is_enospc(e):
            raise disk_full(path, len(data), space_reason(e)) from None
        raise


def save(path: Path, array: np.ndarray, staging: Path) -> dict:
    """A work array as .npy, hashed from the bytes written (no second read)."""
    buf = io.BytesIO()
    np.save(buf, array)
    data = buf.getvalue()
    write_scratch(path, data)
    return {"name": str(path.relative_to(staging)), "sha256": sha256_bytes(data), "bytes": len(data)}


def save_grouped(prefix: Path, records: np.ndarray, off: np.ndarray, staging: Path) -> list[dict]:
    return [save(prefix.with_name(prefix.name + ".npy"), records, staging),
            save(prefix.with_name(prefix.name + ".off.npy"), np.asarray(off, dtype=np.int64), staging)]


# ---------------------------------------------------------------- keys (per part)

@dataclass(frozen=True)
class KeysUnit:
    key: str                                  # the unit key (names P)
    part: str                                 # the part key: names its files
    index: int                                # the part's position among the input parts
    rows: int
    ranges: tuple[tuple[Path, int], ...]      # (range file prefix, row index of the range's first id)
    p: int
    work: Path                                # <work>/<part key>.{sha,bands}.npy from the signatures phase
    out: Path                                 # bucket files go to <out>/{rows,exact,bands}/<key>...
    exact: bool
    near: bool
    staging: Path
    url_units: tuple[str, ...] = ()           # with [dedup] url: the URL units, whose drops take no part here


def url_keys(u: KeysUnit) -> dict:
    """Web pages only: (URL key, crawl date, row) by the key mod P, for the URL units."""
    rows = own_rows(u.index, u.ranges, u.rows, u.key)
    sign = np.load(u.work / f"{u.part}.url.npy")
    web = np.flatnonzero(sign["web"])
    rec = np.empty(len(web), dtype=URL_REC)
    rec["key"], rec["date"], rec["row"], rec["local"] = sign["key"][web], sign["date"][web], rows[web], web
    dest = (rec["key"] % np.uint64(u.p)).astype(np.int64)
    return {"key": u.key, "work": save_grouped(u.out / "url" / u.part, *grouped(dest, rec, u.p), u.staging)}


def url_dropped(out: Path, url_units: tuple[str, ...], index: int) -> np.ndarray:
    """The local rows of part `index` that URL dedup dropped, with the row each duplicates: URL_OUT."""
    found = [s for key in url_units if (s := slice_of(out / "url-out" / key, index)) is not None]
    return np.concatenate(found) if found else np.zeros(0, URL_OUT)


def bucket_keys(u: KeysUnit) -> dict:
    """A part's rows into the exact and band buckets, except the pages URL dedup dropped (another crawl of
    a kept page): exact and near dedup choose their keepers among the rest only, so no two reasons can
    drop both copies of a page."""
    rows = own_rows(u.index, u.ranges, u.rows, u.key)
    work = [save(u.out / "rows" / f"{u.part}.npy", rows, u.staging)]
    local = np.arange(u.rows, dtype=np.int64)
    live = np.ones(u.rows, dtype=bool)
    live[url_dropped(u.out, u.url_units, u.index)["local"]] = False
    if u.exact:
        sha = np.load(u.work / f"{u.part}.sha.npy", mmap_mode="r")
        rec = np.empty(u.rows, dtype=EXACT_REC)
        rec["sha"], rec["row"], rec["local"] = sha, rows, local
        rec = rec[live]
        dest = (np.ascontiguousarray(rec["sha"][:, :8]).view(">u8").ravel() % np.uint64(u.p)).astype(np.int64)
        work += save_grouped(u.out / "exact" / u.part, *grouped(dest, rec, u.p), u.staging)
        del rec
    if u.near:
        bands = np.load(u.work / f"{u.part}.bands.npy", mmap_mode="r")
        chunks, offs = [], [np.zeros(1, dtype=np.int64)]
        for band in range(bands.shape[1] if u.rows else 0):
            keys = np.asarray(bands[:, band])
            real = (keys != EMPTY_BAND_KEY) & live  # empty documents (and URL drops) are nobody's candidate
            rec = np.empty(int(real.sum()), dtype=BAND_REC)
            rec["key"], rec["row"], rec["local"] = keys[real], rows[real], local[real]
            recs, off = grouped((rec["key"] % np.uint64(u.p)).astype(np.int64), rec, u.p)
            chunks.append(recs)
            offs.append(off[1:] + offs[-1][-1])
        n_bands = bands.shape[1]
        off = np.concatenate(offs) if len(offs) > 1 else np.zeros(n_bands * u.p + 1, dtype=np.int64)
        work += save_grouped(u.out / "bands" / u.part,
                             np.concatenate(chunks) if chunks else np.zeros(0, BAND_REC), off, u.staging)
    return {"key": u.key, "work": work}


# ---------------------------------------------------------------- exact (per bucket)

@dataclass(frozen=True)
class BucketUnit:
    key: str
    r: int
    p: int
    parts: tuple[str, ...]                    # part keys, in input order
    offsets: tuple[int, ...]                  # where each part starts in concatenated part order
    out: Path
    work: Path
    dedup: dict
    against: tuple = ()                       # (name, ((path, sha256), ...)) of each published index
    staging: Path | None = None


@functools.lru_cache(maxsize=4)
def published_index(name: str, files: tuple[tuple[str, str], ...]) -> PublishedIndex:
    """A published version's index, read (verified) once per worker process."""
    from corpus.store.checksums import read_verified

    return PublishedIndex.from_files(name, [read_verified(Path(p), sha) for p, sha in files])


def exact_bucket(u: BucketUnit) -> dict:
    parts = [(k, slice_of(u.out / "exact" / key, u.r)) for k, key in enumerate(u.parts)]
    parts = [(k, s) for k, s in parts if s is not None]
    rec = np.concatenate([s for _, s in parts]) if parts else np.zeros(0, EXACT_REC)
    part = np.concatenate([np.full(len(s), k, np.int64) for k, s in parts]) if parts else np.zeros(0, np.int64)
    words = np.ascontiguousarray(rec["sha"]).view(">u8").reshape(-1, 4)
    order = np.lexsort((rec["row"], words[:, 3], words[:, 2], words[:, 1], words[:, 0]))
    w = words[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(w[1:] != w[:-1], axis=1)
    keeper = rec["row"][order][np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))]
    dup = ~first
    out = [(part[order][dup], rec["local"][order][dup], keeper[dup], np.full(int(dup.sum()), -1),
            np.full(int(dup.sum()), -1))]
    keepers = order[first]
    found = np.full(len(keepers), -1, dtype=np.int64)
    which = np.full(len(keepers), -1, dtype=np.int64)
    prefix = words[keepers, 0]
    for j, (name, files) in enumerate(u.against):
        index = published_index(name, files)
        for i, old in exact_matches(prefix, lambda r: rec["sha"][keepers[np.asarray(r)]], index).items():
            if found[i] < 0:  # the first `against` version holding the text is the one named
                found[i], which[i] = old, j
    hit = found >= 0
    out.append((part[keepers][hit], rec["local"][keepers][hit], np.full(int(hit.sum()), -1), which[hit], found[hit]))
    p_, local, keep, idx, old = (np.concatenate(c) for c in zip(*out))
    res = np.empty(len(p_), dtype=EXACT_OUT)
    res["local"], res["keeper"], res["index"], res["old"] = local, keep, idx, old
    records, off = grouped(p_.astype(np.int64), res, len(u.parts))
    work = save_grouped(u.out / "exact-out" / u.key, records, off, u.staging)
    return {"key": u.key, "work": work, "duplicates": int(dup.sum())}


def url_bucket(u: BucketUnit) -> dict:
    """Exact URL dedup of one bucket: of the pages sharing a normalised URL, the newest crawl (largest
    WARC-Date) is kept, the smallest row among equal dates; every other page names it. Output:
    [local, keeper row] grouped by part."""
    parts = [(k, slice_of(u.out / "url" / key, u.r)) for k, key in enumerate(u.parts)]
    parts = [(k, s) for k, s in parts if s is not None]
    rec = np.concatenate([s for _, s in parts]) if parts else np.zeros(0, URL_REC)
    part = np.concatenate([np.full(len(s), k, np.int64) for k, s in parts]) if parts else np.zeros(0, np.int64)
    order = np.lexsort((rec["row"], -rec["date"], rec["key"]))
    keys = rec["key"][order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    keeper = rec["row"][order][np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))]
    dup = ~first
    res = np.empty(int(dup.sum()), dtype=URL_OUT)
    res["local"], res["keeper"] = rec["local"][order][dup], keeper[dup]
    records, off = grouped(part[order][dup], res, len(u.parts))
    work = save_grouped(u.out / "url-out" / u.key, records, off, u.staging)
    return {"key": u.key, "work": work, "duplicates": int(dup.sum())}


# ---------------------------------------------------------------- near (per bucket)

def _band_slices(u: BucketUnit, files: list[Grouped], band: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, rows, positions) of this bucket's band-`band` records from every part."""
    keys, rows, pos = [], [], []
    for k, f in enumerate(files):
        s = f[band * u.p + u.r]
        if s is not None:
            keys.append(s["key"])
            rows.append(s["row"])
            pos.append(s["local"] + u.offsets[k])
    if not keys:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(keys), np.concatenate(rows), np.concatenate(pos)


def _shared_keys(keys: np.ndarray) -> np.ndarray:
    """Mask of the entries whose key occurs more than once."""
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    same = np.zeros(len(s), dtype=bool)
    if len(s) > 1:
        eq = s[1:] == s[:-1]
        same[1:] |= eq
        same[:-1] |= eq
    mask = np.zeros(len(keys), dtype=bool)
    mask[order] = same
    return mask


class PartedRows:
    """Rows of per-part .npy files (memmapped, never loaded whole), addressed through `by_rank`:
    by_rank[i] = position in concatenated part order (part p holds offsets[p] .. offsets[p + 1] - 1)."""

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


def near_roots(n: int, keys_of_band, n_bands: int, sigs, threshold: float) -> tuple[np.ndarray, int]:
    """verify = "estimate": cluster root (smallest index) of every node and the confirmed edge count,
    candidates confirmed by the MinHash estimate from the signatures. One band at a time."""
    roots = np.arange(n, dtype=np.int64)
    confirmed = 0
    for band in range(n_bands if n else 0):
        for edges in candidate_pair_batches(keys_of_band(band), None):
            edges = confirmed_edges(edges_across_clusters(edges, roots), sigs, threshold)
            confirmed += len(edges)
            roots = cluster_roots(n, edges, roots=roots)
    return roots, confirmed


def near_bucket(u: BucketUnit) -> dict:
    d = u.dedup
    n_bands = d["bands"]
    files = [Grouped(u.out / "bands" / key) for key in u.parts]
    node_rows, node_pos = [], []
    for band in range(n_bands):  # nodes: the rows sharing a key with another row in some band
        keys, rows, pos = _band_slices(u, files, band)
        m = _shared_keys(keys)
        node_rows.append(rows[m])
        node_pos.append(pos[m])
    rows_all = np.concatenate(node_rows)
    order = np.argsort(rows_all, kind="stable")  # a row appears once per band it shares a key in
    first = order[first_of_runs(rows_all[order])]
    nodes, pos_of_node = rows_all[first], np.concatenate(node_pos)[first]
    del node_rows, node_pos, rows_all
    n = len(nodes)
    keys_buf = np.empty(n, dtype=np.uint64)

    def keys_of_band(band: int) -> np.ndarray:  # by node (row order); absent nodes have no candidate
        keys_buf[:] = EMPTY_BAND_KEY
        keys, rows, _ = _band_slices(u, files, band)
        at = np.searchsorted(nodes, rows)
        ok = at < n
        ok[ok] = nodes[at[ok]] == rows[ok]
        keys_buf[at[ok]] = keys[ok]
        return keys_buf

    prefixes = [u.work / key for key in u.parts]
    offsets = np.asarray(u.offsets, dtype=np.int64)
    if d["verify"] == "exact":
        sets = PartedShingleSets(prefixes, pos_of_node, offsets)
        roots, confirmed = near_duplicate_clusters(n, keys_of_band, n_bands, sets, d["jaccard_threshold"])
        edges = len(confirmed.edges)
    else:
        sigs = PartedRows([Path(f"{p}.sig.npy") for p in prefixes], pos_of_node, offsets)
        roots, edges = near_roots(n, keys_of_band, n_bands, sigs, d["jaccard_threshold"])
    leaf = np.flatnonzero(roots != np.arange(n))
    records, off = both_ways(nodes[leaf], nodes[roots[leaf]], u.p)
    work = save_grouped(u.out / "cc-0" / u.key, records, off, u.staging)
    return {"key": u.key, "work": work, "confirmed_edges": int(edges), "nodes": int(n)}

