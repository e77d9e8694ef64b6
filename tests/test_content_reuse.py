"""Downstream reuse by content (issue 48 item 2): a new version whose filter output is byte-identical to a
published one's takes dedup, pii and the shards whole; one whose filter output lost a few documents
signs, scrubs and encodes only what the cache does not know. Either way every published byte is what a
from-scratch run of that config, without the cache, gives."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from corpus.commands.pipeline import run_all
from corpus.config import load_config
from conftest import LEDGER, write_config

SOURCES = ["minhash-articles-100", "presidio-pii-sentences"]  # news articles, PII sentences: small
TABLES = {"shard": {"shard_rows": 20}, "decontam": {"evals": ["gsm8k-test"]},
          "tokenize": {"vocab_size": 1024}}


def config(root: Path, name: str, version: str, artifacts: Path, **tables):
    path = write_config(root / f"{name}.toml", ledger=LEDGER, sources=SOURCES, artifacts=artifacts,
                        **{**TABLES, **tables})
    text = path.read_text().replace('version = "v1"', f'version = "{version}"')
    path.write_text(text)
    return load_config(path)


def published(artifacts: Path, version: str) -> dict[str, bytes]:
    """Every published file of a version (its stages, shards, tokens), _RUN.json aside; a _STAGE.json
    without its inputs (they quote raw manifests, which carry each root's fetch date)."""
    out = {}
    for top in (artifacts / "corpus" / "t" / version, artifacts / "tokens" / "t" / version):
        for p in sorted(top.rglob("*")):
            if p.is_file() and p.name != "_RUN.json":
                data = p.read_bytes()
                if p.name == "_STAGE.json":
                    data = json.dumps({k: v for k, v in json.loads(data).items() if k != "inputs"}).encode()
                out[str(p.relative_to(top))] = data
    return out


def run_info(artifacts: Path, version: str, stage_dir: str) -> dict:
    return json.loads((artifacts / "corpus" / "t" / version / stage_dir / "_RUN.json").read_text())


@pytest.mark.slow  # four pipeline builds
def test_unchanged_filter_output_reuses_later_stages_and_a_small_change_recomputes_only_its_documents(tmp_path, mirror):
    art = tmp_path / "shared"
    statuses = lambda rows: {stage: status for stage, status, _, _ in rows}  # noqa: E731
    run_all(config(tmp_path, "v1", "v1", art), workers=2)

    # an edit that keeps every document: dedup, pii, the shards and the token files are taken whole from v1
    same = {"filters.gopher": {"max_words": 99_999}}
    rows = statuses(run_all(config(tmp_path, "v2", "v2", art, **same), workers=2))
    assert rows["filter"] != "current" and rows["dedup"] == rows["pii"] == rows["shard"] == rows["tokenize"] == "reused", rows
    assert run_info(art, "v2", "stages/04-dedup")["reused_whole"] == "corpus/t/v1/stages/04-dedup"
    (tokens,) = (art / "tokens" / "t" / "v2").iterdir()
    tokenize = json.loads((tokens / "_RUN.json").read_text())
    assert "tokenizer_training" not in tokenize, tokenize  # the tokenizer v1 trained on the same shards, cached
    assert tokenize["reused_whole"] == f"tokens/t/v1/{tokens.name}", tokenize
    fresh = tmp_path / "fresh-v2"
    run_all(config(tmp_path, "f2", "v2", fresh, run={"cache": False}, **same), workers=1)
    assert published(art, "v2") == published(fresh, "v2")

    # an edit that drops a few documents: only theirs is new work; the rest comes from the caches (with
    # v1's tokenizer pinned: a tokenizer trained on other shards gives other ids to every document)
    pinned = tmp_path / "tokenizer.json"
    pinned.write_bytes((tokens / "tokenizer.json").read_bytes())
    fewer = {"filters.gopher": {"min_words": 230},  # about one article in ten
             "tokenize": {"tokenizer": str(pinned), "tokenizer_sha256": hashlib.sha256(pinned.read_bytes()).hexdigest()}}
    rows = statuses(run_all(config(tmp_path, "v3", "v3", art, **fewer), workers=1))  # one worker: the counts below are exact (two encode units racing for a neighbour's doc-memo entry may miss it: same bytes, fewer hits)
    assert rows["dedup"] == rows["shard"] == "computed", rows
    minhash = run_info(art, "v3", "stages/04-dedup")["minhash_cache"]
    assert minhash["hits"] > 0 and minhash["computed"] == 0, minhash  # every kept document was signed in v1
    (tokens,) = (art / "tokens" / "t" / "v3").iterdir()
    docs = json.loads((tokens / "_RUN.json").read_text())["token_docs_cache"]
    assert docs["hits"] > 10 * docs["computed"], docs
    fresh = tmp_path / "fresh-v3"
    run_all(config(tmp_path, "f3", "v3", fresh, run={"cache": False}, **fewer), workers=1)
    assert published(art, "v3") == published(fresh, "v3")
    assert published(art, "v3")["_MANIFEST.json"] != published(art, "v1")["_MANIFEST.json"]

    # the threshold back down: documents v3 dropped are still in the parts' memos (v1 kept them there, and
    # v3's run kept them beside its own), so signing and scrubbing compute nothing
    looser = {**fewer, "filters.gopher": {"min_words": 220}}  # keeps some articles v3 dropped
    rows = statuses(run_all(config(tmp_path, "v4", "v4", art, **looser), workers=1))
    assert rows["dedup"] == "computed" and rows["pii"] != "reused", rows  # neither v1's documents nor v3's
    for stage, record in (("stages/04-dedup", "minhash_cache"), ("stages/05-pii", "pii_cache")):
        found = run_info(art, "v4", stage)[record]
        assert found["hits"] > 0 and found["computed"] == 0, (record, found)
