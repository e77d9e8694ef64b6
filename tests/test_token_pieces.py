"""A long document is encoded in pieces with exactly the ids of encoding it whole (hostile inputs, case 6),
for the tokenizers tokens/pieces.py accepts; the others are encoded whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from corpus.tokens.encode import _cuttable, _tasks, encode_docs
from corpus.tokens.pieces import cuttable, pieces

WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"


@pytest.fixture(scope="module")
def wiki(mirror: Path) -> str:
    return (mirror / WIKITEXT_TEST).read_text(encoding="utf-8")


def trained(texts: list[str], *, prefix_space: bool = False, normalizer=None, pre=None) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre or pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    tok.decoder = decoders.ByteLevel()
    if normalizer is not None:
        tok.normalizer = normalizer
    trainer = trainers.BpeTrainer(vocab_size=2000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


MIXED = " Ο δρόμος ΟΔΟΣ σοφός ΣΟΦΟΣ 東京は晴れ 12,345.67 don't it's  two  spaces\n\n\nnew ½ Ⅻ x² end "


@pytest.mark.parametrize("variant", [pytest.param("plain", marks=pytest.mark.slow),  # 2-5 s each:
                                     pytest.param("prefix-space", marks=pytest.mark.slow),
                                     pytest.param("nfkc-lowercase", marks=pytest.mark.slow)])   # the full tier
def test_pieces_give_the_ids_of_the_whole_text(wiki, variant):
    kwargs = {"plain": {}, "prefix-space": {"prefix_space": True},
              "nfkc-lowercase": {"normalizer": normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])}}
    tok = trained(wiki.splitlines()[:3000], **kwargs[variant])
    assert cuttable(tok.to_str())
    text = (wiki[:400_000] + MIXED) * 3
    whole = np.array(tok.encode(text, add_special_tokens=False).ids, dtype=np.int64)
    cut = list(pieces(text, 5000))
    assert len(cut) > 100 and "".join(cut) == text
    alone, _ = encode_docs(tok, [text], 0, np.dtype("uint16"), max_chars=20_000)  # tasks of pieces
    np.testing.assert_array_equal(alone[:-1], whole)
    # and through encode_docs, where a long text goes alone between short ones
    tokens, lengths = encode_docs(tok, ["short one", text, "another"], 0, np.dtype("uint16"), max_chars=20_000)
    assert lengths.tolist() == [len(tok.encode("short one").ids) + 1, len(whole) + 1, len(tok.encode("another").ids) + 1]
    np.testing.assert_array_equal(tokens[lengths[0]:lengths[0] + len(whole)], whole)


def test_other_tokenizers_are_encoded_whole(wiki):
    lines = wiki.splitlines()[:500]
    metaspace = trained(lines, pre=pre_tokenizers.Metaspace())
    assert not cuttable(metaspace.to_str()) and not _cuttable(metaspace)
    stripping = trained(lines, normalizer=normalizers.Strip())
    assert not cuttable(stripping.to_str())
    spaced = trained(lines)
    spaced.add_tokens(["New York"])
    assert not cuttable(spaced.to_str())
    text = wiki[:100_000]
    tokens, lengths = encode_docs(metaspace, [text], 0, np.dtype("uint16"), max_chars=10_000)
    np.testing.assert_array_equal(tokens[:-1], metaspace.encode(text, add_special_tokens=False).ids)


def test_a_text_without_a_cut_is_one_piece():
    assert list(pieces("x" * 50 + " 1 2 3", 10)) == ["x" * 50 + " 1 2 3"]
    assert list(pieces("ab cd ef gh", 2)) == ["ab", " cd", " ef", " gh"]
    docs = [(t, "train") for t in ["a", "b" * 30, "c", "d"]]
    assert list(_tasks(docs, 10, False)) == [("train", ["a"], "docs"), ("train", ["b" * 30], "docs"),
                                             ("train", ["c", "d"], "docs")]
    kinds = [kind for _, _, kind in _tasks([("ab cd ef gh ij kl", "val")], 8, True)]
    assert kinds == ["piece", "last"]


def test_the_trainer_fed_a_long_text_in_pieces_learns_the_same_tokenizer(wiki):
    from corpus.tokens.train import TRAIN_PIECE_CHARS, trainer_texts

    text = (wiki[:300_000] + MIXED) * 2
    assert len(text) > 2 * TRAIN_PIECE_CHARS

    def train(feed) -> str:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=3000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        tok.train_from_iterator(feed, trainer=trainer)
        return tok.to_str()

    fed = list(trainer_texts([text, "a short one"], pre_tokenizers.ByteLevel(add_prefix_space=False)))
    assert len(fed) > 3 and "".join(fed) == text + "a short one"
    assert train(fed) == train([text, "a short one"])


def test_the_re2_long_run_check_is_the_python_one():
    """The trainer's feed finds long runs with Arrow's RE2 (tokens.train._trainer_feed): its whitespace class is
    code point for code point the one of the Python pattern, and the feed is trainer_texts exactly."""
    import sys

    import pyarrow as pa
    import pyarrow.compute as pc

    from corpus.tokens.train import WHITE_SPACE_RE2, _trainer_feed, trainer_texts

    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    white = pc.match_substring_regex(pa.array(chars), f"^[{WHITE_SPACE_RE2}]$").to_pylist()
    assert white == [c.isspace() and not "\x1c" <= c <= "\x1f" for c in chars]  # Python's \s, less \x1c-\x1f

    pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    texts = ["plain words", "x" * 40 + " y", " " * 30 + "z", "\u3000" * 25, "\x1c" * 30, "é" * 19 + " " + "é" * 21,
             "ab cd " * 30, "short"]
    arrays = [pa.array(texts[:3]), pa.array([], pa.string()), pa.array(texts[3:])]
    for cap, size in ((20, 1000), (20, 50), (1000, 1000)):  # size: which texts take trainer_texts' path
        assert list(_trainer_feed(arrays, pre, cap, size)) == list(trainer_texts(texts, pre, cap))
    assert list(_trainer_feed(arrays, pre, 20)) != texts  # the long runs were cut
