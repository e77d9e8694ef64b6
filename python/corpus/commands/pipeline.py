"""`corpus run`: every stage of the stage table in order. A stage whose output is current (same
identity, checksums verified) is skipped; a stale one is recomputed, and since its output then
changes, every stage after it is recomputed too. A dataset version whose shards are published is
immutable: a config, ledger or raw output that would change it is refused (naming what changed), and so
is any stage of it that is not current, unless --replace (alias --force). `--recompute STAGE` rebuilds
STAGE and every stage after it from nothing (no current output, no reused unit, no cache)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from corpus.config import Config
from corpus.errors import CorpusError
from corpus.store.lock import writer_lock
from corpus import faults
from corpus.engine.runner import RunOptions
from corpus.stages import NAMES, STAGE, run_stage
from corpus.tokens import mix

log = logging.getLogger(__name__)


def leaves(d, prefix: str = "") -> dict:
    """{"filters.gopher.min_words": 50, ...}: a nested table's keys as dotted paths."""
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict = {}
    for k, v in d.items():
        out.update(leaves(v, f"{prefix}.{k}" if prefix else k))
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
    now, was = leaves(config_slice(config.data, config_keys("shard"))), leaves(recorded)
    changes = [f"{k} {json.dumps(was.get(k), ensure_ascii=False)} -> {json.dumps(now.get(k), ensure_ascii=False)}"
               for k in sorted(set(now) | set(was)) if now.get(k) != was.get(k)]
    return changes + (["the ledger rows of its sources"] if ledger_changed else [])


def raw_changes(config: Config) -> list[str]:
    """The raw outputs the published version's normalize read that this config would not read (its
    [fetch] or [extract] settings differ, or an extractor's version): `source 'x': raw output A -> B`."""
    from corpus.config.ledger import load_ledger
    from corpus.engine.raw import raw_dir_of, raw_inputs
    from corpus.engine.runner import read_stage_manifest

    if read_stage_manifest(STAGE["shard"].path(config)) is None:
        return []
    normalize = read_stage_manifest(STAGE["normalize"].path(config))
    if normalize is None:
        return []
    ledger = load_ledger(config.ledger_path)
    read = {sid: str(Path(i["path"]).parent) for sid, i in raw_inputs(normalize).items()}
    out = []
    for sid in config["dataset"]["sources"]:
        if sid in read and sid in ledger:
            now = str(raw_dir_of(config, ledger[sid]).relative_to(config.artifacts))
            if now != read[sid]:
                out.append(f"source '{sid}': raw output {read[sid]} -> {now} ([fetch]/[extract] settings or "
                           f"extractor versions)")
    return out


def published(config: Config) -> bool:
    from corpus.engine.runner import read_stage_manifest

    return read_stage_manifest(STAGE["shard"].path(config)) is not None


def run_all(config: Config, *, workers: int, through: str = NAMES[-1], resume: bool = False,
            replace: bool = False, recompute: str | None = None) -> list[tuple[str, str, float, str]]:
    """[(stage, status, seconds, summary)] for each stage up to `through`, status one of current,
    reused, `reused N/M units`, computed, recomputed (runner.StageResult.status_text). With `resume`, a stage an
    interrupted run left half-done reuses its verified units. A published dataset version is never
    rebuilt (with other content, or at all) unless `replace`: bump [dataset] version instead, or give a
    new name. `recompute`: from that stage on, nothing is taken from before."""
    out = []
    if NAMES.index(through) >= NAMES.index("tokenize") and mix.active(config.data.get("mix")):
        # a misnamed source in [mix] is one line now, not after every stage before tokenize has run
        mix.check(config.data["mix"], list(dict.fromkeys(config["dataset"]["sources"])), str(config.path))
    with writer_lock(config.artifacts):  # held across the stages: no other writer runs between two of them
        is_published = published(config)
        changes = version_changes(config) + raw_changes(config)
        if changes and not replace:
            shown = "; ".join(changes[:3]) + (f"; and {len(changes) - 3} more" if len(changes) > 3 else "")
            raise CorpusError(f"{config.dataset_dir}: {config.dataset}/{config.version} is published with other "
                              f"settings ({shown}); a published version is never replaced: bump [dataset] version "
                              f"in {config.path}, or pass --replace (corpus run --replace) to rebuild it")
        if recompute is not None and is_published and not replace:
            raise CorpusError(f"{config.dataset_dir}: {config.dataset}/{config.version} is published; "
                              f"--recompute {recompute} would rebuild it: add --replace, or bump [dataset] version "
                              f"in {config.path}")
        first_recomputed = NAMES.index(recompute) if recompute is not None else len(NAMES)
        for i, name in enumerate(NAMES[: NAMES.index(through) + 1]):
            # a published version's stale stage is refused (runner: StaleError) unless --replace
            opts = RunOptions(workers=workers, replace_stale=replace or not is_published, repair=replace,
                              resume=resume, recompute=i >= first_recomputed)
            result = run_stage(name, config, opts)
            out.append((name, result.status_text, result.seconds, STAGE[name].summary_of(result)))
            log.info("%s: %s", name, result.status)
            faults.kill_at("between", name)  # test-only: a kill after this stage, before the next one starts
    return out
