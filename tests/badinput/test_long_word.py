"""Hostile inputs, case 5: one 200,000-character word inside 60k words of real news. It passes the default
filters, and BpeTrainer's cost grows with the length of its longest word (it rescans a word for every
merge that touches it): today's trainer spent 20 s on that one word. The trainer must see no word longer
than TRAIN_MAX_WORD characters, while the document is still encoded whole. What is asserted is what the
trainer is fed, not a time (bench/tokenize_long_word.py measures the time against the same text without
the word)."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pyarrow.parquet as pq
import pytest
from tokenizers import Tokenizer as _Tokenizer

from conftest import mirror_file, write_config, write_ledger
from corpus.config import load_config
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage
from corpus.tokens import train as token_training

WORD_CHARS = 200_000


def long_word(n: int = WORD_CHARS) -> str:
    """n seeded random lowercase letters: one word (pre-token) for the byte-level pre-tokenizer, and no two
    cut pieces alike (a run of one letter would be one distinct word, cheap to train on)."""
    rng = random.Random(5)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def news_with_word() -> tuple[str, str]:
    """(the 300 Lee background news articles, 59,890 words; the same with the long word in the middle of
    the first article)."""
    news = mirror_file("lee-background").read_text(encoding="utf-8")
    first, rest = news.split("\n", 1)
    words = first.split(" ")
    half = len(words) // 2
    return news, " ".join([*words[:half], long_word(), *words[half:]]) + "\n" + rest


def pretokenizer():
    from tokenizers import pre_tokenizers

    return pre_tokenizers.ByteLevel(add_prefix_space=False)


def longest_word(texts, pt) -> int:
    return max((b - a for t in texts for _, (a, b) in pt.pre_tokenize_str(t)), default=0)


class RecordingTokenizer:
    """tokenizers.Tokenizer (not subclassable), but train_from_iterator keeps what the trainer is fed."""
    fed: list[str] = []
    from_str = staticmethod(_Tokenizer.from_str)
    from_file = staticmethod(_Tokenizer.from_file)

    def __init__(self, *args):
        object.__setattr__(self, "_tok", _Tokenizer(*args))

    def __getattr__(self, name):
        return getattr(self._tok, name)

    def __setattr__(self, name, value):
        setattr(self._tok, name, value)

    def train_from_iterator(self, iterator, trainer=None, length=None):
        texts = list(iterator)
        type(self).fed.extend(texts)
        self._tok.train_from_iterator(texts, trainer=trainer, length=length)


@pytest.mark.slow  # fetch through tokenize on 560 KB of text (~3 s)
def test_the_trainer_sees_no_word_longer_than_the_cap(tmp_path, monkeypatch):
    import tokenizers

    _, hostile = news_with_word()
    src = tmp_path / "news.txt"
    src.write_text(hostile, encoding="utf-8")
    row = {"source_id": "news", "role": "corpus", "url": str(src), "sha256": hashlib.sha256(src.read_bytes()).hexdigest(),
           "bytes": src.stat().st_size, "license_spdx": "LicenseRef-research-only", "format": "text", "split": "file"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    cfg = load_config(write_config(tmp_path / "c.toml", ledger=ledger, sources=["news"], artifacts=tmp_path / "a",
                                   decontam={"evals": []}, shard={"val_permille": 0}))
    for stage in ("fetch", "normalize", "filter", "dedup", "pii", "shard"):
        run_stage(stage, cfg, RunOptions(workers=1))

    # the word passed the default filters: the one document is in the shard, word and all
    (shard,) = (tmp_path / "a").rglob("shard-*.parquet")
    docs = pq.read_table(shard, columns=["text", "split"]).to_pylist()
    assert [d["split"] for d in docs] == ["train"] and long_word() in docs[0]["text"]

    RecordingTokenizer.fed = []
    monkeypatch.setattr(tokenizers, "Tokenizer", RecordingTokenizer)
    run_stage("tokenize", cfg, RunOptions(workers=1))
    monkeypatch.undo()

    pt = pretokenizer()
    fed = RecordingTokenizer.fed
    # the trainer was fed the whole train split, every character once, in order ...
    assert "".join(fed) == docs[0]["text"]
    # ... and no word of it anywhere near the word's length (the longest word of any mirror source is 93
    # characters): the word is cut at the cap, the pieces the cap's length
    longest = longest_word(fed, pt)
    assert longest <= 1000, f"the trainer was fed a word of {longest:,} characters"
    assert longest == token_training.TRAIN_MAX_WORD

    # the document is encoded whole, exactly as the tokenizer encodes the text: no cut reaches the tokens
    (out,) = (tmp_path / "a" / "tokens").glob("*/*/bpe*")
    manifest = json.loads((out / "_MANIFEST.json").read_text())
    tok = _Tokenizer.from_file(str(out / "tokenizer.json"))
    want = tok.encode(docs[0]["text"], add_special_tokens=False).ids + [manifest["tokenizer"]["eos_id"]]
    (part,) = manifest["splits"]["train"]["files"]
    got = np.fromfile(out / part["bin"], dtype=manifest["tokenizer"]["dtype"])
    assert got.tolist() == want
    assert tok.decode(want[:-1]) == docs[0]["text"]


def test_text_without_long_words_reaches_the_trainer_as_is(mirror):
    """Real text (every word under the cap) is passed through: the same string objects, so the trained
    tokenizer is byte-identical to one trained on the documents themselves (the golden run checks it too)."""
    news, hostile = news_with_word()
    articles = news.splitlines()
    pt = pretokenizer()
    out = list(token_training.trainer_texts(iter(articles), pt))
    assert len(out) == len(articles) and all(a is b for a, b in zip(out, articles))
    # the hostile article: cut inside the word only, nothing lost, no word above the cap
    first = hostile.split("\n", 1)[0]
    pieces = list(token_training.trainer_texts([first], pt))
    assert "".join(pieces) == first
    assert len(pieces) == -(-(WORD_CHARS + 1) // token_training.TRAIN_MAX_WORD)  # the word and its space
    assert longest_word(pieces, pt) == token_training.TRAIN_MAX_WORD


@pytest.mark.parametrize("run", ["9" * 3001, "-" * 1000, " " * 2000, "\n" * 999, "漢" * 700, "!\x1c" * 600,
                                 "a" * 256])
def test_every_kind_of_long_word_is_cut(run):
    """Digits, punctuation, spaces, newlines, CJK, punctuation around \\x1c (whitespace to Python's re, not to
    the pre-tokenizer), and a word exactly at the cap with the space before it."""
    text = "The news, in brief: " + run + " and then more news."
    pt = pretokenizer()
    pieces = list(token_training.trainer_texts([text], pt))
    assert "".join(pieces) == text
    assert longest_word(pieces, pt) <= token_training.TRAIN_MAX_WORD
