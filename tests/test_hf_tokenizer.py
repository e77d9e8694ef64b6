"""The tokenizer as trained by stage 07: placeholders one id each but not special; the transformers files;
nanoGPT's meta.pkl; the MDS writer on its own. Trained on real TinyStories text with PII placeholders in it."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from conftest import tinystories
from corpus.tokens.tokenizer import tokenizer_facts
from corpus.tokens.train import PLACEHOLDERS, train_tokenizer
from corpus.tokens import hf

EOS = "<|endoftext|>"


@pytest.fixture(scope="module")
def trained(mirror) -> bytes:
    stories = list(tinystories()[:400])
    stories[::7] = [s.replace(" her ", " <EMAIL> ", 1).replace(" the ", " <PHONE> ", 1) for s in stories[::7]]
    return train_tokenizer(iter(stories), 600, EOS)


def test_placeholders_keep_their_ids_and_are_not_special(trained):
    from tokenizers import Tokenizer

    added = {t["content"]: t for t in json.loads(trained)["added_tokens"]}
    assert [added[t]["id"] for t in [EOS, *PLACEHOLDERS]] == [0, 1, 2, 3, 4, 5]
    assert added[EOS]["special"] and not any(added[p]["special"] for p in PLACEHOLDERS)
    tok = Tokenizer.from_str(trained.decode())
    assert tok.get_vocab_size(with_added_tokens=True) == 600
    text = "Reach me at <EMAIL> or <PHONE>. Card <CARD>, host <IP>, token <KEY>."
    ids = tok.encode(text, add_special_tokens=False).ids
    for i, p in enumerate(PLACEHOLDERS, start=1):
        assert tok.encode(p, add_special_tokens=False).ids == [i] and ids.count(i) == 1
    assert tok.decode(ids + [0], skip_special_tokens=True) == text  # before: "Reach me at  or . Card , ..."
    assert tok.decode(ids + [0], skip_special_tokens=False) == text + EOS


def test_unmarking_changes_no_id(trained, mirror):
    from tokenizers import Tokenizer

    doc = json.loads(trained)
    for t in doc["added_tokens"]:
        t["special"] = True  # what the trainer alone produces
    special = Tokenizer.from_str(json.dumps(doc))
    ours = Tokenizer.from_str(trained.decode())
    texts = [s.replace(" a ", " <CARD> ", 1) for s in tinystories()[400:600]]
    assert [e.ids for e in special.encode_batch(texts, add_special_tokens=False)] == \
           [e.ids for e in ours.encode_batch(texts, add_special_tokens=False)]
    with pytest.raises(ValueError, match="<NOPE>"):
        hf.unmark_special(trained, ["<NOPE>"])


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_facts_and_transformers_files(trained, tmp_path):
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    facts = tokenizer_facts(trained, EOS)
    assert facts["special_tokens"] == {EOS: 0}
    assert facts["placeholder_tokens"] == {p: i for i, p in enumerate(PLACEHOLDERS, start=1)}
    (tmp_path / "tokenizer.json").write_bytes(trained)
    bare = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    assert bare.eos_token is None  # the bug: no config files, no EOS
    sums = hf.write_hf_files(tmp_path, trained, EOS)
    assert set(sums) == {"tokenizer_config.json", "special_tokens_map.json"}
    assert json.loads((tmp_path / "special_tokens_map.json").read_text()) == {"eos_token": EOS}
    tok = AutoTokenizer.from_pretrained(str(tmp_path))
    assert (tok.eos_token, tok.eos_token_id, tok.bos_token, tok.pad_token, tok.unk_token) == (EOS, 0, None, None, None)
    assert tok.all_special_tokens == [EOS]
    assert tok.decode(tok.encode("Write to <EMAIL>.", add_special_tokens=False) + [0], skip_special_tokens=True) \
        == "Write to <EMAIL>."
    assert hf.hf_files(trained, EOS) == hf.hf_files(trained, EOS)  # deterministic bytes


def test_nanogpt_meta_pkl(tmp_path, trained):
    from corpus.tokens.exports import write_nanogpt_meta

    facts = {**tokenizer_facts(trained, EOS), "sha256": "ab" * 32}
    write_nanogpt_meta(tmp_path / "meta.pkl", facts, "bpe600-abababababab")
    first = (tmp_path / "meta.pkl").read_bytes()
    with open(tmp_path / "meta.pkl", "rb") as f:
        meta = pickle.load(f)
    assert meta["vocab_size"] == 600 and meta["dtype"] == "uint16" and meta["eos_id"] == 0
    write_nanogpt_meta(tmp_path / "meta.pkl", facts, "bpe600-abababababab")
    assert (tmp_path / "meta.pkl").read_bytes() == first


@pytest.mark.parametrize("dtype,high", [(np.uint16, 65_536), (np.uint32, 200_000)])
def test_mds_writer_round_trip(tmp_path, dtype, high):
    from corpus.tokens.mds import streaming_base, write_mds

    rng = np.random.default_rng(0)
    docs = [rng.integers(0, high, size=int(rng.integers(1, 300))) for _ in range(500)]
    assert write_mds(docs, tmp_path / "out", dtype, size_limit=1 << 16) == (500, sum(map(len, docs)))
    shards = sorted((tmp_path / "out").glob("shard.*.mds"))
    assert len(shards) > 1 and not (tmp_path / "out.incomplete").exists()  # cut at size_limit, published
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert sum(s["samples"] for s in index["shards"]) == 500
    base = streaming_base()
    base.util.clean_stale_shared_memory()
    ds = base.StreamingDataset(local=str(tmp_path / "out"), shuffle=False, batch_size=1)
    assert len(ds) == 500
    for i in (0, 1, 250, 499):
        assert ds[i]["tokens"].dtype == dtype and np.array_equal(ds[i]["tokens"], docs[i])
    del ds
    with pytest.raises(ValueError):
        write_mds([np.array([1]), np.array([70_000])], tmp_path / "out", np.uint16)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"] and len(base.StreamingDataset(
        local=str(tmp_path / "out"), shuffle=False, batch_size=1)) == 500  # the failed export changed nothing
