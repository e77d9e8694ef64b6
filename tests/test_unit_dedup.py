"""Dedup inside documents ([dedup.lines], [dedup.spans]): on real Wikipedia paragraphs with planted
boilerplate lines, the copies are removed and nothing else; the removals agree with an independent
first-seen check; 1 worker = 2 workers = 3 partitions byte for byte; `corpus why` names the keeper."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from corpus.commands.why import trace
from corpus.engine.runner import RunOptions
from corpus.errors import CorpusError
from corpus.stages import run_stage
from conftest import ledger_rows, mirror_file, run_corpus, write_config, write_ledger

pytestmark = pytest.mark.slow  # the pipeline through dedup on real data, then dedup three more times


def planted_corpus(seed: int = 5, source: str = "wikitext2-test") -> tuple[list[str], list[str]]:
    """Documents of 6 distinct real paragraphs each (WikiText articles by default), and 6 boilerplate lines
    (real GSM8K questions) planted at seeded places, each in ~8% of the documents."""
    rng = random.Random(seed)
    seen, paragraphs = set(), []
    for line in mirror_file(source).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if len(line) >= 80 and not line.startswith("=") and line not in seen:
            seen.add(line)
            paragraphs.append(line)
    questions = [json.loads(x)["question"] for x in mirror_file("gsm8k-train").read_text().splitlines()[:6]]
    docs = []
    for i in range(0, len(paragraphs) - 5, 6):
        lines = paragraphs[i:i + 6]
        for q in questions:
            if rng.random() < 0.08:
                lines.insert(rng.randrange(len(lines) + 1), q)
        docs.append("\n".join(lines))
    return docs, questions


def config_for(root: Path, name: str, ledger: Path, sources=("planted",), version="v1", dedup=None,
               unit="line", **run):
    tables = {"decontam": {"evals": []}, "filters.lang": {"enabled": False}, "filters.gopher": {"enabled": False},
              "filters.repetition": {"enabled": False}, **({"dedup": dedup} if dedup else {}),
              "dedup.lines": {"enabled": True, "unit": unit, "min_chars": 20}}
    if run:
        tables["run"] = run
    path = write_config(root / f"{name}.toml", ledger=ledger, sources=list(sources), artifacts=root / name, **tables)
    path.write_text(path.read_text().replace('version = "v1"', f'version = "{version}"'))
    return load_config(path)


def jsonl_row(path: Path, source_id: str, texts: list[str]) -> dict:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    data = path.read_bytes()
    return {"source_id": source_id, "role": "corpus", "url": str(path), "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data), "license_spdx": "CC-BY-SA-3.0", "format": "jsonl"}


@pytest.fixture(scope="module")
def planted(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("units")
    docs, boiler = planted_corpus()
    stories, _ = planted_corpus(seed=6, source="tinystories-train-head")
    ledger = write_ledger(root / "LEDGER.jsonl", [jsonl_row(root / "planted.jsonl", "planted", docs),
                                                  jsonl_row(root / "stories.jsonl", "stories", stories[:150]),
                                                  ledger_rows()["wikitext2-test"]])
    cfg = config_for(root, "base", ledger)
    run_all(cfg, workers=2, through="dedup")
    return root, ledger, cfg, boiler


def stage_texts(cfg, dirname: str) -> dict[str, str]:
    d = cfg.stage_dir(dirname)
    return {r["id"]: r["text"] for p in sorted(d.glob("part-*.parquet"))
            for r in pq.read_table(p, columns=["id", "text"]).to_pylist()}


def test_planted_copies_go_and_nothing_else(planted):
    _, _, cfg, boiler = planted
    before, after = stage_texts(cfg, "03-filter"), stage_texts(cfg, "04-dedup")
    planted_set = set(boiler)
    seen: set[str] = set()
    copies = removed_copies = others = removed_others = 0
    for doc_id in sorted(after, key=str.encode):  # the keeper rule: the earliest id keeps a line
        kept = after[doc_id].split("\n")
        expected = []
        for line in before[doc_id].split("\n"):
            first = line.strip() not in seen or len(line.strip()) < 20
            seen.add(line.strip())
            if first:
                expected.append(line)
            if line in planted_set:
                copies += not first
                removed_copies += not first and line not in kept
            else:
                others += 1
                removed_others += line not in kept
        assert "\n".join(expected) == after[doc_id], doc_id  # exactly an independent first-seen check
    assert copies >= 50 and removed_copies / copies >= 0.99
    assert removed_others / others <= 0.001
    m = json.loads((cfg.stage_dir("04-dedup") / "_STAGE.json").read_text())
    by_source = m["counts"]["units_removed"]["planted"]
    assert by_source["units"] == removed_copies and by_source["chars"] > 0


def test_why_names_the_document_that_kept_each_removed_line(planted):
    _, _, cfg, boiler = planted
    removed = [r for p in sorted((cfg.stage_dir("04-dedup") / "removed").glob("*.parquet"))
               for r in pq.read_table(p).to_pylist()]
    r = removed[0]
    after = stage_texts(cfg, "04-dedup")
    assert r["text"].strip() in boiler and r["text"].strip() in after[r["kept_by"]].split("\n")
    assert r["kept_by"].encode() < r["id"].encode()
    (step,) = [s for s in trace(cfg, r["id"]) if s["stage"] == "dedup"]
    assert any(r["kept_by"] in line and r["text"].strip()[:30] in line for line in step["removed_units"])


def test_one_worker_two_workers_three_partitions_identical(planted):
    root, ledger, cfg, _ = planted

    def outputs(c):
        d = c.stage_dir("04-dedup")
        return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*"))
                if p.is_file() and p.name != "_RUN.json"}

    got = []
    for name, workers, run in (("w1", 1, {"partitions": 1}), ("p3", 2, {"partitions": 3})):
        shutil.copytree(root / "base", root / name)
        c = config_for(root, name, ledger, **run)
        assert run_stage("dedup", c, RunOptions(workers=workers, force=True)).status == "recomputed"
        got.append(outputs(c))
    base = outputs(cfg)
    assert any(k.startswith("removed/") for k in base)
    assert got[0] == base and got[1] == base


def test_against_a_published_version_removes_the_lines_it_kept(planted):
    """v2 (other real text, the same planted lines) against the published v1: every planted line goes,
    kept by the v1 document holding it; a v1 deduplicated with other unit settings is refused."""
    root, ledger, v1, boiler = planted
    shutil.copytree(root / "base", root / "v2")
    v2 = config_for(root, "v2", ledger, sources=("stories",), version="v2", dedup={"against": ["t/v1"]})
    run_all(v2, workers=2, through="dedup")
    after = stage_texts(v2, "04-dedup")
    before = stage_texts(v2, "03-filter")
    planted_before = sum(line in boiler for t in before.values() for line in t.split("\n"))
    assert planted_before >= 10
    assert not any(line in boiler for t in after.values() for line in t.split("\n"))
    removed = [r for p in sorted((v2.stage_dir("04-dedup") / "removed").glob("*.parquet"))
               for r in pq.read_table(p).to_pylist() if r["text"].strip() in boiler]
    assert len(removed) == planted_before
    v1_texts = stage_texts(v1, "04-dedup")
    for r in removed:
        assert r["kept_by"].startswith("t/v1:")
        assert r["text"].strip() in v1_texts[r["kept_by"].removeprefix("t/v1:")].split("\n")
    shutil.copytree(root / "base", root / "v3")
    v3 = config_for(root, "v3", ledger, sources=("stories",), version="v3", dedup={"against": ["t/v1"]},
                    unit="paragraph")
    with pytest.raises(CorpusError, match="was not deduplicated inside documents with unit paragraph"):
        run_all(v3, workers=1, through="dedup")


def test_rejects_and_why_print_the_removed_units(planted):
    _, _, cfg, _ = planted
    m = json.loads((cfg.stage_dir("04-dedup") / "_STAGE.json").read_text())
    c = m["counts"]["units_removed"]["planted"]
    out = run_corpus("--config", cfg.path, "rejects", "--stage", "dedup", check=True).stdout
    assert f"removed {c['units']} line copies ({c['chars']} characters) from {c['docs']} documents of planted" in out
    r = pq.read_table(sorted((cfg.stage_dir("04-dedup") / "removed").glob("*.parquet"))[0]).to_pylist()[0]
    out = run_corpus("--config", cfg.path, "why", r["id"], check=True).stdout
    assert f"(kept by {r['kept_by']})" in out


@pytest.mark.cluster
def test_ray_with_three_partitions_identical(planted, monkeypatch):
    """Dedup inside documents on the Ray executor, 3 partitions: the same bytes as the local run."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    root, ledger, cfg, _ = planted
    shutil.copytree(root / "base", root / "ray")
    c = config_for(root, "ray", ledger, executor="ray", partitions=3)
    try:
        assert run_stage("dedup", c, RunOptions(workers=2, force=True)).status == "recomputed"
    finally:
        ray.shutdown()

    def outputs(x):
        d = x.stage_dir("04-dedup")
        return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*"))
                if p.is_file() and p.name != "_RUN.json"}

    assert outputs(c) == outputs(cfg)


def test_lines_and_spans_together_are_a_config_error(planted):
    root, ledger, _, _ = planted
    c = config_for(root, "both", ledger)
    c.path.write_text(c.path.read_text() + "\n[dedup.spans]\nenabled = true\n")
    shutil.copytree(root / "base", root / "both")
    with pytest.raises(CorpusError, match=r"both\.toml: dedup\.lines and dedup\.spans are both enabled"):
        run_stage("dedup", load_config(c.path), RunOptions(workers=1))


def test_report_counts_the_removed_units_per_source(planted):
    root, ledger, cfg, _ = planted
    shutil.copytree(root / "base", root / "rep")
    c = config_for(root, "rep", ledger)
    run_all(c, workers=1, through="shard")
    u = json.loads((c.stage_dir("04-dedup") / "_STAGE.json").read_text())["counts"]["units_removed"]["planted"]
    assert json.loads((c.dataset_dir / "_MANIFEST.json").read_text())["dedup"]["units_removed"]["planted"] == u
    out = run_corpus("--config", c.path, "report", check=True).stdout
    assert f"dedup inside documents: planted: {u['units']} units ({u['chars']} characters) removed from {u['docs']}" in out
