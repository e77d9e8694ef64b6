"""Stage 04 dedup: benchmark decontamination, exact dedup and MinHash-LSH near-dedup.

Phases: `eval-index` (the protected eval sets' n-grams, published), `signatures` (per part: each
text's sha256, MinHash signature and band keys to work files, and its decontamination match),
`decide` (the global step of corpus.dedup.decide, on compact arrays only) and `apply` (per part: kept
rows gain `minhash_cluster`, dropped ones go to dropped/ with the reason and the id they duplicate or
the eval set and n-gram they share). Every map phase is checkpointed unit by unit."""

from __future__ import annotations

import functools
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.store.checksums import read_verified
from corpus.config import Config
from corpus.dedup.buckets import BucketUnit, KeysUnit, bucket_keys, exact_bucket, near_bucket, save
from corpus.dedup.decide import KEEP, REASON_NAMES, PartInputs, part_decisions
from corpus.dedup.rounds import MAX_ROUNDS, RoundUnit, large_star_round, small_star_round
from corpus.dedup.rowindex import RangeUnit, rank_range
from corpus.dedup.decontam import EvalIndex, index_from_bytes, index_to_bytes
from corpus.dedup.published import COMPATIBLE, index_bytes
from corpus.dedup.minhash import MinHasher, band_keys
from corpus.dedup.verify import ShingleSets, signatures_and_sets
from corpus.errors import CorpusError
from corpus.config.ledger import load_ledger, select
from corpus.engine.partitioning import SAMPLES_PER_PARTITION, SampleUnit, partitions, pick_splitters, sample_part
from corpus.formats.parts import read_table, validate_columns, write_table
from corpus.engine.raw import raw_texts
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step, published_stage
from corpus.stages import STAGE, input_columns

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
    return save(staging / "_work" / name, array, staging)


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
    inputs: PartInputs        # where this part's decisions come from (corpus.dedup.decide)
    out_dir: Path


def apply_part(u: ApplyUnit) -> dict:
    dec = part_decisions(u.inputs)
    table = read_table(u.in_path, u.in_sha256).select(list(IN_COLUMNS))
    if table.num_rows != len(dec.rows):
        raise CorpusError(f"{u.in_path}: {table.num_rows} rows, the dedup work files have {len(dec.rows)}")
    keep = dec.reason == KEEP
    kept = table.filter(pa.array(keep)).append_column("minhash_cluster", pa.array(dec.roots[keep], pa.int64()))
    dropped_rows = np.flatnonzero(~keep).tolist()
    take = pa.array(dropped_rows, pa.int64())
    no_match = (None, None)
    dropped = pa.table({
        "id": table.column("id").take(take), "source_id": table.column("source_id").take(take),
        "url": table.column("url").take(take),
        "reason": pa.array([REASON_NAMES[int(dec.reason[i])] for i in dropped_rows], pa.string()),
        "duplicate_of": pa.array([dec.duplicate_of.get(i) for i in dropped_rows], pa.string()),
        "eval_source": pa.array([dec.decontam.get(i, no_match)[0] for i in dropped_rows], pa.string()),
        "matched_ngram": pa.array([dec.decontam.get(i, no_match)[1] for i in dropped_rows], pa.string()),
        "jaccard": pa.array([dec.overlap[i][0] / dec.overlap[i][1] if i in dec.overlap and dec.overlap[i][1]
                             else None for i in dropped_rows], pa.float64()),
        "shared_shingles": pa.array([dec.overlap[i][0] if i in dec.overlap else None for i in dropped_rows],
                                    pa.int64()),
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
    evals = [source for source, _ in dec.decontam.values()]
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {name: int(np.sum(dec.reason == code)) for code, name in REASON_NAMES.items()},
              "decontam_by_eval": {e: evals.count(e) for e in sorted(set(evals))}, "by_source": by_source,
              "near_marked": int(np.sum(keep & (dec.roots != dec.rows))),
              "published_duplicates": sum(1 for v in dec.duplicate_of.values() if "/" in v.split(":")[0])}
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

    n_docs = sum(p["rows"] for _, p in parts)
    n_parts = partitions(config, n_docs, workers=opts.workers)
    tag = f"of-{n_parts:05d}"  # unit keys name P: a resume with another P never reuses these units

    def out(ctx: PhaseContext) -> Path:
        return ctx.work / "global"

    def sample_units(ctx: PhaseContext) -> list[SampleUnit]:
        if n_parts == 1:
            return []  # one range: no splitters to pick
        return [SampleUnit(f"{k}-{tag}", path, p["rows"],
                           max(1, -(-SAMPLES_PER_PARTITION * n_parts * p["rows"] // max(1, n_docs))))
                for k, (path, p) in zip(keys, parts)]

    def splitters_step(ctx: PhaseContext) -> None:
        found = pick_splitters([(r["samples"], r["weight"]) for r in ctx.results["sample"]], n_parts)
        ctx.state["bounds"] = [None, *found, None] if found else [None] * (n_parts + 1)
        ctx.run_info["partitions"] = n_parts

    def range_units(ctx: PhaseContext) -> list[RangeUnit]:
        b = ctx.state["bounds"]
        inputs = tuple((path, p["rows"]) for path, p in parts)
        return [RangeUnit(f"range-{r:05d}-{tag}", b[r], b[r + 1], inputs, out(ctx) / "ranges" / f"range-{r:05d}-{tag}",
                          ctx.staging) for r in range(n_parts)]

    def offsets_step(ctx: PhaseContext) -> None:
        signed = ctx.results["signatures"]
        counts = [r["docs"] for r in ctx.results["rank"]]
        if sum(counts) != n_docs or [s["rows"] for s in signed] != [p["rows"] for _, p in parts]:
            raise CorpusError(f"dedup: the id ranges hold {sum(counts)} documents, the input {n_docs}")
        bases = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
        ctx.state["ranges"] = tuple((u.out, base) for u, base in zip(range_units(ctx), bases))
        ctx.state["offsets"] = tuple(np.cumsum([0] + [p["rows"] for _, p in parts]).tolist())
        ctx.state["against"] = tuple((name, tuple((str(directory / f["name"]), f["sha256"]) for f in files))
                                     for name, directory, files in against)

    def keys_units(ctx: PhaseContext) -> list[KeysUnit]:
        return [KeysUnit(f"{k}-{tag}", k, i, p["rows"], ctx.state["ranges"], n_parts, ctx.work, out(ctx),
                         bool(d["exact"]), bool(d["near"]), ctx.staging) for i, (k, (_, p)) in enumerate(zip(keys, parts))]

    def bucket_units(ctx: PhaseContext) -> list[BucketUnit]:
        return [BucketUnit(f"bucket-{r:05d}-{tag}", r, n_parts, tuple(keys),
                           ctx.state["offsets"], out(ctx), ctx.work, d, ctx.state["against"], ctx.staging)
                for r in range(n_parts)]

    def round_files(ctx: PhaseContext, t: int) -> tuple[Path, ...]:
        """Round t's file prefixes, one per unit (round 0: the near units')."""
        names = [u.key for u in bucket_units(ctx)] if t == 0 else [f"cc-{t}-{r:05d}-{tag}" for r in range(n_parts)]
        return tuple(out(ctx) / f"cc-{t}" / name for name in names)

    def round_units(t: int):
        def units(ctx: PhaseContext) -> list[RoundUnit]:
            prev, mine = round_files(ctx, t - 1), round_files(ctx, t)
            return [RoundUnit(x.name, t, r, n_parts, prev, x, ctx.staging) for r, x in enumerate(mine)]
        return units

    def converged_step(t: int):
        def step(ctx: PhaseContext) -> None:
            results = ctx.results[f"components-{t}"]
            if all(r["stars"] for r in results):
                ctx.state["labels"] = tuple(x.with_name(x.name + ".labels.npy") for x in round_files(ctx, t))
                edges = sum(r["confirmed_edges"] for r in ctx.results["near"])
                ctx.run_info.update(components_rounds=t, confirmed_edges=edges)
                log.info("dedup: %d docs, %d multi-document clusters (%d confirmed near-duplicate edges over %d "
                         "partitions, %d component rounds)", n_docs, sum(r["clusters"] for r in results), edges,
                         n_parts, t)
                ctx.job.phases.append(Map("apply", apply_units, apply_part))
                return
            if t >= MAX_ROUNDS:
                raise AssertionError(f"dedup: connected components not converged after {t} rounds")
            ctx.job.phases.extend([Map(f"components-{t + 1}", round_units(t + 1), small_star_round, unit="partitions"),
                                   Map(f"components-{t + 2}", round_units(t + 2), large_star_round, unit="partitions"),
                                   Step(f"converged-{t + 2}", converged_step(t + 2))])
        return step

    def apply_units(ctx: PhaseContext) -> list[ApplyUnit]:
        signed = ctx.results["signatures"]
        labels = ctx.state.get("labels", ())
        exact_units = tuple(u.key for u in bucket_units(ctx)) if d["exact"] else ()
        return [ApplyUnit(k, path, p["sha256"],
                          PartInputs(k, i, tuple(keys), ctx.state["offsets"],
                                     ctx.state["ranges"], n_parts, out(ctx), ctx.work, exact_units, labels,
                                     tuple(tuple(h) for h in signed[i]["decontam"]), d, ctx.state["against"]),
                          ctx.staging)
                for i, (k, (path, p)) in enumerate(zip(keys, parts))]

    phases = [Step("eval-index", eval_index_step), Map("signatures", sign_units, sign_part),
              Map("sample", sample_units, sample_part), Step("splitters", splitters_step),
              Map("rank", range_units, rank_range, unit="ranges"), Step("offsets", offsets_step),
              Map("keys", keys_units, bucket_keys)]
    if d["exact"]:
        phases.append(Map("exact", bucket_units, exact_bucket, unit="buckets"))
    if d["near"]:
        phases += [Map("near", bucket_units, near_bucket, unit="buckets"),
                   Map("components-1", round_units(1), large_star_round, unit="partitions"),
                   Step("converged-1", converged_step(1))]
    else:
        phases.append(Map("apply", apply_units, apply_part))
    return [Job("dedup", ME.path(config), {"config_sha256": config.sha256, "params": params,
                                           "inputs": [ref, *against_refs]},
                phases, dataset=config.dataset, version=config.version)]


def report(result) -> list[str]:
    c = result.manifest["counts"]
    lines = [f"  dropped as {reason:<9} {n:>7}" for reason, n in c.get("dropped", {}).items()]
    lines += [f"    overlaps {ev:<18} {n:>5}" for ev, n in c.get("decontam_by_eval", {}).items()]
    return lines
