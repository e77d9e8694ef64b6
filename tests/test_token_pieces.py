"""A long document is encoded in pieces with exactly the ids of encoding it whole (hostile inputs, case 6),
for the tokenizers tokens/pieces.py accepts; the others are encoded whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from corpus.stages.tokenize import _batches, _cuttable, _encode_in_pieces, encode_docs
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


@pytest.mark.parametrize("variant", ["plain", "prefix-space", "nfkc-lowercase"])
def test_pieces_give_the_ids_of_the_whole_text(wiki, variant):
    kwargs = {"plain": {}, "prefix-space": {"prefix_space": True},
              "nfkc-lowercase": {"normalizer": normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])}}
    tok = trained(wiki.splitlines()[:3000], **kwargs[variant])
    assert cuttable(tok.to_str())
    text = (wiki[:400_000] + MIXED) * 3
    whole = np.array(tok.encode(text, add_special_tokens=False).ids, dtype=np.int64)
    cut = list(pieces(text, 5000))
    assert len(cut) > 100 and "".join(cut) == text
    np.testing.assert_array_equal(_encode_in_pieces(tok, text, 20_000), whole)
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
    assert _batches(["a", "b" * 30, "c", "d"], 10) == [(0, 1), (1, 2), (2, 4)]


def test_the_trainer_fed_a_long_text_in_pieces_learns_the_same_tokenizer(wiki):
    from corpus.stages.tokenize import TRAIN_PIECE_CHARS, trainer_texts

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
