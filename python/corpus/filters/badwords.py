"""C4's bad-words filter (`[filters.badwords]`): a document holding a word of its language's list (the
LDNOOBW lists C4 used, each a ledger source of role list: `lists = {en = "ldnoobw-en", ...}`) is dropped,
rule `badword`, detail the word. The language is the one the lang filter found (it must come before;
`default_language` when it is off); a language with no list keeps its documents. Words match on word
boundaries (not inside another word), lower-cased; in languages written without spaces (ja, th, zh) a
word matches anywhere, and C4's allowlist keeps the few common subwords that would drop >10% of their
documents (ja: sm, グロ, 女の子; zh: 性). `keep_fraction` keeps that share of such documents, chosen by a
hash of (seed, document id): the same documents whatever the order, workers or partitions."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from corpus.filters.lists import entries, list_rows, load_lists, write_lists
from corpus.filters.registry import FilterSpec

NO_SPACES = ("ja", "th", "zh")
WORD = re.compile(r"\w+")
ALLOWLIST = {"ja": {"sm", "グロ", "女の子"}, "zh": {"性"}}


@dataclass(frozen=True)
class BadWordsParams:
    lists: dict = field(default_factory=dict)   # language -> ledger source id
    keep_fraction: float = 0.0
    seed: int = 0
    default_language: str = "en"


def _sources(config) -> list[str]:
    return sorted(set((config["filters"]["badwords"]["lists"] or {}).values()))


def identity(config) -> dict:
    rows = list_rows(config, _sources(config), "filters.badwords.lists")
    return {"badwords_list_sha256": {r["source_id"]: r["sha256"] for r in rows}}


def prepare(config, staging: Path) -> tuple[list[dict], dict]:
    table = config["filters"]["badwords"]
    lists = {}
    ledger = {r["source_id"]: r for r in list_rows(config, _sources(config), "filters.badwords.lists")}
    for lang, sid in sorted((table["lists"] or {}).items()):
        words = {e.lower() for e in entries(config, ledger[sid])} - ALLOWLIST.get(lang, set())
        lists[lang] = sorted(words)
    entry, resources = write_lists(staging, "badwords", lists)
    return [entry], resources


def kept_by_chance(doc_id: str, seed: int, fraction: float) -> bool:
    """A uniform draw from the hash of (seed, id): the same for a document wherever it is processed."""
    if fraction <= 0:
        return False
    h = int.from_bytes(hashlib.sha256(f"{seed}:{doc_id}".encode("utf-8")).digest()[:8], "big")
    return h / 2**64 < fraction


def _phrase(low: str, by_first: dict[str, list[str]]) -> str | None:
    """The first entry that stands in the text from the start of a word (a maximal \\w run) and is not
    followed by a word character: exactly where the regex (?:\\W|^)entry(?:\\W|$) would match."""
    for m in WORD.finditer(low):
        for entry in by_first.get(m.group(), ()):
            end = m.start() + len(entry)
            if low.startswith(entry, m.start()) and WORD.match(low, end) is None:
                return entry
    return None


class BadWordsFilter:
    def __init__(self, params: BadWordsParams, resources: dict):
        self.params = params
        lists = load_lists(resources["badwords_lists"], resources["badwords_lists_sha256"]) \
            if "badwords_lists" in resources else {}
        # per language: (the words made of word characters only: a set looked up per \w+ run of the text,
        # which is exactly "flanked by non-word characters or the ends"; the phrases by their first word;
        # the rest by regex). A language written without spaces: one regex of every word, anywhere.
        self.lists: dict[str, tuple] = {}
        for lang, words in lists.items():
            if lang in NO_SPACES:
                alt = "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))
                self.lists[lang] = (frozenset(), {}, re.compile(alt) if alt else None)
                continue
            plain = frozenset(w for w in words if WORD.fullmatch(w))
            # a phrase ("2 girls 1 cup") or a word with other characters ("a$$"): looked for where the text
            # has its first word, by comparing the text there; one starting with a non-word character by regex
            by_first: dict[str, list[str]] = {}
            always = []
            for w in sorted(words):
                if w in plain:
                    continue
                first = WORD.match(w)
                if first:
                    by_first.setdefault(first.group(), []).append(w)
                else:
                    always.append(re.compile(rf"(?:\W|^)({re.escape(w)})(?:\W|$)"))
            self.lists[lang] = (plain, by_first, always)

    def check(self, doc) -> tuple[str, float, str] | None:
        found = self.lists.get(doc.lang or self.params.default_language)
        if found is None:
            return None
        plain, by_first, rest = found
        low = doc.text.lower()
        hit = None
        if isinstance(rest, re.Pattern) or rest is None:  # a language written without spaces
            m = rest.search(low) if rest is not None else None
            hit = m.group() if m else None
        else:
            tokens = WORD.findall(low)
            if not plain.isdisjoint(tokens):
                hit = next(w for w in tokens if w in plain)
            elif not by_first.keys().isdisjoint(tokens):
                hit = _phrase(low, by_first)
            if hit is None:
                hits = [m for rx in rest if (m := rx.search(low)) is not None]
                hit = min(hits, key=lambda m: m.start(1)).group(1) if hits else None
        if hit is None or kept_by_chance(doc.id, self.params.seed, self.params.keep_fraction):
            return None
        return "badword", 1.0, hit


FILTER = FilterSpec("badwords", BadWordsParams, BadWordsFilter, prepare=prepare, identity=identity, reads="doc",
                    sources=_sources, rules=lambda p: ("badword",))
