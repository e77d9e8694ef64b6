"""The runner (corpus.engine.runner) on a toy stage built here: a Map phase of three units, each writing one
small JSONL.zst part, and a Step writing a summary. No real data, no pool (workers=1 runs every unit in this
process): the first run publishes (_STAGE.json, _RUN.json, the parts; status "computed"), a second run
with the same identity is "current" and runs nothing, a changed identity is refused as stale without
force and recomputed with it, and --resume reuses the units an interrupted run checkpointed (redoing one
whose file no longer verifies)."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
import zstandard

from corpus.config import load_config
from corpus.config.layout import RUN_FILE, STAGE_FILE, STAGE_SCHEMA
from corpus.config.schemas import validate
from corpus.engine.runner import Job, Map, checkpoints, PhaseContext, RunOptions, Step, run_jobs, staging_dir
from corpus.errors import CorpusError, StaleError
from corpus.store.atomic import sha256_file
from conftest import LEDGER, write_config

STAGE = "toy"
N_UNITS = 3
RAN: list[tuple[str, int]] = []     # (unit key, pid) of every unit that ran, "step" for the step
FAIL_ON: set[str] = set()           # unit keys that raise: an interrupted run


@dataclass(frozen=True)
class ToyUnit:
    key: str
    index: int
    staging: Path
    salt: str


def write_unit(u: ToyUnit) -> dict:
    """Unit i writes part-0000i.jsonl.zst of i + 1 documents."""
    if u.key in FAIL_ON:
        raise RuntimeError(f"toy: {u.key} interrupted")
    RAN.append((u.key, os.getpid()))
    docs = [{"id": f"{u.key}:{k}", "text": f"{u.salt} document {k} of unit {u.index}"} for k in range(u.index + 1)]
    name = f"part-{u.index:05d}.jsonl.zst"
    path = u.staging / name
    path.write_bytes(zstandard.ZstdCompressor().compress("".join(json.dumps(d) + "\n" for d in docs).encode()))
    entry = {"name": name, "sha256": sha256_file(path), "rows": len(docs), "bytes": path.stat().st_size}
    return {"key": u.key, "parts": [entry], "counts": {"docs_in": len(docs), "docs_out": len(docs)}}


def summarise(ctx: PhaseContext) -> None:
    """The global step: reads every unit's result (in unit order) and publishes summary.json."""
    RAN.append(("step", os.getpid()))
    keys = [r["key"] for r in ctx.results["write"]]
    path = ctx.staging / "summary.json"
    path.write_text(json.dumps({"units": keys, "docs": ctx.summed_counts()["docs_out"]}))
    ctx.add_part({"name": "summary.json", "sha256": sha256_file(path), "rows": 0, "bytes": path.stat().st_size})


def toy_job(config, salt: str = "a") -> Job:
    def units(ctx: PhaseContext) -> list[ToyUnit]:
        return [ToyUnit(f"u{i}", i, ctx.staging, salt) for i in range(N_UNITS)]

    identity = {"config_sha256": config.sha256, "params": {"salt": salt, "units": N_UNITS}, "inputs": []}
    phases = [Map("write", units, write_unit), Step("summary", summarise)]
    return Job(STAGE, config.stage_dir("90-toy"), identity, phases, dataset=config.dataset, version=config.version)


def run(config, salt: str = "a", **opts):
    RAN.clear()
    return run_jobs(STAGE, config, RunOptions(workers=1, **opts), [toy_job(config, salt)])


def files(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture
def config(tmp_path):
    FAIL_ON.clear()
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=tmp_path / "a")
    yield load_config(cfg)
    FAIL_ON.clear()


def test_first_run_publishes_then_current_runs_nothing(config):
    result = run(config)
    out = result.output
    assert result.status == out.status == "computed"
    assert [k for k, _ in RAN] == ["u0", "u1", "u2", "step"]
    assert {pid for _, pid in RAN} == {os.getpid()}  # workers=1: no pool, every unit in this process
    final = config.stage_dir("90-toy")
    assert out.path == final and not staging_dir(toy_job(config), STAGE).exists()
    manifest = json.loads((final / STAGE_FILE).read_text())
    validate(manifest, STAGE_SCHEMA, what=STAGE_FILE)
    assert manifest == out.manifest and manifest["stage"] == STAGE
    assert {k: manifest[k] for k in ("config_sha256", "params", "inputs")} == toy_job(config).identity
    names = [p["name"] for p in manifest["parts"]]
    assert names == ["part-00000.jsonl.zst", "part-00001.jsonl.zst", "part-00002.jsonl.zst", "summary.json"]
    assert all(sha256_file(final / p["name"]) == p["sha256"] for p in manifest["parts"])
    assert manifest["counts"] == {"docs_in": 6, "docs_out": 6}  # summed over the units: 1 + 2 + 3
    assert json.loads((final / "summary.json").read_text()) == {"units": ["u0", "u1", "u2"], "docs": 6}
    assert sorted(files(final)) == sorted([*names, STAGE_FILE, RUN_FILE])  # no _progress/, no _work/
    assert json.loads((final / RUN_FILE).read_text())["resumed_units"] == {"write": 0}

    before = files(final)
    again = run(config)
    assert again.status == again.output.status == "current" and again.current
    assert RAN == [] and files(final) == before  # nothing ran, nothing was rewritten
    assert again.manifest == manifest


def test_changed_identity_is_stale_without_force_and_recomputed_with_it(config):
    run(config)
    final = config.stage_dir("90-toy")
    before = files(final)
    with pytest.raises(StaleError, match="stale"):
        run(config, salt="b")
    assert RAN == [] and files(final) == before  # refused before anything ran

    result = run(config, salt="b", force=True)
    assert result.status == "recomputed"
    assert [k for k, _ in RAN] == ["u0", "u1", "u2", "step"]
    assert result.manifest["params"] == {"salt": "b", "units": N_UNITS}
    assert files(final) != before and json.loads((final / STAGE_FILE).read_text()) == result.manifest
    assert run(config, salt="b").status == "current"
    forced = run(config, salt="b", force=True)  # --force rebuilds even a current output
    assert forced.status == "recomputed" and [k for k, _ in RAN] == ["u0", "u1", "u2", "step"]


def test_resume_reuses_checkpointed_units(config, tmp_path):
    run(config)  # what an uninterrupted run publishes
    clean_files = files(config.stage_dir("90-toy"))

    # the same config in another artifacts root ([paths] is not hashed: the same identity)
    other = load_config(write_config(tmp_path / "c2.toml", ledger=LEDGER, sources=["tinystories-train-head"],
                                     artifacts=tmp_path / "interrupted"))
    FAIL_ON.add("u2")  # the run stops at the third unit: u0 and u1 are checkpointed
    with pytest.raises(RuntimeError, match="u2 interrupted"):
        run(other)
    staging = staging_dir(toy_job(other), STAGE)
    assert sorted(checkpoints(staging, "write")) == ["u0", "u1"]
    assert not (other.stage_dir("90-toy") / STAGE_FILE).exists()  # nothing published

    FAIL_ON.clear()
    (staging / ".tokenizer_config.json.a3ld85ur.tmp").write_bytes(b'{"add')  # a write the kill cut short
    result = run(other, resume=True)
    assert result.status == "computed"
    assert [k for k, _ in RAN] == ["u2", "step"]  # u0 and u1 reused (verified), only u2 ran
    final = other.stage_dir("90-toy")
    assert json.loads((final / RUN_FILE).read_text())["resumed_units"] == {"write": 2}
    published = {k: v for k, v in files(final).items() if k != RUN_FILE}  # _RUN.json: timings, host
    assert published == {k: v for k, v in clean_files.items() if k != RUN_FILE}  # a clean run's bytes
    assert not staging.exists()

    # a checkpointed unit whose file no longer verifies is redone; the others are kept
    FAIL_ON.add("u2")
    with pytest.raises(RuntimeError):
        run(other, salt="c", force=True)
    (staging / "part-00001.jsonl.zst").write_bytes(b"torn")
    FAIL_ON.clear()
    result = run(other, salt="c", force=True, resume=True)
    assert result.status == "recomputed" and [k for k, _ in RAN] == ["u1", "u2", "step"]
    assert json.loads((final / RUN_FILE).read_text())["resumed_units"] == {"write": 1}

    # resuming with another identity than the interrupted run's is refused
    FAIL_ON.add("u2")
    with pytest.raises(RuntimeError):
        run(other, salt="d", force=True)
    FAIL_ON.clear()
    with pytest.raises(CorpusError, match="another config"):
        run(other, salt="e", force=True, resume=True)


def test_a_run_with_nothing_to_do_starts_no_pool(config):
    """all_current answers for a stage whose every output is current without an executor; anything left
    to do (a stale output, --force, --resume, a staging dir) is run_jobs' to decide."""
    from corpus.engine.runner import all_current

    assert all_current(STAGE, [toy_job(config)], RunOptions()) is None  # nothing published yet
    run(config)
    RAN.clear()
    done = all_current(STAGE, [toy_job(config)], RunOptions())
    assert done is not None and done.status == "current" and RAN == []
    assert all_current(STAGE, [toy_job(config)], RunOptions(force=True)) is None
    assert all_current(STAGE, [toy_job(config, salt="other")], RunOptions()) is None  # stale
    staging_dir(toy_job(config), STAGE).mkdir(parents=True)
    assert all_current(STAGE, [toy_job(config)], RunOptions()) is None  # a half-done run to finish first


def test_a_phase_with_no_units_logs_no_progress_line(config, caplog):
    """Issue 47, item 6: a skipped phase logged "dedup: sample: 0/0 parts done"; the phases that ran
    still log theirs."""
    job = toy_job(config)
    job.phases.insert(0, Map("skipped", lambda ctx: [], write_unit))
    caplog.set_level(logging.INFO, logger="corpus")
    RAN.clear()
    run_jobs(STAGE, config, RunOptions(workers=1), [job])
    progress = [r.getMessage() for r in caplog.records if " done in " in r.getMessage()]
    assert progress and progress[0].startswith(f"{STAGE}: write: {N_UNITS}/{N_UNITS} parts done in ")
    assert not [m for m in progress if "skipped" in m or "0/0" in m], progress
