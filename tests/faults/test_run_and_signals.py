"""`corpus run` killed within and between stages, Ctrl-C during pii, and two writers racing for one root."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage

from conftest import run_corpus
from .conftest import KILLS, clone, corpus_proc, leftovers, published, run_killed


def drop_from(root: Path, stage: str) -> None:
    """Delete the published outputs of `stage` and of every stage after it (pii, shard or later)."""
    ds = root / "corpus" / "t" / "v1"
    order = ["pii", "shard", "tokenize"]
    for s in order[order.index(stage):]:
        if s == "pii":
            shutil.rmtree(ds / "stages" / "05-pii")
        elif s == "shard":
            for p in [*ds.glob("shard-*.parquet"), ds / "_MANIFEST.json", ds / "_STAGE.json", ds / "_RUN.json"]:
                p.unlink()
        else:
            shutil.rmtree(root / "tokens")


def test_corpus_run_killed_within_a_stage_then_resumed(reference, tmp_path):
    want = published(reference / "a")
    cfg = clone(reference, tmp_path)
    drop_from(tmp_path / "a", "pii")
    run_killed(cfg, ["run", "--workers", "2"], {"CORPUS_FAULT_AFTER": "pii:3"})
    KILLS["run"] += 1
    run_all(load_config(cfg), workers=1, resume=True)
    assert published(tmp_path / "a") == want and leftovers(tmp_path / "a") == []
    resumed = json.loads((tmp_path / "a/corpus/t/v1/stages/05-pii/_RUN.json").read_text())["resumed_units"]
    assert resumed["pii"] >= 3 - 2


def test_corpus_run_killed_between_stages_then_rerun(reference, tmp_path):
    want = published(reference / "a")
    cfg = clone(reference, tmp_path)
    drop_from(tmp_path / "a", "shard")
    run_killed(cfg, ["run", "--workers", "2"], {"CORPUS_FAULT_AT": "shard:between"})
    KILLS["run"] += 1
    assert (tmp_path / "a/corpus/t/v1/_STAGE.json").is_file() and not (tmp_path / "a/tokens").exists()
    proc = run_corpus("--config", cfg, "run", "--workers", "2")  # a plain rerun, as a user would
    assert proc.returncode == 0, proc.stderr
    assert published(tmp_path / "a") == want and leftovers(tmp_path / "a") == []


def test_ctrl_c_during_pii_is_one_line_and_workers_are_quiet(reference, tmp_path):
    want = published(reference / "a")
    # The signal goes at the first unit's checkpoint. The demo's nine pii units take ~0.1 s once the workers
    # have loaded presidio, so on a loaded machine the stage can finish before the signal lands (exit 0,
    # outputs complete): that attempt says nothing about Ctrl-C, and a fresh copy is interrupted again.
    for attempt in range(3):
        root = tmp_path / f"try{attempt}"
        cfg = clone(reference, root)
        progress = root / "a/corpus/t/v1/stages/05-pii.incomplete/_progress/pii.jsonl"
        p = corpus_proc(cfg, "pii", "--replace", "--recompute", "--workers", "2")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None and not (progress.is_file() and progress.stat().st_size):  # a checkpoint
            time.sleep(0.02)
        try:
            os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group: parent and workers
        except ProcessLookupError:  # the whole group had exited already
            pass
        out, err = p.communicate(timeout=60)
        if p.returncode == 0:  # it outran the signal: nothing interrupted, everything published
            assert published(root / "a") == want, err
            continue
        break
    else:
        pytest.fail("pii finished before the signal landed, three times")
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [l for l in err.splitlines() if l.strip() and not l[:2].isdigit()]  # log lines start with the time
    assert lines == ["interrupted"], err
    assert published(root / "a") == want
    result = run_stage("pii", load_config(cfg), RunOptions(workers=1, force=True, recompute=True, resume=True))
    assert result.output.run_info["resumed_units"]["pii"] >= 1
    assert published(root / "a") == want and leftovers(root / "a") == []


PAIRS = 10


def test_two_writers_in_parallel_never_both_succeed(reference, tmp_path):
    """PAIRS times: two `corpus shard --force` on one root (one config file each, the same settings: a
    stage refuses an input made with another config), released into the lock at the same instant (a
    test-only barrier right before flock). Exactly one wins, the other fails at once with one line naming
    the holder, and the published shards are whole."""
    cfg_a = clone(reference, tmp_path)
    cfg_b = tmp_path / "b.toml"
    cfg_b.write_text(Path(cfg_a).read_text())
    ds = tmp_path / "a/corpus/t/v1"

    def shard_files() -> dict:
        return {p.name: p.read_bytes() for p in sorted(ds.iterdir()) if p.is_file() and p.name != "_RUN.json"}

    want = shard_files()
    wins = {"a": 0, "b": 0}
    for i in range(PAIRS):
        barrier = tmp_path / f"barrier-{i}"
        env = {"CORPUS_TEST_LOCK_BARRIER": str(barrier)}
        procs = {k: corpus_proc(c, "shard", "--force", "--workers", "1", env=env) for k, c in (("a", cfg_a), ("b", cfg_b))}
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob(f"barrier-{i}.*.ready"))) < 2 and time.monotonic() < deadline:
            assert all(p.poll() is None for p in procs.values()), {k: p.communicate() for k, p in procs.items()}
            time.sleep(0.01)
        barrier.touch()
        results = {k: (p.communicate(timeout=120), p.returncode) for k, p in procs.items()}
        ok = [k for k, (_, rc) in results.items() if rc == 0]
        assert len(ok) == 1, results
        loser = "b" if ok == ["a"] else "a"
        (_, err), rc = results[loser]
        errors = [l for l in err.splitlines() if l.startswith("error: ")]
        assert rc == 1 and len(errors) == 1 and "Traceback" not in err, err
        winner_pid = procs[ok[0]].pid
        assert f".corpus.lock: held by pid {winner_pid} on " in errors[0] and "`corpus" in errors[0] and " since " in errors[0]
        assert shard_files() == want
        assert leftovers(tmp_path / "a") == []
        wins[ok[0]] += 1
    assert sum(wins.values()) == PAIRS
