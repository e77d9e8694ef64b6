"""C4's bad-words filter (`[filters.badwords]`): a document holding a word of its language's list (the
LDNOOBW lists C4 used, each a ledger source of role list: `lists = {en = "ldnoobw-en", ...}`) is dropped,
rule `badword`, detail the word. The language is the one the lang filter found (it must come before;
`default_language` when it is off); a language with no list keeps its documents. Words match on word
boundaries (not inside another word), lower-cased; in languages written without spaces (ja, th, zh) a
word matches anywhere, and C4's allowlist keeps the few common subwords that would drop >10% of their
documents (ja: sm, グロ, 女の子; zh: 性). `keep_fraction` keeps that share of such documents, chosen by a
hash of (seed, document id): the same documents whatever the order, workers or partitions. The signals
are the entry found (for the measured language, and for `und`); `keep_fraction` and `seed` only decide."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from corpus.filters.lang import UNDETERMINED
from corpus.filters.lists import entries, list_rows, load_lists, write_lists
from corpus.filters.registry import Decided, FilterSpec

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


def _ascii_words(low: str) -> bytes:
    """A lower-cased text's UTF-8 with every byte that is not an ASCII word character a space: its split()
    is the text's runs of ASCII word characters. A superset test for a list of ASCII words: a word that
    stands in the text as a whole \\w run (what the regex matches) is flanked by non-word characters, ASCII
    or not, so it is one of these runs. Found by bytes.translate and split in C: about ten times faster
    than a regex over the text."""
    return low.encode("utf-8", "surrogatepass").translate(_NOT_ASCII_WORD)


def _phrase_runs(entry: str) -> bytes:
    """An entry's runs of ASCII word characters (lower-cased), each between single spaces. Where the entry
    stands in a text (no word character just before or after it), its runs are consecutive runs of the text
    (what flanks it and what lies between its runs are non-word characters, or an end): so the text's runs
    joined the same way hold these bytes."""
    return b" " + b" ".join(entry.encode("utf-8").translate(_LOWER_ASCII_WORD).split()) + b" "


def _ascii_candidates(runs: list[bytes], fast: tuple) -> list[str]:
    """The entries of an ASCII list that may stand in a text, from the text's runs of ASCII word characters
    (_ascii_words): a word that is one of the runs, a phrase all of whose runs are among them and consecutive
    there (_phrase_runs). No entry standing in the text is missed. The work is one pass over the runs (which
    of the list's words and phrase runs the text has) and set operations on what it found; a phrase whose
    runs are all there costs a substring search of the joined runs."""
    screen, words, phrases, keys = fast
    found = screen.intersection(runs)
    if not found:
        return []
    candidates = [w.decode("ascii") for w in found & words]
    maybe = [(text, entry) for k in found & keys for need, text, entry in phrases[k] if need <= found]
    if maybe:
        joined = b" " + b" ".join(runs) + b" "
        candidates += [entry for text, entry in maybe if text in joined]
    return candidates


class _RunTable:
    """_ascii_candidates for a long text, vectorised: the same candidates without a Python object per run of
    the text (bytes.split and the set look-up cost ~100 ns a run). On the bench's texts of 8 KB and more
    (10 MB) it takes 63 ms against 146 ms; below 3 KB its fixed cost (some 15 numpy calls) loses.

    numpy finds the runs (the edges between spaces and the rest of the translated text) and reads each
    one's first 8 bytes as a little-endian integer (masked to its length): a bitmap of 2^20 bits, indexed by
    a multiplicative hash of that integer, marks the list's words and its phrases' key runs. The few runs it
    marks are compared byte for byte with the entries of that integer. A phrase is then a candidate where
    its runs stand one after the other around an occurrence of its key run: the runs _ascii_candidates
    finds consecutive in the text's joined runs, so the same candidates."""

    MIN_BYTES = 3072   # shorter texts take _ascii_candidates: the numpy calls cost more than they save
    BITS = 20

    def __init__(self, fast: tuple):
        import numpy as np

        self.np = np
        _, self.words, phrases, self.keys = fast
        self.mask = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
        self.mult, self.shift = np.uint64(0x9E3779B97F4A7C15), np.uint64(64 - self.BITS)
        self.by_first8: dict[int, set[bytes]] = {}  # an entry's first 8 bytes as an integer -> the entries
        for e in self.words | self.keys:
            self.by_first8.setdefault(int.from_bytes(e[:8], "little"), set()).add(e)
        first8 = np.array(sorted(self.by_first8), dtype=np.uint64)
        self.bitmap = np.zeros(1 << self.BITS, dtype=bool)
        self.bitmap[(first8 * self.mult) >> self.shift] = True
        # each phrase under its key: its runs in order, and where the key is among them
        self.phrases = {k: [(runs := text.split(), runs.index(k), entry) for _, text, entry in ps]
                        for k, ps in phrases.items()}

    def candidates(self, translated: bytes) -> list[str]:
        np = self.np
        a = np.frombuffer(b"".join((b" ", translated, b"        ")), dtype=np.uint8)
        is_word = a != 32
        edges = (is_word[1:] != is_word[:-1]).nonzero()[0]  # run i is translated[edges[2i]:edges[2i+1]]
        starts, ends = edges[0::2], edges[1::2]
        at8 = np.ndarray((len(a) - 8,), np.dtype("<u8"), a, 1, (1,))  # the 8 bytes from each offset of translated
        first8 = at8[starts] & self.mask[np.minimum(ends - starts, 8)]
        marked = self.bitmap[(first8 * self.mult) >> self.shift].nonzero()[0]
        if not marked.size:
            return []
        at: dict[bytes, list[int]] = {}  # each word or key run of the list in the text -> its run numbers
        for i, f8, s, e in zip(marked.tolist(), first8[marked].tolist(), starts[marked].tolist(),
                               ends[marked].tolist()):
            entries = self.by_first8.get(f8)
            if entries is not None and (run := translated[s:e]) in entries:
                at.setdefault(run, []).append(i)
        candidates = [w.decode("ascii") for w in self.words.intersection(at)]
        for k in self.keys.intersection(at):
            for runs, j, entry in self.phrases[k]:
                if any(all(0 <= i - j + m < len(starts) and translated[starts[i - j + m]:ends[i - j + m]] == r
                           for m, r in enumerate(runs)) for i in at[k]):
                    candidates.append(entry)
        return candidates


# the characters whose lower-case holds an ASCII character: İ (i + U+0307) and the Kelvin sign (k). Every other
# ASCII character of a lower-cased text is the text's own (A-Z made a-z), and every other character's
# lower-case is characters none of which is ASCII: so a text without these two has the runs of ASCII word
# characters of its lower-case, in the same order, in its own UTF-8 translated by _LOWER_ASCII_WORD (no
# lower-casing needed). tests/test_web_rules.py checks this against every code point of the running Python.
_LOWERS_TO_ASCII = "\u0130\u212a"


def _caseless(entry: str) -> bool:
    """Whether the entry is in a text's lower-case exactly where it is in the text: each of its characters is
    its own lower- and upper-case and no letter or mark (every character some other character lower-cases
    to is a letter, a mark, or one with an upper-case of its own, Ⓐ -> ⓐ, Ⅰ -> ⅰ: checked in the tests),
    so only itself lower-cases to it. Such an entry (an emoji) needs no lower-casing of the text to look for."""
    return all(c.lower() == c == c.upper() and unicodedata.category(c)[0] not in "LM" for c in entry)


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
        # language -> (its words and its phrases' runs, its words, its phrases by their longest run, those
        # runs), when every entry is ASCII
        self.ascii_lists: dict[str, tuple] = {}
        self.ascii_rest: dict[str, list] = {}     # language -> its regex entries an ASCII text can hold
        self.run_tables: dict[str, _RunTable] = {}  # language -> its ASCII list's _RunTable, for long texts
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
                else:  # looked for only where the text holds it at all (the text itself: _caseless)
                    always.append((w, re.compile(rf"(?:\W|^)({re.escape(w)})(?:\W|$)"), _caseless(w)))
            self.lists[lang] = (plain, by_first, always)
            phrases = [(WORD.findall(w), w) for ws in by_first.values() for w in ws]
            if all(ASCII_WORD.fullmatch(k) for k in set(plain) | {r for p, _ in phrases for r in p}):
                # the fast path of check answers for these: the words, and each phrase (its runs, its
                # _phrase_runs) under a key run: a word of the list if it has one (a text with it is looked
                # at anyway), else its longest (the rarest, as a rule)
                ascii_words = frozenset(k.encode("ascii") for k in plain)
                by_key: dict[bytes, list] = {}
                for p, w in phrases:
                    need = frozenset(r.encode("ascii") for r in p)
                    key = max(need, key=lambda r: (r in ascii_words, len(r), r))
                    by_key.setdefault(key, []).append((need, _phrase_runs(w), w))
                screen = ascii_words.union(*(need for ps in by_key.values() for need, _, _ in ps))
                self.ascii_lists[lang] = (screen, ascii_words, by_key, frozenset(by_key))
                self.run_tables[lang] = _RunTable(self.ascii_lists[lang])
            self.ascii_rest[lang] = [r for r in always if r[0].isascii()]

    def measure(self, doc) -> tuple[str, str | None, str | None]:
        """(the language whose list is looked in: the one the lang filter measured, else
        `default_language`; the entry of that list the text holds first, or None; the same for the `und`
        list, which applies when the lang filter's decision is `und`)."""
        lang = doc.lang or self.params.default_language
        und = self._hit(doc.text, UNDETERMINED) if lang != UNDETERMINED and UNDETERMINED in self.lists else None
        return lang, self._hit(doc.text, lang), und

    def check(self, doc) -> tuple[str, float, str] | None:
        return decide_badwords(self.params, self.measure(doc), Decided(doc.id, doc.lang))[1]

    def _hit(self, text: str, lang: str) -> str | None:
        """The entry of the language's list the text holds first (None: none, or no list)."""
        found = self.lists.get(lang)
        if found is None:
            return None
        plain, by_first, rest = found
        if not isinstance(rest, list):  # a language written without spaces: one regex, anywhere
            m = rest.search(text.lower()) if rest is not None else None
            return m.group() if m else None
        ascii_text = text.isascii()
        low = None  # the lower-cased text: made only when needed
        fast = self.ascii_lists.get(lang)
        if fast is not None:  # every entry's word runs ASCII: candidates from the text's ASCII runs
            if ascii_text:
                translated = text.encode("ascii").translate(_LOWER_ASCII_WORD)
            elif all(c not in text for c in _LOWERS_TO_ASCII):  # its runs are its lower-case's
                translated = text.encode("utf-8", "surrogatepass").translate(_LOWER_ASCII_WORD)
            else:
                low = text.lower()
                translated = _ascii_words(low)
            candidates = (_ascii_candidates(translated.split(), fast) if len(translated) < _RunTable.MIN_BYTES
                          else self.run_tables[lang].candidates(translated))
        else:  # candidates from the text's word runs: the words, the phrases whose first word is there
            low = text.lower()
            tokens = set(WORD.findall(low))
            candidates = list(plain & tokens) + [e for first in by_first.keys() & tokens for e in by_first[first]]
        if ascii_text:
            rest = self.ascii_rest[lang]  # a non-ASCII entry: not in an ASCII text
        if not candidates and not any(not caseless or w in text for w, _, caseless in rest):
            return None
        standing = []  # (where it first stands, entry) for each candidate that stands
        if candidates and ascii_text and fast is not None:
            # a word of the list in an ASCII text stands first where the translated text first has it
            # between spaces (at the same offset: one byte a character), as _stands_at would find
            padded = b" " + translated + b" "
            standing = [(padded.find(b" " + e.encode("ascii") + b" "), e) for e in candidates if e in plain]
            candidates = [e for e in candidates if e not in plain]
        if candidates:
            low = low if low is not None else text.lower()
            standing += [(at, e) for e in candidates if (at := _stands_at(low, e)) is not None]
        if standing:
            return min(standing)[1]
        low = low if low is not None else text.lower()
        hits = [m for w, rx, _ in rest if w in low and (m := rx.search(low)) is not None]
        return min(hits, key=lambda m: m.start(1)).group(1) if hits else None


def decide_badwords(p: BadWordsParams, signals: tuple, decided) -> tuple[None, tuple[str, float, str] | None]:
    """The document is dropped for the entry its language's list holds, unless drawn into `keep_fraction`;
    the language is the lang filter's decision (`und` below its min_score), else `default_language`."""
    measured_lang, hit, und_hit = signals
    if (decided.lang or p.default_language) != measured_lang:
        hit = und_hit  # the lang filter decided `und` for a label the model gave
    if hit is None or kept_by_chance(decided.doc_id, p.seed, p.keep_fraction):
        return None, None
    return None, ("badword", 1.0, hit)


FILTER = FilterSpec("badwords", BadWordsParams, BadWordsFilter, decide=decide_badwords, prepare=prepare,
                    identity=identity, reads="doc", thresholds=("keep_fraction", "seed"),
                    signals=lambda p: {"language": pa.string(), "hit": pa.string(), "und_hit": pa.string()},
                    sources=_sources, rules=lambda p: ("badword",))
