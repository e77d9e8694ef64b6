"""Stage 04 dedup: benchmark decontamination, exact dedup and MinHash-LSH near-dedup.

The phases, as `plan` lists them: `eval-index` (the protected eval sets' n-grams, published);
`signatures` (per part: each text's sha256, MinHash signature and band keys to work files, its
decontamination match, and a web page's URL key and crawl date); the id sort (corpus.engine.idsort: `sample`, `splitters`, `rank`, `offsets`),
whose ranks are the documents' row indices; `keys`, `exact` and `near` (corpus.dedup.buckets: the
URL keys hash-partitioned into buckets (`url-keys`) and URL groups per bucket (`urls`: the newest crawl
of a URL is kept), then the other digests and band keys of the pages left, exact groups and confirmed
near pairs per bucket);
`components-t` rounds until `converged-t` (corpus.dedup.rounds: the near clusters); and `apply` (per
part, with corpus.dedup.decide: kept rows gain `minhash_cluster`, dropped ones go to dropped/ with the
reason and the id they duplicate or the eval set and n-gram they share). Every map phase is
checkpointed unit by unit."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.engine.cache import Cache, cache_key, cache_root, cache_use_step
from corpus.store.checksums import read_verified
from corpus.config import Config, config_slice, hashed_table
from corpus.dedup.buckets import (URL_SIGN, BucketUnit, KeysUnit, bucket_keys, exact_bucket, near_bucket, save,
                                  url_bucket, url_keys)
from corpus.dedup.decide import KEEP, REASON_NAMES, PartInputs, part_decisions
from corpus.dedup.rounds import MAX_ROUNDS, RoundUnit, large_star_round, small_star_round
from corpus.dedup.decontam import EvalIndex, index_from_bytes, index_to_bytes
from corpus.dedup import delta, lines as unit_dedup
from corpus.dedup.memo import SignMemo
from corpus.dedup.published import COMPATIBLE, index_bytes
from corpus.dedup.minhash import MinHasher, WordBatch, band_keys, word_batches
from corpus.dedup.verify import ShingleSets, signatures_and_sets
from corpus.errors import CorpusError
from corpus.config.ledger import load_ledger, select
from corpus.filters import takedown
from corpus.engine.idsort import ids_before, IdSort, id_sort, rank_range, sample_part, suffixed
from corpus.formats.parts import read_table, utf8_digests, validate_columns, write_table
from corpus.engine.raw import raw_refs, raw_texts
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step, Whole, published_stage, read_stage_manifest
from corpus.stages import STAGE, config_hash, input_columns, input_content, reuse_sources
from corpus.web.urls import normalize_url

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


def eval_index_facts(config: Config) -> dict:
    """What the index's bytes depend on (its cache key): the [decontam] settings, the eval sources'
    sha256 and how their raw documents are read and normalised."""
    return {"decontam": config["decontam"], "eval_sha256": eval_sha256(config),
            "read": config_slice(config.data, ("fetch", "extract", "normalize"))}


def eval_sha256(config: Config) -> dict[str, str]:
    """{eval source id: its ledger sha256}."""
    ledger = load_ledger(config.ledger_path)
    evals = select(ledger, config["decontam"]["evals"], "eval", what=f"{config.path}: decontam.evals")
    return {r["source_id"]: r["sha256"] for r in evals}


def eval_index_step(ctx: PhaseContext) -> None:
    config = ctx.config
    ctx.state["eval_index"] = None
    if not (config["decontam"]["enabled"] and config["decontam"]["evals"]):
        return
    cache, key = Cache(cache_root(config), "eval-index", ".npz"), cache_key(eval_index_facts(config))
    path = ctx.staging / EVAL_INDEX
    sha256 = cache.get_file(key, path)  # linked, its sha256 checked: not read, written and fsynced again
    cached = sha256 is not None
    if cached:
        data = path.read_bytes()
    else:
        data = index_to_bytes(build_eval_index(config))
        cache.put(key, data)
        write_bytes(path, data)
        sha256 = sha256_bytes(data)
    index = index_from_bytes(data)
    log.info("decontam: %d protected %d-grams from %s (%d items under %d words skipped)%s", len(index),
             index.n, ", ".join(config["decontam"]["evals"]), index.skipped_items, index.min_words,
             "; the index from the cache" if cached else "")
    entry = {"name": EVAL_INDEX, "sha256": sha256, "rows": len(index), "bytes": len(data)}
    ctx.add_part(entry)
    ctx.state["eval_index"] = (str(ctx.staging / EVAL_INDEX), entry["sha256"])


@cache
def _eval_index(path: str, sha256: str) -> EvalIndex:
    return index_from_bytes(read_verified(Path(path), sha256))


@cache
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
    memo: str | None = None   # the cache root of the per-document MinHash results (None: [run] cache off)


def _save(staging: Path, name: str, array: np.ndarray) -> dict:
    """A work array as .npy, hashed from the bytes written (no second read of the file)."""
    return save(staging / "_work" / name, array, staging)


def sign_part(u: SignUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256)
    validate_columns(table, IN_COLUMNS, u.in_path)
    index = _eval_index(*u.eval_index) if u.eval_index is not None else None
    texts = texts_of(table.column("text"), long_as_bytes=index is None)
    digests = utf8_digests(table.column("text"))
    work = [_save(u.staging, f"{u.key}.sha.npy", digests)]
    d = u.dedup
    matches: list = []

    def decontaminate(first_row: int, words: WordBatch) -> None:  # on the words MinHash shingles too
        matches.extend((row, *m) for row, m in enumerate(index.match_batch(words), first_row) if m is not None)

    each_batch = decontaminate if index is not None else None  # None: a long text is shingled in pieces

    cache = None
    if d["near"]:
        hasher = _hasher(d["num_perm"], d["seed"], d["ngram_words"])
        exact = d["verify"] == "exact"  # the shingle sets confirm candidates; the signatures only make bands
        if u.memo is not None:  # the documents signed by an earlier run come from the cache (dedup.memo)
            memo = SignMemo(Path(u.memo), u.key, hasher, exact, u.eval_index[1] if u.eval_index else None)
            sigs, sets, matches = memo.sign(texts, (lambda _, words: index.match_batch(words)) if index else None)
            memo.save()
            cache = {"hits": memo.hits, "computed": memo.computed}
        elif exact:
            sigs, sets = signatures_and_sets(hasher, texts, each_batch)
        else:
            sigs = hasher.signatures(texts, each_batch)
        if exact:
            work += [_save(u.staging, f"{u.key}.sets.npy", sets.flat),
                     _save(u.staging, f"{u.key}.setoffsets.npy", sets.offsets)]
        else:
            work.append(_save(u.staging, f"{u.key}.sig.npy", sigs))
        work.append(_save(u.staging, f"{u.key}.bands.npy", band_keys(sigs, d["bands"])))
    elif index is not None:
        for first_row, words in word_batches(texts):
            decontaminate(first_row, words)
    if d["url"]:
        work.append(_save(u.staging, f"{u.key}.url.npy", url_signs(table)))
    res = {"key": u.key, "work": work, "rows": len(texts), "decontam": matches}
    return {**res, "cache": cache} if cache is not None else res


LONG_TEXT_BYTES = 1 << 20  # a text longer than this is shingled from its UTF-8 bytes (minhash.normalized_utf8_pieces)


def texts_of(column: pa.ChunkedArray, *, long_as_bytes: bool) -> list:
    """The column's texts as str; with long_as_bytes, one of more than LONG_TEXT_BYTES as a memoryview of
    its UTF-8 in Arrow's buffer instead: as a Python string it would cost 1, 2 or 4 bytes a character."""
    texts: list = []
    for chunk in column.chunks:
        if not long_as_bytes or not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            texts += chunk.to_pylist()
            continue
        _, offsets, data = chunk.buffers()
        width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        bounds = np.frombuffer(offsets, dtype=width)[chunk.offset:chunk.offset + len(chunk) + 1].astype(np.int64)
        long_rows = np.flatnonzero(np.diff(bounds) > LONG_TEXT_BYTES)
        if len(long_rows) == 0 or chunk.null_count:
            texts += chunk.to_pylist()
            continue
        short = iter(chunk.filter(pa.array(np.diff(bounds) <= LONG_TEXT_BYTES)).to_pylist())
        view, long_set = memoryview(data), set(long_rows.tolist())
        texts += [view[bounds[i]:bounds[i + 1]] if i in long_set else next(short) for i in range(len(chunk))]
    return texts


def url_signs(table: pa.Table) -> np.ndarray:
    """Per row: the first 8 bytes of the sha256 of its normalised URL, its crawl date (the WARC-Date's
    digits, YYYYMMDDhhmmss) and whether it is a web page (its meta has a WARC record: curated documents'
    URLs are file locators, never deduplicated by URL)."""
    urls, metas = table.column("url").to_pylist(), table.column("meta").to_pylist()
    out = np.zeros(len(urls), dtype=URL_SIGN)
    for i, (url, meta) in enumerate(zip(urls, metas)):
        if meta is None or url is None:
            continue
        m = json.loads(meta)
        if not m.get("record_id"):
            continue
        digits = "".join(c for c in (m.get("warc_date") or "") if c.isdigit())[:14]
        out[i] = (int.from_bytes(hashlib.sha256(normalize_url(url).encode("utf-8")).digest()[:8], "big"),
                  int(digits.ljust(14, "0")) if digits else 0, True)
    return out


# ---------------------------------------------------------------- apply (per part)

@dataclass(frozen=True)
class ApplyUnit:
    key: str
    in_path: Path
    in_sha256: str
    inputs: PartInputs        # where this part's decisions come from (corpus.dedup.decide)
    out_dir: Path
    units: UnitsRun | None = None  # [dedup.lines] / [dedup.spans]: where the unit copies are
    phantoms: tuple[int, ...] = ()  # DedupRun.phantoms


def apply_part(u: ApplyUnit) -> dict:
    dec = part_decisions(u.inputs)
    table = read_table(u.in_path, u.in_sha256).select(list(IN_COLUMNS))
    if table.num_rows != len(dec.rows):
        raise CorpusError(f"{u.in_path}: {table.num_rows} rows, the dedup work files have {len(dec.rows)}")
    keep = dec.reason == KEEP
    edits = None
    if u.units is not None:  # dedup inside documents: edit the kept documents, drop those left too short
        edits = unit_dedup.part_edits(u.units.spec, u.units.out, u.units.buckets, u.inputs.index,
                                      u.inputs.ranges, table, keep, u.units.against)
        table = unit_dedup.edited_table(table, edits.texts)
        dec.reason[edits.dropped] = UNIT_DROP
        keep = dec.reason == KEEP
    reason_names = {**REASON_NAMES, UNIT_DROP: u.units.spec.kind} if u.units is not None else REASON_NAMES
    roots = dec.roots[keep]
    if u.phantoms:  # a row index counts the documents taken down before it that the filters kept
        roots = roots + np.searchsorted(np.asarray(u.phantoms, np.int64), roots, side="right")
    kept = table.filter(pa.array(keep)).append_column("minhash_cluster", pa.array(roots, pa.int64()))
    dropped_rows = np.flatnonzero(~keep).tolist()
    take = pa.array(dropped_rows, pa.int64())
    no_match = (None, None)
    dropped = pa.table({
        "id": table.column("id").take(take), "source_id": table.column("source_id").take(take),
        "url": table.column("url").take(take),
        "reason": pa.array([reason_names[int(dec.reason[i])] for i in dropped_rows], pa.string()),
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
    if edits is not None:
        (u.out_dir / unit_dedup.REMOVED).mkdir(exist_ok=True)
        parts.append(write_table(unit_dedup.removed_table(edits), u.out_dir / f"{unit_dedup.REMOVED}/{u.key}.parquet"))
        parts[-1]["name"] = f"{unit_dedup.REMOVED}/{u.key}.parquet"
        parts.append(unit_dedup.units_index(u.units.out, u.units.buckets, u.inputs.index, table.column("id").to_pylist(),
                                            edits.dropped, u.out_dir, u.key))
    by_source: dict[str, dict[str, int]] = {}
    for sid, k in zip(table.column("source_id").to_pylist(), keep.tolist()):
        s = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
        s["docs_in"] += 1
        s["docs_out"] += int(k)
    evals = [source for source, _ in dec.decontam.values()]
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {name: int(np.sum(dec.reason == code)) for code, name in reason_names.items()},
              "decontam_by_eval": {e: evals.count(e) for e in sorted(set(evals))}, "by_source": by_source,
              "near_marked": int(np.sum(keep & (dec.roots != dec.rows))),
              "published_duplicates": sum(1 for v in dec.duplicate_of.values() if "/" in v.split(":")[0])}
    if edits is not None:
        counts["units_removed"] = edits.by_source  # per source: documents edited, units, characters, documents dropped
    return {"key": u.key, "parts": parts, "counts": counts}


def _write_index(u: ApplyUnit, ids: list[str], keep: np.ndarray) -> dict:
    """index/<key>.npz: the kept documents' ids, digests and (with near dedup) band keys and sets."""
    work = u.out_dir / "_work"
    rows = np.flatnonzero(keep)
    bands = sets = None
    if (work / f"{u.key}.setoffsets.npy").is_file():
        bands = np.load(work / f"{u.key}.bands.npy")[rows]
        sets = ShingleSets.load(work / u.key).take(rows)
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

@dataclass(frozen=True)
class DedupRun:
    """What dedup's phases need from planning: the [dedup] table, the input parts and their id sort."""
    dedup: dict                                   # the [dedup] table
    parts: tuple[tuple[str, Path, dict], ...]     # (key, path, manifest entry) of every input part
    part_starts: tuple[int, ...]                  # where each part's rows start in part order, and the total
    against: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # per `against` version: its index files
    sort: IdSort                                  # the input in id order: a row's row index is its rank
    units_against: tuple = ()                     # [dedup.lines]/[dedup.spans]: each `against` version's units index
    # where each document taken down that the filters would have kept stands among the input ids, sorted:
    # row indices (minhash_cluster) count them, as in the version without the takedown lists
    phantoms: tuple[int, ...] = ()
    taken_down: tuple[str, ...] = ()              # those documents' ids (filters.takedown.kept_by_filters)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _, _ in self.parts)


def dedup_run(config: Config, opts: RunOptions) -> tuple[DedupRun, dict, Whole]:
    """The run, its identity (config, parameters, inputs): what decides whether an output is current, and
    its content: what the output's bytes are a function of (the input parts by sha256, not the config that
    made them), under which another version's output may be reused whole."""
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads, upstream=config_hash(config, ME.reads))
    d = dict(config["dedup"])
    if d["num_perm"] % d["bands"]:
        raise CorpusError(f"{config.path}: dedup.num_perm ({d['num_perm']}) must be a multiple of dedup.bands ({d['bands']})")
    try:
        units = unit_dedup.UnitSpec.of(d)
    except CorpusError as e:
        raise CorpusError(f"{config.path}: {e}") from None
    # the table as hashed: [dedup.lines]/[dedup.spans] at their defaults (off) are not recorded, so the
    # manifests of versions made before they existed stay current
    params = {"dedup": hashed_table("dedup", d), "decontam": config["decontam"], "eval_sha256": eval_sha256(config)}
    parts = [(src / p["name"], p) for p in manifest["parts"] if p["name"].startswith("part-")]
    against, against_refs = published_indexes(config, d)
    run = DedupRun(
        dedup=d,
        parts=tuple((p["name"].removesuffix(".parquet"), path, p) for path, p in parts),
        part_starts=tuple(np.cumsum([0] + [p["rows"] for _, p in parts]).tolist()),
        against=tuple((name, tuple((str(directory / f["name"]), f["sha256"]) for f in files))
                      for name, directory, files in against),
        sort=id_sort(config, opts.workers, parts, "global/ranges", by_rank=True),
        units_against=unit_dedup.against_units(units, [n for n, _, _ in against], [x for _, x, _ in against],
                                               [read_stage_manifest(x) for _, x, _ in against]) if units else (),
        phantoms=tuple(ids_before([path for path, _ in parts], kept := takedown.kept_by_filters(src, manifest))),
        taken_down=tuple(kept))
    evals = config["decontam"]["evals"] if config["decontam"]["enabled"] else []
    others = [*raw_refs(config, evals), *against_refs]
    whole = Whole({"params": params, "eval_index": eval_index_facts(config), "inputs": others,
                   "parts": input_content(manifest), **({"takedown_kept": kept} if kept else {})})
    return run, {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": [ref, *others]}, whole


def global_dir(ctx: PhaseContext) -> Path:
    return ctx.work / "global"  # the work files of every phase after `signatures`


def sign_units(run: DedupRun, ctx: PhaseContext) -> list[SignUnit]:
    root = cache_root(ctx.config)
    memo = str(root) if root is not None else None
    return [SignUnit(k, path, p["sha256"], run.dedup, ctx.state["eval_index"], ctx.staging, memo)
            for k, path, p in run.parts]


def offsets_step(run: DedupRun, ctx: PhaseContext) -> None:
    signed = [r["rows"] for r in ctx.results["signatures"]]
    if signed != [p["rows"] for _, _, p in run.parts]:
        raise CorpusError(f"dedup: the signatures hold {sum(signed)} documents, the input {run.sort.n_docs}")
    run.sort.offsets_step(ctx)


def keys_units(run: DedupRun, ctx: PhaseContext) -> list[KeysUnit]:
    exact, near = bool(run.dedup["exact"]), bool(run.dedup["near"])
    url_units = tuple(bucket_names(run)) if run.dedup["url"] else ()
    return [KeysUnit(f"{k}-{run.sort.tag}", k, i, p["rows"], ctx.state["ranges"], run.sort.n_parts, ctx.work,
                     global_dir(ctx), exact, near, ctx.staging, url_units)
            for i, (k, _, p) in enumerate(run.parts)]


def bucket_names(run: DedupRun) -> list[str]:
    return [f"bucket-{r:05d}-{run.sort.tag}" for r in range(run.sort.n_parts)]


def bucket_units(run: DedupRun, ctx: PhaseContext) -> list[BucketUnit]:
    return [BucketUnit(name, r, run.sort.n_parts, run.keys, run.part_starts, global_dir(ctx), ctx.work, run.dedup,
                       run.against, ctx.staging) for r, name in enumerate(bucket_names(run))]


def round_files(run: DedupRun, ctx: PhaseContext, t: int) -> tuple[Path, ...]:
    """Round t's file prefixes, one per unit (round 0: the near units')."""
    names = bucket_names(run) if t == 0 else [f"cc-{t}-{r:05d}-{run.sort.tag}" for r in range(run.sort.n_parts)]
    return tuple(global_dir(ctx) / f"cc-{t}" / name for name in names)


def round_units(run: DedupRun, t: int, ctx: PhaseContext) -> list[RoundUnit]:
    prev, mine = round_files(run, ctx, t - 1), round_files(run, ctx, t)
    return [RoundUnit(x.name, t, r, run.sort.n_parts, prev, x, ctx.staging) for r, x in enumerate(mine)]


def converged_step(run: DedupRun, t: int, ctx: PhaseContext) -> None:
    """After round t: apply when every partition is a star, else two more rounds (small, then large)."""
    results = ctx.results[f"components-{t}"]
    if not all(r["stars"] for r in results):
        if t >= MAX_ROUNDS:
            raise AssertionError(f"dedup: connected components not converged after {t} rounds")
        ctx.job.phases.extend(
            [Map(f"components-{t + 1}", partial(round_units, run, t + 1), small_star_round, unit="partitions"),
             Map(f"components-{t + 2}", partial(round_units, run, t + 2), large_star_round, unit="partitions"),
             Step(f"converged-{t + 2}", partial(converged_step, run, t + 2))])
        return
    ctx.state["labels"] = tuple(suffixed(x, ".labels.npy") for x in round_files(run, ctx, t))
    edges = sum(r["confirmed_edges"] for r in ctx.results["near"])
    ctx.run_info.update(components_rounds=t, confirmed_edges=edges)
    log.info("dedup: %d docs, %d multi-document clusters (%d confirmed near-duplicate edges over %d "
             "partitions, %d component rounds)", run.sort.n_docs, sum(r["clusters"] for r in results), edges,
             run.sort.n_parts, t)
    ctx.job.phases.extend(apply_phases(run))


# ---------------------------------------------------------------- dedup inside documents (corpus.dedup.lines)

UNIT_DROP = max(REASON_NAMES) + 1  # a document left under min_doc_chars once its copied units are removed


@dataclass(frozen=True)
class UnitsRun:
    spec: unit_dedup.UnitSpec
    out: Path                                 # the global work dir
    buckets: tuple[str, ...]                  # the unit buckets' keys
    against: tuple = ()                       # each `against` version's units index


def unit_bucket_names(run: DedupRun) -> list[str]:
    b = run.sort.n_parts * unit_dedup.BUCKETS_PER_PARTITION
    return [f"units-{r:05d}-of-{b:05d}" for r in range(b)]


def unit_key_units(run: DedupRun, ctx: PhaseContext) -> list[unit_dedup.UnitKeysUnit]:
    spec, names = unit_dedup.UnitSpec.of(run.dedup), unit_bucket_names(run)
    return [unit_dedup.UnitKeysUnit(f"{a.key}-{run.sort.tag}", a.key, a.in_path, a.in_sha256, a.inputs, spec,
                                    len(names), global_dir(ctx), ctx.staging) for a in apply_units(run, ctx)]


def unit_buckets(run: DedupRun, ctx: PhaseContext) -> list[unit_dedup.UnitBucketUnit]:
    names = unit_bucket_names(run)
    return [unit_dedup.UnitBucketUnit(name, r, len(names), run.keys, ctx.state["ranges"], global_dir(ctx), ctx.staging,
                                      run.units_against) for r, name in enumerate(names)]


def apply_units(run: DedupRun, ctx: PhaseContext, with_units: bool = False) -> list[ApplyUnit]:
    units = UnitsRun(unit_dedup.UnitSpec.of(run.dedup), global_dir(ctx),
                     tuple(unit_bucket_names(run)), run.units_against) if with_units else None
    signed = ctx.results["signatures"]
    labels = ctx.state.get("labels", ())
    exact_units = tuple(bucket_names(run)) if run.dedup["exact"] else ()
    url_units = tuple(bucket_names(run)) if run.dedup["url"] else ()
    return [ApplyUnit(k, path, p["sha256"],
                      PartInputs(k, i, run.keys, run.part_starts, ctx.state["ranges"], run.sort.n_parts,
                                 global_dir(ctx), ctx.work, exact_units, labels,
                                 tuple(tuple(h) for h in signed[i]["decontam"]), run.dedup, run.against,
                                 url_units),
                      ctx.staging, units, run.phantoms)
            for i, (k, path, p) in enumerate(run.parts)]


def apply_phases(run: DedupRun) -> list[Map]:
    """apply, after the unit phases when dedup inside documents is on."""
    if unit_dedup.UnitSpec.of(run.dedup) is None:
        return [Map("apply", partial(apply_units, run), apply_part)]
    return [Map("unit-keys", partial(unit_key_units, run), unit_dedup.unit_keys_part),
            Map("units", partial(unit_buckets, run), unit_dedup.unit_bucket, unit="buckets"),
            Map("apply", partial(apply_units, run, with_units=True), apply_part)]


# ---------------------------------------------------------------- a takedown version (corpus.dedup.delta)

def from_base_step(run: DedupRun, full: list, ctx: PhaseContext) -> None:
    """A takedown version's dedup: the base version's output without the removed documents when removing
    them changes no other decision (corpus.dedup.delta), else every phase over every document."""
    config = ctx.config
    in_parts = {k: {"path": str(path), "sha256": p["sha256"]} for k, path, p in run.parts}
    bases = delta.find_bases(config, ctx.job.whole.content, run.keys, in_parts, list(run.taken_down),
                             ctx.job.reuse_from, STAGE[ME.reads].dirname, input_content)
    base, why = delta.first_untouched(bases, run.keys, run.dedup)
    if base is None:
        log.info("dedup: over every document (%s)", why)
        ctx.job.phases.extend(full)
        return
    where = base.dedup_dir.relative_to(config.artifacts)
    log.info("dedup: from %s without the %d removed documents (none was in a duplicate group or shared a band "
             "key)", where, len(base.sources))
    ctx.run_info["from_base"] = str(where)
    if EVAL_INDEX in base.parts:  # the same eval sets and settings (the content hash): the same bytes
        ctx.add_part(delta.link_part(base, EVAL_INDEX, ctx.staging))
    ctx.counts = delta.counts_without(base)
    units = [delta.DeltaUnit(k, path, p["sha256"], base, IN_COLUMNS, ctx.staging) for k, path, p in run.parts]
    ctx.job.phases.append(Map("from-base", lambda _ctx: units, delta.delta_part))


def plan(config: Config, opts: RunOptions) -> list[Job]:
    run, identity, whole = dedup_run(config, opts)
    sort = run.sort
    phases = [Step("eval-index", eval_index_step),
              Map("signatures", partial(sign_units, run), sign_part),
              Step("signed", cache_use_step("signatures", "minhash_cache", "documents' MinHash signatures")),
              Map("sample", sort.sample_units, sample_part),  # the id sort: a document's rank is its row index
              Step("splitters", sort.splitters_step),
              Map("rank", sort.range_units, rank_range, unit="ranges"),
              Step("offsets", partial(offsets_step, run)),
              Map("keys", partial(keys_units, run), bucket_keys)]
    if run.dedup["url"]:  # first: exact and near dedup never see the pages it drops
        phases[-1:-1] = [Map("url-keys", partial(keys_units, run), url_keys),
                         Map("urls", partial(bucket_units, run), url_bucket, unit="buckets")]
    if run.dedup["exact"]:
        phases.append(Map("exact", partial(bucket_units, run), exact_bucket, unit="buckets"))
    if run.dedup["near"]:  # confirmed pairs, then their components in rounds: the last converged-t adds apply
        phases += [Map("near", partial(bucket_units, run), near_bucket, unit="buckets"),
                   Map("components-1", partial(round_units, run, 1), large_star_round, unit="partitions"),
                   Step("converged-1", partial(converged_step, run, 1))]
    else:
        phases += apply_phases(run)
    if run.phantoms and unit_dedup.UnitSpec.of(run.dedup) is None and config.remote is None and not opts.recompute:
        phases[:] = [Step("from-base", partial(from_base_step, run, phases[:]))]
    return [Job("dedup", ME.path(config), identity, phases, dataset=config.dataset, version=config.version,
                reuse_from=reuse_sources(config, ME.name), whole=whole)]


def report(result) -> list[str]:
    c = result.manifest["counts"]
    lines = [f"  dropped as {reason:<9} {n:>7}" for reason, n in c.get("dropped", {}).items()]
    lines += [f"    overlaps {ev:<18} {n:>5}" for ev, n in c.get("decontam_by_eval", {}).items()]
    return lines
