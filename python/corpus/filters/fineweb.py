"""FineWeb's quality rules (Penedo et al. 2024), as datatrove's FineWebQualityFilter defines them
(`[filters.fineweb]`). Lines are the pieces of `text.split("\\n")` that are not blank; words are runs of
word characters or single punctuation marks (`\\w+|[^\\w\\s]`, close to the NLTK tokens datatrove counts).
Rules, checked in this order (the first failing one drops the document, with its measured value):

 1. `empty`             no line
 2. `line_punct_ratio`  lines ending in sentence-final punctuation (`\\p{Sentence_Terminal}`) / lines
                        < `line_punct_thr` (unless 0 and `line_punct_exclude_zero`)
 3. `short_line_ratio`  lines of at most `short_line_length` characters / lines > `short_line_thr`
 4. `char_dup_ratio`    characters in lines seen before in the document / characters (newlines aside)
                        > `char_duplicates_ratio`
 5. `list_ratio`        newlines / words > `new_line_ratio`

`fineweb_signals` measures the line count and the four ratios (`short_line_length` is its only measuring
setting); `fineweb_decision` applies the thresholds in this order.

Per language (filters.languages): a short line is `short_line_length` scaled by the language's factor (the
ratio of its reference sentences' median length in characters to English's: a Chinese line says in 40
characters what an English one says in 110), and the words of `list_ratio` are the language's segmenter's
(jieba, Sudachi) where it has one; the language is the first signal."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
import regex

from corpus.filters.languages import JIEBA, SUDACHI, WHITESPACE, per_language
from corpus.filters.registry import FilterSpec

TERMINAL = regex.compile(r"\p{Sentence_Terminal}$")
WORDS = re.compile(r"\w+|[^\w\s]")
PUNCT = re.compile(r"[^\w\s]")
RULES = ("empty", "line_punct_ratio", "short_line_ratio", "char_dup_ratio", "list_ratio")


@dataclass(frozen=True)
class FineWebParams:
    line_punct_thr: float = 0.12
    line_punct_exclude_zero: bool = False
    short_line_thr: float = 0.67
    short_line_length: int = 30
    char_duplicates_ratio: float = 0.01
    new_line_ratio: float = 0.3
    languages: str = ""  # [filters.fineweb.languages] as canonical JSON (filters.languages)


def duplicate_chars(lines: list[str]) -> int:
    seen: set[str] = set()
    dup = 0
    for line in lines:
        if line in seen:
            dup += len(line)
        else:
            seen.add(line)
    return dup


SIGNALS = {"lang": pa.string(), "lines": pa.int64(), "line_punct_ratio": pa.float64(), "short_line_ratio": pa.float64(),
           "char_dup_ratio": pa.float64(), "list_ratio": pa.float64()}
# every key but short_line_length (what a short line is) only decides
THRESHOLDS = ("line_punct_thr", "line_punct_exclude_zero", "short_line_thr", "char_duplicates_ratio", "new_line_ratio")


def fineweb_signals(text: str, p: FineWebParams, segmentation: str = WHITESPACE, shared: dict | None = None) -> tuple:
    """(lines, and the four ratios the rules compare: 0.0 each when there is no line)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return 0, 0.0, 0.0, 0.0, 0.0
    punct = sum(1 for line in lines if TERMINAL.search(line)) / len(lines)
    short = sum(1 for line in lines if len(line) <= p.short_line_length) / len(lines)
    chars = len(text) - text.count("\n")
    dup = duplicate_chars(lines) / chars if chars else 0.0
    if segmentation in (JIEBA, SUDACHI):  # its words, and the punctuation marks as the regex counts them
        from corpus.filters.gopher import text_words
        words = len(text_words(text, segmentation, shared)) + len(PUNCT.findall(text))
    else:
        words = len(WORDS.findall(text))
    listed = text.count("\n") / words if words else float(text.count("\n"))
    return len(lines), punct, short, dup, listed


def fineweb_decision(s: tuple, p: FineWebParams) -> tuple[str, float] | None:
    lines, punct, short, dup, listed = s
    if not lines:
        return "empty", 0.0
    if punct < p.line_punct_thr and not (punct == 0 and p.line_punct_exclude_zero):
        return "line_punct_ratio", punct
    if short > p.short_line_thr:
        return "short_line_ratio", short
    if dup > p.char_duplicates_ratio:
        return "char_dup_ratio", dup
    if listed > p.new_line_ratio:
        return "list_ratio", listed
    return None


def fineweb_quality(text: str, p: FineWebParams, segmentation: str = WHITESPACE) -> tuple[str, float] | None:
    return fineweb_decision(fineweb_signals(text, p, segmentation), p)


# measured with the short-line length and segmentation of the document's language
MEASURE, DECIDE = per_language("fineweb", fineweb_signals, fineweb_decision)


FILTER = FilterSpec("fineweb", FineWebParams, MEASURE, decide=DECIDE, reads="doc", languages=True,
                    signals=lambda p: SIGNALS, thresholds=THRESHOLDS, rules=lambda p: RULES)
