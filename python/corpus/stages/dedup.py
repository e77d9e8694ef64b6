"""Stage 04 dedup: benchmark decontamination, exact dedup and MinHash-LSH near-dedup.

Per part (parallel units): the text's sha256, its MinHash signature and band keys (written to disk),
and its decontamination match against the protected eval sets. Then one global step that never holds
texts: the ids are sorted to give every document its row index (id order over the dedup input);
exact duplicates are grouped by sorting hashes; near duplicates come from sorting one band's keys at
a time, confirmed by estimated Jaccard and merged by union-find (`minhash_cluster` = the smallest row
index of the cluster). Finally each part is rewritten with its decisions (parallel units again).

Why a document is dropped, first reason wins: decontam (it shares an n-gram with an eval set), exact
(an identical text has a smaller id), near (mode "drop": a smaller id is in its cluster)."""

from __future__ import annotations

import functools
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import sha256_bytes, write_bytes
from ..config import Config
from ..dedup.decontam import EvalIndex, index_from_bytes, index_to_bytes
from ..dedup.minhash import MinHasher, band_keys, candidate_pair_batches, confirmed_edges
from ..dedup.unionfind import cluster_roots, edges_across_clusters
from ..errors import CorpusError
from ..executor import map_units
from ..jsonl import read_zst_jsonl
from ..ledger import load_ledger, select
from ..parts import BASE_COLUMNS, read_table, read_verified, validate_columns, write_table
from ..runner import WORK_DIR as WORK, StageRun, input_manifest, require_stage, run_stage
from .fetch import latest_raw
from .normalize import normalize_text

log = logging.getLogger(__name__)
DIRNAME = "04-dedup"
INPUT_DIR = "03-filter"
EVAL_INDEX = "eval-index.npz"
IN_COLUMNS = {**BASE_COLUMNS, "lang": pa.string(), "lang_score": pa.float32()}
DROPPED_COLUMNS = {"id": pa.string(), "source_id": pa.string(), "url": pa.string(), "reason": pa.string(),
                   "duplicate_of": pa.string(), "eval_source": pa.string(), "matched_ngram": pa.string(),
                   "text": pa.string()}
REASONS = ("decontam", "exact", "near")


# ---------------------------------------------------------------- the eval index (prepare step)

def build_eval_index(config: Config) -> EvalIndex:
    """All protected eval items, normalised as stage 02 normalises the corpus."""
    dcfg = config["decontam"]
    index = EvalIndex(dcfg["ngram"], min_words=dcfg["min_words"])
    ledger = load_ledger(config.ledger_path)
    for row in select(ledger, dcfg["evals"], "eval", what=f"{config.path}: decontam.evals"):
        raw = latest_raw(config, row)  # parts verified against their checksums
        for part in sorted(raw.glob("part-*.jsonl.zst")):
            for rec in read_zst_jsonl(part):
                index.add(row["source_id"], normalize_text(rec["text"], **config["normalize"]))
    return index


def prepare_eval_index(config: Config, staging: Path) -> tuple[list[dict], dict]:
    if not (config["decontam"]["enabled"] and config["decontam"]["evals"]):
        return [], {}
    index = build_eval_index(config)
    data = index_to_bytes(index)
    write_bytes(staging / EVAL_INDEX, data)
    log.info("decontam: %d protected %d-grams from %s (%d items under %d words skipped)", len(index),
             index.n, ", ".join(config["decontam"]["evals"]), index.skipped_items, index.min_words)
    entry = {"name": EVAL_INDEX, "sha256": sha256_bytes(data), "rows": len(index), "bytes": len(data)}
    return [entry], {"eval_index": (str(staging / EVAL_INDEX), entry["sha256"])}


@functools.cache
def _eval_index(path: str, sha256: str) -> EvalIndex:
    return index_from_bytes(read_verified(Path(path), sha256))


@functools.cache
def _hasher(num_perm: int, seed: int, ngram: int) -> MinHasher:
    return MinHasher(num_perm=num_perm, seed=seed, ngram=ngram)


# ---------------------------------------------------------------- phase A: per-part signatures

@dataclass(frozen=True)
class SignUnit:
    key: str
    in_path: Path
    in_sha256: str
    dedup: dict
    eval_index: tuple[str, str] | None
    work: Path


def sign_part(u: SignUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256)
    validate_columns(table, IN_COLUMNS, u.in_path)
    texts = table.column("text").to_pylist()
    digests = np.frombuffer(b"".join(hashlib.sha256(t.encode("utf-8")).digest() for t in texts),
                            dtype=np.uint8).reshape(len(texts), 32)
    np.save(u.work / f"{u.key}.sha.npy", digests)
    d = u.dedup
    if d["near"]:
        sigs = _hasher(d["num_perm"], d["seed"], d["ngram_words"]).signatures(texts)
        np.save(u.work / f"{u.key}.sig.npy", sigs)
        np.save(u.work / f"{u.key}.bands.npy", band_keys(sigs, d["bands"]))
    matches = []
    if u.eval_index is not None:
        index = _eval_index(*u.eval_index)
        for row, text in enumerate(texts):
            m = index.match(text)
            if m is not None:
                matches.append((row, m[0], m[1]))
    return {"key": u.key, "rows": len(texts), "decontam": matches}


# ---------------------------------------------------------------- the global step

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


def row_ranks(parts: list[tuple[Path, dict]]) -> tuple[np.ndarray, pa.Array]:
    """Row index in id order (byte order) of every document, in concatenated part order; and the ids."""
    ids = pa.concat_arrays([pq.read_table(p, columns=["id"]).column("id").combine_chunks() for p, _ in parts]) \
        if parts else pa.array([], pa.string())
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


def near_roots(bands: PartedRows, sigs: PartedRows, rank: np.ndarray, dedup: dict) -> tuple[np.ndarray, int]:
    """Cluster root (smallest row index of the cluster) of every row index, and the confirmed edge count.
    One band at a time: its keys (8 B per document) are sorted, never put in a dict."""
    n = len(rank)
    roots = np.arange(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.uint64)
    confirmed = 0
    for band in range(dedup["bands"] if n else 0):
        for a, part in zip(bands.offsets, bands.arrays):  # scatter each part's keys to their row indices
            keys[rank[a:a + len(part)]] = part[:, band]
        for edges in candidate_pair_batches(keys, None):  # keys are indexed by row index already
            edges = confirmed_edges(edges_across_clusters(edges, roots), sigs, dedup["jaccard_threshold"])
            confirmed += len(edges)
            roots = cluster_roots(n, edges, roots=roots)
    return roots, confirmed


def decide(signed: list[dict], parts_ids: pa.Array, rank: np.ndarray, offsets: np.ndarray, work: Path,
           keys: list[str], d: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict, int]:
    """Per row index: decision code, the row index it duplicates (-1), its cluster root; the decontam
    matches {row index: (eval source, n-gram)}; and the confirmed edge count."""
    n = len(rank)
    by_rank = np.empty(n, dtype=np.int64)
    by_rank[rank] = np.arange(n)
    reason = np.zeros(n, dtype=np.int8)
    dup = np.full(n, -1, dtype=np.int64)
    decontam: dict[int, tuple[str, str]] = {}
    for i, s in enumerate(signed):
        for row, source, gram in s["decontam"]:
            r = int(rank[offsets[i] + row])
            reason[r], decontam[r] = DECONTAM, (source, gram)
    if d["exact"] and n:
        digests = PartedRows([work / f"{k}.sha.npy" for k in keys], by_rank, offsets)
        keeper = exact_keepers(np.concatenate([a[:, :8].copy().view(">u8").ravel() for a in digests.arrays])[by_rank],
                               digests)
        hit = np.flatnonzero((reason == KEEP) & (keeper != np.arange(n)))
        reason[hit], dup[hit] = EXACT, keeper[hit]
        del keeper, hit  # the near step below is the peak: hold nothing it does not need
    roots, edges = np.arange(n, dtype=np.int64), 0
    if d["near"] and n:
        roots, edges = near_roots(PartedRows([work / f"{k}.bands.npy" for k in keys], by_rank, offsets),
                                  PartedRows([work / f"{k}.sig.npy" for k in keys], by_rank, offsets), rank, d)
        if d["mode"] == "drop":
            hit = np.flatnonzero((reason == KEEP) & (roots != np.arange(n)))
            reason[hit], dup[hit] = NEAR, roots[hit]
    return reason, dup, roots, decontam, edges


# ---------------------------------------------------------------- phase B: rewrite the parts

@dataclass(frozen=True)
class ApplyUnit:
    key: str
    in_path: Path
    in_sha256: str
    own_rank: np.ndarray      # each row's row index over the dedup input (id order)
    cluster: np.ndarray       # minhash_cluster of each row
    reason: np.ndarray        # decision code of each row
    duplicate_of: dict        # row -> kept id (exact and near drops)
    decontam: dict            # row -> (eval source, matched n-gram)
    out_dir: Path


def apply_part(u: ApplyUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256).select(list(IN_COLUMNS))
    keep = u.reason == KEEP
    kept = table.filter(pa.array(keep)).append_column("minhash_cluster", pa.array(u.cluster[keep], pa.int64()))
    dropped_rows = np.flatnonzero(~keep).tolist()
    take = pa.array(dropped_rows, pa.int64())
    no_match = (None, None)
    dropped = pa.table({
        "id": table.column("id").take(take), "source_id": table.column("source_id").take(take),
        "url": table.column("url").take(take),
        "reason": pa.array([REASON_NAMES[int(u.reason[i])] for i in dropped_rows], pa.string()),
        "duplicate_of": pa.array([u.duplicate_of.get(i) for i in dropped_rows], pa.string()),
        "eval_source": pa.array([u.decontam.get(i, no_match)[0] for i in dropped_rows], pa.string()),
        "matched_ngram": pa.array([u.decontam.get(i, no_match)[1] for i in dropped_rows], pa.string()),
        "text": table.column("text").take(take)})
    (u.out_dir / "dropped").mkdir(exist_ok=True)
    parts = [write_table(kept, u.out_dir / f"{u.key}.parquet"),
             write_table(dropped, u.out_dir / "dropped" / f"{u.key}.parquet")]
    parts[1]["name"] = f"dropped/{u.key}.parquet"
    by_source: dict[str, dict[str, int]] = {}
    for sid, k in zip(table.column("source_id").to_pylist(), keep.tolist()):
        s = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
        s["docs_in"] += 1
        s["docs_out"] += int(k)
    evals = [source for source, _ in u.decontam.values()]
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {name: int(np.sum(u.reason == code)) for code, name in REASON_NAMES.items()},
              "decontam_by_eval": {e: evals.count(e) for e in sorted(set(evals))}, "by_source": by_source,
              "near_marked": int(np.sum(keep & (u.cluster != u.own_rank)))}
    return {"key": u.key, "parts": parts, "counts": counts}


# ---------------------------------------------------------------- the stage

def run_dedup(config: Config, *, workers: int, force: bool = False, resume: bool = False) -> dict:
    src = require_stage(config, INPUT_DIR, "filter")
    manifest, ref = input_manifest(config, src)
    d = dict(config["dedup"])
    if d["num_perm"] % d["bands"]:
        raise CorpusError(f"{config.path}: dedup.num_perm ({d['num_perm']}) must be a multiple of dedup.bands ({d['bands']})")
    ledger = load_ledger(config.ledger_path)
    evals = select(ledger, config["decontam"]["evals"], "eval", what=f"{config.path}: decontam.evals")
    params = {"dedup": d, "decontam": config["decontam"], "eval_sha256": {r["source_id"]: r["sha256"] for r in evals}}
    parts = [(src / p["name"], p) for p in manifest["parts"] if p["name"].startswith("part-")]
    keys = [p["name"].removesuffix(".parquet") for _, p in parts]

    def units(ctx: dict) -> list[ApplyUnit]:
        """Phase A and the global step run here, in the staging dir; the phase B units are returned."""
        staging = ctx["out_dir"]
        work = staging / WORK
        work.mkdir(exist_ok=True)
        signed = map_units(sign_part, [SignUnit(k, p, m["sha256"], d, ctx.get("eval_index"), work)
                                       for k, (p, m) in zip(keys, parts)],
                           workers=workers, executor=config["run"]["executor"], desc="dedup: signatures",
                           unit="parts")
        offsets = np.cumsum([0] + [s["rows"] for s in signed])
        rank, ids = row_ranks(parts)
        reason, dup, roots, decontam, edges = decide(signed, ids, rank, offsets, work, keys, d)
        by_rank = np.empty(len(rank), dtype=np.int64)
        by_rank[rank] = np.arange(len(rank))
        log.info("dedup: %d docs, %d confirmed near-duplicate edges, %d multi-document clusters", len(rank), edges,
                 int(np.sum(np.bincount(roots, minlength=len(rank)) > 1)) if len(rank) else 0)
        out = []
        for i, (k, (p, m)) in enumerate(zip(keys, parts)):
            r = rank[offsets[i]:offsets[i + 1]]
            rows = np.flatnonzero(dup[r] >= 0)
            dup_ids = ids.take(pa.array(by_rank[dup[r[rows]]])).to_pylist() if len(rows) else []
            matches = {row: decontam[x] for row, x in enumerate(r.tolist()) if x in decontam}
            out.append(ApplyUnit(k, p, m["sha256"], r, roots[r], reason[r], dict(zip(rows.tolist(), dup_ids)),
                                 matches, staging))
        return out

    return run_stage(config, StageRun("dedup", DIRNAME, params, [ref], units, apply_part,
                                      functools.partial(prepare_eval_index, config)),
                     workers=workers, force=force, resume=resume)
