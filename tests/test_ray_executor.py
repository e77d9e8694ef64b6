"""The Ray executor gives the same bytes as the local process pool (executors never change output bytes),
also with dedup's global step in 3 partitions on Ray and in one locally."""

from __future__ import annotations

import json

import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from conftest import LEDGER, write_config

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # starts Ray; run_all through dedup twice
ray = pytest.importorskip("ray")


def test_ray_and_local_outputs_are_identical(tmp_path, mirror, monkeypatch):
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    configs = {}
    for executor in ("local", "ray"):
        configs[executor] = load_config(write_config(
            tmp_path / f"{executor}.toml", ledger=LEDGER, sources=["tinystories-train-head", "wikitext2-test", "webtext"],
            artifacts=tmp_path / executor,
            # dedup's global step partitioned on Ray, in one piece locally: neither may change a byte
            run={"executor": executor, "workers": 2, "partitions": 3 if executor == "ray" else 1}))
    try:
        for config in configs.values():
            run_all(config, workers=2, through="dedup")
    finally:
        ray.shutdown()

    def parts(config):
        base = config.dataset_dir / "stages"
        files = {str(p.relative_to(base)): p.read_bytes() for p in sorted([*base.rglob("*.parquet"), *base.rglob("*.npz")])}
        manifest = json.loads((base / "04-dedup" / "_STAGE.json").read_text())
        manifest.pop("inputs")  # their sha256 differ with fetch's fetched_at, whatever the executor
        return {**files, "04-dedup/_STAGE.json": manifest}

    local, distributed = parts(configs["local"]), parts(configs["ray"])
    assert len(local) >= 9 and local == distributed
