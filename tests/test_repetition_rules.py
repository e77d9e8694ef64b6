"""Gopher repetition rules on real text from the mirror, at and around every threshold.

Each rule gets a real passage whose repetition is dialled (by repeating or truncating real text) so
the measured value lands just at/below its threshold (passes) and just above it (fails with that
exact value). Expected values come from the brute-force reference below, written independently of
the pruned n-gram search in corpus.filters.repetition. Texts come from the mirror (CORPUS_MIRROR, see conftest.py);
the tests skip when the mirror is absent.
"""

from __future__ import annotations

import math
import random
import re
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

import pytest

from conftest import mirror_sha as mirror_file, tinystories
from corpus.filters.repetition import RepetitionParams, gopher_repetition

TINYSTORIES = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"
STATE_UNION_ZIP = "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d"

DEFAULT = RepetitionParams()
INF = float("inf")
TOP_RULES = [(f"top_{n}gram_char_frac", n, t) for n, t in DEFAULT.top_ngram_char_frac]
DUP_RULES = [(f"dup_{n}gram_char_frac", n, t) for n, t in DEFAULT.dup_ngram_char_frac]
SEGMENT_RULES = ["dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac"]
ALL_RULES = SEGMENT_RULES + [rule for rule, _, _ in TOP_RULES + DUP_RULES]


# --- real text from the mirror ------------------------------------------------------------------




@lru_cache(maxsize=None)
def story_paragraphs() -> tuple[str, ...]:
    """Distinct TinyStories paragraphs, in file order."""
    paragraphs = (p.strip() for s in tinystories() for p in s.split("\n\n"))
    return tuple(dict.fromkeys(p for p in paragraphs if p))


@lru_cache(maxsize=None)
def wikitext_articles() -> tuple[str, ...]:
    text = mirror_file(WIKITEXT_TEST).read_bytes().decode("utf-8")
    return tuple(a for a in re.split(r"(?m)^(?= = [^=].* = \r?$)", text) if a.strip())


@lru_cache(maxsize=None)
def truman_lines() -> tuple[str, ...]:
    """Non-blank lines of Truman's 1945 address after its title and date: all distinct."""
    with zipfile.ZipFile(mirror_file(STATE_UNION_ZIP)) as archive:
        text = archive.read("state_union/1945-Truman.txt").decode("latin-1")
    return tuple(line.strip() for line in text.splitlines() if line.strip())[2:]


def long_paragraphs(k: int) -> list[str]:
    return [p for p in story_paragraphs() if len(p) > 150][:k]


def short_paragraphs(k: int) -> list[str]:
    """Short real paragraphs of 2-4 words that are not "The end.", e.g. "Charles smiled."."""
    return [p for p in story_paragraphs() if 2 <= len(p.split()) <= 4 and "end" not in p.lower()][:k]


def truman_prose(n_words: int) -> str:
    """The first n words of Truman's address as one line: it has no repeated 5-gram."""
    words = " ".join(truman_lines()).split()
    assert len(words) >= n_words
    return " ".join(words[:n_words])


# --- brute-force reference ----------------------------------------------------------------------


@lru_cache(maxsize=64)
def ref_words(text: str) -> list[str]:
    return [token for token in text.split() if any(ch.isalnum() for ch in token)]


@lru_cache(maxsize=64)
def ref_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


@lru_cache(maxsize=64)
def ref_paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n[ \t\r]*\n", text) if p.strip()]


def ref_duplicates(segments: list[str]) -> tuple[float, float]:
    counts = Counter(segments)
    duplicated = [s for s in segments if counts[s] > 1]  # every occurrence, the first included
    if not segments:
        return 0.0, 0.0
    return len(duplicated) / len(segments), sum(map(len, duplicated)) / sum(map(len, segments))


def ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def ref_top(words: list[str], n: int) -> float:
    counts = Counter(ngrams(words, n))
    top = max(counts.values(), default=0)
    if top < 2:
        return 0.0
    chars = max(sum(map(len, gram)) for gram, count in counts.items() if count == top)
    return top * chars / sum(map(len, words))


def ref_dup(words: list[str], n: int) -> float:
    grams = ngrams(words, n)
    counts = Counter(grams)
    covered = [False] * len(words)
    for i, gram in enumerate(grams):
        if counts[gram] > 1:
            covered[i : i + n] = [True] * n
    total = sum(map(len, words))
    return sum(len(w) for w, c in zip(words, covered) if c) / total if total else 0.0


def reference(text: str, rule: str) -> float:
    if rule.startswith("dup_para"):
        return ref_duplicates(ref_paragraphs(text))[rule.endswith("char_frac")]
    if rule.startswith("dup_line"):
        return ref_duplicates(ref_lines(text))[rule.endswith("char_frac")]
    kind, n = re.fullmatch(r"(top|dup)_(\d+)gram_char_frac", rule).groups()
    return (ref_top if kind == "top" else ref_dup)(ref_words(text), int(n))


def ref_first_failure(text: str, p: RepetitionParams = DEFAULT) -> tuple[str, float] | None:
    """The documented order, evaluated with the reference."""
    checks = [(rule, getattr(p, rule)) for rule in SEGMENT_RULES]
    checks += [(f"top_{n}gram_char_frac", t) for n, t in p.top_ngram_char_frac]
    checks += [(f"dup_{n}gram_char_frac", t) for n, t in p.dup_ngram_char_frac]
    for rule, threshold in checks:
        if (value := reference(text, rule)) > threshold:
            return rule, value
    return None


# --- driving the function under test ------------------------------------------------------------


def only(rule: str, threshold: float) -> RepetitionParams:
    """Parameters under which ``rule`` alone is checked, against ``threshold``."""
    nothing = RepetitionParams(INF, INF, INF, INF, (), ())
    match = re.fullmatch(r"(top|dup)_(\d+)gram_char_frac", rule)
    if match is None:
        return replace(nothing, **{rule: threshold})
    field = "top_ngram_char_frac" if match[1] == "top" else "dup_ngram_char_frac"
    return replace(nothing, **{field: ((int(match[2]), threshold),)})


def measured(text: str, rule: str) -> float:
    """The value ``rule`` measures on ``text``, read through the public function."""
    result = gopher_repetition(text, only(rule, -1.0))
    assert result is not None and result[0] == rule
    return result[1]


def straddle(
    build: Callable[[int], str], rule: str, threshold: float, lo: int, hi: int
) -> tuple[str, str]:
    """(passing, failing) texts built from adjacent k in [lo, hi] on either side of ``threshold``.

    The reference value of ``build(k)`` must be monotone in k; bisection finds the crossing.
    """

    def passes(k: int) -> bool:
        return reference(build(k), rule) <= threshold

    lo_passes = passes(lo)
    assert passes(hi) != lo_passes, f"{rule} does not cross {threshold} over [{lo}, {hi}]"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if passes(mid) == lo_passes else (lo, mid)
    return (build(lo), build(hi)) if lo_passes else (build(hi), build(lo))


def assert_boundary(
    passing: str, failing: str, rule: str, threshold: float, isolate: bool = False
) -> None:
    """``passing`` is at or just below the threshold, ``failing`` just above, and both are reported."""
    below, above = reference(passing, rule), reference(failing, rule)
    assert threshold - 0.01 < below <= threshold < above < threshold + 0.01
    params = only(rule, threshold) if isolate else DEFAULT
    assert gopher_repetition(passing, params) is None
    assert gopher_repetition(failing, DEFAULT) == (rule, above)  # the FIRST failing rule
    assert measured(passing, rule) == below
    # Comparisons are strict: a value equal to the threshold passes, the next float below fails.
    assert gopher_repetition(passing, only(rule, below)) is None
    assert gopher_repetition(passing, only(rule, math.nextafter(below, -INF))) == (rule, below)


def insert_after(words: list[str], inserts: dict[int, str]) -> str:
    """The words joined by spaces, with ``inserts[i]`` placed after word i."""
    out = []
    for i, word in enumerate(words):
        out.append(word)
        if i in inserts:
            out.append(inserts[i])
    return " ".join(out)


def spread(n_words: int, k: int) -> list[int]:
    return [n_words * (j + 1) // (k + 1) for j in range(k)]


# --- whole-text checks --------------------------------------------------------------------------


def test_tinystories_story_passes():
    story = tinystories()[0]
    assert len(ref_words(story)) == 134 and len(ref_paragraphs(story)) == 3
    assert gopher_repetition(story) is None
    assert all(measured(story, rule) == reference(story, rule) for rule in ALL_RULES)


@pytest.mark.parametrize("text", ["", "   ", "\n\n\r\n\t", "Hello"])
def test_empty_and_tiny_texts_pass(text: str):
    assert gopher_repetition(text) is None
    assert all(measured(text, rule) == 0.0 for rule in ALL_RULES)


def test_values_match_brute_force_on_real_text():
    stories = list(tinystories()[:150])
    articles = list(wikitext_articles()[:3])
    # Real words shuffled from a tiny vocabulary: dense overlapping repeats and ties.
    vocabulary = ref_words(tinystories()[1])[:7]
    rng = random.Random(1234)
    shuffled = [" ".join(rng.choices(vocabulary, k=rng.randrange(1, 120))) for _ in range(60)]
    # Real lines drawn with replacement, as lines or paragraphs (LF or CRLF): segment repeats.
    joiners = ["\n", "\n\n", "\r\n\r\n", "\n \n"]
    layered = [rng.choice(joiners).join(rng.choices(truman_lines()[:6], k=8)) for _ in range(20)]
    for text in stories + articles + shuffled + layered:
        for rule in ALL_RULES:
            assert measured(text, rule) == reference(text, rule), (rule, text[:80])
        assert gopher_repetition(text) == ref_first_failure(text)
    results = map(gopher_repetition, stories + shuffled + layered)
    outcomes = Counter(result and result[0] for result in results)
    assert outcomes[None] > 120 and len(outcomes) > 4  # both outcomes, and several rules, exercised


def test_overlapping_duplicates_count_each_word_once():
    sentence = truman_lines()[1]  # 22 words
    text = " ".join([sentence] * 3)
    for rule, _, _ in DUP_RULES:
        assert measured(text, rule) == 1.0  # all words covered, never more than all
    assert gopher_repetition(text) == ref_first_failure(text)


def test_top_ngram_counts_overlapping_occurrences_in_full():
    beep = next(w for w in ref_words(tinystories()[1]) if w == "Beep")
    text = " ".join([beep] * 4)  # ("Beep", "Beep") 3 times, overlapping: 3 * 8 / 16 characters
    assert measured(text, "top_2gram_char_frac") == reference(text, "top_2gram_char_frac") == 1.5
    assert measured(text, "dup_5gram_char_frac") == 0.0  # only 4 words: no 5-gram at all


def test_top_ngram_ties_go_to_the_longest():
    # Raise the shortest and the longest real bigram of the prose to the same top count, the short
    # one first in the text: the tie goes to the longer bigram, not to the first seen.
    words = truman_prose(120).split()
    natural = Counter(ngrams(words, 2))
    short = min(natural, key=lambda gram: (sum(map(len, gram)), gram))
    long = max(natural, key=lambda gram: (sum(map(len, gram)), gram))
    top = max(natural.values()) + 3
    inserts = {i: " ".join(short) for i in spread(60, top - natural[short])}
    inserts |= {60 + i: " ".join(long) for i in spread(60, top - natural[long])}
    text = insert_after(words, inserts)
    counts = Counter(ngrams(ref_words(text), 2))
    assert [gram for gram, count in counts.items() if count == top] == [short, long]
    assert max(counts.values()) == top
    expected = top * sum(map(len, long)) / sum(map(len, ref_words(text)))
    assert measured(text, "top_2gram_char_frac") == expected


# --- one test per rule, at and around its threshold ----------------------------------------------


def test_dup_para_frac():
    unique, (a, b, c) = long_paragraphs(14), short_paragraphs(3)

    def document(dup_paragraphs: list[str], n_unique: int) -> str:
        parts = unique[:n_unique]
        for i, dup in enumerate(dup_paragraphs):  # interleave the repeats among the unique ones
            parts.insert(2 * i + 1, dup)
        return "\n\n".join(parts)

    at_threshold = document([a, b, c, a, b, c], 14)  # 6 of 20 paragraphs repeated: 0.3
    over = document([a, b, c, a, b, c, a], 13)  # 7 of 20: 0.35
    assert reference(at_threshold, "dup_para_frac") == 0.3
    assert gopher_repetition(at_threshold) is None
    assert gopher_repetition(over) == ("dup_para_frac", 0.35)
    assert measured(at_threshold, "dup_para_frac") == 0.3


def two_copies_among(repeated: str, pool: list[str], joiner: str) -> Callable[[int], str]:
    """Builds texts with 2 copies of ``repeated`` among unique segments from ``pool``.

    The unique segments hold about 4x the characters of the two copies (a 0.2 fraction); the
    last one is cut to the k words given to the builder, which fine-tunes the fraction.
    """
    unique, chars = [], 0
    for segment in pool:
        unique.append(segment)
        chars += len(segment)
        if chars >= 8 * len(repeated):
            break

    def build(k: int) -> str:
        cut = " ".join(unique[-1].split()[:k])
        segments = [unique[0], repeated, *unique[1:-1], repeated, cut]
        return joiner.join(segments)

    return build


def test_dup_para_char_frac():
    paragraphs = story_paragraphs()
    repeated = next(p for p in paragraphs if len(p) > 300)
    document = two_copies_among(repeated, [p for p in paragraphs if 150 < len(p) < 250], "\n\n")
    passing, failing = straddle(document, "dup_para_char_frac", 0.2, 1, 60)
    assert reference(failing, "dup_para_frac") <= 0.3
    # The repeated paragraph is long enough to trip the n-gram rules too: check this rule alone.
    assert_boundary(passing, failing, "dup_para_char_frac", 0.2, isolate=True)


def test_dup_line_frac():
    unique, (a, b, c) = list(truman_lines()[:14]), short_paragraphs(3)

    def document(dup_lines: list[str], n_unique: int) -> str:
        lines = unique[:n_unique]
        for i, dup in enumerate(dup_lines):
            lines.insert(2 * i + 1, dup)
        return "\n".join(lines)  # one paragraph: the paragraph rules see nothing

    at_threshold = document([a, b, c, a, b, c], 14)
    over = document([a, b, c, a, b, c, a], 13)
    assert reference(at_threshold, "dup_line_frac") == 0.3 and len(ref_paragraphs(over)) == 1
    assert gopher_repetition(at_threshold) is None
    assert gopher_repetition(over) == ("dup_line_frac", 0.35)
    assert measured(at_threshold, "dup_line_frac") == 0.3
    # Lines are compared stripped: copies that differ only in surrounding spaces are duplicates.
    assert gopher_repetition(over.replace(a, f"  {a} \t", 1)) == ("dup_line_frac", 0.35)


def test_crlf_text_splits_like_lf_text():
    paragraphs = long_paragraphs(6)
    lf = "\n\n".join(paragraphs + paragraphs[:2])
    crlf = lf.replace("\n", "\r\n")
    assert measured(crlf, "dup_para_frac") == measured(lf, "dup_para_frac") == 0.5
    assert gopher_repetition(crlf) == gopher_repetition(lf) == ("dup_para_frac", 0.5)


def test_blank_lines_are_not_duplicate_lines():
    text = "\n\n".join(long_paragraphs(10))  # 9 blank separator lines, all alike
    assert measured(text, "dup_line_frac") == 0.0
    assert gopher_repetition(text) is None


def test_dup_line_char_frac():
    lines = truman_lines()
    repeated = next(line for line in lines if 40 <= len(line.split()) <= 50)
    document = two_copies_among(repeated, [line for line in lines if len(line) < 200], "\n")
    passing, failing = straddle(document, "dup_line_char_frac", 0.2, 1, 60)
    assert reference(failing, "dup_line_frac") <= 0.3 and len(ref_paragraphs(failing)) == 1
    assert_boundary(passing, failing, "dup_line_char_frac", 0.2, isolate=True)


@pytest.mark.parametrize(("rule", "n", "threshold"), TOP_RULES, ids=[r for r, _, _ in TOP_RULES])
def test_top_ngram_char_frac(rule: str, n: int, threshold: float):
    # Repeat one real n-gram of Truman's prose at spread positions until it dominates.
    words = truman_prose(600).split()
    phrase = " ".join(words[40 : 40 + n])

    def document(k: int) -> str:
        return insert_after(words, dict.fromkeys(spread(len(words), k), phrase))

    passing, failing = straddle(document, rule, threshold, 1, 300)
    top = Counter(ngrams(ref_words(failing), n)).most_common(1)[0][0]
    assert top == tuple(phrase.split())
    assert_boundary(passing, failing, rule, threshold)


@pytest.mark.parametrize(("rule", "n", "threshold"), DUP_RULES, ids=[r for r, _, _ in DUP_RULES])
def test_dup_ngram_char_frac(rule: str, n: int, threshold: float):
    # Three copies of an n-word TinyStories span inside Truman's prose, which repeats no 5-gram;
    # lengthening the prose word by word walks the covered fraction down across the threshold.
    span = " ".join(ref_words(tinystories()[2])[:n])
    assert ref_dup(truman_prose(600).split(), 5) == 0.0

    def document(n_prose: int) -> str:
        return insert_after(truman_prose(n_prose).split(), dict.fromkeys(spread(n_prose, 3), span))

    passing, failing = straddle(document, rule, threshold, 20, 600)
    # Only the copies repeat, so every shorter n-gram covers the same words and passes its
    # (higher) threshold, and no longer n-gram repeats: this rule is the first to fail.
    for shorter in range(5, n):
        assert ref_dup(ref_words(failing), shorter) == reference(failing, rule)
    assert ref_dup(ref_words(failing), n + 1) == 0.0
    assert_boundary(passing, failing, rule, threshold)
