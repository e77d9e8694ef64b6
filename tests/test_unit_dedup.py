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
from corpus.stages import run_stage
from conftest import ledger_rows, mirror_file, write_config, write_ledger

pytestmark = pytest.mark.slow  # the pipeline through dedup on real data, then dedup three more times


def planted_corpus(seed: int = 5) -> tuple[list[str], list[str]]:
    """Documents of 6 distinct real WikiText paragraphs each, and 6 boilerplate lines (real GSM8K
    questions) planted at seeded places, each in ~8% of the documents."""
    rng = random.Random(seed)
    seen, paragraphs = set(), []
    for line in mirror_file("wikitext2-test").read_text(encoding="utf-8").splitlines():
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


def config_for(root: Path, name: str, ledger: Path, **run):
    tables = {"decontam": {"evals": []}, "filters.lang": {"enabled": False}, "filters.gopher": {"enabled": False},
              "filters.repetition": {"enabled": False},
              "dedup.lines": {"enabled": True, "unit": "line", "min_chars": 20}}
    if run:
        tables["run"] = run
    return load_config(write_config(root / f"{name}.toml", ledger=ledger, sources=["planted"],
                                    artifacts=root / name, **tables))


@pytest.fixture(scope="module")
def planted(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("units")
    docs, boiler = planted_corpus()
    src = root / "planted.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in docs))
    data = src.read_bytes()
    ledger = write_ledger(root / "LEDGER.jsonl", [
        {"source_id": "planted", "role": "corpus", "url": str(src), "sha256": hashlib.sha256(data).hexdigest(),
         "bytes": len(data), "license_spdx": "CC-BY-SA-3.0", "format": "jsonl"}, ledger_rows()["wikitext2-test"]])
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
