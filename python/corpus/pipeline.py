"""`corpus run`: every stage in order. A stage whose output is current (same config, parameters and
input manifests, checksums verified) is skipped; a stale one is recomputed, and since its output then
changes, every stage after it is recomputed too."""

from __future__ import annotations

import logging
import time
from typing import Callable

from .config import Config
from .errors import StaleError

log = logging.getLogger(__name__)
STAGES = ("fetch", "normalize", "filter", "dedup", "pii", "shard", "tokenize")


def _steps(config: Config, workers: int) -> dict[str, Callable[[bool], dict]]:
    from .stages.dedup import run_dedup
    from .stages.fetch import run_fetch
    from .stages.filter import run_filter
    from .stages.normalize import run_normalize
    from .stages.pii import run_pii
    from .stages.shard import run_shard
    from .stages.tokenize import run_tokenize

    def fetch(force: bool) -> dict:
        results = run_fetch(config, workers=workers, executor=config["run"]["executor"], replace_stale=True)
        fetched = [r for r in results if r["status"] == "fetched"]
        return {"_current": not fetched, "summary": f"{len(fetched)} of {len(results)} sources fetched"}

    return {
        "fetch": fetch,
        "normalize": lambda force: run_normalize(config, workers=workers, force=force),
        "filter": lambda force: run_filter(config, workers=workers, force=force),
        "dedup": lambda force: run_dedup(config, workers=workers, force=force),
        "pii": lambda force: run_pii(config, workers=workers, force=force),
        "shard": lambda force: run_shard(config, workers=workers, force=force),
        "tokenize": lambda force: run_tokenize(config, workers=workers, force=force)[0],
    }


def summary_of(stage: str, m: dict) -> str:
    if "summary" in m:
        return m["summary"]
    if stage == "shard":
        return f"{m['n_docs']} docs in {m['n_shards']} shards (train {m['splits']['train']}, val {m['splits']['val']})"
    if stage == "tokenize":
        return ", ".join(f"{s} {i['docs']} docs / {i['tokens']} tokens" for s, i in m["splits"].items())
    c = m["counts"]
    return f"{c['docs_in']} docs in, {c['docs_out']} out"


def run_all(config: Config, *, workers: int, through: str = "tokenize") -> list[tuple[str, str, float, str]]:
    """[(stage, 'current'|'computed'|'recomputed', seconds, summary)] for each stage up to `through`."""
    steps = _steps(config, workers)
    out = []
    for stage in STAGES[: STAGES.index(through) + 1]:
        t0 = time.monotonic()
        try:
            m = steps[stage](False)
            status = "current" if m.get("_current") else "computed"
        except StaleError as e:
            log.info("%s", e)
            m = steps[stage](True)
            status = "recomputed"
        out.append((stage, status, time.monotonic() - t0, summary_of(stage, m)))
        log.info("%s: %s", stage, status)
    return out
