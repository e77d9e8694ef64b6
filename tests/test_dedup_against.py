"""`[dedup] against`: a v2 deduplicated against a published v1 drops exactly the documents an
independent check (exact text match, or exact Jaccard of shingle strings >= the threshold with a
document v1 kept) finds, without reading v1's texts."""

from __future__ import annotations

import bisect
import hashlib
import json
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.dedup.minhash import shingles
from corpus.errors import CorpusError
from corpus.commands.pipeline import run_all
from corpus.stages import run_stage
from conftest import ledger_rows, mirror_file, run_corpus, write_config, write_ledger

pytestmark = pytest.mark.slow  # each test runs the pipeline through dedup on real data
THRESHOLD = 0.8


def edited_articles(seed: int = 7) -> list[str]:
    """Real news articles with seeded word edits: light ones (near duplicates), heavy ones (not),
    a few untouched (exact duplicates)."""
    rng = random.Random(seed)
    lines = mirror_file("minhash-articles-1000").read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines[:120]):
        words = line.split()
        rate = [0.0, 0.01, 0.02, 0.03, 0.05, 0.3][i % 6]
        out.append(" ".join(w if rng.random() >= rate else rng.choice(["alpha", "beta", "gamma", w[::-1]])
                            for w in words))
    return out


def config_for(tmp: Path, version: str, sources: list[str], ledger: Path, **dedup):
    cfg = write_config(tmp / f"{version}.toml", ledger=ledger, sources=sources, artifacts=tmp / "art",
                       decontam={"evals": []}, dedup=dedup or {"exact": True})
    cfg.write_text(cfg.read_text().replace('version = "v1"', f'version = "{version}"'))
    return load_config(cfg)


def kept_texts(config) -> dict[str, str]:
    d = config.stage_dir("04-dedup")
    return {r["id"]: r["text"] for p in sorted(d.glob("part-*.parquet"))
            for r in pq.read_table(p, columns=["id", "text"]).to_pylist()}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def test_v2_against_published_v1_drops_what_an_independent_check_finds(tmp_path, mirror):
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps({"text": t}) + "\n" for t in edited_articles()))
    rows = ledger_rows()
    data = edited.read_bytes()
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [
        rows["minhash-articles-1000"], rows["tinystories-train-head"],
        {"source_id": "edited-articles", "role": "corpus", "url": str(edited), "sha256": hashlib.sha256(data).hexdigest(),
         "bytes": len(data), "license_spdx": "MIT", "format": "jsonl"}])
    v1 = config_for(tmp_path, "v1", ["minhash-articles-1000"], ledger)
    run_all(v1, workers=2, through="dedup")
    v2 = config_for(tmp_path, "v2", ["edited-articles", "tinystories-train-head"], ledger, against=["t/v1"])
    run_all(v2, workers=2, through="dedup")

    published = kept_texts(v1)
    old_sets = {i: set(shingles(t)) for i, t in published.items()}
    sizes = sorted((len(s), i) for i, s in old_sets.items())
    by_text = {t: i for i, t in sorted(published.items(), key=lambda kv: kv[0].encode(), reverse=True)}
    seen = v2.stage_dir("03-filter")
    expected = {}
    for p in sorted(seen.glob("part-*.parquet")):
        for r in pq.read_table(p, columns=["id", "text"]).to_pylist():
            if r["text"] in by_text:
                expected[r["id"]] = ("exact", by_text[r["text"]])
                continue
            mine = set(shingles(r["text"]))
            # every pair: a Jaccard of THRESHOLD or more needs the smaller set to hold THRESHOLD of the larger's
            # shingles, so only sets of a size in [n * THRESHOLD, n / THRESHOLD] can be one (exact, not a sample)
            lo = bisect.bisect_left(sizes, (len(mine) * THRESHOLD, ""))
            hi = bisect.bisect_right(sizes, (len(mine) / THRESHOLD, "\uffff"))
            hits = sorted(i.encode() for _, i in sizes[lo:hi] if jaccard(mine, old_sets[i]) >= THRESHOLD)
            if hits:
                expected[r["id"]] = ("near", hits[0].decode())
    dropped = {r["id"]: (r["reason"], r["duplicate_of"].split(":", 1)[1])
               for p in sorted((v2.stage_dir("04-dedup") / "dropped").glob("*.parquet"))
               for r in pq.read_table(p).to_pylist() if r["duplicate_of"] and r["duplicate_of"].startswith("t/v1:")}
    kinds = {k for k, _ in expected.values()}
    assert kinds == {"exact", "near"} and len(expected) >= 40  # the set exercises both paths
    assert dropped == expected
    manifest = json.loads((v2.stage_dir("04-dedup") / "_STAGE.json").read_text())
    assert manifest["counts"]["published_duplicates"] == len(expected)
    near = sorted(i for i, (kind, _) in expected.items() if kind == "near")[0]
    proc = run_corpus("--config", v2.path, "why", near, "--json", check=True)
    step = {s["stage"]: s for s in json.loads(proc.stdout)}["dedup"]
    assert step["reason"] == "near" and step["duplicate_of"] == f"t/v1:{expected[near][1]}"
    assert step["jaccard"] >= THRESHOLD and step["shared_shingles"] > 0
    v1_dedup = "corpus/t/v1/stages/04-dedup/_STAGE.json"
    assert v1_dedup in [i["path"] for i in manifest["inputs"]]  # a changed v1 makes v2 stale
    from corpus.commands.gc import collect  # and v1 cannot be dropped while v2 reads it
    with pytest.raises(CorpusError, match=r"dataset version t/v2 reads it"):
        collect(v1, delete=True, version="t/v1")
    assert (v1.dataset_dir / "stages" / "04-dedup" / "_STAGE.json").is_file()


def test_against_needs_the_same_banding(tmp_path, mirror):
    rows = ledger_rows()
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [rows["wikitext2-test"]])
    v1 = config_for(tmp_path, "v1", ["wikitext2-test"], ledger)
    run_all(v1, workers=1, through="dedup")
    v2 = config_for(tmp_path, "v2", ["wikitext2-test"], ledger, against=["t/v1"], bands=25)
    run_all(v2, workers=1, through="filter")
    with pytest.raises(CorpusError, match="another bands"):
        run_stage("dedup", v2, workers=1)
    v3 = config_for(tmp_path, "v3", ["wikitext2-test"], ledger, against=["t/v9"])
    run_all(v3, workers=1, through="filter")
    with pytest.raises(CorpusError, match="no published dedup output"):
        run_stage("dedup", v3, workers=1)
