"""The decisions of dedup's global step for one part, from the partitioned phases' files.

A document's *row index* is its position in id (byte) order over the dedup input (corpus.dedup.rowindex).
Exact groups come from corpus.dedup.buckets' exact units (keeper = the smallest row index of a digest),
near clusters from its near units and corpus.dedup.components (`minhash_cluster` = the smallest row
index of the cluster), URL groups from its URL units (keeper = the newest crawl). First reason wins:
decontam, then url (a web page crawled again), then exact (in the corpus, then against a published
version), then near (mode "drop"), then near against a published version. For every exact or near drop
the exact Jaccard with the document it duplicates and their shared shingle count are kept, so
`corpus why` can show them. Everything here is per part: the part's rows, the few rows they duplicate,
and only those rows' shingle sets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.dedup.buckets import published_index, slice_of, url_dropped
from corpus.dedup.components import labels_of
from corpus.dedup.published import near_matches
from corpus.dedup.rowindex import RowLookup
from corpus.dedup.verify import PartedShingleSets, ShingleSets, exact_overlaps

KEEP, DECONTAM, EXACT, NEAR, URL = 0, 1, 2, 3, 4  # decision codes: one byte per document
REASON_NAMES = {DECONTAM: "decontam", URL: "url", EXACT: "exact", NEAR: "near"}


@dataclass(frozen=True)
class PartInputs:
    """Where one part's decisions come from: its rows' row indices, the exact units' and the last
    component round's outputs, and the row lookup (positions and ids of any row)."""
    key: str
    index: int
    parts: tuple[str, ...]
    offsets: tuple[int, ...]
    ranges: tuple[tuple[Path, int], ...]
    p: int
    out: Path                                 # the global step's work dir (rows/, exact-out/, cc-*/)
    work: Path                                # signatures' work files
    exact_units: tuple[str, ...]              # the exact units' keys (one per bucket)
    label_files: tuple[Path, ...]             # the converged component round's labels, by row % P
    decontam: tuple                           # (row in part, eval source, n-gram) of this part
    dedup: dict
    against: tuple                            # (name, files) of each published index
    url_units: tuple[str, ...] = ()           # the URL units' keys (one per bucket), with [dedup] url


@dataclass
class Decisions:
    """Per row of the part: why it is dropped (KEEP or a code), its row index and cluster root; for the
    drops: the id it duplicates (a published one as "<dataset>/<version>:<id>"), the exact overlap
    {row: (shared shingles, union size)} and decontamination matches {row: (eval source, n-gram)}."""
    reason: np.ndarray
    rows: np.ndarray
    roots: np.ndarray
    duplicate_of: dict
    overlap: dict
    decontam: dict


def part_decisions(u: PartInputs) -> Decisions:
    d = u.dedup
    rows = np.load(u.out / "rows" / f"{u.key}.npy")
    n = len(rows)
    reason = np.zeros(n, dtype=np.int8)
    dup = np.full(n, -1, dtype=np.int64)
    published: dict[int, str] = {}
    decontam = {int(row): (source, gram) for row, source, gram in u.decontam}
    reason[list(decontam)] = DECONTAM
    s = url_dropped(u.out, u.url_units, u.index)  # a web page crawled again: the newest crawl is kept
    free = reason[s["local"]] == KEEP
    reason[s["local"][free]], dup[s["local"][free]] = URL, s["keeper"][free]
    if d["exact"]:
        for key in u.exact_units:
            s = slice_of(u.out / "exact-out" / key, u.index)
            if s is None:
                continue
            mine = s[s["keeper"] >= 0]
            free = reason[mine["local"]] == KEEP
            reason[mine["local"][free]], dup[mine["local"][free]] = EXACT, mine["keeper"][free]
            theirs = s[s["keeper"] < 0]
            for local, j, old in zip(theirs["local"].tolist(), theirs["index"].tolist(), theirs["old"].tolist()):
                if reason[local] == KEEP:
                    reason[local], published[local] = EXACT, published_index(*u.against[j]).label(old)
    roots = rows.copy()
    overlap: dict[int, tuple[int, int]] = {}
    if d["near"]:
        roots = labels_of(rows, u.label_files, u.p)
        if d["mode"] == "drop":
            hit = np.flatnonzero((reason == KEEP) & (roots != rows))
            reason[hit], dup[hit] = NEAR, roots[hit]
    lookup = RowLookup(u.ranges)
    if d["near"] and d["verify"] == "exact":  # what `corpus why` shows: the overlap with the kept document
        offsets = np.asarray(u.offsets, dtype=np.int64)
        sets = PartedShingleSets([u.work / k for k in u.parts], None, offsets)
        locals_ = np.flatnonzero(dup >= 0)
        pairs = np.stack((locals_ + offsets[u.index], lookup.positions(dup[locals_])), axis=1)
        shared, union = exact_overlaps(pairs, sets)
        overlap = {int(r): (int(a), int(b)) for r, a, b in zip(locals_, shared, union)}
        if u.against:
            bands = np.load(u.work / f"{u.key}.bands.npy", mmap_mode="r")
            own = ShingleSets.load(u.work / u.key)
            for name, files in u.against:
                index = published_index(name, files)
                found = near_matches(lambda band: np.asarray(bands[:, band]), d["bands"], own, index,
                                     d["jaccard_threshold"], reason == KEEP)
                for row, (old, a, b) in sorted(found.items()):
                    if reason[row] == KEEP:
                        reason[row], published[row], overlap[row] = NEAR, index.label(old), (a, b)
    locals_ = np.flatnonzero(dup >= 0)
    duplicate_of = dict(zip(locals_.tolist(), lookup.ids(dup[locals_])))
    duplicate_of.update(published)
    return Decisions(reason, rows, roots, duplicate_of, overlap, decontam)
