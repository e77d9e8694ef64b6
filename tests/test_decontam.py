"""13-gram decontamination: GSM8K train vs GSM8K test equals an independent brute force."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from corpus.dedup.decontam import EvalIndex, decontam_words

GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"
GSM8K_TEST = "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14"


def gsm8k_texts(path: Path) -> list[str]:
    """A GSM8K item as one document: question, newline, answer."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row["question"] + "\n" + row["answer"] for row in rows]


def brute_force_words(text: str) -> list[str]:
    """Written independently of the library: drop non-word non-space characters and '_', lowercase, split."""
    return re.sub(r"[^\w\s]", "", text).replace("_", "").lower().split()


def word_tuples(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@pytest.fixture(scope="module")
def gsm8k(mirror: Path) -> tuple[list[str], list[str]]:
    return gsm8k_texts(mirror / GSM8K_TRAIN), gsm8k_texts(mirror / GSM8K_TEST)


def test_words_are_lowercased_without_punctuation():
    assert decontam_words("She paid $2.50 (each)!  Don't") == ["she", "paid", "250", "each", "dont"]
    assert brute_force_words("She paid $2.50 (each)!  Don't") == decontam_words("She paid $2.50 (each)!  Don't")


@pytest.mark.slow  # ~1.8 s
def test_gsm8k_train_flagged_equals_brute_force(gsm8k):
    train, test = gsm8k
    index = EvalIndex()
    for text in test:
        index.add("gsm8k-test", text)
    protected: set[tuple[str, ...]] = set()
    for text in test:
        words = brute_force_words(text)
        assert len(words) >= 13  # no short items in GSM8K test: all matched by 13-grams
        protected |= word_tuples(words, 13)

    flagged, expected = set(), set()
    for doc_id, text in enumerate(train):
        words = brute_force_words(text)
        hits = [i for i in range(len(words) - 12) if tuple(words[i : i + 13]) in protected]
        result = index.match(text)
        if hits:
            expected.add(doc_id)
            # The reported gram is the first one in the document.
            assert result == ("gsm8k-test", " ".join(words[hits[0] : hits[0] + 13]))
        if result is not None:
            flagged.add(doc_id)
    assert flagged == expected
    assert len(flagged) == 7  # GSM8K train shares a 13-gram with its test split in 7 documents


def test_short_eval_items_match_as_whole_sequences():
    index = EvalIndex()
    index.add("tiny", "The quick brown fox.")  # 4 words < 13: the whole sequence is the gram
    assert index.match("Yesterday THE quick, brown fox ran.") == ("tiny", "the quick brown fox")
    assert index.match("the quick red brown fox") is None  # not contiguous
    assert index.match("quick brown fox the") is None  # not in order
    assert index.match("the quick brown") is None  # only part of it


def test_long_items_need_a_full_13_gram():
    words = [f"w{i}" for i in range(20)]
    index = EvalIndex()
    index.add("bench", " ".join(words))
    assert index.match("x " + " ".join(words[3:16]) + " y") == ("bench", " ".join(words[3:16]))
    assert index.match(" ".join(words[3:15])) is None  # 12 words of it is not enough
    assert len(index) == 8


def test_match_is_deterministic_first_position_then_smallest_source():
    index = EvalIndex()
    index.add("zeta", "alpha beta gamma")
    index.add("beta-set", "alpha beta gamma")
    index.add("aardvark", "delta epsilon")
    # Both "alpha beta gamma" sources tie at position 1; "aardvark" is smaller but starts later.
    assert index.match("x alpha beta gamma delta epsilon") == ("beta-set", "alpha beta gamma")
    assert index.match("delta epsilon alpha beta gamma") == ("aardvark", "delta epsilon")
    index.add("a-first", "beta gamma")  # added later: tables are rebuilt
    assert index.match("x alpha beta gamma") == ("beta-set", "alpha beta gamma")
    assert index.match("x beta gamma") == ("a-first", "beta gamma")


def test_min_words_skips_tiny_items():
    index = EvalIndex(min_words=3)
    index.add("answers", "42")
    index.add("answers", "")
    assert index.skipped_items == 2
    assert index.match("the answer is 42") is None


def test_a_batch_matches_as_each_document_alone(gsm8k):
    """match_batch (what the dedup stage runs: a batch's n-grams of every length looked up at once, behind
    the bitmap) gives match() of each document: the same source, gram and first position."""
    from corpus.dedup.minhash import word_batches

    train, test = gsm8k
    index = EvalIndex()
    for text in test[:300]:
        index.add("gsm8k-test", text)
    index.add("short", "natalia sold clips")  # a short item: whole-sequence table of length 3
    docs = train[:400] + test[:20] + ["", "Natalia sold clips to 48 of her friends"]
    batched = [m for _, words in word_batches(docs) for m in index.match_batch(words)]
    assert batched == [index.match(t) for t in docs]
    assert sum(m is not None for m in batched) >= 21  # the test items themselves and the short phrase
