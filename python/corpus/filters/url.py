"""The URL filter ([filters.url]): drops a document by its URL, before any text is read. Domain and URL
blocklists, banned words (a whole word of the URL) and subwords (anywhere in its letters), soft-banned
words (dropped at `soft_word_threshold` of them), and an allowlist of domains that wins over all of them —
every list a ledger source (corpus.filters.lists). Domains match the host or any parent domain down to its
registered domain (public suffix list, offline: corpus.web.urls), case-insensitively. A drop records the
list entry that matched. The signals are the first list match and the soft-banned words found;
`soft_word_threshold` only decides."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus.filters.lists import cached_lists, entries, list_rows, load_lists
from corpus.filters.registry import FilterSpec
from corpus.web.urls import canonical_host, host_of, host_suffixes, normalize_url, url_letters, url_words, words_of

LISTS = ("block_domains", "block_urls", "banned_words", "banned_subwords", "soft_banned_words", "allow_domains")
RULES = ("domain", "url", "banned_word", "banned_subword", "soft_banned_words")
_HOSTS_LINE = re.compile(r"^(?:0\.0\.0\.0|127\.0\.0\.1|::1?)\s+(\S+)")


@dataclass(frozen=True)
class UrlParams:
    block_domains: tuple[str, ...] = ()
    block_urls: tuple[str, ...] = ()
    banned_words: tuple[str, ...] = ()
    banned_subwords: tuple[str, ...] = ()
    soft_banned_words: tuple[str, ...] = ()
    soft_word_threshold: int = 2
    allow_domains: tuple[str, ...] = ()


def _sources(config) -> list[str]:
    table = config["filters"]["url"]
    return [sid for kind in LISTS for sid in table[kind]]


def identity(config) -> dict:
    rows = list_rows(config, _sources(config), "filters.url")
    return {"url_list_sha256": {r["source_id"]: r["sha256"] for r in rows}}


def domain_entry(line: str) -> str:
    """A blocklist line as a domain: `example.com`, `0.0.0.0 example.com` (hosts files), `*.example.com`,
    `||example.com^` (adblock), or a URL (its host); in the form URLs' hosts take (canonical_host), so a
    Unicode entry matches a punycode host and the other way round."""
    m = _HOSTS_LINE.match(line)
    d = (m.group(1) if m else line.split()[0]).lower()
    if "/" in d or "\\" in d:
        d = host_of(d if "://" in d or ":\\" in d else f"http://{d}")
    return canonical_host(d.strip("|^").removeprefix("*."))


def prepare(config, staging: Path) -> tuple[list[dict], dict]:
    table = config["filters"]["url"]
    rows = {kind: list_rows(config, table[kind], f"filters.url.{kind}") for kind in LISTS}

    def build() -> dict[str, list[str]]:
        lists: dict[str, list[str]] = {}
        for kind in LISTS:
            found = [e for row in rows[kind] for e in entries(config, row)]
            if kind.endswith("domains"):
                found = [domain_entry(e) for e in found]
            elif kind == "block_urls":
                found = [normalize_url(e) for e in found]
            else:
                found = [" ".join(words_of(e)) for e in found]  # an entry's words, as a URL's words are cut
            lists[kind] = [e for e in found if e]
        return lists

    entry, resources = cached_lists(config, staging, "url", rows, build)
    return [entry], resources


class UrlFilter:
    def __init__(self, params: UrlParams, resources: dict):
        lists = load_lists(resources["url_lists"], resources["url_lists_sha256"]) if "url_lists" in resources else {}
        get = lambda k: lists.get(k, [])  # noqa: E731
        self.block, self.allow = set(get("block_domains")), set(get("allow_domains"))
        self.urls = set(get("block_urls"))
        self.words = {w for w in get("banned_words") if " " not in w}
        self.phrases = [tuple(w.split()) for w in get("banned_words") if " " in w]
        self.params, self.soft = params, set(get("soft_banned_words"))
        subwords = sorted({w.replace(" ", "") for w in get("banned_subwords")}, key=lambda w: (-len(w), w))
        self.subwords = re.compile("|".join(map(re.escape, subwords))) if subwords else None

    def measure(self, url: str) -> tuple:
        """(the first list rule the URL matches or None, the entry it matched, its soft-banned words joined
        by commas, how many): the soft words are None for an allowed URL or when there is no such list."""
        host = host_of(url)
        suffixes = host_suffixes(host) if host else []
        if any(d in self.allow for d in suffixes):
            return None, None, None, 0
        for d in suffixes:
            if d in self.block:
                return "domain", d, None, 0
        if self.urls and (n := normalize_url(url)) in self.urls:
            return "url", n, None, 0
        words = url_words(url)
        for w in words:
            if w in self.words:
                return "banned_word", w, None, 0
        for phrase in self.phrases:
            k = len(phrase)
            if any(tuple(words[i:i + k]) == phrase for i in range(len(words) - k + 1)):
                return "banned_word", " ".join(phrase), None, 0
        if self.subwords is not None and (m := self.subwords.search(url_letters(url))):
            return "banned_subword", m.group(), None, 0
        if not self.soft:
            return None, None, None, 0
        soft = [w for w in words if w in self.soft]
        return None, None, ",".join(soft), len(soft)

    def check(self, url: str) -> tuple[str, float, str] | None:
        return decide_url(self.params, self.measure(url), None)[1]


def decide_url(p: UrlParams, signals: tuple, decided) -> tuple[None, tuple | None]:
    """A list match drops the document; soft-banned words drop it at `soft_word_threshold` of them."""
    rule, entry, soft, n_soft = signals
    if rule is not None:
        return None, (rule, 1.0, entry)
    if soft is not None and n_soft >= p.soft_word_threshold:
        return None, ("soft_banned_words", float(n_soft), soft)
    return None, None


FILTER = FilterSpec("url", UrlParams, UrlFilter, decide=decide_url, prepare=prepare, identity=identity, reads="url",
                    signals=lambda p: {"rule": pa.string(), "entry": pa.string(), "soft_words": pa.string(),
                                       "soft_count": pa.int64()},
                    thresholds=("soft_word_threshold",), sources=_sources, rules=lambda p: RULES)
