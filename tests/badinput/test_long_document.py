"""Hostile inputs: one long document (issue 47 item 13, issue 53's CJK text). Tokenize cuts a long document
into pieces with exactly the ids of encoding it whole, Chinese and Japanese text (no spaces) included;
dedup shingles a long document a piece at a time, with exactly the hashes, signature and shingle set of
doing it whole. The memory tests run each in a child and hold its peak growth to 10x the document."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from conftest import mirror_file
from corpus.dedup import minhash
from corpus.stages import dedup as dedup_stage
from corpus.dedup.minhash import MinHasher, WordBatch, long_text_shingle_hashes
from corpus.dedup.verify import shingle_sets, signatures_and_sets
from corpus.tokens.encode import encode_docs
from corpus.tokens.pieces import cuttable, pieces

# Edges at and beside a cut: full-width digits and letters, kana, Hangul, a combining mark before the
# punctuation (no cut there), half-width katakana (not in the cut set), brackets, NFKC-folded punctuation.
EDGES = "１２，ＡＢ。ゔ。한국어。ﾃｽﾄ。中\u0301。「東京」『京都』（大阪）！？；：x，1。"


def cjk_lines() -> list[str]:
    return [line for sid in ("lingua-zh", "lingua-ja")
            for line in mirror_file(sid).read_text(encoding="utf-8").splitlines() if line.strip()]


def cjk_text(lines: list[str], chars: int, seed: int = 3) -> str:
    """Real Chinese and Japanese sentences, shuffled, joined with nothing, a newline or the edge cases."""
    rng, out, n = random.Random(seed), [], 0
    while n < chars:
        part = rng.choice(lines) + rng.choice(["", "", "\n", EDGES])
        out.append(part)
        n += len(part)
    return "".join(out)


def trained(texts: list[str], *, prefix_space: bool = False, normalizer=None) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    tok.decoder = decoders.ByteLevel()
    if normalizer is not None:
        tok.normalizer = normalizer
    trainer = trainers.BpeTrainer(vocab_size=3000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


@pytest.mark.parametrize("variant", ["plain", pytest.param("nfkc-lowercase", marks=pytest.mark.slow)])
def test_cjk_text_is_cut_before_its_punctuation_with_the_ids_of_the_whole_text(variant):
    lines = cjk_lines()
    norm = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]) if variant != "plain" else None
    tok = trained(lines[:1500], normalizer=norm)
    assert cuttable(tok.to_str()) == "spaces and punctuation"
    text = cjk_text(lines, 100_000)
    cut = list(pieces(text, 1000, "spaces and punctuation"))
    assert len(cut) > 50 and "".join(cut) == text  # before: one piece, the whole document in one Encoding
    whole = np.array(tok.encode(text, add_special_tokens=False).ids, dtype=np.int64)
    alone, lengths = encode_docs(tok, ["短い", text, "end"], 0, np.dtype("uint16"), max_chars=4000)
    assert lengths[1] == len(whole) + 1
    np.testing.assert_array_equal(alone[lengths[0]:lengths[0] + len(whole)], whole)


def test_with_a_prefix_space_cjk_text_is_cut_only_at_spaces():
    """A prefix space would be added to a piece that starts with punctuation: such a tokenizer's CJK text
    stays whole (and its ids are those of the whole text)."""
    lines = cjk_lines()
    tok = trained(lines[:300], prefix_space=True)
    assert cuttable(tok.to_str()) == "spaces"
    text = cjk_text(lines, 30_000).replace(" ", "")
    assert list(pieces(text, 1000, "spaces")) == [text]
    tokens, _ = encode_docs(tok, [text], 0, np.dtype("uint16"), max_chars=4000)
    np.testing.assert_array_equal(tokens[:-1], tok.encode(text, add_special_tokens=False).ids)


@pytest.mark.parametrize("ngram", [1, 2, 5, 13])
def test_a_long_document_is_shingled_in_pieces_with_the_whole_texts_hashes(monkeypatch, ngram):
    """Real CJK text (long "words": no spaces), English, one long word, a text of fewer words than ngram:
    with the piece and window sizes set small, the piecewise hashes, signature and set are the whole
    text's. Before, a long document was one WordBatch: ~40 B of arrays per byte of text."""
    lines = cjk_lines()
    news = mirror_file("lee-background").read_text(encoding="utf-8")
    texts = [cjk_text(lines, 30_000), news[:30_000], "x" * 9000, "a b " + "c" * 9000, "só três palavras",
             news[:3000] + " " + "é" * 9000 + " " + news[3000:9000]]
    hasher = MinHasher(ngram=ngram)
    whole = [WordBatch.of([t]).shingle_hashes(ngram)[0] for t in texts]
    sigs_whole = np.stack([hasher.signatures_of_hashes(h, np.array([len(h)]))[0] for h in whole])
    monkeypatch.setattr(minhash, "_PIECE_CHARS", 1000)
    monkeypatch.setattr(minhash, "_SPAN_WINDOW", 2048)
    for text, expected in zip(texts, whole):
        np.testing.assert_array_equal(long_text_shingle_hashes(text, ngram), expected)
        # from its UTF-8 bytes (dedup's texts_of, a memoryview of Arrow's buffer): decoded a piece at a time
        np.testing.assert_array_equal(long_text_shingle_hashes(memoryview(text.encode()), ngram), expected)
    sigs, sets = signatures_and_sets(hasher, texts)
    np.testing.assert_array_equal(sigs, sigs_whole)
    column = pa.chunked_array([pa.array(["drop"] + texts[:2]).slice(1), pa.array(texts[2:])])  # an offset chunk
    monkeypatch.setattr(dedup_stage, "LONG_TEXT_BYTES", 1000)
    as_bytes = dedup_stage.texts_of(column, long_as_bytes=True)
    assert [type(t) for t in as_bytes] == [memoryview if len(t.encode()) > 1000 else str for t in texts]
    bytes_sigs, bytes_sets = signatures_and_sets(hasher, as_bytes)
    np.testing.assert_array_equal(bytes_sigs, sigs_whole)
    np.testing.assert_array_equal(bytes_sets.flat, sets.flat)
    assert [bytes(d) for d in dedup_stage.utf8_digests(column)] == [hashlib.sha256(t.encode()).digest() for t in texts]
    reference = shingle_sets(texts, ngram)  # shingle_hashes' whole-text path, batched
    np.testing.assert_array_equal(sets.flat, reference.flat)
    np.testing.assert_array_equal(sets.offsets, reference.offsets)


_PEAK_CHILD = r"""
import json, random, resource, sys
import numpy as np
what, path, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = [l for l in open(path, encoding="utf-8").read().splitlines() if l.strip()]
rng, parts, n = random.Random(7), [], 0
while n < mb * 1e6:
    parts.append(rng.choice(lines))
    n += len(parts[-1].encode())
text = (" " if what == "dedup-en" else "\n" if what == "tokenize-zh" else "").join(parts)
if what == "tokenize-zh":
    from tests_tok import tokenizer
    from corpus.tokens.encode import encode_docs
    tok = tokenizer(lines)
    encode_docs(tok, [text[:300_000]], 0, np.dtype("uint32"))
    run = lambda: encode_docs(tok, [text], 0, np.dtype("uint32"))
else:
    from corpus.dedup.minhash import MinHasher
    from corpus.dedup.verify import signatures_and_sets
    hasher = MinHasher()
    signatures_and_sets(hasher, [text[:3_000_000]])
    run = lambda: signatures_and_sets(hasher, [text])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
run()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_mb": (after - before) / 1024, "text_mb": len(text.encode()) / 2**20}))
"""

_TOKENIZER_HELPER = r"""
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
def tokenizer(lines):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(lines, trainer=trainers.BpeTrainer(
        vocab_size=3000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok
"""


@pytest.mark.slow  # a child per case, 16 MB documents: the full tier
@pytest.mark.parametrize("what,source", [("tokenize-zh", "lingua-zh"), ("dedup-en", "lee-background"),
                                         ("dedup-zh", "lingua-zh")])  # dedup-zh: 16 MB without a space
def test_one_long_document_grows_memory_by_at_most_ten_times_its_size(tmp_path, what, source):
    """Before: tokenize ~110 MB per MB of Chinese (one Encoding of the whole text), dedup ~55 MB per MB
    of English (the whole text's word and span arrays), ~30 per MB of Chinese without a space (one span
    hashed with prefix and power tables as long as the text)."""
    (tmp_path / "tests_tok.py").write_text(_TOKENIZER_HELPER)
    env_path = str(Path(__file__).resolve().parents[2] / "python")
    out = subprocess.run([sys.executable, "-c", _PEAK_CHILD, what, str(mirror_file(source)), "16"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={"PYTHONPATH": f"{tmp_path}:{env_path}", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    peak = json.loads(out.stdout)
    assert peak["text_mb"] > 15
    assert peak["grew_mb"] <= 10 * peak["text_mb"], peak


@pytest.mark.parametrize("train", [False, pytest.param(True, marks=pytest.mark.slow)])  # training twice: 3 s
def test_the_trainer_is_fed_long_cjk_text_in_pieces_and_learns_the_same_tokenizer(train):
    """Before: a Chinese document longer than TRAIN_PIECE_CHARS was fed (and pre-tokenized) whole."""
    from corpus.tokens.train import TRAIN_PIECE_CHARS, trainer_texts

    lines = cjk_lines()
    text = cjk_text(lines, 2 * TRAIN_PIECE_CHARS + 1000)
    fed = list(trainer_texts([text, "短い"], pre_tokenizers.ByteLevel(add_prefix_space=False)))
    assert max(map(len, fed)) < TRAIN_PIECE_CHARS + 1000 and "".join(fed) == text + "短い"
    if not train:
        return

    def trained_on(feed) -> str:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.train_from_iterator(feed, trainer=trainers.BpeTrainer(
            vocab_size=1500, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
        return tok.to_str()

    assert trained_on(fed) == trained_on([text, "短い"])
