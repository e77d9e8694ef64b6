"""The stage table: every stage, in order, declared once.

The CLI commands, `corpus run` and `--through`, audit, rejects, report, the shard manifest's per-stage
counts and the Makefile (checked by a test) all read this table. A stage is a module here with

    plan(config, opts) -> list[runner.Job]    what to publish, its identity and its phases
    summary(result) -> str                     optional: one line for `corpus run` (default: counts)
    report(result) -> list[str]                optional: further lines its own command prints
    warm(config) -> (fn, args)                 optional: what each pool worker runs as it starts (model
                                               loads); by default it imports the stage module

plus one row below. See docs/ARCHITECTURE.md ("Adding a stage")."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import click
import pyarrow as pa

from corpus.config import Config
from corpus.engine.runner import RunOptions, StageResult, run_jobs

# meta: the canonical JSON of a document's source facts (a web page's WARC record: locator, record id,
# date, HTTP status, content type, charset and how it was found), null for curated sources
BASE_COLUMNS = {"id": pa.string(), "text": pa.string(), "source_id": pa.string(), "url": pa.string(),
                "license_spdx": pa.string(), "meta": pa.string()}


@dataclass(frozen=True)
class Side:
    """A second set of parts a stage writes beside its output: the documents it dropped, and why."""
    dirname: str                    # "rejects"
    columns: dict


@dataclass(frozen=True)
class Stage:
    name: str                       # the CLI command and the `stage` of its _STAGE.json
    dirname: str                    # stages/<dirname>/ for per-part stages
    reads: str | None               # the stage whose published output it reads
    kind: str                       # "sources" (per ledger source), "parts", "shards", "tokens"
    summary: str                    # one line: what it does
    make_target: str                # its Makefile target
    adds: dict = field(default_factory=dict)   # columns its parts add to those it reads
    side: Side | None = None
    # click options of its command beyond --workers/--replace/--recompute/--resume; their values reach the stage
    # as RunOptions.extra (declared here so `corpus --help` never imports a stage module)
    options: tuple = ()
    # the config keys it reads (tables, or "table.key"): with those of the stages before it, its identity's
    # config_sha256 (config_hash), so an edit reruns the stage that reads the key and those after it only
    config: tuple[str, ...] = ()

    def module(self) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.name}")

    def summary_of(self, result: StageResult) -> str:
        """The one line `corpus run` prints (a module's `summary`, else its document counts)."""
        fn = getattr(self.module(), "summary", None)
        if fn is not None:
            return fn(result)
        c = result.manifest["counts"]
        return f"{c['docs_in']} docs in, {c['docs_out']} out"

    def report_of(self, result: StageResult) -> list[str]:
        """Further lines its own command prints (a module's `report`)."""
        fn = getattr(self.module(), "report", None)
        return fn(result) if fn is not None else []


    def path(self, config: Config) -> Path:
        """Where a per-part stage or the shard stage publishes (fetch and tokenize: see their modules)."""
        if self.kind == "parts":
            return config.stage_dir(self.dirname)
        if self.kind == "shards":
            return config.dataset_dir
        raise ValueError(f"stage {self.name} publishes under per-source or per-tokenizer directories")


def _filter_annotations() -> dict:
    """The registry's annotation columns (lang, lang_score), then `cleaned`: the lines cleaning filters
    removed from a kept document, {"<filter>.<rule>": [lines, characters]} as JSON (null: none)."""
    from corpus.filters.registry import annotation_columns

    return {**annotation_columns(), "cleaned": pa.string()}


class _Later(Mapping):
    """A column table built on first use: the filter stage's imports every filter module to ask the
    registry (~80 ms), which every command paid at start-up, most of them never reading it."""

    def __init__(self, build):
        self._build, self._table = build, None

    def _get(self) -> dict:
        if self._table is None:
            self._table = self._build()
        return self._table

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


# every filter of the registry (corpus.filters.registry), in its default order: named here so that
# `corpus --help` imports no filter module (a test checks the two agree)
FILTERS = ("url", "lang", "gopher", "repetition", "c4", "fineweb", "badwords", "ppl", "quality")

STAGES: tuple[Stage, ...] = (
    Stage("fetch", "01-fetch", None, "sources", "ledger sources -> corpus/raw/<source_id>/<key>/part-<nnnnn>.jsonl.zst",
          "fetch", config=("fetch", "extract"), options=(click.option("--source", "sources", multiple=True, metavar="ID",
                                         help="Fetch only this ledger source (repeatable). Default: the dataset's "
                                              "sources, evals and perplexity reference."),)),
    Stage("normalize", "02-normalize", "fetch", "parts", "NFC, newlines, control characters, trailing spaces; assigns ids",
          "normalize", adds=BASE_COLUMNS, config=("dataset", "normalize")),
    Stage("filter", "03-filter", "normalize", "parts",
          f"filters {', '.join(FILTERS)} (those enabled, in [filters] order)",
          "filter", adds=_Later(_filter_annotations), config=("filters", "takedown"),
          side=Side("rejects", {"id": pa.string(), "source_id": pa.string(), "url": pa.string(),
                                "filter": pa.string(), "rule": pa.string(), "value": pa.float64(),
                                "text": pa.string(), "detail": pa.string()})),
    Stage("dedup", "04-dedup", "filter", "parts", "decontamination, exact and MinHash-LSH near-dedup",
          "dedup", adds={"minhash_cluster": pa.int64()}, config=("dedup", "decontam"),
          side=Side("dropped", {"id": pa.string(), "source_id": pa.string(), "url": pa.string(),
                                "reason": pa.string(), "duplicate_of": pa.string(), "eval_source": pa.string(),
                                "matched_ngram": pa.string(), "jaccard": pa.float64(),
                                "shared_shingles": pa.int64(), "text": pa.string()})),
    Stage("pii", "05-pii", "dedup", "parts", "PII -> <EMAIL> <PHONE> <CARD> <IP> <KEY> placeholders",
          "pii", adds={"pii_redactions": pa.int32()}, config=("pii",)),
    Stage("shard", "06-shard", "pii", "shards", "sorted, content-hash-split Parquet shards + _MANIFEST.json",
          "shards", config=("shard",)),
    Stage("tokenize", "07-tokenize", "shard", "tokens", "token streams (.bin + Megatron .idx) for the trainer",
          "tokens", config=("tokenize", "mix"), options=(
              click.option("--max-documents", type=click.IntRange(min=0), default=None,
                           help="Train on at most N documents of the shuffled order (val is not capped)."),
              click.option("--train-tokens", type=click.IntRange(min=0), default=None,
                           help="Stop after the train document that crosses N tokens (val is not capped)."))),
)
STAGE = {s.name: s for s in STAGES}
NAMES = tuple(s.name for s in STAGES)


def config_keys(name: str) -> tuple[str, ...]:
    """The config keys a stage's output depends on: its own and those of every stage before it. Not
    fetch's: a raw output is shared by every dataset that reads its file the same way, identified (and its
    directory named) by its ledger row and the `[fetch]`/`[extract]` settings (engine.raw.raw_key); a
    stage after it sees another raw output through its inputs."""
    keys: list[str] = []
    for s in STAGES:
        keys += s.config if s.kind != "sources" else ()
        if s.name == name:
            return tuple(keys)
    raise KeyError(name)


def config_hash(config: Config, name: str) -> str:
    """The config_sha256 a stage records: the sha256 of config_keys(name) (fetch's raw output, shared by
    every dataset, records none)."""
    from corpus.config import config_sha256

    return config_sha256(config.data, config_keys(name))


def columns(name: str) -> dict:
    """The columns of a per-part stage's output parts: what it reads plus what it adds."""
    out: dict = {}
    for s in STAGES:
        out.update(s.adds)
        if s.name == name:
            return out
    raise KeyError(name)


def input_columns(name: str) -> dict:
    return columns(STAGE[name].reads)


def reuse_sources(config: Config, name: str) -> tuple[Path, ...]:
    """The published outputs of a per-part stage (or of the shard stage) in every version of this dataset
    (this one included): where its units (runner.Map.fingerprint) or its whole output (runner.Whole) may
    be reused from, so a new version recomputes only what its input or settings change."""
    root = config.artifacts / "corpus" / config.dataset
    pattern = "*" if STAGE[name].kind == "shards" else f"*/stages/{STAGE[name].dirname}"
    return tuple(sorted(d for d in root.glob(pattern) if d.is_dir()))


def input_content(manifest: dict) -> list[dict]:
    """The input parts a stage reads from an earlier stage's manifest, by content ({name, sha256, rows}
    of each part-*): what a runner.Whole's content names instead of the manifest, whose bytes also
    record the config and version that made it."""
    return [{k: p[k] for k in ("name", "sha256", "rows")} for p in manifest["parts"] if p["name"].startswith("part-")]


def part_stages() -> tuple[Stage, ...]:
    """The per-part stages (02–05), whose counts the shard manifest carries."""
    return tuple(s for s in STAGES if s.kind == "parts")


def run_stage(name: str, config: Config, opts: RunOptions | None = None, **kw) -> StageResult:
    """Plan and run one stage (`kw` builds the RunOptions when `opts` is not given)."""
    from corpus.engine.executor import pool_session, warm_import
    from corpus.store.lock import writer_lock

    from corpus.engine.runner import all_current

    opts = opts or RunOptions(**kw)
    if opts.recompute:  # nothing taken from before: no current output, no reused unit, no cache entry
        config = dataclasses.replace(config, data={**config.data, "run": {**config["run"], "cache": False}})
        opts = dataclasses.replace(opts, force=True)
    module = STAGE[name].module()
    with writer_lock(config.artifacts):  # one writer per artifacts root (corpus.store.lock); re-entrant
        jobs = module.plan(config, opts)
        # nothing to do: no pool, no model loaded (an s3 root: the runner finishes uploads first)
        done = all_current(name, jobs, opts) if config.remote is None else None
        if done is not None:
            return dataclasses.replace(done, config=config)
        warm = module.warm(config) if hasattr(module, "warm") else warm_import(module.__name__)
        # a module's LAZY_POOL: its workers start when a map phase first needs them (tokenize: one shard's
        # encode runs in the driver with every core, and a small corpus's other phases too)
        with pool_session(opts.workers, warm, config["run"]["executor"], lazy=getattr(module, "LAZY_POOL", False)):
            return dataclasses.replace(run_jobs(name, config, opts, jobs), config=config)
