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


class BadWordsFilter:
    def __init__(self, params: BadWordsParams, resources: dict):
        self.params = params
        lists = load_lists(resources["badwords_lists"], resources["badwords_lists_sha256"]) \
            if "badwords_lists" in resources else {}
        self.patterns = {}
        for lang, words in lists.items():
            alt = "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))
            if not alt:
                continue
            self.patterns[lang] = re.compile(alt if lang in NO_SPACES else rf"(?:\W|^)({alt})(?:\W|$)")

    def check(self, doc) -> tuple[str, float, str] | None:
        pattern = self.patterns.get(doc.lang or self.params.default_language)
        if pattern is None:
            return None
        m = pattern.search(doc.text.lower())
        if m is None or kept_by_chance(doc.id, self.params.seed, self.params.keep_fraction):
            return None
        return "badword", 1.0, m.group(m.lastindex or 0)


FILTER = FilterSpec("badwords", BadWordsParams, BadWordsFilter, prepare=prepare, identity=identity, reads="doc",
                    sources=_sources, rules=lambda p: ("badword",))
