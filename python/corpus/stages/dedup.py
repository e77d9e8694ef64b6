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

def row_ranks(parts: list[tuple[Path, dict]]) -> tuple[np.ndarray, pa.Array]:
    """Row index in id order (byte order) of every document, in concatenated part order; and the ids."""
    ids = pa.concat_arrays([pq.read_table(p, columns=["id"]).column("id").combine_chunks() for p, _ in parts]) \
        if parts else pa.array([], pa.string())
    order = pc.sort_indices(ids).to_numpy()
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids), dtype=np.int64)
    return rank, ids


def exact_groups(digests: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """For each document the rank of the smallest-id document with the same text (itself if none)."""
    n = len(rank)
    keeper = rank.copy()
    if n == 0:
        return keeper
    prefix = digests[:, :8].copy().view(">u8").ravel()  # compact key; equal prefixes are then compared in full
    order = np.lexsort((rank, prefix))
    same_prefix = prefix[order][1:] == prefix[order][:-1]
    for i in np.flatnonzero(same_prefix):
        a, b = order[i], order[i + 1]
        if np.array_equal(digests[a], digests[b]):
            keeper[b] = keeper[a]  # chains along the run: keeper[a] is already the run's smallest rank
    return keeper


def near_roots(work: Path, keys: list[str], rank: np.ndarray, sizes: list[int], dedup: dict) -> tuple[np.ndarray, int]:
    """Cluster root (a rank) of every document, indexed by rank; and the number of confirmed edges."""
    n = len(rank)
    roots = np.arange(n, dtype=np.int64)
    if n == 0:
        return roots, 0
    sig_parts = [np.load(work / f"{k}.sig.npy", mmap_mode="r") for k in keys]
    sigs = np.empty((n, dedup["num_perm"]), dtype=sig_parts[0].dtype)  # in rank order, for pair lookups
    offsets = np.cumsum([0] + sizes)
    for i, s in enumerate(sig_parts):
        sigs[rank[offsets[i]:offsets[i + 1]]] = s
    confirmed = 0
    for band in range(dedup["bands"]):
        band_key = np.concatenate([np.load(work / f"{k}.bands.npy", mmap_mode="r")[:, band] for k in keys])
        for edges in candidate_pair_batches(band_key, rank):
            edges = confirmed_edges(edges_across_clusters(edges, roots), sigs, dedup["jaccard_threshold"])
            confirmed += len(edges)
            roots = cluster_roots(n, edges, roots=roots)
    return roots, confirmed


# ---------------------------------------------------------------- phase B: rewrite the parts

@dataclass(frozen=True)
class ApplyUnit:
    key: str
    in_path: Path
    in_sha256: str
    cluster: np.ndarray       # minhash_cluster of each row
    own_rank: np.ndarray      # each row's own row index (id order over the dedup input)
    reason: list              # None (kept) or a REASONS value, per row
    duplicate_of: list        # id or None
    eval_source: list
    matched: list
    out_dir: Path


def apply_part(u: ApplyUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256).select(list(IN_COLUMNS))
    keep = np.array([r is None for r in u.reason], dtype=bool)
    kept = table.filter(pa.array(keep)).append_column("minhash_cluster", pa.array(u.cluster[keep], pa.int64()))
    dropped_rows = np.flatnonzero(~keep)
    take = pa.array(dropped_rows, pa.int64())
    dropped = pa.table({
        "id": table.column("id").take(take), "source_id": table.column("source_id").take(take),
        "url": table.column("url").take(take),
        "reason": pa.array([u.reason[i] for i in dropped_rows], pa.string()),
        "duplicate_of": pa.array([u.duplicate_of[i] for i in dropped_rows], pa.string()),
        "eval_source": pa.array([u.eval_source[i] for i in dropped_rows], pa.string()),
        "matched_ngram": pa.array([u.matched[i] for i in dropped_rows], pa.string()),
        "text": table.column("text").take(take)})
    (u.out_dir / "dropped").mkdir(exist_ok=True)
    parts = [write_table(kept, u.out_dir / f"{u.key}.parquet"),
             write_table(dropped, u.out_dir / "dropped" / f"{u.key}.parquet")]
    parts[1]["name"] = f"dropped/{u.key}.parquet"
    by_source: dict[str, dict[str, int]] = {}
    for sid, k in zip(table.column("source_id").to_pylist(), keep):
        s = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
        s["docs_in"] += 1
        s["docs_out"] += int(k)
    reasons = [u.reason[i] for i in dropped_rows]
    evals = [u.eval_source[i] for i in dropped_rows if u.reason[i] == "decontam"]
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {r: reasons.count(r) for r in REASONS},
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
    staging = config.stage_dir(DIRNAME).with_name(DIRNAME + ".incomplete")
    keys = [p["name"].removesuffix(".parquet") for _, p in parts]
    executor = config["run"]["executor"]

    def units(ctx: dict) -> list[ApplyUnit]:
        """Phase A and the global step run here, inside the staging dir; phase B units are returned."""
        from ..executor import map_units

        work = staging / WORK
        work.mkdir(exist_ok=True)
        signed = map_units(sign_part, [SignUnit(k, p, m["sha256"], d, ctx.get("eval_index"), work)
                                       for k, (p, m) in zip(keys, parts)],
                           workers=workers, executor=executor, desc="dedup: signatures", unit="parts")
        sizes = [s["rows"] for s in signed]
        rank, ids = row_ranks(parts)
        n = len(rank)
        offsets = np.cumsum([0] + sizes)
        digests = np.concatenate([np.load(work / f"{k}.sha.npy") for k in keys]) if keys else np.zeros((0, 32), np.uint8)
        by_rank = np.empty(n, dtype=np.int64)
        by_rank[rank] = np.arange(n)          # position (in part order) of the document with each rank
        keeper = exact_groups(digests, rank) if d["exact"] else rank
        roots, edges = near_roots(work, keys, rank, sizes, d) if d["near"] else (np.arange(n), 0)
        cluster = roots[rank]                  # minhash_cluster of each document, in part order
        reason: list = [None] * n
        dup_of: list = [None] * n
        eval_src: list = [None] * n
        matched: list = [None] * n
        for i, s in enumerate(signed):
            for row, source, gram in s["decontam"]:
                g = offsets[i] + row
                reason[g], eval_src[g], matched[g] = "decontam", source, gram
        for g in range(n):
            if reason[g] is not None:
                continue
            if keeper[g] != rank[g]:
                reason[g], dup_of[g] = "exact", ids[int(by_rank[keeper[g]])].as_py()
            elif d["mode"] == "drop" and cluster[g] != rank[g]:
                reason[g], dup_of[g] = "near", ids[int(by_rank[cluster[g]])].as_py()
        log.info("dedup: %d docs, %d confirmed near-duplicate edges, %d multi-document clusters", n, edges,
                 int(np.sum(np.bincount(roots, minlength=n) > 1)) if n else 0)
        out = []
        for i, (k, (p, m)) in enumerate(zip(keys, parts)):
            a, b = offsets[i], offsets[i + 1]
            out.append(ApplyUnit(k, p, m["sha256"], cluster[a:b], rank[a:b], reason[a:b], dup_of[a:b], eval_src[a:b],
                                 matched[a:b], staging))
        return out

    return run_stage(config, StageRun("dedup", DIRNAME, params, [ref], units, apply_part,
                                      functools.partial(prepare_eval_index, config)),
                     workers=workers, force=force, resume=resume)
