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


ASCII_WORD = re.compile(r"[a-z0-9_]+")
_NOT_ASCII_WORD = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789_" else 32 for b in range(256))
# the same for an ASCII text not yet lower-cased: A-Z become a-z (str.lower of ASCII text does just that)
_LOWER_ASCII_WORD = bytes(ord(chr(b).lower()) if chr(b).lower() in "abcdefghijklmnopqrstuvwxyz0123456789_" else 32
                          for b in range(256))


def _ascii_words(low: str) -> list[bytes]:
    """The runs of ASCII word characters of a lower-cased text, every other byte (of UTF-8) a separator.
    A superset test for a list of ASCII words: a word that stands in the text as a whole \\w run (what
    the regex matches) is flanked by non-word characters, ASCII or not, so it is one of these runs. Found
    by bytes.translate and split in C: about ten times faster than a regex over the text."""
    return low.encode("utf-8", "surrogatepass").translate(_NOT_ASCII_WORD).split()


def _ascii_candidates(runs: list[bytes], fast: tuple) -> list[str]:
    """The entries of an ASCII list the text's ASCII word runs allow: a word that is one of the runs, a
    phrase all of whose runs are there (_ascii_words says why no entry standing in the text is missed)."""
    words, phrases, keys = fast
    candidates = [] if words.isdisjoint(runs) else [w.decode("ascii") for w in words.intersection(runs)]
    if not keys.isdisjoint(runs):
        have = set(runs)
        candidates += [entry for k in keys.intersection(have) for need, entry in phrases[k] if need <= have]
    return candidates


def _first_standing(low: str, candidates: list[str]) -> str | None:
    """The candidate that first stands in the lower-cased text (_stands_at), or None."""
    found = [(at, entry) for entry in candidates if (at := _stands_at(low, entry)) is not None]
    return min(found)[1] if found else None


_WORD_CHAR = re.compile(r"\w")


def _stands_at(low: str, entry: str) -> int | None:
    """Where `entry` first stands in the text with no word character just before or after it: exactly
    where the regex (?:\\W|^)entry(?:\\W|$) matches."""
    i = low.find(entry)
    while i >= 0:
        end = i + len(entry)
        if (i == 0 or not _WORD_CHAR.match(low, i - 1)) and (end == len(low) or not _WORD_CHAR.match(low, end)):
            return i
        i = low.find(entry, i + 1)
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
        # language -> (its words, its phrases by their longest word run, those runs), when every entry is ASCII
        self.ascii_lists: dict[str, tuple] = {}
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
                else:  # looked for only where the text holds it at all
                    always.append((w, re.compile(rf"(?:\W|^)({re.escape(w)})(?:\W|$)")))
            self.lists[lang] = (plain, by_first, always)
            phrases = [(WORD.findall(w), w) for ws in by_first.values() for w in ws]
            if all(ASCII_WORD.fullmatch(k) for k in set(plain) | {r for p, _ in phrases for r in p}):
                # the fast path of check answers for these: the words, and each phrase with its word runs
                by_key: dict[bytes, list] = {}  # each phrase under its longest run (the rarest, as a rule)
                for p, w in phrases:
                    need = frozenset(r.encode("ascii") for r in p)
                    by_key.setdefault(max(need, key=lambda r: (len(r), r)), []).append((need, w))
                self.ascii_lists[lang] = (frozenset(k.encode("ascii") for k in plain), by_key,
                                          frozenset(by_key))

    def check(self, doc) -> tuple[str, float, str] | None:
        lang = doc.lang or self.params.default_language
        found = self.lists.get(lang)
        if found is None:
            return None
        plain, by_first, rest = found
        if not isinstance(rest, list):  # a language written without spaces: one regex, anywhere
            m = rest.search(doc.text.lower()) if rest is not None else None
            return self._decide(doc, m.group() if m else None)
        ascii_text = doc.text.isascii()
        low = None if ascii_text else doc.text.lower()  # an ASCII text is lower-cased only if needed
        fast = self.ascii_lists.get(lang)
        if fast is not None:  # every entry ASCII: candidates from the text's ASCII runs
            runs = (doc.text.encode("ascii").translate(_LOWER_ASCII_WORD).split() if ascii_text
                    else _ascii_words(low))
            candidates = _ascii_candidates(runs, fast)
        else:  # candidates from the text's word runs: the words, the phrases whose first word is there
            low = low if low is not None else doc.text.lower()
            tokens = set(WORD.findall(low))
            candidates = list(plain & tokens) + [e for first in by_first.keys() & tokens for e in by_first[first]]
        rest = [(w, rx) for w, rx in rest if not ascii_text or w.isascii()]  # a non-ASCII entry: not in ASCII text
        if not candidates and not rest:
            return None
        low = low if low is not None else doc.text.lower()
        hit = _first_standing(low, candidates)
        if hit is None:
            hits = [m for w, rx in rest if w in low and (m := rx.search(low)) is not None]
            hit = min(hits, key=lambda m: m.start(1)).group(1) if hits else None
        return self._decide(doc, hit)

    def _decide(self, doc, hit: str | None) -> tuple[str, float, str] | None:
        if hit is None or kept_by_chance(doc.id, self.params.seed, self.params.keep_fraction):
            return None
        return "badword", 1.0, hit


FILTER = FilterSpec("badwords", BadWordsParams, BadWordsFilter, prepare=prepare, identity=identity, reads="doc",
                    sources=_sources, rules=lambda p: ("badword",))
