"""Test-only hooks, all in one place: environment variables that make a run die at a chosen point, so the
tests in tests/faults can check that every such point is recoverable. Unset, each hook costs one lookup.

    CORPUS_FAULT_AFTER=<phase>:<k>   SIGKILL right after the k-th unit of a map phase is checkpointed
    CORPUS_FAULT_TORN=<phase>:<k>    the k-th unit to run leaves its first file half-written, then the run
                                     is SIGKILLed before that unit is checkpointed (a kill mid-write)
    CORPUS_FAULT_AT=<point>|<stage>:<point>   SIGKILL at a publication point: manifest-written (the staging
                                     dir complete with its _STAGE.json), old-aside (the old output renamed
                                     aside, the new one not yet in place), renamed (the new one in place, the
                                     old one not yet deleted); in a shared directory old-manifest-removed,
                                     moved-1 (one file moved in), moved-all (every file in, not the manifest);
                                     on s3 s3-parts-uploaded, s3-manifest-written; and <stage>:between in
                                     `corpus run`, after that stage and before the next
    CORPUS_TEST_LOCK_BARRIER=<file>  wait for <file> right before trying the writer lock (after touching
                                     <file>.<pid>.ready), so two writers race for it at the same instant
    CORPUS_FAULT_EXTRACT=<how>:<text>  the sandboxed HTML extractor hangs (how = hang), dies (crash) or
                                     raises (raise) on a page whose URL contains <text>"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

AFTER_ENV = "CORPUS_FAULT_AFTER"
TORN_ENV = "CORPUS_FAULT_TORN"
AT_ENV = "CORPUS_FAULT_AT"
LOCK_BARRIER_ENV = "CORPUS_TEST_LOCK_BARRIER"
EXTRACT_ENV = "CORPUS_FAULT_EXTRACT"


def unit_point(env: str = AFTER_ENV) -> tuple[str, int] | None:
    """(phase, k) of CORPUS_FAULT_AFTER or CORPUS_FAULT_TORN, or None."""
    spec = os.environ.get(env, "")
    if not spec:
        return None
    phase, _, k = spec.rpartition(":")
    return phase, int(k)


def kill_at(point: str, stage: str | None = None) -> None:
    """SIGKILL this process at a named publication point (CORPUS_FAULT_AT = point or stage:point)."""
    spec = os.environ.get(AT_ENV, "")
    if spec and spec in (point, f"{stage}:{point}"):
        os.kill(os.getpid(), signal.SIGKILL)


def kill_now() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def lock_barrier() -> None:
    barrier = os.environ.get(LOCK_BARRIER_ENV)
    if not barrier:
        return
    Path(f"{barrier}.{os.getpid()}.ready").touch()
    deadline = time.monotonic() + 60
    while not Path(barrier).exists() and time.monotonic() < deadline:
        time.sleep(0.001)


def extract_fault(url: str) -> None:
    """In the extractor's child: hang, die or raise on a page whose URL holds CORPUS_FAULT_EXTRACT's text."""
    spec = os.environ.get(EXTRACT_ENV, "")
    how, _, text = spec.partition(":")
    if not spec or text not in url:
        return
    if how == "hang":
        while True:
            time.sleep(60)
    if how == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "raise":
        raise RuntimeError(f"fault injected for {url}")
