"""The Kneser–Ney word n-gram model behind the perplexity filter: exact maths on a toy corpus,
then behaviour on real text from the mirror (TinyStories as the reference source)."""

from __future__ import annotations

import io
import math
import random
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from corpus.filters.ngram_lm import NGramLM, lm_words

TINYSTORIES_TRAIN = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
TINYSTORIES_VAL = "5fc1fb0113df62b567fb271806cd645ce8d75f59c58ca0b764c03d3b6ff34ca6"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"
LINGUA_FRENCH = "4dda6acddb10fc8f03b2fa71cd066880d6c3b00206bdb34fc654155776435150"
STATE_UNION_ZIP = "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d"

D = 0.75


# ---- real-data helpers --------------------------------------------------------------------------

def stories(text: str) -> list[str]:
    """TinyStories train head: a non-blank line right after a non-blank line starts a new story."""
    result: list[list[str]] = []
    previous_blank = True
    for line in text.splitlines():
        blank = not line.strip()
        if not blank and not previous_blank or not result:
            result.append([])
        result[-1].append(line)
        previous_blank = blank
    return ["\n".join(lines) for lines in result if any(l.strip() for l in lines)]


def paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def wikitext_articles(text: str) -> list[str]:
    """Articles start at lines ' = Title = ' (one '=' each side; '= = ' marks sections)."""
    return [a for a in re.split(r"\n(?= = [^=].* = \n)", text) if a.strip()]


@pytest.fixture(scope="module")
def train_stories(mirror: Path) -> list[str]:
    return stories((mirror / TINYSTORIES_TRAIN).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def model(train_stories: list[str]) -> NGramLM:
    return NGramLM.train(train_stories)


@pytest.fixture(scope="module")
def samples(mirror: Path) -> dict[str, str]:
    val = paragraphs((mirror / TINYSTORIES_VAL).read_text(encoding="utf-8"))
    wiki = wikitext_articles((mirror / WIKITEXT_TEST).read_text(encoding="utf-8"))
    french = [s for s in (mirror / LINGUA_FRENCH).read_text(encoding="utf-8").splitlines() if s.strip()]
    with zipfile.ZipFile(mirror / STATE_UNION_ZIP) as archive:
        speech = archive.read("state_union/1945-Truman.txt").decode("latin-1")
    return {"val_paragraph": next(p for p in val if len(lm_words(p)) >= 60),
            "val_block": "\n\n".join(val[:5]),
            "wiki_article": wiki[0],
            "french_block": "\n".join(french[:20]),
            "speech": speech}


# ---- tokenisation -------------------------------------------------------------------------------

def test_words_are_lowercase_letter_digit_runs_with_inner_apostrophes() -> None:
    assert lm_words("Lily's mom said, \"Don’t run!\" In 2002 l'École was_here -- ok?") == [
        "lily's", "mom", "said", "don't", "run", "in", "2002", "l'école", "was", "here", "ok"]
    assert lm_words("  ... !!! \n") == []


# ---- exact Kneser–Ney on a toy corpus -------------------------------------------------------------
# Corpus "a b" / "a c", min_count 1, so V = {</s>, <unk>, a, b, c}, |V| = 5.
# Unigram continuation counts N1+(• w): a 1 (<s>), b 1 (a), c 1 (a), </s> 2 (b, c); total 5, 4 types.
# gamma() = 0.75 * 4 / 5 = 0.6, so P(a) = P(b) = P(c) = 0.25/5 + 0.6/5 = 0.17, P(</s>) = 1.25/5 + 0.12 = 0.37,
# P(<unk>) = 0.12 (uniform share only).

def toy(order: int) -> NGramLM:
    return NGramLM.train(["a b", "a c"], order=order, discount=D, min_count=1, max_vocab=None)


def prob(model: NGramLM, context: tuple[str, ...], word: str) -> float:
    return 10 ** model.log10_prob(context, word)


def test_bigram_probabilities_match_hand_computation() -> None:
    lm = toy(2)
    assert prob(lm, (), "a") == pytest.approx(0.17, abs=1e-12)
    assert prob(lm, (), "</s>") == pytest.approx(0.37, abs=1e-12)
    assert prob(lm, (), "<unk>") == pytest.approx(0.12, abs=1e-12)
    # c(a b) = 1, c(a •) = 2, two distinct followers: (1 - .75)/2 + (.75 * 2/2) * P(b)
    assert prob(lm, ("a",), "b") == pytest.approx(0.125 + 0.75 * 0.17, abs=1e-12)
    # a never ends a document: all of P(</s> | a) comes from the lower order
    assert prob(lm, ("a",), "</s>") == pytest.approx(0.75 * 0.37, abs=1e-12)
    # c(<s> a) = 2, one follower: (2 - .75)/2 + (.75 * 1/2) * P(a)
    assert prob(lm, ("<s>",), "a") == pytest.approx(0.625 + 0.375 * 0.17, abs=1e-12)
    # unseen context: plain unigram distribution
    assert prob(lm, ("zebra",), "a") == pytest.approx(0.17, abs=1e-12)
    # "a b" is predicted as a | <s>, b | a, </s> | b
    p_end_after_b = 0.25 + 0.75 * 0.37
    expected = (0.68875 * 0.2525 * p_end_after_b) ** (-1 / 3)
    assert lm.perplexity("A b!") == pytest.approx(expected, rel=1e-12)


def test_trigram_middle_order_uses_continuation_counts() -> None:
    lm = toy(3)
    # Raw c(<s> a) = 2, but its continuation count N1+(• <s> a) = 1 (only <s> precedes it):
    # P2(a | <s>) = (1 - .75)/1 + (.75 * 1/1) * P(a) = 0.3775
    assert prob(lm, ("<s>",), "a") == pytest.approx(0.25 + 0.75 * 0.17, abs=1e-12)
    # P3(a | <s> <s>) = (2 - .75)/2 + (.75 * 1/2) * P2(a | <s>)
    assert prob(lm, ("<s>", "<s>"), "a") == pytest.approx(0.625 + 0.375 * 0.3775, abs=1e-12)
    # P3(b | <s> a) = (1 - .75)/2 + (.75 * 2/2) * P2(b | a), with P2(b | a) = 0.2525 as for bigrams
    assert prob(lm, ("<s>", "a"), "b") == pytest.approx(0.125 + 0.75 * 0.2525, abs=1e-12)
    # only the last order-1 context words matter
    assert lm.log10_prob(("b", "c", "<s>", "a"), "b") == lm.log10_prob(("<s>", "a"), "b")


def test_unknown_word_gets_its_share_of_the_unk_class() -> None:
    lm = NGramLM.train(["the cat sat", "the dog sat", "a bird"], order=2, min_count=2)
    assert lm.vocabulary == ("</s>", "<unk>", "sat", "the")
    assert lm.unk_types == 4  # a, bird, cat, dog
    unk_class = lm.log10_prob(("the",), "<unk>")
    assert lm.log10_prob(("the",), "zebra") == pytest.approx(unk_class - math.log10(4), abs=1e-12)
    assert lm.log10_prob(("the",), "cat") == lm.log10_prob(("the",), "zebra")


def test_empty_text_has_infinite_perplexity() -> None:
    lm = toy(2)
    assert lm.perplexity("") == math.inf
    assert lm.perplexity(" -- !? \n") == math.inf
    assert lm.log10_prob(("a",), "<s>") == -math.inf


@pytest.mark.parametrize("settings", [{"order": 0}, {"discount": 0.0}, {"discount": 1.5},
                                      {"min_count": 0}, {"max_vocab": -1}])
def test_bad_settings_are_rejected(settings: dict) -> None:
    with pytest.raises(ValueError):
        NGramLM.train(["a b"], **settings)


def test_training_needs_documents() -> None:
    with pytest.raises(ValueError):
        NGramLM.train([])


# ---- real data ----------------------------------------------------------------------------------

@pytest.mark.parametrize("context", [("<s>", "<s>"), ("once", "upon"), ("she",), ("the", "zebra"),
                                     ("qwerty", "asdf"), ()])
def test_probabilities_sum_to_one_over_the_vocabulary(model: NGramLM, context: tuple[str, ...]) -> None:
    total = math.fsum(10 ** model.log10_prob(context, w) for w in model.vocabulary)
    assert total == pytest.approx(1.0, abs=1e-6)


def test_in_domain_text_is_less_perplexing(model: NGramLM, samples: dict[str, str]) -> None:
    ppl = {name: model.perplexity(text) for name, text in samples.items()}
    assert ppl["val_paragraph"] < ppl["wiki_article"] / 5, ppl
    assert ppl["val_block"] < ppl["wiki_article"] / 5, ppl
    assert ppl["val_block"] < ppl["speech"] / 5, ppl
    assert ppl["val_block"] * 100 < ppl["french_block"], ppl


def test_training_is_deterministic_and_order_independent(train_stories: list[str]) -> None:
    subset = train_stories[:300]
    shuffled = subset[:]
    random.Random(7).shuffle(shuffled)
    first = NGramLM.train(subset).to_bytes()
    assert NGramLM.train(subset).to_bytes() == first
    assert NGramLM.train(shuffled).to_bytes() == first
    assert NGramLM.train(iter(shuffled)).fingerprint() == NGramLM.train(subset).fingerprint()


def test_round_trip_scores_identically(model: NGramLM, samples: dict[str, str]) -> None:
    data = model.to_bytes()
    loaded = NGramLM.from_bytes(data)
    assert loaded.to_bytes() == data
    assert (loaded.order, loaded.discount, loaded.unk_types) == (model.order, model.discount, model.unk_types)
    for text in samples.values():
        assert loaded.perplexity(text) == model.perplexity(text)
    # a plain npz: readable by numpy without pickle
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        assert archive["ngrams_3"].shape[1] == 3


def test_malformed_model_files_are_rejected() -> None:
    good = toy(2).to_bytes()
    with pytest.raises(ValueError):
        NGramLM.from_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError):
        NGramLM.from_bytes(b"not a zip")
    # an object array would need pickle to load: refused
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("meta.json", zipfile.ZipFile(io.BytesIO(good)).read("meta.json"))
        npy = io.BytesIO()
        np.lib.format.write_array(npy, np.array([{"x": 1}], dtype=object), allow_pickle=True)
        for name in ("ngrams_1.npy", "counts_1.npy", "ngrams_2.npy", "counts_2.npy"):
            archive.writestr(name, npy.getvalue())
    with pytest.raises(ValueError):
        NGramLM.from_bytes(buffer.getvalue())
