"""The Kneser–Ney word n-gram model behind the perplexity filter: exact maths on a toy corpus,
then behaviour on real text from the mirror (TinyStories as the reference source)."""

from __future__ import annotations

import io
import json
import math
import random
import re
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from corpus.filters import ngram_lm
from corpus.filters.ngram_lm import NGramLM, lm_words

TINYSTORIES_TRAIN = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
TINYSTORIES_VAL = "5fc1fb0113df62b567fb271806cd645ce8d75f59c58ca0b764c03d3b6ff34ca6"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"
LINGUA_FRENCH = "4dda6acddb10fc8f03b2fa71cd066880d6c3b00206bdb34fc654155776435150"
STATE_UNION_ZIP = "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d"

D = 0.75


# ---- reference: the scalar formulas of the module doc, with no tables ------------------------------

class ReferenceKN:
    """Interpolated Kneser–Ney written straight from the module docstring: Counter counts and the
    recursive interpolation formula per token, in plain Python (no backoff tables, no numpy, no
    shared code but the tokeniser). The model must score exactly like this, up to float rounding."""

    def __init__(self, texts: list[str], *, order: int = 3, discount: float = D, min_count: int = 2,
                 max_vocab: int | None = 50_000) -> None:
        documents = [lm_words(t) for t in texts]
        frequency = Counter(w for words in documents for w in words)
        kept = sorted((w for w, c in frequency.items() if c >= min_count), key=lambda w: (-frequency[w], w))
        kept = kept if max_vocab is None else kept[:max_vocab]
        self.order, self.discount, self.known = order, discount, set(kept)
        self.vocab = ["<s>", "</s>", "<unk>", *kept]  # the model's id order
        self.n_predictable = len(kept) + 2  # |V|: kept words, </s>, <unk>
        self.unk_types = len(frequency) - len(kept)
        top: Counter = Counter()
        for words in documents:
            tokens = self.tokens(words)
            top.update(tuple(tokens[i - order + 1:i + 1]) for i in range(order - 1, len(tokens)))
        self.counts = {order: top}  # raw counts at the top, continuation counts N1+(• g) below
        for k in range(order - 1, 0, -1):
            self.counts[k] = Counter(g[1:] for g in self.counts[k + 1])
        self.totals = {k: Counter() for k in self.counts}
        self.followers = {k: Counter() for k in self.counts}
        for k, level in self.counts.items():
            for gram, c in level.items():
                self.totals[k][gram[:-1]] += c
                self.followers[k][gram[:-1]] += 1
        self._cache: dict = {}

    def tokens(self, words: list[str]) -> list[str]:
        return ["<s>"] * (self.order - 1) + [w if w in self.known else "<unk>" for w in words] + ["</s>"]

    def prob(self, history: tuple[str, ...], word: str) -> float:
        """P(word | history), tokens already mapped to the vocabulary, len(history) < order."""
        key = (history, word)
        if key not in self._cache:
            k = len(history) + 1
            lower = 1 / self.n_predictable if k == 1 else self.prob(history[1:], word)
            total = self.totals[k].get(history, 0)
            if total == 0:  # unseen context
                self._cache[key] = lower
            else:
                c = self.counts[k].get(history + (word,), 0)
                gamma = self.discount * self.followers[k][history] / total
                self._cache[key] = max(c - self.discount, 0) / total + gamma * lower
        return self._cache[key]

    def log10_prob(self, context: tuple[str, ...], word: str) -> float:
        mapped = tuple(w if w in self.known or w in ("<s>", "</s>") else "<unk>" for w in context)
        history = mapped[len(mapped) - (self.order - 1):] if self.order > 1 else ()
        target = word if word in self.known or word in ("</s>", "<unk>") else "<unk>"
        share = -math.log10(max(self.unk_types, 1)) if target == "<unk>" and word != "<unk>" else 0.0
        return math.log10(self.prob(history, target)) + share

    def perplexity(self, text: str) -> float:
        words = lm_words(text)
        if not words:
            return math.inf
        tokens = self.tokens(words)
        share = -math.log10(max(self.unk_types, 1))
        total = math.fsum(math.log10(self.prob(tuple(tokens[i - self.order + 1:i]), tokens[i]))
                          + (share if tokens[i] == "<unk>" else 0.0) for i in range(self.order - 1, len(tokens)))
        return 10 ** (-total / (len(words) + 1))


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


@pytest.fixture(scope="module")
def real_documents(mirror: Path, samples: dict[str, str]) -> list[str]:
    """Documents of several kinds: TinyStories paragraphs, WikiText articles, French, a speech."""
    val = paragraphs((mirror / TINYSTORIES_VAL).read_text(encoding="utf-8"))
    wiki = wikitext_articles((mirror / WIKITEXT_TEST).read_text(encoding="utf-8"))
    return [*samples.values(), *val[:40], *wiki[:8], "", "Zebra qwerty!", "the"]


# ---- tokenisation -------------------------------------------------------------------------------

def test_words_are_lowercase_letter_digit_runs_with_inner_apostrophes() -> None:
    assert lm_words("Lily's mom said, \"Don’t run!\" In 2002 l'École was_here -- ok?") == [
        "lily's", "mom", "said", "don't", "run", "in", "2002", "l'école", "was", "here", "ok"]
    assert lm_words("  ... !!! \n") == []


def test_chunked_tokeniser_matches_the_plain_regex(mirror: Path, samples: dict[str, str]) -> None:
    """lm_words matches whitespace-separated chunks on their own; it must equal one findall on the text."""
    # what makes it exact: no whitespace character can be part of a match, and a character matches
    # [^\W_] exactly when str.isalnum() holds
    word_char = re.compile(r"[^\W_]")
    for c in map(chr, range(0x110000)):
        assert not (c.isspace() and (c.isalnum() or c == "'")), hex(ord(c))
        assert bool(word_char.fullmatch(c)) == c.isalnum(), hex(ord(c))
    wiki = wikitext_articles((mirror / WIKITEXT_TEST).read_text(encoding="utf-8"))
    val = paragraphs((mirror / TINYSTORIES_VAL).read_text(encoding="utf-8"))
    tricky = ["l'école  dogs' 'quoted' rock'n'roll x''y _a_ a_b ’tis",
              "ＡＢＣ١٢٣ e\u0301 \u00a0nbsp\u2003em\x1cfs\u2028ls"]
    for text in [*wiki, *val[:300], *samples.values(), *tricky]:
        assert lm_words(text) == re.findall(r"[^\W_]+(?:'[^\W_]+)*", text.lower().replace("\u2019", "'"))


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


@pytest.mark.parametrize("order", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("discount", [0.4, 1.0])
def test_every_order_matches_the_reference_formulas(train_stories: list[str], real_documents: list[str],
                                                    order: int, discount: float) -> None:
    """Exact integer table keys work for every order: probabilities and perplexities equal the
    scalar formulas (a small vocabulary, so many words are unknown)."""
    texts = train_stories[:400]
    lm = NGramLM.train(texts, order=order, discount=discount, min_count=2, max_vocab=300)
    ref = ReferenceKN(texts, order=order, discount=discount, min_count=2, max_vocab=300)
    assert lm.vocabulary == tuple(ref.vocab[1:]) and lm.unk_types == ref.unk_types
    for text in real_documents[:12]:
        assert lm.perplexity(text) == pytest.approx(ref.perplexity(text), rel=1e-9)
    contexts = [(), ("<s>",) * 5, ("once", "upon", "a", "time", "there"), ("the", "zebra", "was", "very", "happy"),
                ("she", "said", "to", "her", "mom"), ("qwerty",) * 5]
    for context in contexts:
        for word in ["the", "a", "</s>", "<unk>", "zebra", "happy", "mom"]:
            assert lm.log10_prob(context, word) == pytest.approx(ref.log10_prob(context, word), rel=1e-9, abs=1e-12)


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


@pytest.fixture(scope="module")
def reference(train_stories: list[str]) -> ReferenceKN:
    return ReferenceKN(train_stories)


def test_perplexities_equal_the_reference_formulas_on_real_documents(
        model: NGramLM, reference: ReferenceKN, real_documents: list[str]) -> None:
    assert model.vocabulary == tuple(reference.vocab[1:]) and model.unk_types == reference.unk_types
    for text in real_documents:
        assert model.perplexity(text) == pytest.approx(reference.perplexity(text), rel=1e-9)


def test_vectorised_score_is_the_sum_of_per_token_probabilities(model: NGramLM, samples: dict[str, str]) -> None:
    for text in (samples["val_paragraph"], samples["wiki_article"], samples["french_block"]):
        tokens = ["<s>"] * (model.order - 1) + lm_words(text) + ["</s>"]
        per_token = [model.log10_prob(tuple(tokens[i - model.order + 1:i]), tokens[i])
                     for i in range(model.order - 1, len(tokens))]
        total, n_tokens = model.log10_score(text)
        assert n_tokens == len(per_token)
        assert total == pytest.approx(math.fsum(per_token), rel=1e-12)


def test_round_trip_scores_identically(model: NGramLM, real_documents: list[str]) -> None:
    data = model.to_bytes()
    loaded = NGramLM.from_bytes(data)
    assert loaded.to_bytes() == data
    assert (loaded.order, loaded.discount, loaded.unk_types) == (model.order, model.discount, model.unk_types)
    for text in real_documents:
        assert loaded.perplexity(text) == model.perplexity(text)
    # a plain npz of the final tables: readable by numpy without pickle
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        assert sorted(archive.files) == sorted(["meta.json", "keys_1", "keys_2", "keys_3", "log10_probs_1",
                                                "log10_probs_2", "log10_probs_3", "log10_backoffs_1",
                                                "log10_backoffs_2"])
        for k in (1, 2, 3):
            keys = archive[f"keys_{k}"]
            assert keys.dtype == np.dtype("<i8") and bool((np.diff(keys) > 0).all())
            assert archive[f"log10_probs_{k}"].shape == keys.shape


def test_loading_reads_the_tables_without_recomputing_them(model: NGramLM, monkeypatch: pytest.MonkeyPatch,
                                                           samples: dict[str, str]) -> None:
    data = model.to_bytes()

    def fail(*args, **kwargs):
        raise AssertionError("from_bytes recomputed the Kneser–Ney tables")

    monkeypatch.setattr(ngram_lm, "_kneser_ney_tables", fail)
    assert NGramLM.from_bytes(data).perplexity(samples["speech"]) == model.perplexity(samples["speech"])


def legacy_bytes(reference: ReferenceKN, settings: dict) -> bytes:
    """A model file of the earlier count format (corpus.ngram_lm/1): sorted n-gram ids and counts."""
    meta = {"format": "corpus.ngram_lm/1", **settings, "unk_types": reference.unk_types, "vocab": reference.vocab}
    ids = {w: i for i, w in enumerate(reference.vocab)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("meta.json", json.dumps(meta))
        for k, level in reference.counts.items():
            rows = sorted((tuple(ids[w] for w in gram), c) for gram, c in level.items())
            for name, array in ((f"ngrams_{k}.npy", np.array([g for g, _ in rows], dtype="<u4").reshape(-1, k)),
                                (f"counts_{k}.npy", np.array([c for _, c in rows], dtype="<u8"))):
                npy = io.BytesIO()
                np.lib.format.write_array(npy, array, allow_pickle=False)
                archive.writestr(name, npy.getvalue())
    return buffer.getvalue()


def test_legacy_count_files_still_load(model: NGramLM, reference: ReferenceKN, samples: dict[str, str]) -> None:
    settings = {"order": model.order, "discount": model.discount, "min_count": model.min_count,
                "max_vocab": model.max_vocab}
    loaded = NGramLM.from_bytes(legacy_bytes(reference, settings))
    assert loaded.to_bytes() == model.to_bytes()  # same tables as training from the texts
    for text in samples.values():
        assert loaded.perplexity(text) == model.perplexity(text)


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


def replaced(data: bytes, name: str, array: np.ndarray) -> bytes:
    """`data` with the array `name` (member name.npy) of the archive replaced by `array`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(buffer, "w") as archive:
        assert f"{name}.npy" in source.namelist()
        for member in source.namelist():
            if member == f"{name}.npy":
                npy = io.BytesIO()
                np.lib.format.write_array(npy, array, allow_pickle=False)
                archive.writestr(member, npy.getvalue())
            else:
                archive.writestr(member, source.read(member))
    return buffer.getvalue()


def test_malformed_tables_are_rejected() -> None:
    lm = toy(3)
    good = lm.to_bytes()
    with np.load(io.BytesIO(good), allow_pickle=False) as archive:
        tables = {name: archive[name] for name in archive.files if name != "meta.json"}
    keys2, probs2 = tables["keys_2"], tables["log10_probs_2"]
    # rewriting a member unchanged loads fine, so each failure below is the bad array's doing
    assert NGramLM.from_bytes(replaced(good, "keys_2", keys2)).to_bytes() == good
    bad = {"keys_2": [keys2[::-1], keys2.astype("<i4"), keys2 + 10**6, keys2[:-1]],
           "log10_probs_2": [np.full_like(probs2, np.nan), probs2.astype("<f4"), -probs2[:1]],
           "keys_1": [tables["keys_1"][1:]],
           "log10_probs_1": [np.full_like(tables["log10_probs_1"], -np.inf)],
           "log10_backoffs_1": [np.full_like(tables["log10_backoffs_1"], np.inf)]}
    for name, arrays in bad.items():
        for array in arrays:
            with pytest.raises(ValueError):
                NGramLM.from_bytes(replaced(good, name, array))


def test_batch_scores_equal_single_scores_to_the_bit(model: NGramLM, real_documents: list[str]) -> None:
    """log10_scores (a batch's n-grams looked up at once, the perplexity filter's path) gives exactly what
    log10_score gives per document, for every batch size and with empty documents anywhere."""
    single = [model.log10_score(t) for t in real_documents]
    assert model.log10_scores([]) == []
    for size in (1, 3, len(real_documents)):
        batched = [s for i in range(0, len(real_documents), size) for s in model.log10_scores(real_documents[i:i + size])]
        assert batched == single
    assert model.perplexities(real_documents) == [model.perplexity(t) for t in real_documents]
