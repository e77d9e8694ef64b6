"""`corpus run`: every stage of the stage table in order. A stage whose output is current (same
identity, checksums verified) is skipped; a stale one is recomputed, and since its output then
changes, every stage after it is recomputed too."""

from __future__ import annotations

import logging

from corpus.config import Config
from corpus.store.lock import writer_lock
from corpus import faults
from corpus.engine.runner import RunOptions
from corpus.stages import NAMES, STAGE, run_stage

log = logging.getLogger(__name__)


def run_all(config: Config, *, workers: int, through: str = NAMES[-1],
            resume: bool = False) -> list[tuple[str, str, float, str]]:
    """[(stage, 'current'|'computed'|'recomputed', seconds, summary)] for each stage up to `through`.
    With `resume`, a stage an interrupted run left half-done reuses its verified units."""
    out = []
    with writer_lock(config.artifacts):  # held across the stages: no other writer runs between two of them
        for name in NAMES[: NAMES.index(through) + 1]:
            result = run_stage(name, config, RunOptions(workers=workers, replace_stale=True, resume=resume))
            out.append((name, result.status, result.seconds, STAGE[name].summary_of(result)))
            log.info("%s: %s", name, result.status)
            faults.kill_at("between", name)  # test-only: a kill after this stage, before the next one starts
    return out
