"""`corpus why <id>`: a kept document down to its token offset, and one dropped by each filter, by exact
dedup, by near dedup and by decontamination — each with the value, threshold, duplicate or n-gram that
the stage's own parts recorded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.dedup.decontam import decontam_words
from corpus.commands.pipeline import run_all
from conftest import error_line, ledger_rows, run_corpus, tinystories, write_config, write_ledger


def _jsonl_row(path: Path, source_id: str, role: str, texts: list[str]) -> dict:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    data = path.read_bytes()
    return {"source_id": source_id, "role": role, "url": str(path), "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data), "license_spdx": "CDLA-Sharing-1.0", "format": "jsonl"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, mirror):
    """Real sources every filter drops something from, plus copies of real stories: an exact copy, a
    near copy (two words changed) and an eval set holding a passage of a third story."""
    tmp = tmp_path_factory.mktemp("why")
    stories = tinystories()
    near = stories[1].split()
    near[5], near[-3] = "suddenly", "happily"
    rows = ledger_rows()
    ledger = write_ledger(tmp / "LEDGER.jsonl", [
        rows[s] for s in ("tinystories-train-head", "tinystories-val-head", "udhr", "genesis", "genesis-utf8")] + [
        _jsonl_row(tmp / "copies.jsonl", "zz-copies", "corpus", [stories[0], " ".join(near)]),
        _jsonl_row(tmp / "eval.jsonl", "story-eval", "eval", [" ".join(stories[2].split()[10:40])])])
    cfg = write_config(tmp / "c.toml", ledger=ledger, artifacts=tmp / "art",
                       sources=["tinystories-train-head", "udhr", "genesis", "genesis-utf8", "zz-copies"],
                       decontam={"evals": ["story-eval"]}, tokenize={"vocab_size": 700},
                       **{"filters.ppl": {"enabled": True, "reference": "tinystories-val-head", "threshold": 5000}})
    config = load_config(cfg)
    run_all(config, workers=2)
    return config


def why(config, doc_id: str) -> dict[str, dict]:
    proc = run_corpus("--config", config.path, "why", doc_id, "--json", check=True)
    return {s["stage"]: s for s in json.loads(proc.stdout)}


def side_rows(config, stage_dir: str, side: str) -> list[dict]:
    d = config.stage_dir(stage_dir) / side
    return [r for p in sorted(d.glob("*.parquet")) for r in pq.read_table(p).to_pylist()]


def test_kept_document_down_to_its_tokens(workspace):
    steps = why(workspace, "tinystories-train-head:0")
    assert steps["fetch"]["raw_line"] == 1 and steps["fetch"]["locator"].endswith("tiny_stories.txt#1")
    assert steps["filter"]["status"] == "kept" and steps["filter"]["lang"] == "en"
    assert steps["shard"]["split"] in ("train", "val") and steps["shard"]["shard"].startswith("shard-")
    assert steps["tokenize"]["status"] == "kept" and steps["tokenize"]["verified"] is True
    assert steps["tokenize"]["tokens"] > 100  # the story's tokens + EOS, checked by re-encoding
    text = run_corpus("--config", workspace.path, "why", "tinystories-train-head:0", check=True).stdout
    assert "tokenize" in text and "token_offset" in text


def test_one_document_dropped_by_each_filter(workspace):
    rejects = side_rows(workspace, "03-filter", "rejects")
    seen = set()
    for r in rejects:
        if r["filter"] in seen:
            continue
        seen.add(r["filter"])
        step = why(workspace, r["id"])["filter"]
        assert step["status"] == "dropped" and (step["filter"], step["rule"]) == (r["filter"], r["rule"])
        assert step["value"] == pytest.approx(r["value"]) and step["threshold"] is not None
    assert seen == {"lang", "gopher", "repetition", "ppl"}


def test_exact_near_and_decontam_drops(workspace):
    stories = tinystories()
    drops = {r["id"]: r for r in side_rows(workspace, "04-dedup", "dropped")}
    assert drops["zz-copies:0"]["reason"] == "exact" and drops["zz-copies:1"]["reason"] == "near"
    exact, near = why(workspace, "zz-copies:0")["dedup"], why(workspace, "zz-copies:1")["dedup"]
    assert exact["duplicate_of"] == "tinystories-train-head:0" and exact["jaccard"] == 1.0
    assert near["duplicate_of"] == "tinystories-train-head:1" and 0.8 <= near["jaccard"] < 1.0
    assert near["shared_shingles"] > 50
    decontam = why(workspace, "tinystories-train-head:2")["dedup"]
    assert decontam["reason"] == "decontam" and decontam["eval_source"] == "story-eval"
    assert decontam["matched_ngram"] in " ".join(decontam_words(stories[2]))  # lowercased, punctuation gone


def test_unknown_ids_are_one_line_errors(workspace):
    assert "unknown document id 'nope:3'" in error_line(run_corpus("--config", workspace.path, "why", "nope:3"))
    assert "the source has 1097 documents" in error_line(
        run_corpus("--config", workspace.path, "why", "tinystories-train-head:5000"))


def test_why_shows_max_lines_removed_lines_then_how_many_more():
    """Issue 47, item 8: one cleaned page printed all of its 169 removed lines."""
    from corpus.commands.why import describe

    removed = [f"c4.javascript line {n}: Please enable JavaScript to view this page." for n in range(169)]
    step = {"stage": "filter", "status": "kept", "part": "part-00000.parquet", "row": 3, "removed_lines": removed}
    indent = " " * 21
    assert describe([step])[1:] == [f"{indent}removed {x}" for x in removed[:20]] + [f"{indent}removed … 149 more"]
    assert describe([step], max_lines=5)[-1] == f"{indent}removed … 164 more"
    assert describe([step], max_lines=None)[1:] == [f"{indent}removed {x}" for x in removed]
    assert describe([{**step, "removed_lines": removed[:20]}])[-1] == f"{indent}removed {removed[19]}"
    pii = {"stage": "pii", "status": "kept", "pii_redactions": 30, "redactions": [f"<EMAIL> {n}" for n in range(30)]}
    assert describe([pii], max_lines=2)[1:] == [f"{indent}redacted <EMAIL> 0", f"{indent}redacted <EMAIL> 1",
                                                f"{indent}redacted … 28 more"]
