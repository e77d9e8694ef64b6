"""A pinned tokenizer with fewer than 65,536 entries but an id above 65,535 gets uint32 token files (the
dtype holds the largest id, not the entry count) and its ids reach the files unwrapped."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from corpus.config import load_config
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage
from conftest import LEDGER, write_config
from faults.conftest import SOURCES, TABLES, clone


def sparse_tokenizer(path) -> str:
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["the", "a", "and", "was", "to", "she", "he", "Once", "upon", "time"]
    vocab = {"<|endoftext|>": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    vocab["the"] = 70_000                      # 12 entries, largest id 70,000
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sparse_ids_choose_uint32(reference, tmp_path):  # noqa: F811
    clone(reference, tmp_path)
    tok = tmp_path / "sparse.json"
    sha = sparse_tokenizer(tok)
    tables = {**TABLES, "tokenize": {**TABLES["tokenize"], "tokenizer": str(tok), "tokenizer_sha256": sha}}
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "a", **tables)
    run_stage("tokenize", load_config(cfg), RunOptions(workers=1))  # reads the clone's shards
    (d,) = [p for p in (tmp_path / "a/tokens/t/v1").iterdir() if p.name.startswith("sparse")]
    m = json.loads((d / "_MANIFEST.json").read_text())
    assert m["tokenizer"]["vocab_size"] < 65_536 and m["tokenizer"]["dtype"] == "uint32"
    ids = np.fromfile(d / m["splits"]["train"]["files"][0]["bin"], dtype="<u4")
    assert ids.max() == 70_000 and (ids == 70_000).sum() > 100
