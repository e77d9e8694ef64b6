"""Gopher quality rules (Rae et al. 2021, "Scaling Language Models", appendix A.1.1).

``gopher_quality(text, params)`` returns ``None`` when the text passes every rule, else
``(rule, value)`` for the FIRST failing rule, where ``value`` is the measured quantity the rule
compared, as a float. Pure function: no I/O, no global state besides compiled regexes.

Definitions (shared with :mod:`corpus.filters.repetition`, which imports the helpers below):

* **word** -- a token of ``text.split()`` (split on ``str.isspace`` whitespace) that holds at
  least one ``str.isalnum()`` character (a letter or digit of any script). Tokens made only of
  punctuation or symbols (``,``  ``-``  ``...``  ``@-@``  ``#``  ``•``  ``_``) are not words, as
  datatrove drops punctuation-only tokens from its word count. Punctuation attached to a word
  stays part of it: ``"shirt."`` is one word of 6 characters. No NLTK/spaCy: one linear regex
  pass. So on ordinary prose the mean word length runs above that of a tokenizer splitting
  punctuation off, as datatrove's NLTK does (median +0.16 characters on TinyStories), and
  n-grams see ``"shirt."`` and ``"shirt"`` as different words.
* **word length** -- ``len()`` of the word, in Unicode code points.
* **line** -- a piece of ``str.splitlines()`` (``\\n``, ``\\r\\n`` and the other Unicode line
  breaks), stripped of surrounding whitespace; blank lines are dropped, so blank separator lines
  never dilute the bullet/ellipsis line ratios.
* **alphabetic word** -- a word holding an alphanumeric character that is not a decimal digit:
  any ``str.isalpha()`` letter, and also the rare numeric symbols such as ``²`` ``½`` ``Ⅻ``.
* **stop word occurrence** -- a word that, stripped of leading/trailing punctuation (characters
  neither alphanumeric, ``_`` nor whitespace), equals one of ``params.stop_words`` ignoring case.
  Every occurrence counts, as in datatrove; unlike datatrove's, the match ignores case so that a
  sentence-initial "The" counts.

Rules, in the fixed order they are checked (a rule fails when its value is strictly beyond its
threshold; ``p`` is the :class:`GopherParams`):

 1. ``min_words``             word count < ``p.min_words``
 2. ``max_words``             word count > ``p.max_words``
 3. ``min_mean_word_length``  mean word length < ``p.min_mean_word_length``
 4. ``max_mean_word_length``  mean word length > ``p.max_mean_word_length``
 5. ``max_symbol_word_ratio``     ``#`` characters anywhere in the text / word count
                                  > ``p.max_symbol_word_ratio`` (detail ``'#' per word``)
 6. ``max_symbol_word_ratio``     (occurrences of ``...`` + of ``…``) / word count
                                  > ``p.max_symbol_word_ratio`` (``....`` holds one ``...``; detail
                                  ``ellipses per word``)
 7. ``max_bullet_lines_ratio``    lines starting with a bullet (:data:`BULLET_PREFIXES`) / lines
                                  > ``p.max_bullet_lines_ratio``
 8. ``max_ellipsis_lines_ratio``  lines ending with ``...`` or ``…`` / lines
                                  > ``p.max_ellipsis_lines_ratio``
 9. ``min_alpha_words_ratio``     alphabetic words / words < ``p.min_alpha_words_ratio``
10. ``min_stop_words``            stop word occurrences < ``p.min_stop_words`` (counting stops as
                                  soon as the minimum is reached, so a passing text is not scanned to
                                  the end)

A rule is named by the config key that sets its threshold, so `corpus rejects`, `why` and the report
use the names a user edits; the two symbol ratios share one key and are told apart by the detail.

Empty or whitespace-only text has 0 words and fails ``min_words`` with value 0.0. Ratios over
zero words or zero lines are 0.0 (only reachable when ``min_words`` is set to 0).

Measure, then decide: ``gopher_signals`` measures every value above (the stop words counted in
full) whatever the thresholds, and ``gopher_decision`` applies the thresholds in order; only
``stop_words`` is a measuring setting, so filters.memo keeps the signals across threshold edits.

Speed: the words come from one regex pass in C (no per-word Python code); the symbol counts are
``str.count``; the alphabetic-word scan is skipped when the text has no digit at all (then every
word holds a letter).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache

import pyarrow as pa

from corpus.filters.languages import AUTO, CHARS, JIEBA, SUDACHI, WHITESPACE, bare_word, per_language, \
    segmentation_for, split_words_chars, split_words_segmenter
from corpus.filters.registry import FilterSpec

__all__ = [
    "BULLET_PREFIXES",
    "DEFAULT_PARAMS",
    "ELLIPSES",
    "GopherParams",
    "count_alpha_words",
    "count_stop_words",
    "gopher_decision",
    "gopher_quality",
    "gopher_signals",
    "nonblank_lines",
    "split_words",
]

# From a token's start (the lookbehind pins matches to token starts, which keeps the scan
# linear), find its first letter/digit lazily, then take the rest of the token.
_WORD = re.compile(r"(?<!\S)\S*?[^\W_]\S*")
# Same shape, but the first letter must be alphabetic: counts words containing a letter.
_ALPHA_WORD = re.compile(r"(?<!\S)\S*?[^\W\d_]")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")

BULLET_PREFIXES: tuple[str, ...] = (
    "•", "‣", "⁃", "◦", "∙", "·", "●", "○", "▪", "▫", "■", "□", "►", "▶", "➢", "✓", "✔", "-", "*",
)  # fmt: skip
ELLIPSES: tuple[str, ...] = ("...", "…")


@dataclass(frozen=True)
class GopherParams:
    """Thresholds of the Gopher quality rules (paper defaults); see the module docstring."""

    min_words: int = 50
    max_words: int = 100_000
    min_mean_word_length: float = 3.0
    max_mean_word_length: float = 10.0
    max_symbol_word_ratio: float = 0.1  # applied to '#' and to ellipses separately
    max_bullet_lines_ratio: float = 0.9
    max_ellipsis_lines_ratio: float = 0.3
    min_alpha_words_ratio: float = 0.8  # fraction of words containing an alphabetic character
    min_stop_words: int = 2
    stop_words: tuple[str, ...] = ("the", "be", "to", "of", "and", "that", "have", "with")
    languages: str = ""  # [filters.gopher.languages] as canonical JSON (filters.languages)


DEFAULT_PARAMS = GopherParams()


def split_words(text: str) -> list[str]:
    """Whitespace tokens of ``text`` that contain a letter or digit, in order."""
    return _WORD.findall(text)


def nonblank_lines(text: str) -> list[str]:
    """Lines of ``text`` stripped of surrounding whitespace, blank ones dropped."""
    return [line for line in map(str.strip, text.splitlines()) if line]


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def count_alpha_words(text: str, n_words: int) -> int:
    """Number of words containing a letter; ``n_words`` is the text's word count."""
    # Without a digit every word's letter-or-digit is a letter: skip the scan (common case).
    if _DIGIT.search(text) is None:
        return n_words
    return len(_ALPHA_WORD.findall(text))


@lru_cache(maxsize=32)
def _stop_word_pattern(stop_words: tuple[str, ...]) -> re.Pattern[str]:
    # The alternation backtracks, so a stop word that prefixes another ("the", "they") is harmless.
    alternatives = "|".join(map(re.escape, stop_words))
    return re.compile(rf"(?<!\S)[^\w\s]*(?:{alternatives})[^\w\s]*(?!\S)", re.IGNORECASE)


def count_stop_words(text: str, stop_words: tuple[str, ...], enough: int) -> int:
    """Stop word occurrences in ``text``, counting no further than ``enough``."""
    if not stop_words or enough <= 0:
        return 0
    count = 0
    for _ in _stop_word_pattern(stop_words).finditer(text):
        count += 1
        if count >= enough:
            break
    return count


HASH_DETAIL, ELLIPSIS_DETAIL = "'#' per word", "ellipses per word"  # the two max_symbol_word_ratio rules


SIGNALS = {"lang": pa.string(), "words": pa.int64(), "mean_word_length": pa.float64(), "hash_ratio": pa.float64(),
           "ellipsis_ratio": pa.float64(), "bullet_lines_ratio": pa.float64(), "ellipsis_lines_ratio": pa.float64(),
           "alpha_words_ratio": pa.float64(), "stop_words": pa.int64()}
# every key but the stop words only decides: a threshold edit decides again from the stored signals
THRESHOLDS = ("min_words", "max_words", "min_mean_word_length", "max_mean_word_length", "max_symbol_word_ratio",
              "max_bullet_lines_ratio", "max_ellipsis_lines_ratio", "min_alpha_words_ratio", "min_stop_words")


def words_of(text: str, segmentation: str = WHITESPACE) -> list[str]:
    """The text's words under a language's segmentation (filters.languages): "whitespace", "chars",
    "jieba", "sudachi", or "auto" (the one languages.segmentation_for picks for this text)."""
    if segmentation == AUTO:
        segmentation = segmentation_for(text)
    if segmentation in (JIEBA, SUDACHI):
        return split_words_segmenter(text, segmentation)
    if segmentation == CHARS:
        return split_words_chars(text)
    return split_words(text)


def _once(shared: dict | None, key, make):
    """make(), computed once per document when `shared` (a Doc's memo, registry.Doc.shared) is given."""
    if shared is None:
        return make()
    found = shared.get(key)
    if found is None:
        found = shared[key] = make()
    return found


def text_words(text: str, segmentation: str = WHITESPACE, shared: dict | None = None) -> list[str]:
    """words_of(text, segmentation), split once per document and segmentation when `shared` is given: the
    Gopher quality and repetition rules read the same words. Never mutated by a reader."""
    return _once(shared, ("words", segmentation), lambda: words_of(text, segmentation))


def text_lines(text: str, shared: dict | None = None) -> list[str]:
    """nonblank_lines(text), once per document when `shared` is given (as text_words)."""
    return _once(shared, "lines", lambda: nonblank_lines(text))


def count_stop_words_in(words: list[str], stop_words: tuple[str, ...]) -> int:
    """Stop word occurrences in a word list (the segmentations other than whitespace)."""
    wanted = {w.casefold() for w in stop_words}
    return sum(1 for word in words if bare_word(word) in wanted) if wanted else 0


def gopher_signals(text: str, p: GopherParams = DEFAULT_PARAMS, segmentation: str = WHITESPACE,
                   shared: dict | None = None) -> tuple:
    """The values every rule compares (SIGNALS' order but the language), each measured whatever the
    thresholds say: the stop words counted in full, so any `min_stop_words` can be decided from them.
    `segmentation`: how words are split (filters.languages); `shared`: see text_words."""
    words = text_words(text, segmentation, shared)
    n_words = len(words)
    lines = text_lines(text, shared)
    if segmentation == WHITESPACE:
        alpha, stops = count_alpha_words(text, n_words), count_stop_words(text, p.stop_words, sys.maxsize)
    else:
        alpha, stops = sum(1 for w in words if _LETTER.search(w)), count_stop_words_in(words, p.stop_words)
    return (n_words, _ratio(len("".join(words)), n_words), _ratio(text.count("#"), n_words),
            _ratio(text.count("...") + text.count("…"), n_words),
            _ratio(sum(1 for line in lines if line.startswith(BULLET_PREFIXES)), len(lines)),
            _ratio(sum(1 for line in lines if line.endswith(ELLIPSES)), len(lines)),
            _ratio(alpha, n_words), stops)


def gopher_decision(s: tuple, p: GopherParams = DEFAULT_PARAMS) -> tuple | None:
    """None if the signals pass; else (rule, measured value) of the FIRST failing rule, or (rule, value,
    detail) for the symbol ratios. Rules and their order are listed in the module docstring."""
    n_words, mean_word_length, hash_ratio, ellipsis_ratio, bullet_ratio, ellipsis_lines, alpha_ratio, stops = s
    if n_words < p.min_words:
        return "min_words", float(n_words)
    if n_words > p.max_words:
        return "max_words", float(n_words)
    if mean_word_length < p.min_mean_word_length:
        return "min_mean_word_length", mean_word_length
    if mean_word_length > p.max_mean_word_length:
        return "max_mean_word_length", mean_word_length
    if hash_ratio > p.max_symbol_word_ratio:
        return "max_symbol_word_ratio", hash_ratio, HASH_DETAIL
    if ellipsis_ratio > p.max_symbol_word_ratio:
        return "max_symbol_word_ratio", ellipsis_ratio, ELLIPSIS_DETAIL
    if bullet_ratio > p.max_bullet_lines_ratio:
        return "max_bullet_lines_ratio", bullet_ratio
    if ellipsis_lines > p.max_ellipsis_lines_ratio:
        return "max_ellipsis_lines_ratio", ellipsis_lines
    if alpha_ratio < p.min_alpha_words_ratio:
        return "min_alpha_words_ratio", alpha_ratio
    # a count capped at the minimum (what the rule needs) is the full count whenever the rule fails
    if min(stops, max(p.min_stop_words, 0)) < p.min_stop_words:
        return "min_stop_words", float(stops)
    return None


def gopher_quality(text: str, p: GopherParams = DEFAULT_PARAMS, segmentation: str = WHITESPACE) -> tuple | None:
    """None if the text passes; else (rule, measured value) of the FIRST failing rule (the decision on
    the text's signals)."""
    return gopher_decision(gopher_signals(text, p, segmentation), p)


# measured with the segmentation and stop words of the document's language, decided with its thresholds
MEASURE, DECIDE = per_language("gopher", gopher_signals, gopher_decision)


FILTER = FilterSpec("gopher", GopherParams, MEASURE, decide=DECIDE, reads="doc", languages=True,
                    signals=lambda p: SIGNALS, thresholds=THRESHOLDS,
                    rules=lambda p: ("min_words", "max_words", "min_mean_word_length", "max_mean_word_length",
                                     "max_symbol_word_ratio", "max_bullet_lines_ratio", "max_ellipsis_lines_ratio",
                                     "min_alpha_words_ratio", "min_stop_words"))
