"""C4's quality rules (Raffel et al. 2020; tensorflow_datasets c4_utils), as datatrove's C4QualityFilter
applies them, with every removal recorded (`[filters.c4]`, a cleaning filter).

Line by line (a line of `str.splitlines()`, stripped), in this order — a line that fails one check is
removed and not looked at further:

 1. `too_long_word`      a word (a `str.split()` token) longer than `max_word_length` characters: removed
 2. `citation`           Wikipedia-style markers (`[1]`, `[edit]`, `[citation needed]`) cut out of the line
 3. `no_terminal_punct`  (with `filter_no_terminal_punct`) the line does not end in . ? ! " ' or ends in ...
 4. `too_few_words`      fewer than `min_words_per_line` words (counted before the citations were cut)
 5. `lorem_ipsum`        "lorem ipsum" in the line: the document is dropped
 6. `javascript`         "javascript" in the line: removed
 7. `curly_bracket`      "{" in the line: the document is dropped
 8. `policy`             a cookie or terms-of-use phrase in the line: removed

Then the document is dropped (`too_few_sentences`) when its kept lines hold fewer than
`min_num_sentences` sentences, counted as a run of text ending in sentence-final punctuation
(`\\p{Sentence_Terminal}`) followed by a space or the end of the line, a full stop after a single letter
or a common abbreviation aside (datatrove counts NLTK punkt's sentences, which knows more abbreviations:
see docs/web-rules.md). The text kept is the
kept lines joined by newlines. Blank lines are dropped without a record."""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from corpus.filters.gopher import words_of
from corpus.filters.languages import REFERENCE, WHITESPACE, rules_for
from corpus.filters.registry import FilterSpec

CITATION = re.compile(r"\[\d*]|\[edit]|\[citation needed]")
END_PUNCTUATION = (".", "?", "!", '"', "'")
ELLIPSIS = "..."
POLICY_SUBSTRINGS = ("terms of use", "privacy policy", "cookie policy", "uses cookies", "use of cookies",
                     "use cookies")
UNICODE_END = regex.compile(r"\p{Sentence_Terminal}[\"'’”»」』）)\]]*$")
SENTENCE_END = regex.compile(r"\p{Sentence_Terminal}+[\"'’”)\]]*(?:\s|$)")
LINE_RULES = ("too_long_word", "citation", "no_terminal_punct", "too_few_words", "javascript", "policy")
DOC_RULES = ("lorem_ipsum", "curly_bracket", "too_few_sentences")


@dataclass(frozen=True)
class C4Params:
    filter_no_terminal_punct: bool = True
    remove_citations: bool = True
    min_num_sentences: int = 5            # -1: off
    min_words_per_line: int = 3           # -1: off
    max_word_length: int = 1000           # -1: off
    filter_lorem_ipsum: bool = True
    filter_javascript: bool = True
    filter_curly_bracket: bool = True
    filter_policy: bool = True
    languages: str = ""  # [filters.c4.languages] as canonical JSON (filters.languages)


# a full stop after these (or after a single letter: "J. Smith", "U.S.") ends no sentence
ABBREVIATIONS = frozenset("mr mrs ms dr prof st jr sr vs etc inc ltd co corp no fig vol pp approx dept est "
                          "e.g i.e cf al jan feb mar apr jun jul aug sep sept oct nov dec".split())


def count_sentences(line: str) -> int:
    """Sentence ends in a line, an abbreviation's full stop aside (a line with text and no end is one)."""
    n = 0
    for m in SENTENCE_END.finditer(line):
        if line[m.start()] == ".":
            word = line[:m.start()].rsplit(None, 1)[-1].lower() if line[:m.start()].strip() else ""
            if len(word) == 1 or word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
                continue
        n += 1
    return n if n or not line.strip() else 1


def ends_a_sentence(line: str, english: bool) -> bool:
    """C4's terminal punctuation: its ASCII marks for English (and when the language is not known), any
    sentence terminal (。！？।؟…) followed by closing quotes or brackets for the other languages; never an
    ellipsis."""
    if line.endswith(ELLIPSIS):
        return False
    return line.endswith(END_PUNCTUATION) if english else UNICODE_END.search(line) is not None


def c4_clean(text: str, p: C4Params, lang: str = "", segmentation: str = WHITESPACE) -> tuple[str, list, tuple | None]:
    """(text kept, [(rule, line number, removed text)], None or (rule, value) dropping the document).
    `lang` and `segmentation`: the document's language and how its words are split (filters.languages)."""
    removed: list = []
    kept: list[str] = []
    sentences = 0
    english = lang in ("", REFERENCE)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        words = line.split() if segmentation == WHITESPACE else words_of(line, segmentation)
        if p.max_word_length != -1 and any(len(w) > p.max_word_length for w in words):
            removed.append(("too_long_word", n, line))
            continue
        if p.remove_citations and "[" in line:
            cut = CITATION.sub("", line)
            if cut != line:
                removed.append(("citation", n, "".join(CITATION.findall(line))))
                line = cut
        if p.filter_no_terminal_punct and not ends_a_sentence(line, english):
            removed.append(("no_terminal_punct", n, line))
            continue
        if len(words) < p.min_words_per_line:
            removed.append(("too_few_words", n, line))
            continue
        low = line.lower()
        if p.filter_lorem_ipsum and "lorem ipsum" in low:
            return text, removed, ("lorem_ipsum", float(n))
        if p.filter_javascript and "javascript" in low:
            removed.append(("javascript", n, line))
            continue
        if p.filter_curly_bracket and "{" in line:
            return text, removed, ("curly_bracket", float(n))
        if p.filter_policy and any(s in low for s in POLICY_SUBSTRINGS):
            removed.append(("policy", n, line))
            continue
        if p.min_num_sentences != -1:
            sentences += count_sentences(line)
        kept.append(line)
    if sentences < p.min_num_sentences:
        return "\n".join(kept), removed, ("too_few_sentences", float(sentences))
    return "\n".join(kept), removed, None


class C4Filter:
    """The line rules with the terminal marks and word segmentation of the document's language."""

    def __init__(self, params: C4Params, resources: dict):
        self.rules = rules_for("c4", params)

    def clean(self, text: str, lang: str = "") -> tuple[str, list, tuple | None]:
        setting = self.rules.setting(lang)
        return c4_clean(text, setting.params, lang, setting.segmentation)


FILTER = FilterSpec("c4", C4Params, C4Filter, cleans=True, languages=True, rules=lambda p: LINE_RULES + DOC_RULES)
