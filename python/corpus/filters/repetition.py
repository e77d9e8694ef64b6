"""Gopher repetition rules (Rae et al. 2021, appendix A.1.1, table A1).

``gopher_repetition(text, params)`` returns ``None`` when the text passes every rule, else
``(rule, value)`` for the FIRST failing rule, where ``value`` is the measured fraction, as a float.
Pure function: no I/O.

Units (words and lines are defined exactly as in :mod:`corpus.filters.gopher`):

* **paragraph** -- a piece of the text split on runs of 2+ newlines (blank or whitespace-only
  lines in between also separate), stripped of surrounding whitespace; empty pieces dropped.
* **line** -- a ``str.splitlines()`` piece, stripped of surrounding whitespace; blank lines
  dropped (so the blank separator lines between paragraphs are never "duplicates").
* **word** -- a whitespace token containing a letter or digit; punctuation-only tokens are not
  words. N-grams are runs of n consecutive words.

Characters, counted one way everywhere: ``len()`` in code points, of the stripped segment for
lines and paragraphs, and of the words only (no spaces, no punctuation-only tokens) for n-grams.
Every fraction's denominator is the total over all segments of the same kind: characters of all
lines, of all paragraphs, or of all words. Every fraction is at most 1.0 except the top n-gram
one, which counts overlapping occurrences in full (count x length, as specified and as in
RedPajama-V2): in "Beep Beep Beep Beep" the bigram ("Beep", "Beep") occurs 3 times, 3 x 8 / 16
= 1.5.

Duplicates, as the paper words it ("the fraction of characters contained within all duplicate
n-grams") and as RedPajama-V2's signals compute it: a line/paragraph/n-gram is duplicated when
it occurs more than once in the text, and EVERY occurrence of it counts, the first included.
datatrove instead counts only the copies after the first (for lines, paragraphs and duplicated
n-grams; its top n-gram count includes the first) and divides characters by the length of the
raw text; our values are therefore higher for the same repetition (two copies of one line among
10 lines: dup_line_frac 0.2 here, 0.1 there). datatrove also counts blank lines as lines, which
are all "duplicates" of each other; we drop them.

Rules, in the fixed order they are checked; a rule fails when its value is strictly greater than
its threshold (``p`` is the :class:`RepetitionParams`):

 1. ``dup_para_frac``        duplicated paragraphs / paragraphs
 2. ``dup_para_char_frac``   characters of duplicated paragraphs / characters of all paragraphs
 3. ``dup_line_frac``        duplicated lines / lines
 4. ``dup_line_char_frac``   characters of duplicated lines / characters of all lines
 5. ``top_{n}gram_char_frac`` for each (n, max) of ``p.top_ngram_char_frac`` in the given order:
    count of the most frequent n-gram x its characters / characters of all words; 0.0 unless that
    n-gram occurs more than once. Ties in count go to the n-gram with the most characters.
 6. ``dup_{n}gram_char_frac`` for each (n, max) of ``p.dup_ngram_char_frac`` in the given order:
    characters of the words covered by any occurrence of a duplicated n-gram / characters of all
    words. A word covered by several overlapping duplicated n-grams counts once.

Empty or whitespace-only text has nothing repeated: every value is 0.0 and it passes (the
quality rules reject it for having no words).

Speed: one regex pass splits the words; the 2-grams are counted in C (zip + Counter); an n-gram
can occur twice only if its (n-1)-gram prefix does, so the n-grams for n >= 3 are built only at
the starts of repeated (n-1)-grams, and once no n-gram repeats no longer one is built at all
(its values are 0.0).

Measure, then decide: ``repetition_signals`` measures every fraction (the n-gram sizes are its only
measuring settings), ``repetition_decision`` compares them with the maxima in rule order.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, compress

import pyarrow as pa

from corpus.filters.gopher import text_lines, text_words
from corpus.filters.languages import WHITESPACE, by_identity, per_language
from corpus.filters.registry import FilterSpec

__all__ = [
    "DEFAULT_PARAMS",
    "RepetitionParams",
    "duplicate_fractions",
    "gopher_repetition",
    "split_paragraphs",
]

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class RepetitionParams:
    """Maximum fractions (Gopher table A1); the n-gram ones as (n, max) pairs, checked in order."""

    dup_line_frac: float = 0.30
    dup_para_frac: float = 0.30
    dup_line_char_frac: float = 0.20
    dup_para_char_frac: float = 0.20
    top_ngram_char_frac: tuple[tuple[int, float], ...] = ((2, 0.20), (3, 0.18), (4, 0.16))
    dup_ngram_char_frac: tuple[tuple[int, float], ...] = (
        (5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10),
    )  # fmt: skip
    languages: str = ""  # [filters.repetition.languages] as canonical JSON (filters.languages)


DEFAULT_PARAMS = RepetitionParams()


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs of ``text`` (split on 2+ newlines), stripped, empty ones dropped."""
    return [para for para in map(str.strip, _PARAGRAPH_BREAK.split(text)) if para]


def duplicate_fractions(segments: list[str]) -> tuple[float, float]:
    """(duplicated segments / segments, their characters / all characters)."""
    counts = Counter(segments)
    if len(counts) == len(segments):  # nothing repeated: the usual case, and empty input
        return 0.0, 0.0
    duplicated = [(seg, n) for seg, n in counts.items() if n > 1]
    dup_segments = sum(n for _, n in duplicated)
    dup_chars = sum(len(seg) * n for seg, n in duplicated)
    total_chars = sum(map(len, segments))
    return dup_segments / len(segments), (dup_chars / total_chars if total_chars else 0.0)


class _RepeatedNgrams:
    """For each n, the n-grams of a word list that occur more than once, computed lazily.

    Level n keeps the sorted start positions of repeated n-grams and their counts. Level n is
    built only from level n-1's starts, since both occurrences of a repeated n-gram begin with a
    repeated (n-1)-gram; the candidates shrink fast as n grows, so the n-grams of a long text are
    never all built for n >= 3.
    """

    def __init__(self, words: list[str]) -> None:
        self._words = tuple(words)  # tuple slices are tuples: cheap hashable n-gram keys
        self._levels: dict[int, tuple[list[int], Counter]] = {}
        self._empty_from = len(words) + 1  # smallest n known to have no repeated n-gram
        self._prefix_chars: list[int] | None = None
        self.total_chars = sum(map(len, words))

    def _build(self, n: int) -> tuple[list[int], Counter]:
        words, n_words = self._words, len(self._words)
        if n <= 2:  # base levels: count every n-gram, all in C
            grams = list(words) if n == 1 else list(zip(words, words[1:]))
            starts: range | list[int] = range(len(grams))
        else:
            prev_starts = self.level(n - 1)[0]
            starts = prev_starts[: bisect_right(prev_starts, n_words - n)]
            grams = [words[i : i + n] for i in starts]
        counts = Counter(grams)
        repeated = [start for start, gram in zip(starts, grams) if counts[gram] > 1]
        return repeated, counts

    def level(self, n: int) -> tuple[list[int], Counter]:
        """(sorted starts of repeated n-grams, counts of the n-grams at the candidate starts).

        The counts are exact for every repeated n-gram; others show a count of 1 (or are absent).
        """
        if n < 1:
            raise ValueError(f"n-gram size must be >= 1, got {n}")
        level = self._levels.get(n)
        if level is None:
            # At and above an empty level every level is empty: no need to build it.
            level = _NO_REPEATS if n >= self._empty_from else self._build(n)
            if not level[0]:
                self._empty_from = min(self._empty_from, n)
            self._levels[n] = level
        return level

    def top_char_frac(self, n: int) -> float:
        starts, counts = self.level(n)
        if not starts or not self.total_chars:
            return 0.0
        top = max(counts.values())
        # Ties are few: pick them out with C iterators rather than a loop over every n-gram.
        tied = compress(counts.keys(), map(top.__eq__, counts.values()))
        return top * max(map(_gram_chars, tied)) / self.total_chars

    def dup_char_frac(self, n: int) -> float:
        starts = self.level(n)[0]
        if not starts or not self.total_chars:
            return 0.0
        if self._prefix_chars is None:
            self._prefix_chars = list(accumulate(map(len, self._words), initial=0))
        return _covered_chars(starts, n, self._prefix_chars) / self.total_chars


_NO_REPEATS: tuple[list[int], Counter] = ([], Counter())  # shared, never mutated


def _gram_chars(gram: str | tuple[str, ...]) -> int:
    return len(gram) if isinstance(gram, str) else sum(map(len, gram))


def _covered_chars(starts: list[int], n: int, prefix_chars: list[int]) -> int:
    """Characters of the words in the union of [s, s + n) over sorted ``starts``."""
    covered = 0
    run_start = run_end = 0  # current merged run of words, half-open
    for start in starts:
        if start > run_end:  # gap: close the run
            covered += prefix_chars[run_end] - prefix_chars[run_start]
            run_start = start
        run_end = start + n  # starts are sorted, so run ends never move back
    return covered + prefix_chars[run_end] - prefix_chars[run_start]


def repetition_signals(text: str, p: RepetitionParams = DEFAULT_PARAMS, segmentation: str = WHITESPACE,
                       shared: dict | None = None) -> tuple:
    """Every fraction a rule compares, in rule_names(p)'s order, measured whatever the thresholds say.
    `segmentation`: how words are split (filters.languages); `shared`: the words and lines the Gopher
    quality rules split the same document into (gopher.text_words)."""
    values = [*duplicate_fractions(split_paragraphs(text)), *duplicate_fractions(text_lines(text, shared))]
    ngrams = _RepeatedNgrams(text_words(text, segmentation, shared))
    values += [ngrams.top_char_frac(n) for n, _ in p.top_ngram_char_frac]
    values += [ngrams.dup_char_frac(n) for n, _ in p.dup_ngram_char_frac]
    return tuple(values)


def repetition_decision(s: tuple, p: RepetitionParams = DEFAULT_PARAMS) -> tuple[str, float] | None:
    """None if the signals pass; else (rule, measured value) of the FIRST failing rule."""
    for (rule, limit), value in zip(_rules_and_limits(p), s):
        if value > limit:
            return rule, value
    return None


@by_identity
def _rules_and_limits(p: RepetitionParams) -> tuple[tuple[str, float], ...]:
    limits = (p.dup_para_frac, p.dup_para_char_frac, p.dup_line_frac, p.dup_line_char_frac,
              *(m for _, m in p.top_ngram_char_frac), *(m for _, m in p.dup_ngram_char_frac))
    return tuple(zip(rule_names(p), limits))


def gopher_repetition(text: str, p: RepetitionParams = DEFAULT_PARAMS,
                      segmentation: str = WHITESPACE) -> tuple[str, float] | None:
    """None if the text passes; else (rule, measured value) of the FIRST failing rule (the decision on
    the text's signals). Rules and their order are listed in the module docstring."""
    return repetition_decision(repetition_signals(text, p, segmentation), p)


def rule_names(p: RepetitionParams) -> tuple[str, ...]:
    """Every rule `gopher_repetition` can return with these parameters, in its order."""
    return ("dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac",
            *(f"top_{n}gram_char_frac" for n, _ in p.top_ngram_char_frac),
            *(f"dup_{n}gram_char_frac" for n, _ in p.dup_ngram_char_frac))


def measuring_table(table: dict) -> dict:
    """What the signals depend on: the n-gram sizes, not the maximum fractions; and the settings per
    language (segmentation)."""
    out = {k: [pair[0] for pair in table.get(k) or []] for k in ("top_ngram_char_frac", "dup_ngram_char_frac")}
    return {**out, "languages": table["languages"]} if table.get("languages") else out


# measured with the segmentation of the document's language, decided with its maxima
MEASURE, DECIDE = per_language("repetition", repetition_signals, repetition_decision)


FILTER = FilterSpec("repetition", RepetitionParams, MEASURE, decide=DECIDE, reads="doc",
                    languages=True,
                    signals=lambda p: {"lang": pa.string(), **{rule: pa.float64() for rule in rule_names(p)}},
                    thresholds=("dup_line_frac", "dup_para_frac", "dup_line_char_frac", "dup_para_char_frac"),
                    memo_table=measuring_table, rules=rule_names)
