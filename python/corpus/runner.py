"""The shape every per-part stage shares: stage into `<dir>.incomplete/`, run one unit per input part
(resumably), gather counts, write `_STAGE.json`, publish by rename.

A unit returns a dict with `parts` (manifest entries of the files it wrote, relative to the staging
dir) and `counts`. The parent records each finished unit in `_progress/<key>.json`; `--resume` reuses a
record only if every file it lists still has its recorded sha256."""

from __future__ import annotations

import json
import logging
import platform
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from .atomic import sha256_file, write_json
from .config import Config
from .errors import CorpusError, StaleError
from .executor import map_units
from .manifest import STAGE_FILE, Staging, load_manifest, new_manifest

log = logging.getLogger(__name__)
PROGRESS_DIR = "_progress"
WORK_DIR = "_work"


@dataclass
class StageRun:
    """What a stage module hands the runner."""
    stage: str                      # "normalize", "filter", ...
    dirname: str                    # "02-normalize"
    params: dict                    # what, besides inputs, decides the output bytes
    inputs: list[dict]              # [{path, sha256}] of the input manifests
    units: Callable[[dict], Sequence[Any]]  # context -> units, each with a `.key` such as "part-00003";
                                            # context["out_dir"] is the staging dir units write into
    fn: Callable[[Any], dict]       # runs one unit in a worker
    # Optional work in the staging dir before the units (e.g. training a model the units share):
    # returns (manifest entries of the files it wrote, context for `units`).
    prepare: Callable[[Path], tuple[list[dict], dict]] | None = None


def _checkpoint_path(staging_dir: Path, key: str) -> Path:
    return staging_dir / PROGRESS_DIR / (key.replace("/", "__") + ".json")


def checkpoint(staging_dir: Path, result: dict) -> dict:
    """Record a finished unit: its `key` and the files it wrote (`parts`: name, sha256, bytes)."""
    write_json(_checkpoint_path(staging_dir, result["key"]), result)
    return result


def verified_checkpoint(staging_dir: Path, key: str) -> dict | None:
    """A unit's record, if every file it lists still has its recorded size and sha256."""
    path = _checkpoint_path(staging_dir, key)
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    for part in record["parts"]:
        f = staging_dir / part["name"]
        if not f.is_file() or f.stat().st_size != part["bytes"] or sha256_file(f) != part["sha256"]:
            log.warning("resume: %s does not match its checkpoint; redoing unit %s", f, key)
            return None
    return record


def run_resumable(units: Sequence[Any], fn: Callable[[Any], dict], staging_dir: Path, *, workers: int,
                  executor: str, desc: str, unit: str = "parts") -> tuple[dict[str, dict], int]:
    """(results by key, how many came from checkpoints): verified checkpoints are reused, the other
    units run and are checkpointed as each finishes (so a kill loses at most the units under way)."""
    done = {u.key: rec for u in units if (rec := verified_checkpoint(staging_dir, u.key)) is not None}
    if done:
        log.info("resume: %s: %d of %d units already done and verified", desc, len(done), len(units))
    (staging_dir / PROGRESS_DIR).mkdir(parents=True, exist_ok=True)
    todo = [u for u in units if u.key not in done]
    reused = len(done)
    for res in map_units(fn, todo, workers=workers, executor=executor, desc=desc, unit=unit,
                         on_result=lambda r: checkpoint(staging_dir, r)):
        done[res["key"]] = res
    return done, reused


def run_stage(config: Config, run: StageRun, *, workers: int, force: bool, resume: bool) -> dict:
    """Run every unit, then publish. Returns the stage manifest.

    A published output made from the same config, parameters and input manifests is current: it is
    verified and returned as it is. A different one is only replaced with `force`."""
    t0 = time.monotonic()
    final = config.stage_dir(run.dirname)
    if (final / STAGE_FILE).is_file() and not force:
        published = load_manifest(final, verify_parts=True)
        if is_current(published, config, run):
            log.info("%s: published output is current and verified; nothing to do", final)
            published["_current"] = True
            return published
        raise StaleError(f"{final}: published output is stale (config, parameters or inputs changed); "
                          f"use --force to rebuild it")
    staging = Staging(final, force=force, resume=resume)
    prepared_parts, context = run.prepare(staging.dir) if run.prepare else ([], {})
    units = list(run.units({**context, "out_dir": staging.dir}))
    results, reused = run_resumable(units, run.fn, staging.dir, workers=workers, executor=config["run"]["executor"],
                            desc=run.stage)
    manifest = new_manifest(run.stage, dataset=config.dataset, version=config.version,
                            config_sha256=config.sha256, params=run.params)
    manifest["inputs"] = run.inputs
    manifest["parts"].extend(prepared_parts)
    counts: dict[str, Any] = {}
    for unit in units:  # in unit order: the manifest never depends on completion order
        res = results[unit.key]
        manifest["parts"].extend(res["parts"])
        _add_counts(counts, res["counts"])
    manifest["counts"] = counts
    for scratch in (PROGRESS_DIR, WORK_DIR):  # checkpoints and spill files never get published
        if (staging.dir / scratch).exists():
            shutil.rmtree(staging.dir / scratch)
    staging.publish(manifest, {"seconds": time.monotonic() - t0, "workers": workers,
                               "executor": config["run"]["executor"], "host": platform.node(),
                               "resumed_units": reused})
    return manifest


def is_current(published: dict, config: Config, run: StageRun) -> bool:
    return (published["config_sha256"] == config.sha256 and published["params"] == run.params
            and published["inputs"] == run.inputs)


def _add_counts(total: dict, add: dict) -> None:
    for k, v in add.items():
        if isinstance(v, dict):
            _add_counts(total.setdefault(k, {}), v)
        else:
            total[k] = total.get(k, 0) + v


def input_manifest(config: Config, directory: Path) -> tuple[dict, dict]:
    """Load a previous stage's manifest (schema, parts present with their sizes; each part's sha256 is
    checked by the worker that reads it): (manifest, {path, sha256} of its _STAGE.json)."""
    manifest = load_manifest(directory, verify_parts="size")
    path = directory / STAGE_FILE
    return manifest, {"path": str(path.relative_to(config.artifacts)), "sha256": sha256_file(path)}


def require_stage(config: Config, dirname: str, expected_stage: str) -> Path:
    d = config.stage_dir(dirname)
    if not (d / STAGE_FILE).is_file():
        raise CorpusError(f"{d}: no published {expected_stage} output (run `corpus {expected_stage}` first)")
    return d
