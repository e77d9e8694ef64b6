"""Stage 04 dedup: benchmark decontamination, exact dedup and MinHash-LSH near-dedup.

Phases: `eval-index` (the protected eval sets' n-grams, published), `signatures` (per part: each
text's sha256, MinHash signature and band keys to work files, and its decontamination match),
`decide` (the global step of corpus.dedup.decide, on compact arrays only) and `apply` (per part: kept
rows gain `minhash_cluster`, dropped ones go to dropped/ with the reason and the id they duplicate or
the eval set and n-gram they share). Every map phase is checkpointed unit by unit."""

from __future__ import annotations

import functools
import hashlib
import io
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..atomic import sha256_bytes, write_bytes
from ..checksums import read_verified
from ..config import Config
from ..dedup.decide import KEEP, REASON_NAMES, decide, row_ranks
from ..dedup.decontam import EvalIndex, index_from_bytes, index_to_bytes
from ..dedup.published import COMPATIBLE, PublishedIndex, index_bytes
from ..dedup.minhash import MinHasher, band_keys
from ..dedup.verify import ShingleSets, signatures_and_sets
from ..errors import CorpusError
from ..ledger import load_ledger, select
from ..parts import read_table, validate_columns, write_table
from ..raw import raw_texts
from ..runner import Job, Map, PhaseContext, RunOptions, Step, published_stage
from . import STAGE, input_columns

log = logging.getLogger(__name__)
ME = STAGE["dedup"]
EVAL_INDEX = "eval-index.npz"
INDEX_DIR = "index"  # the kept documents' digests, band keys and shingle sets, for later versions' `against`
IN_COLUMNS = input_columns("dedup")
DROPPED_COLUMNS = ME.side.columns


# ---------------------------------------------------------------- eval-index (a step)

def build_eval_index(config: Config) -> EvalIndex:
    """All protected eval items, normalised as stage 02 normalises the corpus."""
    dcfg = config["decontam"]
    index = EvalIndex(dcfg["ngram"], min_words=dcfg["min_words"])
    ledger = load_ledger(config.ledger_path)
    for row in select(ledger, dcfg["evals"], "eval", what=f"{config.path}: decontam.evals"):
        for text in raw_texts(config, row):
            index.add(row["source_id"], text)
    return index


def eval_index_step(ctx: PhaseContext) -> None:
    config = ctx.config
    ctx.state["eval_index"] = None
    if not (config["decontam"]["enabled"] and config["decontam"]["evals"]):
        return
    index = build_eval_index(config)
    data = index_to_bytes(index)
    write_bytes(ctx.staging / EVAL_INDEX, data)
    log.info("decontam: %d protected %d-grams from %s (%d items under %d words skipped)", len(index),
             index.n, ", ".join(config["decontam"]["evals"]), index.skipped_items, index.min_words)
    entry = {"name": EVAL_INDEX, "sha256": sha256_bytes(data), "rows": len(index), "bytes": len(data)}
    ctx.add_part(entry)
    ctx.state["eval_index"] = (str(ctx.staging / EVAL_INDEX), entry["sha256"])


@functools.cache
def _eval_index(path: str, sha256: str) -> EvalIndex:
    return index_from_bytes(read_verified(Path(path), sha256))


@functools.cache
def _hasher(num_perm: int, seed: int, ngram: int) -> MinHasher:
    return MinHasher(num_perm=num_perm, seed=seed, ngram=ngram)


# ---------------------------------------------------------------- signatures (per part)

@dataclass(frozen=True)
class SignUnit:
    key: str
    in_path: Path
    in_sha256: str
    dedup: dict
    eval_index: tuple[str, str] | None
    staging: Path


def _save(staging: Path, name: str, array: np.ndarray) -> dict:
    """A work array as .npy, hashed from the bytes written (no second read of the file)."""
    buf = io.BytesIO()
    np.save(buf, array)
    data = buf.getvalue()
    write_bytes(staging / "_work" / name, data)
    return {"name": f"_work/{name}", "sha256": sha256_bytes(data), "bytes": len(data)}


def sign_part(u: SignUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256)
    validate_columns(table, IN_COLUMNS, u.in_path)
    texts = table.column("text").to_pylist()
    digests = np.frombuffer(b"".join(hashlib.sha256(t.encode("utf-8")).digest() for t in texts),
                            dtype=np.uint8).reshape(len(texts), 32)
    work = [_save(u.staging, f"{u.key}.sha.npy", digests)]
    d = u.dedup
    if d["near"]:
        hasher = _hasher(d["num_perm"], d["seed"], d["ngram_words"])
        if d["verify"] == "exact":  # the shingle sets confirm candidates; the signatures only make bands
            sigs, sets = signatures_and_sets(hasher, texts)
            work += [_save(u.staging, f"{u.key}.sets.npy", sets.flat),
                     _save(u.staging, f"{u.key}.setoffsets.npy", sets.offsets)]
        else:
            sigs = hasher.signatures(texts)
            work.append(_save(u.staging, f"{u.key}.sig.npy", sigs))
        work.append(_save(u.staging, f"{u.key}.bands.npy", band_keys(sigs, d["bands"])))
    matches = []
    if u.eval_index is not None:
        index = _eval_index(*u.eval_index)
        for row, text in enumerate(texts):
            m = index.match(text)
            if m is not None:
                matches.append((row, m[0], m[1]))
    return {"key": u.key, "work": work, "rows": len(texts), "decontam": matches}


# ---------------------------------------------------------------- apply (per part)

@dataclass(frozen=True)
class ApplyUnit:
    key: str
    in_path: Path
    in_sha256: str
    own_rank: np.ndarray      # each row's row index over the dedup input (id order)
    cluster: np.ndarray       # minhash_cluster of each row
    reason: np.ndarray        # decision code of each row
    duplicate_of: dict        # row -> kept id (exact and near drops)
    overlap: dict             # row -> (shared shingles, union size) with the document it duplicates
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
        "jaccard": pa.array([u.overlap[i][0] / u.overlap[i][1] if i in u.overlap and u.overlap[i][1] else None
                             for i in dropped_rows], pa.float64()),
        "shared_shingles": pa.array([u.overlap[i][0] if i in u.overlap else None for i in dropped_rows], pa.int64()),
        "text": table.column("text").take(take)}, schema=pa.schema(list(DROPPED_COLUMNS.items())))
    side = f"{ME.side.dirname}/{u.key}.parquet"
    (u.out_dir / ME.side.dirname).mkdir(exist_ok=True)
    parts = [write_table(kept, u.out_dir / f"{u.key}.parquet"), write_table(dropped, u.out_dir / side),
             _write_index(u, kept.column("id").to_pylist(), keep)]
    parts[1]["name"] = side
    by_source: dict[str, dict[str, int]] = {}
    for sid, k in zip(table.column("source_id").to_pylist(), keep.tolist()):
        s = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
        s["docs_in"] += 1
        s["docs_out"] += int(k)
    evals = [source for source, _ in u.decontam.values()]
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {name: int(np.sum(u.reason == code)) for code, name in REASON_NAMES.items()},
              "decontam_by_eval": {e: evals.count(e) for e in sorted(set(evals))}, "by_source": by_source,
              "near_marked": int(np.sum(keep & (u.cluster != u.own_rank))),
              "published_duplicates": sum(1 for v in u.duplicate_of.values() if "/" in v.split(":")[0])}
    return {"key": u.key, "parts": parts, "counts": counts}


def _write_index(u: ApplyUnit, ids: list[str], keep: np.ndarray) -> dict:
    """index/<key>.npz: the kept documents' ids, digests and (with near dedup) band keys and sets."""
    work = u.out_dir / "_work"
    rows = np.flatnonzero(keep)
    bands = sets = None
    if (work / f"{u.key}.setoffsets.npy").is_file():
        bands = np.load(work / f"{u.key}.bands.npy")[rows]
        flat, sizes = ShingleSets.load(work / u.key).gather(rows)
        sets = ShingleSets(flat, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64))
    data = index_bytes(ids, np.load(work / f"{u.key}.sha.npy")[rows], bands, sets)
    name = f"{INDEX_DIR}/{u.key}.npz"
    (u.out_dir / INDEX_DIR).mkdir(exist_ok=True)
    write_bytes(u.out_dir / name, data)
    return {"name": name, "sha256": sha256_bytes(data), "rows": len(ids), "bytes": len(data)}


def published_indexes(config: Config, d: dict) -> tuple[list[tuple[str, Path, list[dict]]], list[dict]]:
    """For each `[dedup] against` version: (name, its dedup dir, its index parts), and the input refs."""
    out, refs = [], []
    for name in d["against"]:
        dataset, version = name.split("/")
        directory = config.artifacts / "corpus" / dataset / version / "stages" / ME.dirname
        if (dataset, version) == (config.dataset, config.version):
            raise CorpusError(f"{config.path}: dedup.against: '{name}' is this dataset version itself")
        manifest, ref = published_stage(config, directory, "dedup")
        theirs = manifest["params"]["dedup"]
        differ = [k for k in COMPATIBLE if theirs.get(k) != d[k]]
        if differ:
            raise CorpusError(f"{directory / 'stages'}: dedup.against '{name}' was deduplicated with another "
                              f"{differ[0]} ({theirs.get(differ[0])}, this config has {d[differ[0]]})")
        parts = [p for p in manifest["parts"] if p["name"].startswith(INDEX_DIR + "/")]
        if not parts:
            raise CorpusError(f"{directory}: dedup.against '{name}' has no index/ (made by an older corpus)")
        out.append((name, directory, parts))
        refs.append(ref)
    return out, refs


# ---------------------------------------------------------------- the stage

def plan(config: Config, opts: RunOptions) -> list[Job]:
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads)
    d = dict(config["dedup"])
    if d["num_perm"] % d["bands"]:
        raise CorpusError(f"{config.path}: dedup.num_perm ({d['num_perm']}) must be a multiple of dedup.bands ({d['bands']})")
    ledger = load_ledger(config.ledger_path)
    evals = select(ledger, config["decontam"]["evals"], "eval", what=f"{config.path}: decontam.evals")
    params = {"dedup": d, "decontam": config["decontam"], "eval_sha256": {r["source_id"]: r["sha256"] for r in evals}}
    parts = [(src / p["name"], p) for p in manifest["parts"] if p["name"].startswith("part-")]
    keys = [p["name"].removesuffix(".parquet") for _, p in parts]
    against, against_refs = published_indexes(config, d)

    def sign_units(ctx: PhaseContext) -> list[SignUnit]:
        return [SignUnit(k, path, p["sha256"], d, ctx.state["eval_index"], ctx.staging)
                for k, (path, p) in zip(keys, parts)]

    def decide_step(ctx: PhaseContext) -> None:
        signed = ctx.results["signatures"]
        offsets = np.cumsum([0] + [s["rows"] for s in signed])
        rank, ids = row_ranks([path for path, _ in parts])
        indexes = [PublishedIndex.from_files(name, [read_verified(directory / p["name"], p["sha256"]) for p in files])
                   for name, directory, files in against]
        dec = decide([s["decontam"] for s in signed], rank, offsets, ctx.work, keys, d, indexes)
        by_rank = np.empty(len(rank), dtype=np.int64)
        by_rank[rank] = np.arange(len(rank))
        log.info("dedup: %d docs, %d confirmed near-duplicate edges, %d multi-document clusters", len(rank),
                 dec.near_edges, int(np.sum(np.bincount(dec.roots, minlength=len(rank)) > 1)) if len(rank) else 0)
        units = []
        for i, (k, (path, p)) in enumerate(zip(keys, parts)):
            r = rank[offsets[i]:offsets[i + 1]]
            rows = np.flatnonzero(dec.duplicate_of[r] >= 0)
            dup_ids = ids.take(pa.array(by_rank[dec.duplicate_of[r[rows]]])).to_pylist() if len(rows) else []
            duplicate_of = dict(zip(rows.tolist(), dup_ids))
            duplicate_of.update({row: dec.published[x] for row, x in enumerate(r.tolist()) if x in dec.published})
            matches = {row: tuple(dec.decontam[x]) for row, x in enumerate(r.tolist()) if x in dec.decontam}
            overlap = {row: dec.overlap[x] for row, x in enumerate(r.tolist()) if x in dec.overlap}
            units.append(ApplyUnit(k, path, p["sha256"], r, dec.roots[r], dec.reason[r], duplicate_of, overlap,
                                   matches, ctx.staging))
        ctx.state["apply_units"] = units

    phases = [Step("eval-index", eval_index_step), Map("signatures", sign_units, sign_part),
              Step("decide", decide_step), Map("apply", lambda ctx: ctx.state["apply_units"], apply_part)]
    return [Job("dedup", ME.path(config), {"config_sha256": config.sha256, "params": params,
                                           "inputs": [ref, *against_refs]},
                phases, dataset=config.dataset, version=config.version)]


def report(result) -> list[str]:
    c = result.manifest["counts"]
    lines = [f"  dropped as {reason:<9} {n:>7}" for reason, n in c.get("dropped", {}).items()]
    lines += [f"    overlaps {ev:<18} {n:>5}" for ev, n in c.get("decontam_by_eval", {}).items()]
    return lines
