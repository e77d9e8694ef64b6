"""`corpus run`: every stage of the stage table in order. A stage whose output is current (same
identity, checksums verified) is skipped; a stale one is recomputed, and since its output then
changes, every stage after it is recomputed too."""

from __future__ import annotations

import logging

from .config import Config
from .lock import writer_lock
from .runner import RunOptions
from .stages import NAMES, STAGE, run_stage

log = logging.getLogger(__name__)


def run_all(config: Config, *, workers: int, through: str = NAMES[-1]) -> list[tuple[str, str, float, str]]:
    """[(stage, 'current'|'computed'|'recomputed', seconds, summary)] for each stage up to `through`."""
    out = []
    with writer_lock(config.artifacts):  # held across the stages: no other writer runs between two of them
        for name in NAMES[: NAMES.index(through) + 1]:
            result = run_stage(name, config, RunOptions(workers=workers, replace_stale=True))
            out.append((name, result.status, result.seconds, STAGE[name].summary_of(result)))
            log.info("%s: %s", name, result.status)
    return out
