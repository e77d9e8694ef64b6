"""SIGKILL every stage at deterministic points and at seeded random times; recover with --resume or a
plain rerun; every published byte must equal the uninterrupted reference run.

Points (test-only environment hooks in corpus.engine.runner, see docs/ARCHITECTURE.md):
  CORPUS_FAULT_AFTER=<phase>:<k>  right after the k-th unit of a map phase is checkpointed
  CORPUS_FAULT_TORN=<phase>:<k>   the k-th unit's first file left half-written, before its checkpoint
  CORPUS_FAULT_AT=<point>         in publication: manifest-written, old-aside, renamed (a directory of
                                  its own); old-manifest-removed, moved-1, moved-all (shard, shared dir)
The killed run uses 2 workers (a real pool, units under way when it dies); the recovery runs in this
process with 1 worker (the bytes never depend on the worker count). After a kill right after unit k,
--resume must reuse at least k - 2 units of that phase (its _RUN.json resumed_units)."""

from __future__ import annotations

import json
import os
import random
import signal
import time

import pytest

from corpus.config import load_config
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage

from .conftest import KILLS, clone, corpus_proc, leftovers, published, run_killed

WORKERS = 2
A, T, P = "CORPUS_FAULT_AFTER", "CORPUS_FAULT_TORN", "CORPUS_FAULT_AT"
# (stage, hook, value, recovery)
POINTS = [  # lean: the whole suite must stay under 10 minutes on 2 cores
    ("fetch", A, "read:1", "resume"), ("fetch", P, "old-aside", "plain"),
    ("normalize", T, "normalize:3", "resume"), ("normalize", P, "renamed", "plain"),
    ("filter", A, "filter:4", "resume"), ("filter", P, "manifest-written", "plain"),
    ("dedup", A, "signatures:3", "resume"), ("dedup", A, "keys:3", "resume"), ("dedup", T, "near:1", "resume"),
    ("pii", A, "pii:5", "resume"),
    ("shard", A, "write:2", "resume"), ("shard", T, "scatter:1", "plain"), ("shard", P, "moved-1", "resume"),
    ("shard", P, "old-manifest-removed", "plain"),
    ("tokenize", A, "encode:2", "resume"), ("tokenize", T, "write:1", "resume"), ("tokenize", P, "manifest-written", "plain"),
]


def recover(cfg, stage: str, how: str):
    """--replace --recompute --resume, or a plain --replace --recompute rerun (the output exists: the killed
    run was rebuilding it; --recompute: every unit computed, none linked from the published output)."""
    return run_stage(stage, load_config(cfg), RunOptions(workers=1, force=True, recompute=True, resume=how == "resume"))


def stage_run_file(cfg, stage: str) -> dict:
    config = load_config(cfg)
    from corpus.stages import STAGE

    if STAGE[stage].kind in ("parts", "shards"):
        return json.loads((STAGE[stage].path(config) / "_RUN.json").read_text())
    return {}


@pytest.mark.parametrize("stage,hook,value,how", POINTS, ids=[f"{s}-{v}-{h}" for s, _, v, h in POINTS])
def test_kill_point(reference, tmp_path, stage, hook, value, how):
    want = published(reference / "a")
    cfg = clone(reference, tmp_path)
    run_killed(cfg, [stage, "--replace", "--recompute", "--workers", WORKERS], {hook: value})
    KILLS[stage] += 1
    if hook != P:  # killed before publication began: the published output is untouched
        assert published(tmp_path / "a") == want
    result = recover(cfg, stage, how)
    assert published(tmp_path / "a") == want
    assert leftovers(tmp_path / "a") == []
    if hook == A and how == "resume":
        phase, k = value.rsplit(":", 1)
        reused = result.outputs[0].run_info.get("resumed_units", {}) if result.status != "current" else {}
        if stage == "fetch":  # one unit per source, each its own output
            reused = {phase: sum(o.run_info.get("resumed_units", {}).get(phase, 0) for o in result.outputs)}
        assert reused.get(phase, 0) >= int(k) - WORKERS, (reused, value)


STAGE_SECONDS = {"fetch": 1.5, "normalize": 1.5, "filter": 2.5, "dedup": 4.0, "pii": 4.5, "shard": 1.5, "tokenize": 1.8}


@pytest.mark.parametrize("stage", list(STAGE_SECONDS))
def test_kill_at_a_seeded_random_time(reference, tmp_path, stage):
    """SIGKILL the whole process group (parent and workers) at a seeded random moment of the stage."""
    want = published(reference / "a")
    cfg = clone(reference, tmp_path)
    rng = random.Random(f"faults-{stage}")
    delay = rng.uniform(0.3, STAGE_SECONDS[stage])
    p = corpus_proc(cfg, stage, "--replace", "--recompute", "--workers", WORKERS)
    time.sleep(delay)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        KILLS[stage] += 1
    p.communicate(timeout=120)
    assert p.returncode in (0, -signal.SIGKILL), p.returncode
    recover(cfg, stage, rng.choice(["resume", "plain"]))
    assert published(tmp_path / "a") == want
    assert leftovers(tmp_path / "a") == []
