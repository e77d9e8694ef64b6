"""Word rules per language (FineWeb-2's approach): the word-counting rules (gopher, repetition) read the
document's language, found by the lang filter, and use that language's word segmentation, stop words and
thresholds.

The per-language table (languages.json beside this module) is *derived*, never typed: `bench/lang_derive.py`
computes it from the reference text of each language in the ledger (the `lingua-<code>` rows), and records
their sha256. What it holds per language:

* `segmentation`: "whitespace" (a word is a whitespace token holding a letter or digit, as in gopher.py),
  "jieba" (Chinese) or "sudachi" (Japanese): a segmenter's words, or "chars" (other scripts written
  without spaces, Thai, Lao, Khmer, Myanmar: each such character a word, the rest split on whitespace).
  Derived by `segmentation_for` from the reference's scripts.
* `stop_words`: the language's most frequent words, as many as it takes to cover the share of the words
  of the English reference that the configured English stop words cover (so the rule means the same
  thing in every language).
* `scale`: per threshold key, the factor that carries the configured (English) threshold over to the
  language: the ratio of the language's reference median of the measured value to the English one. So
  an edit of `filters.gopher.min_words` moves every language's threshold with it.

The top-level table of a rule (`[filters.gopher]`) is the English setting, and the setting of documents
whose language is not known (the lang filter off, or after the rule). A language missing from the table is
given language-agnostic settings: the segmentation `segmentation_for` picks per document ("auto"), no
stop-word rule, and the widest word-count and word-length bounds of the table's languages;
the filter stage counts those documents and the run table warns. `[filters.<rule>.languages.<code>]`
overrides any key for one language (and adds a language to the table)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from pathlib import Path

import regex

TABLE_PATH = Path(__file__).with_name("languages.json")
REFERENCE = "en"          # the language whose thresholds the top-level tables hold
WHITESPACE, CHARS, AUTO = "whitespace", "chars", "auto"
_KANA = regex.compile(r"[\p{Hiragana}\p{Katakana}]")

NO_SPACE_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_CHAR_WORD = regex.compile(rf"[{NO_SPACE_SCRIPTS}]|(?:(?![{NO_SPACE_SCRIPTS}])\S)+")
_NO_SPACE_LETTER = regex.compile(rf"[{NO_SPACE_SCRIPTS}]")
_HAS_ALNUM = re.compile(r"[^\W_]")
_EDGE_PUNCT = re.compile(r"^[^\w\s]+|[^\w\s]+$")


def split_words_chars(text: str) -> list[str]:
    """Words of text written (partly) without spaces: each Han/kana/Thai/... character is a word, the other
    whitespace tokens holding a letter or digit are words as in gopher.split_words."""
    return [w for w in _CHAR_WORD.findall(text) if _HAS_ALNUM.search(w)]


# Segmenters for the languages written without spaces that have a well-kept one, as datatrove's FineWeb-2
# word tokenizers choose them (spaCy's zh and ja tokenizers wrap these two): jieba for Chinese, SudachiPy
# (core dictionary, mode C: the longest units) for Japanese. Character counts run 1.74x their word counts on
# the lingua sentences (zh 31,179 characters / 17,887 jieba words; ja 16,654 / 9,658 Sudachi words), so a
# word rule counting characters would not mean what it means in English. Loaded once per process, lazily.
JIEBA, SUDACHI = "jieba", "sudachi"
SUDACHI_MAX_BYTES = 40_000  # Sudachi refuses an input over 49,149 bytes: a text is cut at line ends below it


@functools.cache
def _jieba():
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" lines are no run log's business
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


@functools.cache
def _sudachi():
    from sudachipy import Dictionary, SplitMode

    return Dictionary(dict="core").tokenizer(SplitMode.C)


def _sudachi_pieces(text: str):
    """The text in pieces of at most SUDACHI_MAX_BYTES bytes, cut after a newline (or anywhere, for a
    longer line: at a character)."""
    start, size = 0, 0
    for i, c in enumerate(text):
        size += len(c.encode("utf-8", "surrogatepass"))
        if size >= SUDACHI_MAX_BYTES or (c == "\n" and size >= SUDACHI_MAX_BYTES // 2):
            yield text[start:i + 1]
            start, size = i + 1, 0
    if start < len(text):
        yield text[start:]


def split_words_segmenter(text: str, segmenter: str) -> list[str]:
    """Words by jieba or Sudachi: the segments holding a letter or digit."""
    if segmenter == JIEBA:
        pieces = _jieba().cut(text)
    else:
        tok = _sudachi()
        pieces = (m.surface() for piece in _sudachi_pieces(text) for m in tok.tokenize(piece))
    return [w for w in pieces if _HAS_ALNUM.search(w)]


def written_without_spaces(text: str) -> bool:
    """Most of the text's letters are of scripts written without spaces (the language-agnostic choice)."""
    letters = sum(map(str.isalpha, text))  # per character, in C (a generator costs 5x more on a long text)
    return letters > 0 and 2 * len(_NO_SPACE_LETTER.findall(text)) > letters


def segmentation_for(text: str) -> str:
    """The derivation's choice for a reference text: Sudachi when it is written without spaces and holds
    kana (Japanese), jieba when it is written without spaces in Han (Chinese), chars for the other scripts
    written without spaces (no segmenter here: Thai, Khmer, ...), else whitespace."""
    if not written_without_spaces(text):
        return WHITESPACE
    han_or_kana = len(regex.findall(r"[\p{Han}\p{Hiragana}\p{Katakana}]", text))
    if not han_or_kana or 2 * han_or_kana < len(_NO_SPACE_LETTER.findall(text)):
        return CHARS
    return SUDACHI if 10 * len(_KANA.findall(text)) > han_or_kana else JIEBA


def bare_word(word: str) -> str:
    """A word as stop words are matched: without leading/trailing punctuation, case-folded."""
    return _EDGE_PUNCT.sub("", word).casefold()


@functools.cache
def languages_table_sha256() -> str:
    return hashlib.sha256(TABLE_PATH.read_bytes()).hexdigest()


@functools.cache
def derived_table() -> dict:
    """languages.json: {"method", "inputs", "languages": {code: {"segmentation", "stop_words", "scale"}},
    "agnostic": {"scale"}}."""
    return json.loads(TABLE_PATH.read_text(encoding="utf-8"))


@dataclasses.dataclass(frozen=True)
class LanguageSetting:
    """The parameters one rule uses for one language, and how it splits words."""
    params: object
    segmentation: str         # WHITESPACE, CHARS, JIEBA, SUDACHI, or AUTO (per document: language-agnostic)
    known: bool               # the language has an entry (derived or configured); False: language-agnostic


def _scaled(params, scale: dict, overrides: dict, stop_words):
    """params with each scaled key multiplied (ints stay ints, fractions capped at 1), then `overrides`."""
    changes: dict = {}
    for key, factor in scale.items():
        value = getattr(params, key)
        if isinstance(value, tuple):   # repetition's ((n, max), ...) pairs: factor per n as {"n": f}
            changes[key] = tuple((n, min(1.0, m * factor.get(str(n), 1.0))) for n, m in value)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            changes[key] = max(0, round(value * factor))
        else:
            changes[key] = value * factor
    if stop_words is not None and hasattr(params, "stop_words"):
        changes["stop_words"] = tuple(stop_words)
    names = {f.name for f in dataclasses.fields(params)}
    changes.update({k: (tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v)
                    for k, v in overrides.items() if k in names})
    return dataclasses.replace(params, **changes)


class LanguageRules:
    """One rule's settings per language: the configured table (the English one), the derived table, and
    the table's `languages` overrides. `setting(lang)` is cached per language."""

    def __init__(self, rule: str, params, overrides: dict | None):
        self.rule, self.params, self.overrides = rule, params, dict(overrides or {})
        self._cache: dict[str, LanguageSetting] = {}

    def setting(self, lang: str) -> LanguageSetting:
        found = self._cache.get(lang)
        if found is None:
            found = self._cache[lang] = self._setting(lang)
        return found

    def _setting(self, lang: str) -> LanguageSetting:
        own = dict(self.overrides.get(lang, {}))
        segmentation = own.pop("segmentation", None)
        if not lang or lang == REFERENCE:
            return LanguageSetting(_scaled(self.params, {}, own, None), segmentation or WHITESPACE, True)
        entry = derived_table()["languages"].get(lang)
        if entry is not None:
            return LanguageSetting(_scaled(self.params, entry["scale"].get(self.rule, {}), own, entry["stop_words"]),
                                   segmentation or entry["segmentation"], True)
        agnostic = derived_table()["agnostic"]["scale"].get(self.rule, {})
        params = _scaled(self.params, agnostic, {}, None)
        if hasattr(params, "min_stop_words"):
            params = dataclasses.replace(params, min_stop_words=0)   # no stop words known: no stop-word rule
        params = _scaled(params, {}, own, None)
        return LanguageSetting(params, segmentation or AUTO, bool(self.overrides.get(lang)))


def by_identity(fn):
    """fn(params) memoised on the params object itself (kept alive with its result, so its id is not
    reused): what a rule computes from its parameters once, looked up per document without hashing the
    dataclass's every field (lru_cache's ~2 µs a call, 50,000 calls a 55 MB run's filter stage). At most
    256 objects a process."""
    memo: dict[int, tuple] = {}

    @functools.wraps(fn)
    def cached(params):
        hit = memo.get(id(params))
        if hit is not None and hit[0] is params:
            return hit[1]
        if len(memo) >= 256:
            memo.clear()
        value = fn(params)
        memo[id(params)] = (params, value)
        return value
    return cached


@functools.lru_cache(maxsize=64)
def rules_for(rule: str, params) -> LanguageRules:
    """The LanguageRules of a rule's (hashable) parameters, whose `languages` field holds its
    [filters.<rule>.languages] table as canonical JSON: one per process and setting."""
    return LanguageRules(rule, params, json.loads(params.languages) if params.languages else None)


def per_language(rule: str, signals, decision) -> tuple[type, object]:
    """A FilterSpec's (make, decide) for a rule set per language: it measures `signals(text, params,
    segmentation)` with the settings of the document's language and records that language as the first
    signal, and `decision(signals, params)` decides with the same language's thresholds."""

    class Checker:
        def __init__(self, params, resources: dict):
            self.rules = rules_for(rule, params)

        def measure(self, doc) -> tuple:
            setting = self.rules.setting(doc.lang)
            return (doc.lang, *signals(doc.text, setting.params, setting.segmentation, doc.shared))

    rules_of = by_identity(lambda params: rules_for(rule, params))

    def decide(params, values: tuple, decided) -> tuple:
        return None, decision(values[1:], rules_of(params).setting(values[0]).params)

    Checker.__name__ = Checker.__qualname__ = f"{rule.capitalize()}PerLanguage"
    return Checker, decide


def known_languages(filters_cfg: dict) -> set[str]:
    """The languages with word rules: the reference, the derived table's, those the enabled rules'
    `languages` tables add."""
    out = {REFERENCE, *derived_table()["languages"]}
    for name in ("gopher", "repetition", "c4", "fineweb"):
        table = filters_cfg.get(name, {})
        if table.get("enabled"):
            out |= set(table.get("languages") or {})
    return out
