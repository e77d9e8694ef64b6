"""Stage 07 tokenize: the corpus shards → token streams a trainer reads directly.

Phases: `tokenizer` (the pinned tokenizer.json, checked against its sha256, or a byte-level BPE trained
deterministically on the train split with the EOS and the PII placeholders as special tokens);
`encode` (one unit per shard: `encode_batch_fast` without added special tokens, exactly one EOS per
document, the id range checked before the cast, tokens to unshuffled work files per split); `plan`
(one seeded shuffle per split and the budgets, corpus.tokens.plan; parts cut at
`max_tokens_per_file` on document boundaries); `write` (each part's token bytes moved from the work
files in the planned order, never re-encoded); `manifest` (the tokens `_MANIFEST.json`).

The shuffle is partitioned (`[run] partitions = P`, corpus.tokens.plan): `encode` also draws each
document's bucket and writes the shard's documents grouped by bucket; `order` (map, one unit per split
and partition, a contiguous range of buckets) reads only its buckets' slice of every shard's index,
permutes each bucket and writes the partition's planned (shard, offset, length, cumulative tokens); `plan`
(step) holds O(P) counts and cuts parts by binary search in those files; `write` reads only its part's
slice. No task holds more than about 1/P of the per-document arrays, and the order never depends on P.

An encoded shard is kept in `<artifacts>/cache/tokens-encode/` (engine.cache) under the shard's sha256 and
position, the tokenizer and the seed, so another mix or budget of the same shards encodes nothing again;
a shard encoded now takes each document the cache knows from `tokens-docs/` (tokens.docmemo: its ids by
the digest of its text, under the tokenizer's sha256), so shards that changed by a few documents encode
only those. A trained tokenizer is kept by the content of the shards it read (`trained_by_content`).
With `[mix]` weights or targets (tokens.mix), five phases between `encode` and `order` resample the train
split: `mix-sources` (map per shard: each train document's source and keyed hash, tokens per source by
u), `weights` (step: targets resolved), `mix-copies` (map: copies per document, the buckets that keep a
document), `kept` (step) and `mix-place` (map: the shard's mixed train index, copies in buckets apart);
`order` then reads that index for train. The val split is never resampled. The output directory is
`<tokenizer_id>-mix-<12 hex>` (the only one a mixed run writes: the unmixed `<tokenizer_id>` is a run
without [mix])."""

# This module declares the phases; what they compute is in corpus.tokens: train/sample/tokenizer (the
# tokenizer), encode, resample (the mix), buckets (order), parts (plan and write), mix_manifest.

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from corpus.store import root as store_root
from corpus.store.atomic import dump_json, sha256_bytes, write_bytes
from corpus.store.checksums import verify_file
from corpus.config import Config
from corpus.config.layout import (CORPUS_MANIFEST, CORPUS_SCHEMA, TOKENIZER_FILE, TOKENS_MANIFEST, TOKENS_SCHEMA,
                                  tokens_root)
from corpus.config.schemas import validate
from corpus.errors import CorpusError
from corpus.engine.cache import Cache, cache_key, cache_root
from corpus.engine.memory import release_freed_memory
from corpus.engine.partitioning import partitions
from corpus.engine.runner import WORK_DIR as WORK, Job, Map, PhaseContext, RunOptions, Step, Whole, published_stage
from corpus.engine.versions import output_packages
from corpus.tokens import hf
from corpus.tokens import mix as mixing
from corpus.tokens.buckets import OrderUnit, order_partition
from corpus.tokens.checks import tokens_warnings
from corpus.tokens.encode import EncodeUnit, encode_threads, encode_unit
from corpus.tokens.mix_manifest import MIX_MANIFEST_FORMAT, mix_manifest
from corpus.tokens.parts import split_part_units, write_part
from corpus.tokens.plan import BUCKETS, bucket_ranges
from corpus.tokens.resample import MixUnit, counts_before, kept_buckets, mix_copies, mix_place, mix_sources
from corpus.tokens import docmemo
from corpus.tokens.docmemo import DocTokens
from corpus.tokens.tokenizer import (resolve_tokenizer, tokenizer_facts, train_on_corpus, trained_id,
                                     training_settings)
from corpus.tokens.workfiles import SPLITS, work_entry
from corpus.stages import STAGE, config_hash

log = logging.getLogger(__name__)
ME = STAGE["tokenize"]
ENCODE_CACHE = "tokens-encode"
ORDER_IN_DRIVER_DOCS = 1_000_000
# The stage's workers start when a phase first sends them a unit (engine.executor.pool_session): a
# one-shard corpus encodes in the driver with every core, and a small one orders there too, so two
# workers started for it only took cores from the encode threads.
LAZY_POOL = True


# ---------------------------------------------------------------- inputs

def load_corpus_manifest(config: Config) -> tuple[dict, str]:
    """The corpus _MANIFEST.json (schema-checked, shards present) and its sha256."""
    path = config.dataset_dir / CORPUS_MANIFEST
    try:
        store_root.localize(path)  # an s3 root: its current copy (published_stage refreshed the shard manifest)
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{path}: no corpus manifest (run `corpus shard` first)") from None
    try:
        manifest = json.loads(data)
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}:{e.lineno}: invalid JSON: {e.msg}") from None
    validate(manifest, CORPUS_SCHEMA, what=str(path))
    for s in manifest["shards"]:
        p = config.dataset_dir / s["name"]
        if not store_root.exists(p):
            raise CorpusError(f"{p}: missing (listed in {path})")
    return manifest, sha256_bytes(data)


def stage_cores(workers: int) -> int:
    """The cores the stage's tokenizer threads use in all: the worker count (at most the machine's cores),
    as for every other stage, so that `--workers 1` is one core and two workers are two; each encode unit
    gets its share (`encode_threads`), the BPE trainer in the driver all of them."""
    return max(1, min(os.cpu_count() or 1, workers))


@contextlib.contextmanager
def _trainer_threads(n: int):
    """RAYON_NUM_THREADS=n (unless set) while the trainer runs: Rayon's pool, which the trainer starts on
    its first parallel step, takes it then (once a process)."""
    key = "RAYON_NUM_THREADS"
    before = os.environ.get(key)
    if before is None:
        os.environ[key] = str(n)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)


# ---------------------------------------------------------------- encode, through the cache

def encode_key(u: EncodeUnit) -> str:
    """What a shard's encode unit's files are a function of: the shard's bytes and position (its buckets
    are drawn by position), the tokenizer, EOS, dtype and the shuffle seed (plus, in cache_key, the code and
    library versions). Never the mix: every mixture of these shards reads the same encoded files."""
    return cache_key({"kind": ENCODE_CACHE, "shard_sha256": u.sha256, "index": u.index, "seed": u.seed,
                      "tokenizer_sha256": u.tokenizer_sha256, "eos_id": u.eos_id, "dtype": u.dtype})


def _doc_memo(u: EncodeUnit) -> DocTokens:
    """The per-document ids earlier runs kept for this shard position and its neighbours (tokens.docmemo),
    their files linked from the cache into the work dir (an entry whose files fail their sha256: none)."""
    entries = []
    for i in docmemo.near_positions(u.index):
        key = doc_memo_key(u, i)
        raw = Cache(u.cache, docmemo.KIND, ".json").get(key)
        if raw is None:
            continue
        files, prefix = json.loads(raw)["files"], u.work / f"{u.key}.memo{i}"
        if all(Cache(u.cache, docmemo.KIND, f".{s}").get_file(key, Path(f"{prefix}.{s}")) == files[s]
               for s in docmemo.FILES):
            entries.append(docmemo.open_entry(prefix, u.dtype))
    return DocTokens(entries, u.dtype, u.work, u.key)


def doc_memo_key(u: EncodeUnit, index: int) -> str:
    """What a document's ids are a function of (its text aside): the tokenizer, EOS and dtype; `index`
    the shard position the entry is kept for."""
    return cache_key({"kind": docmemo.KIND, "tokenizer_sha256": u.tokenizer_sha256, "eos_id": u.eos_id,
                      "dtype": u.dtype, "index": index, "digest": docmemo.DIGEST})


def _keep_doc_memo(u: EncodeUnit, files: dict[str, list]) -> None:
    """This shard's new per-document entry (DocTokens.save's files) into the cache, its index last."""
    key = doc_memo_key(u, u.index)
    for suffix, (path, sha) in files.items():
        Cache(u.cache, docmemo.KIND, f".{suffix}").put_file(key, Path(path), sha)
    Cache(u.cache, docmemo.KIND, ".json").put(key, dump_json({"files": {s: sha for s, (_, sha) in files.items()}}))
    for path, _ in files.values():
        Path(path).unlink()


def encode_shard(u: EncodeUnit) -> dict:
    """encode_unit's files, from the cache when an earlier run (another mix of these shards, or the same
    shards under another budget) encoded this shard with the same tokenizer and settings; else encoded
    and kept there. The cache never changes a byte: an entry is used only when every file matches the
    sha256 its index records and its name carries."""
    if u.cache is None or not u.tokenizer_sha256:
        return {**encode_unit(u), "cache": "off"}
    key = encode_key(u)
    cached = _encoded_before(u, key)
    if cached is not None:
        return {"key": u.key, "cache": "hit", "work": cached}
    res = encode_unit(u, _doc_memo(u))
    _keep_doc_memo(u, res.pop("docs_memo"))
    _keep_encoded(u, key, res["work"])
    return {**res, "cache": "computed"}


def _encoded_before(u: EncodeUnit, key: str) -> list[dict] | None:
    """The work file entries of the shard's cached encoding, its files put in place; None when the cache
    has none (or one of its files fails its sha256)."""
    raw = Cache(u.cache, ENCODE_CACHE, ".json").get(key)
    if raw is None:
        return None
    verify_file(u.shard, u.sha256)  # the shard is still what its manifest says: a damaged one is an error
    files = json.loads(raw)["files"]
    for f in files:
        got = Cache(u.cache, ENCODE_CACHE, f".{f['suffix']}").get_file(key, u.work / f"{u.key}.{f['suffix']}")
        if got != f["sha256"]:
            return None
    return [work_entry(f"{u.key}.{f['suffix']}", f["sha256"], f["bytes"]) for f in files]


def _keep_encoded(u: EncodeUnit, key: str, work: list[dict]) -> None:
    """The unit's work files into the cache under `key`, then their index (what makes the entry found)."""
    files = []
    for entry in work:
        suffix = entry["name"].removeprefix(f"{WORK}/{u.key}.")
        Cache(u.cache, ENCODE_CACHE, f".{suffix}").put_file(key, u.work / f"{u.key}.{suffix}", entry["sha256"])
        files.append({"suffix": suffix, "sha256": entry["sha256"], "bytes": entry["bytes"]})
    Cache(u.cache, ENCODE_CACHE, ".json").put(key, dump_json({"files": files}))


# ---------------------------------------------------------------- the stage

@dataclass(frozen=True)
class TokenizeRun:
    """What tokenize's phases need from planning: the corpus, the tokenizer, the budgets, how the work
    is spread (threads per shard, partitions) and, with a [mix], the mixture."""
    config: Config
    corpus: dict                  # the corpus _MANIFEST.json
    corpus_sha: str
    tokenizer: bytes              # tokenizer.json
    tokenizer_id: str
    trained_on_bytes: int | None  # the bytes of text the tokenizer was trained on (None: pinned)
    training: dict                # the BPE training's seconds (sample, train), for _RUN.json; {} if none
    budgets: dict                 # max_documents, train_tokens, max_tokens_per_file
    threads: tuple[int, ...]      # encode threads per shard
    n_parts: int                  # P: partitions of the shuffle buckets
    order_in_driver: bool
    cache: Path | None            # the artifacts root of the encode cache (None: off)
    sources: tuple[str, ...]      # [dataset] sources, in order
    mix: dict | None = None       # the [mix] table, when it asks for a mixture
    mix_record: dict | None = None
    mix_id: str = ""

    @property
    def seed(self) -> int:
        return self.config["tokenize"]["seed"]

    @property
    def shard_keys(self) -> tuple[str, ...]:
        return tuple(s["name"].removesuffix(".parquet") for s in self.corpus["shards"])

    @property
    def tag(self) -> str:
        return f"of-{self.n_parts:05d}"  # unit keys name P: a resume with another P never reuses these units


TRAIN_CACHE = "tokenizer-train"


def trained_by_content(trained_from: dict, config: Config, manifest: dict, timing: dict) -> tuple[bytes, str, int]:
    """tokens.tokenizer.train_on_corpus's result, from the cache when a run of any version trained on
    shards of the same content with the same settings: the trainer reads the shards' texts alone, so a
    version whose shards are another's (an upstream edit that changed no document) trains nothing."""
    settings = {k: v for k, v in trained_from.items() if k != "corpus_manifest_sha256"}
    key = cache_key({"kind": TRAIN_CACHE, "settings": settings,
                     "shards": [{k: s[k] for k in ("name", "sha256", "rows")} for s in manifest["shards"]]})
    cache = Cache(cache_root(config), TRAIN_CACHE, ".json")
    entry = cache.get(key)
    if entry is not None:
        found = json.loads(entry)
        data = found["tokenizer"].encode("utf-8")
        log.info("tokenizer: the one trained on shards of this content with these settings (from the cache)")
        return data, trained_id(config, data), found["trained_on_bytes"]
    data, tokenizer_id, trained_on = train_on_corpus(config, manifest, timing)
    cache.put(key, json.dumps({"tokenizer": data.decode("utf-8"), "trained_on_bytes": trained_on}).encode())
    return data, tokenizer_id, trained_on


def tokenize_run(config: Config, opts: RunOptions) -> tuple[TokenizeRun, dict]:
    """The run, and its identity (config, parameters, inputs): what decides whether an output is current."""
    tcfg = config["tokenize"]
    mix_cfg = config.data.get("mix")
    mixed = mixing.active(mix_cfg)
    sources = tuple(dict.fromkeys(config["dataset"]["sources"]))
    if mixed:  # before anything is read: a misnamed source is one line, at once
        mixing.check(mix_cfg, list(sources), f"{config.path}")
    _, shard_ref = published_stage(config, STAGE[ME.reads].path(config), ME.reads, verify=False,
                                  upstream=config_hash(config, ME.reads))
    corpus, corpus_sha = load_corpus_manifest(config)
    budgets = {"max_documents": opts.extra.get("max_documents"), "train_tokens": opts.extra.get("train_tokens"),
               "max_tokens_per_file": tcfg["max_tokens_per_file"]}
    trained_from = None if tcfg["tokenizer"] else training_settings(config, corpus_sha)
    training: dict = {}
    with _trainer_threads(stage_cores(opts.workers)):
        tok_bytes, tokenizer_id, trained_on_bytes = resolve_tokenizer(
            config, corpus, trained_from, training,
            train=partial(trained_by_content, trained_from) if trained_from is not None else None)
    if training:
        release_freed_memory(collect=True)  # the trainer's word and pair tables: not carried through encode
    # a corpus of up to ORDER_IN_DRIVER_DOCS documents is ordered in the driver (one partition unless
    # [run] partitions says otherwise): ~0.1 s for 52,045 documents, less than starting workers for it
    order_in_driver = corpus["n_docs"] <= ORDER_IN_DRIVER_DOCS
    mix_record = mixing.record(mix_cfg) if mixed else None
    run = TokenizeRun(
        config, corpus, corpus_sha, tok_bytes, tokenizer_id, trained_on_bytes, training, budgets,
        threads=tuple(encode_threads([s["rows"] for s in corpus["shards"]], stage_cores(opts.workers), opts.workers)),
        n_parts=partitions(config, corpus["n_docs"], workers=1 if order_in_driver else opts.workers, cap=BUCKETS),
        order_in_driver=order_in_driver, cache=cache_root(config), sources=sources,
        mix=mix_cfg if mixed else None, mix_record=mix_record,
        mix_id=mixing.mix_id(mix_record) if mixed else "")
    params = {"corpus_manifest_sha256": corpus_sha, "tokenizer_sha256": sha256_bytes(tok_bytes), "budgets": budgets,
              "seed": tcfg["seed"]}
    if trained_from is not None:
        params["trained_from"] = trained_from
    if mixed:
        params["mix"] = mix_record
        params["mix_manifest"] = MIX_MANIFEST_FORMAT
    return run, {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": [shard_ref]}


def tokenizer_step(run: TokenizeRun, ctx: PhaseContext) -> None:
    """tokenizer.json and the transformers files beside it, published; the tokenizer's facts for the phases."""
    eos = run.config["tokenize"]["eos_token"]
    if run.training:
        ctx.run_info["tokenizer_training"] = run.training
    write_bytes(ctx.staging / TOKENIZER_FILE, run.tokenizer)
    ctx.add_part({"name": TOKENIZER_FILE, "sha256": sha256_bytes(run.tokenizer), "rows": 0, "bytes": len(run.tokenizer)})
    ctx.state["facts"] = tokenizer_facts(run.tokenizer, eos)
    # tokenizer_config.json + special_tokens_map.json, for transformers.AutoTokenizer.from_pretrained(dir)
    ctx.state["facts"]["hf_files"] = hf.write_hf_files(ctx.staging, run.tokenizer, eos)
    for name, sha in ctx.state["facts"]["hf_files"].items():
        ctx.add_part({"name": name, "sha256": sha, "rows": 0, "bytes": (ctx.staging / name).stat().st_size})


def encode_units(run: TokenizeRun, ctx: PhaseContext) -> list[EncodeUnit]:
    facts = ctx.state["facts"]
    return [EncodeUnit(k, i, run.config.dataset_dir / s["name"], s["sha256"], ctx.staging / TOKENIZER_FILE,
                       facts["eos_id"], facts["dtype"], ctx.work, run.threads[i], run.seed,
                       sha256_bytes(run.tokenizer), run.cache)
            for i, (k, s) in enumerate(zip(run.shard_keys, run.corpus["shards"]))]


def encoded_step(ctx: PhaseContext) -> None:
    """Say (and record in _RUN.json) how many shards' tokens came from the cache."""
    got = [r.get("cache", "off") for r in ctx.results["encode"]]
    hits, computed = got.count("hit"), got.count("computed")
    if hits:
        log.info("tokenize: %d of %d shards' tokens from the cache (encoded by an earlier run with the same "
                 "tokenizer)", hits, len(got))
    ctx.run_info["encode_cache"] = {"hits": hits, "computed": computed, "off": got.count("off")}
    # the shards encoded now: their documents' ids found in the per-document cache (tokens.docmemo)
    docs = [r["docs_cache"] for r in ctx.results["encode"] if "docs_cache" in r]
    if docs:
        ctx.run_info["token_docs_cache"] = {k: sum(d[k] for d in docs) for k in ("hits", "computed")}
        log.info("tokenize: %d of %d documents' token ids from the cache", ctx.run_info["token_docs_cache"]["hits"],
                 sum(d["hits"] + d["computed"] for d in docs))


def mix_units(run: TokenizeRun, ctx: PhaseContext) -> list[MixUnit]:
    w = ctx.state.get("weights")
    whole = tuple(w[s]["whole"] for s in run.sources) if w else ()
    thr = tuple(w[s]["threshold"] for s in run.sources) if w else ()
    return [MixUnit(k, i, run.config.dataset_dir / s["name"], s["sha256"], ctx.work, run.seed, run.mix["seed"],
                    run.sources, whole, thr, ctx.state.get("kept", ()))
            for i, (k, s) in enumerate(zip(run.shard_keys, run.corpus["shards"]))]


def weights_step(run: TokenizeRun, ctx: PhaseContext) -> None:
    """Per source, the counts before mixing and the weights (targets resolved from the u histograms)."""
    before, hist = counts_before(ctx.results["mix-sources"], ctx.work, len(run.sources))
    ctx.state["before"] = before
    tokens = dict(zip(run.sources, before["train"]["tokens"]))
    ctx.state["weights"] = mixing.resolve(run.mix, list(run.sources), tokens, hist)


def kept_step(run: TokenizeRun, ctx: PhaseContext) -> None:
    ctx.state["kept"] = kept_buckets(ctx.results["mix-copies"], f"{run.config.path}")


def mix_phases(run: TokenizeRun) -> list:
    """With a [mix]: the train split resampled between encode and order (tokens.resample)."""
    if run.mix is None:
        return []
    units = partial(mix_units, run)
    return [Map("mix-sources", units, mix_sources, unit="shards"), Step("weights", partial(weights_step, run)),
            Map("mix-copies", units, mix_copies, unit="shards"), Step("kept", partial(kept_step, run)),
            Map("mix-place", units, mix_place, unit="shards")]


def order_units(run: TokenizeRun, ctx: PhaseContext) -> list[OrderUnit]:
    return [OrderUnit(f"{split}/p{p:05d}-{run.tag}", split, lo, hi, run.shard_keys, ctx.work,
                      f"plan.{split}.p{p:05d}-{run.tag}.npy", run.seed, "mix" if run.mix is not None and split == "train" else "")
            for split in SPLITS for p, (lo, hi) in enumerate(bucket_ranges(run.n_parts))]


def plan_step(run: TokenizeRun, ctx: PhaseContext) -> None:
    """The parts of every split, cut from the partitions' plan files (tokens.parts)."""
    ordered = list(zip(order_units(run, ctx), ctx.results["order"]))
    ctx.state["part_units"] = [
        unit for split in SPLITS
        for unit in split_part_units(split, ctx.work, [(u.out, r) for u, r in ordered if u.split == split],
                                     run.budgets, run.shard_keys, ctx.state["facts"]["dtype"], ctx.staging)]
    ctx.run_info["partitions"] = run.n_parts


def part_units(ctx: PhaseContext) -> list:
    return ctx.state["part_units"]


def manifest_step(run: TokenizeRun, ctx: PhaseContext) -> None:
    """The tokens _MANIFEST.json: the tokenizer, the budgets and each split's parts (and the mix)."""
    splits = {}
    for split in SPLITS:  # the write results are in unit order: each split's parts in order (plan_step)
        files = [r["entry"] for r in ctx.results["write"] if r["key"].split("/", 1)[0] == split]
        splits[split] = {"docs": sum(f["docs"] for f in files), "tokens": sum(f["tokens"] for f in files),
                         "files": files}
    config = run.config
    tokenizer = {"file": TOKENIZER_FILE, "sha256": sha256_bytes(run.tokenizer), **ctx.state["facts"]}
    if run.trained_on_bytes is not None:
        tokenizer["trained_on_bytes"] = run.trained_on_bytes
    manifest = {"dataset": config.dataset, "version": config.version, "tokenizer_id": run.tokenizer_id,
                "corpus_manifest_sha256": run.corpus_sha, "config_sha256": config_hash(config, ME.name),
                "tokenizer": tokenizer,
                "seed": run.seed, "budgets": run.budgets, "splits": splits, "packages": output_packages()}
    if run.mix is not None:
        manifest["mix"] = mix_manifest(run.mix_id, run.mix_record, run.sources, ctx.state["before"],
                                       ctx.state["weights"], ctx.results["mix-copies"],
                                       list(ctx.results["write"]))
    validate(manifest, TOKENS_SCHEMA, what=str(ctx.job.final / TOKENS_MANIFEST))
    data = dump_json(manifest)
    write_bytes(ctx.staging / TOKENS_MANIFEST, data)
    ctx.add_part({"name": TOKENS_MANIFEST, "sha256": sha256_bytes(data), "rows": 0, "bytes": len(data)})
    ctx.counts = {"docs_in": run.corpus["n_docs"], "docs_out": sum(s["docs"] for s in splits.values()),
                  "tokens": {s: splits[s]["tokens"] for s in SPLITS}}
    for warning in tokens_warnings(manifest, config):
        log.warning("tokenize: %s", warning)


def plan(config: Config, opts: RunOptions) -> list[Job]:
    run, identity = tokenize_run(config, opts)
    phases = [Step("tokenizer", partial(tokenizer_step, run)),
              Map("encode", partial(encode_units, run), encode_shard, unit="shards"),
              Step("encoded", encoded_step), *mix_phases(run),
              Map("order", partial(order_units, run), order_partition, unit="partitions",
                  in_process=run.order_in_driver),
              Step("plan", partial(plan_step, run)),
              # Writing parts only moves bytes (disk-bound): in this process, with no pool to start.
              Map("write", part_units, write_part, in_process=True),
              Step("manifest", partial(manifest_step, run))]
    directory = f"{run.tokenizer_id}-{run.mix_id}" if run.mix is not None else run.tokenizer_id
    final = tokens_root(config) / directory
    return [Job("tokenize", final, identity, phases, dataset=config.dataset, version=config.version,
                reuse_from=tuple(sorted(d for d in (final.parent.parent).glob(f"*/{directory}")
                                        if d.is_dir() and d != final)),
                whole=whole_content(run))]


def whole_content(run: TokenizeRun) -> Whole | None:
    """The token files are a function of the shards' content, the tokenizer's bytes and [tokenize] (its
    path to a pinned tokenizer aside): a version whose shards are byte for byte a published version's
    (an edit that changed no document) takes that version's token files whole; the tokenizer files and
    _MANIFEST.json (which names this version and its corpus manifest) are written again. Not with a
    [mix], whose manifest is made from its phases' state."""
    if run.mix is not None:
        return None
    eos = run.config["tokenize"]["eos_token"]
    return Whole({"tokenizer_sha256": sha256_bytes(run.tokenizer), "budgets": run.budgets,
                  "tokenize": {k: v for k, v in run.config["tokenize"].items() if k != "tokenizer"},
                  "shards": [{k: s[k] for k in ("name", "sha256", "rows")} for s in run.corpus["shards"]]},
                 steps=("tokenizer", "manifest"), results=("write",),
                 rebuilt=(TOKENIZER_FILE, *hf.hf_files(run.tokenizer, eos), TOKENS_MANIFEST))


def summary(result) -> str:
    m = json.loads((result.path / TOKENS_MANIFEST).read_text())
    counts = ", ".join(f"{s} {i['docs']} docs / {i['tokens']} tokens" for s, i in m["splits"].items())
    return "; ".join([counts, *(f"WARNING: {w}" for w in tokens_warnings(m, result.config))])


def report(result) -> list[str]:
    m = json.loads((result.path / TOKENS_MANIFEST).read_text())
    t = m["tokenizer"]
    lines = [f"tokenize: {m['tokenizer_id']} (vocab {t['vocab_size']}, {t['dtype']}, EOS {t['eos_id']}) -> {result.path}"]
    lines += [f"  WARNING: {w}" for w in tokens_warnings(m, result.config)]
    for split, info in m["splits"].items():
        lines.append(f"  {split:<5} {info['docs']:>8} docs {info['tokens']:>11} tokens in {len(info['files'])} parts")
    if "mix" in m:
        mix = m["mix"]
        lines.append(f"  mix {mix['id']} (seed {mix['config']['seed']}, max_repeats {mix['config']['max_repeats']}): train "
                     f"tokens {mix['train_tokens']['before']:,} -> {mix['train_tokens']['after']:,}; val not resampled")
        for sid, s in mix["sources"].items():
            t = s["target"]
            target = ("" if t is None else f", target {t['share']:.2%}" if "share" in t else f", target {t['tokens']:,}")
            err = s.get("share_error", s.get("error"))
            lines.append(f"    {sid:<28} weight {s['weight']:.4g}: {s['before']['train_tokens']:>11,} -> "
                         f"{s['after']['train_tokens']:>11,} tokens ({s['share']:.2%}{target}"
                         f"{f', off by {err:+.2%}' if err is not None else ''})" + (f"; {s['reason']}" if s["reason"] else ""))
    return lines
