"""runner.Whole on test_runner_toy's toy stage: a job whose identity differs (another version, another
upstream config) but whose content a published output recorded is `reused`: its files linked, no unit
run, the Steps it names run again over the kept results; a damaged source, --recompute, or --replace of
the output itself computes instead."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from corpus.config import load_config
from corpus.config.layout import RUN_FILE, STAGE_FILE
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step, Whole, run_jobs
from conftest import LEDGER, write_config
from test_runner_toy import N_UNITS, RAN, STAGE, ToyUnit, summarise, write_unit


def version(tmp_path: Path, name: str):
    path = write_config(tmp_path / f"{name}.toml", ledger=LEDGER, sources=["tinystories-train-head"],
                        artifacts=tmp_path / "a")
    path.write_text(path.read_text().replace('version = "v1"', f'version = "{name}"'))
    return load_config(path)


def whole_job(config, upstream: str, salt: str = "a", steps: tuple = ()) -> Job:
    def units(ctx: PhaseContext) -> list[ToyUnit]:
        return [ToyUnit(f"u{i}", i, ctx.staging, salt) for i in range(N_UNITS)]

    identity = {"config_sha256": config.sha256, "params": {"upstream": upstream, "salt": salt}, "inputs": []}
    whole = Whole({"salt": salt}, steps=steps, results=("write",) if steps else (),
                  rebuilt=("summary.json",) if steps else ())
    reuse = tuple(sorted((config.artifacts / "corpus" / config.dataset).glob("*/stages/90-toy")))
    return Job(STAGE, config.stage_dir("90-toy"), identity, [Map("write", units, write_unit), Step("summary", summarise)],
               dataset=config.dataset, version=config.version, reuse_from=reuse, whole=whole)


def run(config, upstream: str, salt: str = "a", steps: tuple = (), **opts):
    RAN.clear()
    return run_jobs(STAGE, config, RunOptions(workers=1, **opts), [whole_job(config, upstream, salt, steps)])


def parts(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name not in (STAGE_FILE, RUN_FILE)}


@pytest.mark.parametrize("steps", [(), ("summary",)])
def test_the_same_content_under_another_identity_is_reused_whole(tmp_path, steps):
    v1, v2 = version(tmp_path, "v1"), version(tmp_path, "v2")
    assert run(v1, "x", steps=steps).status == "computed"
    result = run(v2, "y", steps=steps)
    assert result.status == result.status_text == "reused"
    assert RAN == ([("step", RAN[0][1])] if steps else [])  # no unit ran; the named step did
    a, b = v1.stage_dir("90-toy"), v2.stage_dir("90-toy")
    assert parts(a) == parts(b)
    m1, m2 = (json.loads((d / STAGE_FILE).read_text()) for d in (a, b))
    assert m2["params"] == {"upstream": "y", "salt": "a"} and m2["version"] == "v2"
    assert m1["parts"] == m2["parts"] and m1["counts"] == m2["counts"]
    assert json.loads((b / RUN_FILE).read_text())["reused_whole"] == "corpus/t/v1/stages/90-toy"
    assert run(v2, "y", steps=steps).status == "current"
    # with v1 gone, a third version takes v2's output: a reused output records its content too
    shutil.rmtree(a)
    v3 = version(tmp_path, "v3")
    assert run(v3, "z", steps=steps).status == "reused"
    assert json.loads((v3.stage_dir("90-toy") / RUN_FILE).read_text())["reused_whole"] == "corpus/t/v2/stages/90-toy"


def test_other_content_a_damaged_source_recompute_and_replace_compute(tmp_path, caplog):
    v1, v2 = version(tmp_path, "v1"), version(tmp_path, "v2")
    run(v1, "x")
    assert run(v2, "y", salt="b").status == "computed"  # other content
    part = v1.stage_dir("90-toy") / "part-00001.jsonl.zst"
    data = bytearray(part.read_bytes())
    data[5] ^= 1
    part.write_bytes(bytes(data))
    v3 = version(tmp_path, "v3")
    with caplog.at_level(logging.WARNING, logger="corpus.engine.runner"):
        assert run(v3, "z").status == "computed" and len(RAN) == N_UNITS + 1
    assert "does not verify" in caplog.text
    v4 = version(tmp_path, "v4")
    assert run(v4, "w", recompute=True).status == "computed" and len(RAN) == N_UNITS + 1
    # --replace rebuilds the output: never from itself (another version's output may still serve)
    assert run(v4, "w2", force=True).status == "reused"
    assert json.loads((v4.stage_dir("90-toy") / RUN_FILE).read_text())["reused_whole"] != "corpus/t/v4/stages/90-toy"
