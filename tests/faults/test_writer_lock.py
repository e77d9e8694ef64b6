"""The artifacts-root lock: a second writer fails at once naming the holder; readers need no lock; a
stale lock (its holder dead) is taken over with a warning; the lock is re-entrant in one process."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from corpus.store import lock
from conftest import error_line, run_corpus
from .conftest import clone

HOLD = """
import sys, time
from corpus.store.lock import acquire
acquire(sys.argv[1], "corpus shard --force (test holder)")
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def workspace(reference, tmp_path):
    return clone(reference, tmp_path), tmp_path / "a"


def test_second_writer_fails_at_once_naming_the_holder_and_readers_need_no_lock(workspace):
    cfg, root = workspace
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for args in (["normalize"], ["run"], ["export", "--format", "nanogpt"]):
            t0 = time.monotonic()
            line = error_line(run_corpus("--config", cfg, *args))
            assert time.monotonic() - t0 < 30
            assert f"{root / '.corpus.lock'}: held by pid {holder.pid} on " in line, line
            assert "(`corpus shard --force (test holder)`) since 20" in line, line
        proc = run_corpus("--config", cfg, "audit")  # read-only: no lock
        assert proc.returncode == 0, proc.stdout + proc.stderr
    finally:
        holder.kill()
        holder.wait()
    assert not list((root / "tokens").rglob("export-*"))


def test_stale_lock_of_a_dead_process_is_taken_over_with_a_warning(workspace):
    cfg, root = workspace
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (root / ".corpus.lock").write_text(json.dumps({"pid": dead.pid, "host": __import__("platform").node(),
                                                   "command": "corpus filter", "since": "2026-01-01T00:00:00Z"}))
    proc = run_corpus("--config", cfg, "normalize")
    assert proc.returncode == 0, proc.stderr
    warn = [l for l in proc.stderr.splitlines() if "stale lock" in l]
    assert len(warn) == 1 and f"pid {dead.pid}" in warn[0] and "no longer running" in warn[0], proc.stderr
    assert (root / ".corpus.lock").read_text() == ""  # released: an empty body is a free lock


def test_lock_is_reentrant_in_one_process_and_exclusive_across_processes(tmp_path):
    lock.acquire(tmp_path)
    lock.acquire(tmp_path)
    lock.release(tmp_path)
    body = lock.holder(tmp_path)
    assert body["pid"] == __import__("os").getpid()
    probe = [sys.executable, "-c", "import sys; from corpus.store.lock import acquire; acquire(sys.argv[1])", str(tmp_path)]
    other = subprocess.run(probe, capture_output=True, text=True)
    assert other.returncode != 0 and "held by pid" in other.stderr
    lock.release(tmp_path)
    assert lock.holder(tmp_path) is None
    assert subprocess.run(probe, capture_output=True, text=True).returncode == 0
