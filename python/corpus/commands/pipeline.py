"""`corpus run`: every stage of the stage table in order. A stage whose output is current (same
identity, checksums verified) is skipped; a stale one is recomputed, and since its output then
changes, every stage after it is recomputed too. A dataset version whose shards are published is
immutable: a config or ledger that would change it is refused (naming what changed) unless --force."""

from __future__ import annotations

import json
import logging

from corpus.config import Config
from corpus.errors import CorpusError
from corpus.store.lock import writer_lock
from corpus import faults
from corpus.engine.runner import RunOptions
from corpus.stages import NAMES, STAGE, run_stage
from corpus.tokens import mix

log = logging.getLogger(__name__)


def _leaves(d, prefix: str = "") -> dict:
    """{"filters.gopher.min_words": 50, ...}: a nested table's keys as dotted paths."""
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict = {}
    for k, v in d.items():
        out.update(_leaves(v, f"{prefix}.{k}" if prefix else k))
    return out


def version_changes(config: Config) -> list[str]:
    """What this config would change in its published dataset version (corpus/<dataset>/<version>/ with
    its shards): the config keys the shards depend on whose values differ, and the ledger rows of its
    sources. Empty when nothing is published yet, or nothing differs."""
    from corpus.config import config_slice
    from corpus.config.ledger import load_ledger
    from corpus.engine.runner import read_stage_manifest
    from corpus.stages import config_hash, config_keys
    from corpus.stages.shard import ledger_ref

    manifest = read_stage_manifest(STAGE["shard"].path(config))
    if manifest is None:
        return []
    ledger = load_ledger(config.ledger_path)
    if any(s not in ledger for s in config["dataset"]["sources"]):
        return []  # fetch names the missing source
    ledger_changed = manifest["params"].get("ledger_sha256") != ledger_ref(config)["sha256"]
    if manifest.get("config_sha256") == config_hash(config, "shard") and not ledger_changed:
        return []
    recorded = manifest["params"].get("config")
    if recorded is None:  # made before the shard stage recorded its config
        return ["its config (made by an older corpus)"]
    now, was = _leaves(config_slice(config.data, config_keys("shard"))), _leaves(recorded)
    changes = [f"{k} {json.dumps(was.get(k), ensure_ascii=False)} -> {json.dumps(now.get(k), ensure_ascii=False)}"
               for k in sorted(set(now) | set(was)) if now.get(k) != was.get(k)]
    return changes + (["the ledger rows of its sources"] if ledger_changed else [])


def run_all(config: Config, *, workers: int, through: str = NAMES[-1],
            resume: bool = False, force: bool = False) -> list[tuple[str, str, float, str]]:
    """[(stage, 'current'|'computed'|'recomputed', seconds, summary)] for each stage up to `through`.
    With `resume`, a stage an interrupted run left half-done reuses its verified units. A published
    dataset version is never rebuilt with other content unless `force`: bump [dataset] version instead."""
    out = []
    if NAMES.index(through) >= NAMES.index("tokenize") and mix.active(config.data.get("mix")):
        # a misnamed source in [mix] is one line now, not after every stage before tokenize has run
        mix.check(config.data["mix"], list(dict.fromkeys(config["dataset"]["sources"])), str(config.path))
    with writer_lock(config.artifacts):  # held across the stages: no other writer runs between two of them
        changes = version_changes(config)
        if changes and not force:
            shown = "; ".join(changes[:3]) + (f"; and {len(changes) - 3} more" if len(changes) > 3 else "")
            raise CorpusError(f"{config.dataset_dir}: {config.dataset}/{config.version} is published with other "
                              f"settings ({shown}); a published version is never replaced: bump [dataset] version "
                              f"in {config.path}, or pass --force (corpus run --force) to rebuild it")
        for name in NAMES[: NAMES.index(through) + 1]:
            result = run_stage(name, config, RunOptions(workers=workers, replace_stale=True, resume=resume))
            out.append((name, result.status, result.seconds, STAGE[name].summary_of(result)))
            log.info("%s: %s", name, result.status)
            faults.kill_at("between", name)  # test-only: a kill after this stage, before the next one starts
    return out
