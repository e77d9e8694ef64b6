"""The one runner every stage goes through: plan → decide "current" → phases in a staging dir → publish.

A stage module's `plan(config, opts)` returns one `Job` per output it publishes (one for most stages,
one per source for fetch). A job is a list of phases run in `<final>.incomplete/`:

- `Map`: independent units on the executor (local pool or Ray); each finished unit is checkpointed at
  once in `_progress/<phase>.jsonl` (a line a unit) with the sha256 of every file it wrote, so `--resume` reuses
  every finished unit of every phase after a kill (the files are verified first);
- `Step`: a global step in this process (train a model, sort ids, plan a shuffle) that hands state to
  later phases and may write published files.

When every phase has run, the runner writes `_STAGE.json` (identity, parts, counts) and `_RUN.json`
(timings, host: what varies) and publishes. A published output is *current* when its `_STAGE.json`
records the same identity (config_sha256, params, inputs) and every part it lists still has its
sha256: then nothing runs. See docs/ARCHITECTURE.md."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from corpus import __version__, faults
from corpus.store import publish
from corpus.store import root as store_root
from corpus.store.root import store_of
from corpus.store.atomic import disk_full, fsync_dir, is_enospc, space_reason, publish_dir, sha256_file, write_json
from corpus.store.checksums import verify_entry
from corpus.config import Config
from corpus.errors import CorpusError, StaleError
from corpus.engine.executor import map_units
from corpus.config.layout import RUN_FILE, STAGE_FILE, STAGE_SCHEMA, WORK_DIR as WORK_DIR
from corpus.engine.recount import verify_counts
from corpus.config.schemas import load_json, validate

log = logging.getLogger(__name__)
PROGRESS_DIR = "_progress"
IDENTITY_FILE = "identity.json"
EXTRA_FILE = "extra.json"


@dataclass
class RunOptions:
    workers: int = 1
    force: bool = False              # --replace (alias --force): rebuild even if a published output exists
    resume: bool = False             # keep verified checkpoints of an interrupted run
    replace_stale: bool = False      # `corpus run`: rebuild a stale output instead of refusing
    repair: bool = False             # `corpus run --replace`: rebuild a damaged output instead of refusing
    recompute: bool = False          # --recompute: also reuse no unit of a published output (and no cache)
    extra: dict = field(default_factory=dict)  # stage-specific options (fetch --source, tokenize budgets)


@dataclass(frozen=True)
class Map:
    """Units run on the executor; `units(ctx)` builds them (each has a `.key`), `fn(unit)` returns
    {"key", "parts": [published files], "work": [scratch files], "counts": {...}, ...}."""
    name: str
    units: Callable[["PhaseContext"], Sequence[Any]]
    fn: Callable[[Any], dict]
    unit: str = "parts"              # the progress bar's noun
    in_process: bool = False         # disk-bound byte moving: no pool to start
    # unit -> everything its output depends on (its input's sha256, the settings it reads): a unit whose
    # fingerprint a published output of this stage (Job.reuse_from) recorded is reused, not recomputed
    fingerprint: Callable[[Any], dict] | None = None


@dataclass(frozen=True)
class Step:
    """A global step in this process: `fn(ctx)` reads earlier results, sets ctx.state for later phases,
    and adds any file it publishes with ctx.add_part(). It may append phases to ctx.job.phases (a loop
    of rounds until convergence); they run after it, and on --resume it appends them again."""
    name: str
    fn: Callable[["PhaseContext"], None]


@dataclass(frozen=True)
class Whole:
    """A job whose output is a function of `content` alone (its own settings and the sha256 of the input
    parts it reads, never the upstream config that made them): a published output in Job.reuse_from
    that recorded the same content is taken whole, its files linked, instead of computed. `steps` are
    the Steps still run then (what holds this version's name: the shard stage's _MANIFEST.json), reading
    the kept results of the Map phases `results`; `rebuilt` the files those steps write again."""
    content: dict
    steps: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    rebuilt: tuple[str, ...] = ()


@dataclass
class Job:
    key: str                               # the stage name, or the source id for fetch
    final: Path                            # where the output is published
    identity: dict                         # {config_sha256, params, inputs}: decides "current"
    phases: list
    extra: dict = field(default_factory=dict)        # further _STAGE.json fields (fetch: fetched_at, source)
    candidates: list[Path] | None = None   # published outputs that may already be current (default: final)
    shared_dir: bool = False               # final also holds other outputs: publish files, manifest last
    owned: tuple[str, ...] = ()            # with shared_dir: globs of the files this stage owns in final
    dataset: str | None = None
    version: str | None = None
    reuse_from: tuple[Path, ...] = ()      # published outputs whose units a Map with a fingerprint may reuse
    whole: "Whole | None" = None           # what makes the whole output reusable from reuse_from (by content)
    before_publish: Callable[[dict], None] | None = None   # may refuse the new manifest: nothing is published


@dataclass
class Output:
    key: str
    path: Path
    manifest: dict                         # its _STAGE.json
    status: str                            # "current" | "reused" | "computed" | "recomputed"
    run_info: dict = field(default_factory=dict)

    @property
    def reused(self) -> tuple[int, int]:
        """(units reused from published outputs, units of the phases that may reuse them)."""
        return (sum(self.run_info.get("reused_units", {}).values()), sum(self.run_info.get("reusable_units", {}).values()))


@dataclass
class StageResult:
    stage: str
    outputs: list[Output]
    seconds: float = 0.0
    # the config it ran with (stages.run_stage): a summary may compare the outputs with settings no
    # identity records (tokenize: [tokenize] min_train_bytes)
    config: Config | None = None

    @property
    def current(self) -> bool:
        return all(o.status == "current" for o in self.outputs)

    @property
    def status(self) -> str:
        statuses = {o.status for o in self.outputs}
        return next((s for s in ("recomputed", "computed", "reused") if s in statuses), "current")

    @property
    def status_text(self) -> str:
        """The run table's word: current, reused (the whole output taken from a published one whose input
        had the same content, with the same settings), `reused N/M units` (computed, part of it taken
        from published outputs with the same input and settings), computed (nothing was published), or
        recomputed (a published output was replaced)."""
        status = self.status
        reused, units = (sum(n) for n in zip(*(o.reused for o in self.outputs))) if self.outputs else (0, 0)
        return f"reused {reused}/{units} units" if status not in ("current", "reused") and reused else status

    @property
    def output(self) -> Output:
        if len(self.outputs) != 1:
            raise ValueError(f"{self.stage} published {len(self.outputs)} outputs")
        return self.outputs[0]

    @property
    def manifest(self) -> dict:
        return self.output.manifest

    @property
    def path(self) -> Path:
        return self.output.path


class PhaseContext:
    """What the phases of one job share: the staging dir, results of earlier phases, state, parts."""

    def __init__(self, config: Config, opts: RunOptions, job: Job, staging: Path):
        self.config, self.opts, self.job, self.staging = config, opts, job, staging
        self.work = staging / WORK_DIR
        self.state: dict[str, Any] = {}
        self.results: dict[str, list[dict]] = {}   # map phase → results in unit order
        self.parts: list[dict] = []                # published files in phase and unit order
        self.counts: dict | None = None            # set by a step to override the summed unit counts
        self.run_info: dict[str, Any] = {}         # extra _RUN.json facts
        self.reused: dict[str, int] = {}

    def add_part(self, entry: dict) -> None:
        self.parts.append(entry)

    def summed_counts(self) -> dict:
        total: dict = {}
        for results in self.results.values():
            for r in results:
                add_counts(total, r.get("counts", {}))
        return total


def add_counts(total: dict, add: dict) -> None:
    for k, v in add.items():
        if isinstance(v, dict):
            add_counts(total.setdefault(k, {}), v)
        else:
            total[k] = total.get(k, 0) + v


# ---------------------------------------------------------------- manifests and "current"

def read_stage_manifest(directory: Path) -> dict | None:
    store_of(directory).refresh_stage(directory)  # an s3 root: the store's manifest is the only one that counts
    path = directory / STAGE_FILE
    return load_json(path, STAGE_SCHEMA) if path.is_file() else None


def identity_of(manifest: dict) -> dict:
    return {k: manifest.get(k) for k in ("config_sha256", "params", "inputs")}


REPLACE_HINT = "use --replace to rebuild it"


def find_current(candidates: Sequence[Path], identity: dict, *, repair: bool = False,
                 hint: str = REPLACE_HINT) -> tuple[Path, dict] | None:
    """The first published output among `candidates` made with `identity`, its parts verified (a damaged
    one is an error naming the file, never a silent rebuild; with `repair`, a warning and not current);
    None if there is none."""
    for d in candidates:
        manifest = read_stage_manifest(d)
        if manifest is None or identity_of(manifest) != identity:
            continue
        try:  # recorded sha256, rows and counts are what the parts hold (on s3: sizes; readers hash)
            store_of(d).check_current(d, manifest, recount=verify_counts)
        except CorpusError as e:
            if repair:
                log.warning("%s; rebuilding it (--replace)", e)
                continue
            raise CorpusError(f"{e} ({hint})") from None
        return d, manifest
    return None


def _has_identity(job: Job) -> bool:
    """Whether some candidate of the job has a manifest made with its identity (unverified)."""
    for d in job.candidates or [job.final]:
        manifest = read_stage_manifest(d)
        if manifest is not None and identity_of(manifest) == job.identity:
            return True
    return False


def is_published(job: Job) -> bool:
    return store_of(job.final).has_output(job.final, job.owned if job.shared_dir else None)


def input_ref(config: Config, directory: Path, name: str = STAGE_FILE) -> dict:
    """{path relative to the artifacts root, sha256} of a manifest a stage reads."""
    path = directory / name
    return {"path": str(path.relative_to(config.artifacts)), "sha256": sha256_file(path)}


def published_stage(config: Config, directory: Path, stage: str, *, verify: bool | str = "size",
                    upstream: str | None = None) -> tuple[dict, dict]:
    """The manifest of a published earlier stage (schema checked; parts present with their size — each
    part's sha256 is checked by whoever reads it) and the {path, sha256} to record as an input.
    `upstream`: the config_sha256 that stage has under this config (stages.config_hash), for the stage's
    own input — a stage run with --replace over a stale input would publish this config's name over
    another config's data."""
    manifest = read_stage_manifest(directory)
    if manifest is None:
        raise CorpusError(f"{directory}: no published {stage} output (run `corpus {stage}` first)")
    made_with = manifest.get("config_sha256")
    if upstream is not None and made_with is not None and made_with != upstream:
        raise StaleError(f"{directory}: the published {stage} output is stale (made with config {made_with[:12]}…, "
                         f"{config.path} gives {stage} {upstream[:12]}…); run `corpus {stage}` first, or `corpus run`")
    if verify:
        store_of(directory).check_input(directory, manifest, sha=verify is True, recount=verify_counts)
    return manifest, input_ref(config, directory)


# ---------------------------------------------------------------- checkpoints

def journal_path(staging: Path, phase: str) -> Path:
    """A map phase's checkpoint journal: one JSON line {"key", "record"} per finished unit."""
    return staging / PROGRESS_DIR / f"{phase}.jsonl"


def _write_checkpoint(staging: Path, phase: str, key: str, record: dict) -> None:
    """A unit's record, one line appended to its phase's journal in one write, not fsynced: a resume reads
    it only after checking every file it lists against its sha256 (_verified_checkpoint), and a line lost
    or torn by a power loss only means its unit (and the next one's, sharing its line) is done again; the
    parts themselves were fsynced when written. One file a phase, not a file a unit: creating a file costs
    ~1 ms on ext4 here, and a demo run checkpoints ~600 units (an fsync per unit, and the discard of its
    blocks when _progress/ is removed, had cost a listing of small WARC files ~4 ms per unit)."""
    path = journal_path(staging, phase)
    line = json.dumps({"key": key, "record": record}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    data = (line + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)  # the umask applies
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        if is_enospc(e):
            raise disk_full(path, len(data), space_reason(e)) from None
        raise


def checkpoints(staging: Path, phase: str) -> dict[str, dict]:
    """A phase's journal: unit key -> its last record; an unreadable line is skipped (its unit is redone)."""
    path = journal_path(staging, phase)
    out: dict[str, dict] = {}
    if not path.is_file():
        return out
    for n, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            entry = json.loads(line)
            out[entry["key"]] = entry["record"]
        except (ValueError, KeyError, TypeError):  # ValueError: bad JSON or UTF-8
            log.warning("resume: line %d of %s is unreadable; its unit is done again", n, path)
    return out


def _verified_checkpoint(staging: Path, phase: str, key: str, record: dict | None) -> dict | None:
    """A unit's journaled record, if every file it lists still has its recorded size and sha256."""
    if record is None:
        return None
    try:
        for entry in record.get("parts", []) + record.get("work", []):
            verify_entry(staging, entry)
    except (CorpusError, KeyError, AttributeError, TypeError) as e:
        log.warning("resume: unit %s of %s does not verify (%s); redoing it", key, phase, e)
        return None
    return record


@dataclass(frozen=True)
class _Tagged:
    """A unit with the job it belongs to, so the units of several jobs share one pool."""
    job: int
    fn: Callable[[Any], dict]
    unit: Any
    staging: Path | None = None
    torn_pid: int = 0          # CORPUS_FAULT_TORN (corpus.faults): tear this unit's first file, then kill this pid
    mounts: dict = field(default_factory=dict)   # the store's s3 mount table, for a worker process

    @property
    def key(self) -> str:
        return self.unit.key


def _run_tagged(t: _Tagged) -> tuple[int, dict]:
    store_root.install(t.mounts)
    res = t.fn(t.unit)
    if t.torn_pid:  # test-only: the state a kill during this unit's part write leaves behind
        files = res.get("parts", []) + res.get("work", [])
        if files:
            path = t.staging / files[0]["name"]
            os.truncate(path, path.stat().st_size // 2)
        os.kill(t.torn_pid, signal.SIGKILL)
        faults.kill_now()
    return t.job, res


UNITS_KEY = "units"  # in _RUN.json: {phase: {fingerprint: the unit's result}}, what a later run may reuse


def unit_fingerprint(stage: str, phase: Map, unit: Any) -> str:
    """The sha256 of what a unit's output depends on: the stage, the phase, the code and library versions,
    and what the phase's `fingerprint` says of the unit."""
    from corpus.engine.versions import output_packages

    facts = {"stage": stage, "phase": phase.name, "corpus_version": __version__, "packages": output_packages(),
             "unit": phase.fingerprint(unit)}
    return hashlib.sha256(json.dumps(facts, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def _reusable(job: Job, phase: str) -> dict[str, tuple[Path, dict, dict]]:
    """fingerprint -> (published dir, its parts by name, the unit's recorded result), over job.reuse_from."""
    out: dict[str, tuple[Path, dict, dict]] = {}
    for d in job.reuse_from:  # local copies only (an s3 root's are refreshed by the readers, never here)
        try:
            manifest = load_json(d / STAGE_FILE, STAGE_SCHEMA) if (d / STAGE_FILE).is_file() else None
            run = json.loads((d / RUN_FILE).read_text()) if (d / RUN_FILE).is_file() else {}
        except (CorpusError, json.JSONDecodeError, OSError):
            continue
        if manifest is None:
            continue
        parts = {p["name"]: p for p in manifest["parts"]}
        for fp, res in run.get(UNITS_KEY, {}).get(phase, {}).items():
            out.setdefault(fp, (d, parts, res))
    return out


def _reuse_unit(found: tuple[Path, dict, dict], key: str, staging: Path) -> dict | None:
    """The unit's result (marked "reused"), its files linked (or copied) from a published output into the staging dir under
    this run's names (the old unit key replaced by `key`), each verified against its sha256 first; None
    when any of them does not verify or the result has scratch files."""
    src, parts, res = found
    if res.get("work"):
        return None
    new_parts = []
    try:
        for p in res.get("parts", []):
            entry = parts.get(p["name"])
            if entry is None or entry["sha256"] != p["sha256"]:
                return None
            verify_entry(src, entry)
            name = p["name"].replace(res["key"], key)
            link_file(src / p["name"], staging / name)  # replaces one an interrupted run linked
            new_parts.append({**p, "name": name})
    except CorpusError as e:
        log.warning("reuse: %s does not verify (%s); recomputing the unit", src, e)
        return None
    return {**res, "key": key, "parts": new_parts, "reused": True}


def _run_map(index: int, ctxs: list[PhaseContext], opts: RunOptions, executor: str, desc: str) -> None:
    """Map phase `index` over the units of every job; each finished unit is checkpointed as it arrives. A
    unit a published output already computed (same fingerprint) is reused from it unless --recompute."""
    phase = ctxs[0].job.phases[index]
    fault = faults.unit_point()
    torn = faults.unit_point(faults.TORN_ENV)
    done: list[dict[str, dict]] = [{} for _ in ctxs]
    todo: list[_Tagged] = []
    order: list[list[str]] = []
    prints: list[dict[str, str]] = [{} for _ in ctxs]   # unit key -> fingerprint
    reused_from_outputs = 0
    for j, ctx in enumerate(ctxs):
        units = list(ctx.job.phases[index].units(ctx))
        order.append([u.key for u in units])
        if len(set(order[-1])) != len(units):
            raise AssertionError(f"{desc}: duplicate unit keys in phase {phase.name}")
        journal = checkpoints(ctx.staging, phase.name) if opts.resume else {}
        reusable = _reusable(ctx.job, phase.name) if phase.fingerprint is not None and not opts.recompute else {}
        if phase.fingerprint is not None:  # the run table's `reused N/M units`
            ctx.run_info.setdefault("reusable_units", {})[phase.name] = len(units)
        for u in units:
            if phase.fingerprint is not None:
                prints[j][u.key] = unit_fingerprint(ctx.job.key, phase, u)
            rec = _verified_checkpoint(ctx.staging, phase.name, u.key, journal.get(u.key))
            if rec is None and prints[j].get(u.key) in reusable:
                rec = _reuse_unit(reusable[prints[j][u.key]], u.key, ctx.staging)
                if rec is not None:
                    _write_checkpoint(ctx.staging, phase.name, u.key, rec)
                    reused_from_outputs += 1
                    ctx.run_info.setdefault("reused_units", {})[phase.name] = \
                        ctx.run_info.get("reused_units", {}).get(phase.name, 0) + 1
            if rec is not None:
                done[j][u.key] = rec
            else:
                tear = torn is not None and torn == (phase.name, len(todo) + 1)
                todo.append(_Tagged(j, ctx.job.phases[index].fn, u, ctx.staging, os.getpid() if tear else 0,
                                    store_root.mounts()))
        ctx.reused[phase.name] = len(done[j]) - ctx.run_info.get("reused_units", {}).get(phase.name, 0)
    reused = sum(len(d) for d in done)
    if reused - reused_from_outputs:
        log.info("resume: %s: %d of %d units already done and verified", desc, reused - reused_from_outputs,
                 reused + len(todo))
    if reused_from_outputs:
        log.info("%s: %d of %d units reused from published outputs (same input and settings)", desc,
                 reused_from_outputs, reused + len(todo))
    finished = 0

    def on_result(tagged_result: tuple[int, dict]) -> None:
        nonlocal finished
        j, res = tagged_result
        _write_checkpoint(ctxs[j].staging, phase.name, res["key"], res)
        done[j][res["key"]] = res
        finished += 1
        if fault is not None and fault == (phase.name, finished):
            faults.kill_now()

    workers, where = (1, "local") if phase.in_process else (opts.workers, executor)
    map_units(_run_tagged, todo, workers=workers, executor=where, desc=desc, unit=phase.unit, on_result=on_result)
    for j, ctx in enumerate(ctxs):
        ctx.results[phase.name] = [done[j][k] for k in order[j]]  # unit order, never completion order
        for r in ctx.results[phase.name]:
            ctx.parts.extend(r.get("parts", []))
        if prints[j]:  # what a later run may reuse (units with the same fingerprint: one entry), in _RUN.json
            ctx.run_info.setdefault(UNITS_KEY, {})[phase.name] = {prints[j][k]: done[j][k] for k in order[j]}
            ctx.run_info.setdefault("units_run", {})[phase.name] = len(order[j])


# ---------------------------------------------------------------- whole outputs reused by content

CONTENT_KEY = "content"  # in _RUN.json: {sha256: content_sha256, results: {phase: its results}} (Job.whole)


def content_sha256(stage: str, whole: Whole) -> str:
    """The sha256 of what a Whole job's output is a function of: the stage, the code and library versions
    and its content (settings, input parts by sha256)."""
    from corpus.engine.versions import output_packages

    facts = {"stage": stage, "corpus_version": __version__, "packages": output_packages(), "content": whole.content}
    return hashlib.sha256(json.dumps(facts, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def _whole_source(job: Job, stage: str, sha256: str, exclude: Path | None = None) -> tuple[Path, dict, dict] | None:
    """(dir, _STAGE.json, _RUN.json) of the first output in job.reuse_from (but
    `exclude`) that recorded this content and whose files (but those the job rebuilds) still have their
    sha256."""
    for d in job.reuse_from:  # local copies only, as for reused units
        if exclude is not None and d.resolve() == exclude.resolve():
            continue
        try:
            run = json.loads((d / RUN_FILE).read_text()) if (d / RUN_FILE).is_file() else {}
            record = run.get(CONTENT_KEY) or {}
            if record.get("sha256") != sha256 or not (d / STAGE_FILE).is_file():
                continue
            manifest = load_json(d / STAGE_FILE, STAGE_SCHEMA)
            if manifest["stage"] != stage:
                continue
            for p in manifest["parts"]:
                if p["name"] not in job.whole.rebuilt:
                    verify_entry(d, p)
        except CorpusError as e:
            log.warning("reuse: %s does not verify (%s); not reusing it", d, e)
            continue
        except (json.JSONDecodeError, OSError, AttributeError):
            continue
        return d, manifest, run
    return None


def link_file(src: Path, dest: Path) -> None:
    """`src` at `dest` too (a hard link, else a copy), replacing what `dest` held."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.unlink(missing_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _reuse_whole(ctx: PhaseContext, found: tuple[Path, dict, dict], stage: str) -> None:
    """The published output `found` as this job's: its files linked into the staging dir, its counts and
    the kept results of Job.whole.results, then the Steps of Job.whole.steps run (they write the files of
    Job.whole.rebuilt again, under this version's name)."""
    src, manifest, run = found
    record, whole = run[CONTENT_KEY], ctx.job.whole
    for p in manifest["parts"]:
        if p["name"] not in whole.rebuilt:
            link_file(src / p["name"], ctx.staging / p["name"])
            ctx.add_part(p)
    ctx.counts = manifest["counts"]
    ctx.results.update({k: v for k, v in record.get("results", {}).items() if k in whole.results})
    for phase in ctx.job.phases:
        if isinstance(phase, Step) and phase.name in whole.steps:
            phase.fn(ctx)
    # the parts in the order a computed run lists them (the source's): the rebuilt files among the others
    order = {p["name"]: i for i, p in enumerate(manifest["parts"])}
    ctx.parts.sort(key=lambda p: order.get(p["name"], len(order)))
    if UNITS_KEY in run:  # the same files: a later version may still reuse them unit by unit
        ctx.run_info[UNITS_KEY] = run[UNITS_KEY]
    where = src.relative_to(ctx.config.artifacts) if src.is_relative_to(ctx.config.artifacts) else src
    ctx.run_info["reused_whole"] = str(where)
    log.info("%s: the output of %s reused whole (its input had the same content, with the same settings)", stage, where)


# ---------------------------------------------------------------- staging and publishing

def staging_dir(job: Job, stage: str) -> Path:
    if job.shared_dir:
        return job.final / f".{stage}.incomplete"
    return job.final.with_name(job.final.name + ".incomplete")


def _open_staging(job: Job, stage: str, resume: bool) -> Path:
    staging = staging_dir(job, stage)
    ident = staging / PROGRESS_DIR / IDENTITY_FILE
    extra = staging / PROGRESS_DIR / EXTRA_FILE
    if staging.exists() and resume and ident.is_file():
        if json.loads(ident.read_text()) != job.identity:
            raise CorpusError(f"{staging}: was started with another config, parameters or inputs; "
                              f"run again without --resume")
        if extra.is_file():  # the interrupted run's extra facts (fetch: fetched_at, in its reused parts)
            job.extra = json.loads(extra.read_text())
        for tmp in staging.rglob(".*.tmp"):  # a write the kill cut short (store.atomic.temp_beside): no result,
            tmp.unlink()                      # and published with the directory it would be a stray file
    elif staging.exists():
        shutil.rmtree(staging)
    (staging / PROGRESS_DIR).mkdir(parents=True, exist_ok=True)
    (staging / WORK_DIR).mkdir(exist_ok=True)
    write_json(ident, job.identity)
    write_json(extra, job.extra)
    return staging


def _manifest(stage: str, job: Job, ctx: PhaseContext) -> dict:
    manifest = {"stage": stage, "corpus_version": __version__, "dataset": job.dataset, "version": job.version,
                **job.identity, "parts": ctx.parts,
                "counts": ctx.counts if ctx.counts is not None else ctx.summed_counts()}
    manifest.update(job.extra)
    return manifest


def _old_of(job: Job) -> Path:
    return job.final.with_name(job.final.name + ".old")


def _publish(job: Job, staging: Path, manifest: dict, run_info: dict, stage: str) -> None:
    """Write the manifests into the staging dir, then publish. The staging dir's _STAGE.json is the
    marker that publication has begun: from then on the staging dir holds everything to finish it, and
    a run killed at any later point is finished by the next run of the same job (`_recover`)."""
    validate(manifest, STAGE_SCHEMA, what=str(job.final / STAGE_FILE))
    write_json(staging / RUN_FILE, run_info)
    write_json(staging / STAGE_FILE, manifest)
    faults.kill_at("manifest-written", stage)
    _finish_publish(job, staging, manifest, stage)


def _finish_publish(job: Job, staging: Path, manifest: dict, stage: str) -> None:
    """Idempotent: finishes a publication whatever point an earlier attempt reached."""
    for scratch in (PROGRESS_DIR, WORK_DIR):  # checkpoints and spill files never get published
        if (staging / scratch).exists():
            shutil.rmtree(staging / scratch)
    if not job.shared_dir:
        publish_dir(staging, job.final, replace=job.final.exists(), hook=lambda point: faults.kill_at(point, stage))
        if _old_of(job).exists():  # an earlier attempt was killed between its two renames
            shutil.rmtree(_old_of(job))
        publish.push(job.final, manifest, hook=lambda point: faults.kill_at(point, stage))
        return
    # A directory shared with other outputs: the old stage manifest goes first and the new one comes
    # last, so a stage manifest on disk always describes the files beside it (the object-store rule).
    (job.final / STAGE_FILE).unlink(missing_ok=True)
    faults.kill_at("old-manifest-removed", stage)
    listed = {p["name"] for p in manifest["parts"]}
    for pattern in job.owned:
        for old in job.final.glob(pattern):
            if old.name not in listed:
                old.unlink()
    for i, part in enumerate(manifest["parts"]):
        dest = job.final / part["name"]
        if (staging / part["name"]).exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / part["name"], dest)
        else:  # moved in by an attempt that was killed: it must still be the file the manifest lists
            verify_entry(job.final, part, listed_in=str(staging / STAGE_FILE))
        if i == 0:
            faults.kill_at("moved-1", stage)
    faults.kill_at("moved-all", stage)
    os.replace(staging / RUN_FILE, job.final / RUN_FILE)
    os.replace(staging / STAGE_FILE, job.final / STAGE_FILE)
    fsync_dir(job.final)
    shutil.rmtree(staging)
    publish.push(job.final, manifest, owned=job.owned, hook=lambda point: faults.kill_at(point, stage))


def _recover(job: Job, stage: str) -> dict | None:
    """Finish what a killed run left half-done. A staging dir with a _STAGE.json of this job's identity
    is a finished output whose publication was interrupted: its publication is completed (the bytes are
    those this run would write). An output renamed aside (`<final>.old`) with nothing in its place is put
    back. Anything else in the staging dir is left to --resume (or discarded by a plain run)."""
    staging, old = staging_dir(job, stage), _old_of(job)
    marker = staging / STAGE_FILE
    manifest = None
    if marker.is_file():
        try:
            manifest = load_json(marker, STAGE_SCHEMA)
        except CorpusError as e:
            log.warning("%s: %s; not finishing that publication", stage, e)
    if manifest is not None and identity_of(manifest) == job.identity:
        try:
            for part in manifest["parts"]:
                src = staging if (staging / part["name"]).exists() or not job.shared_dir else job.final
                verify_entry(src, part, listed_in=str(marker))
        except CorpusError as e:
            log.warning("%s: an interrupted publication of %s does not verify (%s); redoing it", stage, job.final, e)
        else:
            log.warning("%s: finishing the publication of %s that an interrupted run had begun", stage, job.final)
            _finish_publish(job, staging, manifest, stage)
            return manifest
    if not job.shared_dir and old.exists():
        if job.final.exists():
            shutil.rmtree(old)
        else:
            log.warning("%s: putting back %s, renamed aside by an interrupted publication", stage, job.final)
            os.replace(old, job.final)
    return _finish_upload(job, stage)


def _finish_upload(job: Job, stage: str) -> dict | None:
    """An s3 root: a local output of this job's identity whose upload was killed before its _STAGE.json
    reached the store (and nothing else was published there since) is uploaded again, after its parts
    verify; it holds the bytes this run would compute."""
    if not store_of(job.final).upload_pending(job.final):
        return None
    marker = job.final / STAGE_FILE
    try:
        manifest = load_json(marker, STAGE_SCHEMA) if marker.is_file() else None
        if manifest is None or identity_of(manifest) != job.identity:
            return None
        for part in manifest["parts"]:
            verify_entry(job.final, part, listed_in=STAGE_FILE)
    except CorpusError as e:
        log.warning("%s: the local copy of %s does not verify (%s); rebuilding it", stage, job.final, e)
        return None
    log.warning("%s: finishing the upload of %s that an interrupted run had begun", stage, job.final)
    publish.push(job.final, manifest, owned=job.owned if job.shared_dir else None,
                          hook=lambda point: faults.kill_at(point, stage))
    return manifest


def all_current(stage: str, jobs: list[Job], opts: RunOptions) -> StageResult | None:
    """The stage's result when every job's output is current and nothing is half-published (no staging
    dir, nothing renamed aside), found without an executor: a run with nothing to do starts no pool and
    loads no model. None when anything is left to do (run_jobs decides what)."""
    if opts.force or opts.resume:
        return None
    t0 = time.monotonic()
    # first the cheap facts of every job (no staging, a manifest of its identity), then the checksums: a
    # run with one new source hashes nothing here, and run_jobs verifies the others once
    for job in jobs:
        if staging_dir(job, stage).exists() or _old_of(job).exists() or not _has_identity(job):
            return None
    found = []
    for job in jobs:
        hit = find_current(job.candidates or [job.final], job.identity, repair=opts.repair)
        if hit is None:
            return None
        found.append(Output(job.key, hit[0], hit[1], "current"))
    log.info("%s: %s", stage, f"{found[0].path} is current and verified; nothing to do" if len(found) == 1 else
             f"all {len(found)} outputs are current and verified; nothing to do")
    return StageResult(stage, found, time.monotonic() - t0)


def run_jobs(stage: str, config: Config, opts: RunOptions, jobs: list[Job]) -> StageResult:
    """Run a stage's jobs: current ones are returned as they are; the others run phase by phase (the
    units of every job share one executor) and are published."""
    t0 = time.monotonic()
    outputs: dict[str, Output] = {}
    pending: list[tuple[Job, str]] = []
    for job in jobs:
        recovered = _recover(job, stage)
        if recovered is not None:  # a killed run's finished output, now published: even --replace is done
            outputs[job.key] = Output(job.key, job.final, recovered, "recomputed")
            continue
        found = None if opts.force else find_current(job.candidates or [job.final], job.identity, repair=opts.repair)
        if found is not None:
            log.info("%s: %s is current and verified; nothing to do", stage, found[0])
            outputs[job.key] = Output(job.key, found[0], found[1], "current")
            continue
        published = is_published(job)
        if published and not (opts.force or opts.replace_stale):
            raise StaleError(f"{job.final}: published {stage} output is stale (config, parameters or inputs "
                             f"changed); {REPLACE_HINT}")
        pending.append((job, "recomputed" if published else "computed"))
    reused: dict[str, tuple[Path, dict, dict]] = {}   # job key -> the published output taken whole
    contents: dict[str, str] = {}
    for job, _ in pending:
        if job.whole is not None:
            contents[job.key] = content_sha256(stage, job.whole)
            # --replace rebuilds this output: it is never its own source (another version's may be)
            found = None if opts.recompute or config.remote is not None else \
                _whole_source(job, stage, contents[job.key], exclude=job.final if opts.force else None)
            if found is not None:
                reused[job.key] = found
    ctxs = [PhaseContext(config, opts, job, _open_staging(job, stage, opts.resume and job.key not in reused))
            for job, _ in pending]
    for ctx in ctxs:
        if ctx.job.key in reused:
            _reuse_whole(ctx, reused[ctx.job.key], stage)
    todo = [ctx for ctx in ctxs if ctx.job.key not in reused]
    if todo:
        names = [[p.name for p in ctx.job.phases] for ctx in todo]
        if any(n != names[0] for n in names):
            raise AssertionError(f"{stage}: jobs with different phases")
        executor = config["run"]["executor"]
        # A step may append phases to its job (dedup's component rounds): enumerate sees them.
        for i, phase in enumerate(todo[0].job.phases):
            desc = stage if len(todo[0].job.phases) == 1 or phase.name == stage else f"{stage}: {phase.name}"
            try:
                if isinstance(phase, Map):
                    _run_map(i, todo, opts, executor, desc)
                else:
                    for ctx in todo:
                        ctx.job.phases[i].fn(ctx)
            except OSError as e:  # a writer that did not name the file: name the staging dir and phase
                if is_enospc(e) and not isinstance(e, CorpusError):
                    raise disk_full(todo[0].staging, f"in phase {phase.name} of {stage}", space_reason(e)) from None
                raise
    if pending:
        executor = config["run"]["executor"]
        for (job, status), ctx in zip(pending, ctxs):
            if job.whole is not None:  # what a later version with the same input content may take whole
                ctx.run_info[CONTENT_KEY] = {"sha256": contents[job.key],
                                             "results": {p: ctx.results[p] for p in job.whole.results}}
                status = "reused" if job.key in reused else status
            manifest = _manifest(stage, job, ctx)
            run_info = {"seconds": round(time.monotonic() - t0, 3), "workers": opts.workers, "executor": executor,
                        "host": platform.node(), "resumed_units": ctx.reused, **ctx.run_info}
            if job.before_publish is not None:
                job.before_publish(manifest)
            _publish(job, ctx.staging, manifest, run_info, stage)
            outputs[job.key] = Output(job.key, job.final, manifest, status, run_info)
    return StageResult(stage, [outputs[job.key] for job in jobs], time.monotonic() - t0)
