"""The URL filter on real lists (the Block List Project's phishing domains and its allowlist, the LDNOOBW
words) and real page URLs, then through the filter stage on a web source."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from conftest import mirror_dir, mirror_sha, run_corpus, write_config, write_ledger
from corpus.filters.lists import write_lists
from corpus.filters.url import UrlFilter, UrlParams, domain_entry
from corpus.web.urls import host_of, normalize_url, registered_domain, words_of
from warcs import eval_pages, ledger_row, response, write_warc


ALLOW = "343486973a"
EN_WORDS = "af851ecef1"


def _by_prefix(prefix: str) -> str:
    m = mirror_dir()
    if m is None:
        pytest.skip("mirror absent")
    (name,) = [p.name for p in m.glob(prefix + "*")]
    return name


def _lines(sha: str) -> list[str]:
    return [x.strip() for x in mirror_sha(sha).read_text(encoding="utf-8").splitlines()
            if x.strip() and not x.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def real_filter(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lists")
    lists = {"block_domains": [domain_entry(x) for x in _lines(_by_prefix("fe48504cad"))],
             "allow_domains": [domain_entry(x) for x in _lines(_by_prefix(ALLOW))] + ["blogspot.com"],
             "banned_words": [" ".join(words_of(x)) for x in _lines(_by_prefix(EN_WORDS))],
             "banned_subwords": ["porn"], "soft_banned_words": ["casino", "poker", "betting"]}
    _, resources = write_lists(tmp, "url", lists)
    return UrlFilter(UrlParams(soft_word_threshold=2), resources), lists


def test_real_page_urls(real_filter):
    """Of the 55 real page URLs only the one with a whole LDNOOBW word in it is dropped (C4's rule)."""
    f, _ = real_filter
    dropped = {p["url"]: f.check(p["url"]) for p in eval_pages() if f.check(p["url"]) is not None}
    assert dropped == {"https://threatpost.com/android-ransomware-spreads-via-sex-simulation-game-links-on-reddit-sms"
                       "/146774/": ("banned_word", 1.0, "sex")}


def test_blocked_domains_subdomains_and_hosts_lines(real_filter):
    f, lists = real_filter
    listed = sorted(lists["block_domains"])[1000]
    assert f.check(f"https://{listed}/login") == ("domain", 1.0, listed)
    hit = f.check(f"http://WWW.{listed.upper()}./a?b=c")  # case, trailing dot (the list may hold www. too)
    assert hit[0] == "domain" and hit[2] in (listed, f"www.{listed}")
    assert f.check(f"http://deep.sub.{listed}/")[2] == listed
    assert domain_entry("0.0.0.0 bad.example.com") == "bad.example.com"
    assert domain_entry("||ads.example.org^") == "ads.example.org" and domain_entry("*.x.example.net") == "x.example.net"
    assert f.check(f"http://{listed}.example-safe.org/") is None  # a listed name inside another domain is not it


def test_words_subwords_soft_words_and_the_allowlist(real_filter):
    f, _ = real_filter
    assert f.check("http://example.com/videos/anal-compilation")[:2] == ("banned_word", 1.0)
    assert f.check("http://example.com/2-girls-1-cup.html") == ("banned_word", 1.0, "2 girls 1 cup")
    assert f.check("http://freepornsite.example/") == ("banned_subword", 1.0, "porn")
    assert f.check("http://example.com/poker/rules") is None  # one soft word is not enough
    assert f.check("http://example.com/online-casino-poker") == ("soft_banned_words", 2.0, "casino,poker")
    assert f.check("https://twitch.tv/porn") is None  # the allowlist wins
    assert f.check("https://someone.blogspot.com/porn") is None  # a parent domain on the allowlist
    assert f.check("https://en.wikipedia.org/wiki/Scunthorpe") is None  # words, not substrings


def test_url_forms():
    assert normalize_url("HTTPS://www.Example.com:443/a/b?x=1#top") == normalize_url("http://example.com/a/b?x=1")
    assert normalize_url("http://example.com") == "example.com/"
    assert registered_domain("a.b.example.co.uk") == "example.co.uk"


@pytest.mark.slow
def test_url_filter_in_the_filter_stage(tmp_path):
    pages = eval_pages()[:6]
    records = [response(p["url"], p["html"], "text/html") for p in pages]
    blocked = pages[1]["url"]
    warc = write_warc(tmp_path / "p.warc.gz", records)
    block = tmp_path / "block.txt"
    block.write_text(f"# my blocklist\n0.0.0.0 {host_of(blocked)}\n")
    rows = [ledger_row("pages", warc), {**ledger_row("my-block", block), "role": "list", "format": "text",
                                        "split": "line"}]
    ledger = write_ledger(tmp_path / "ledger.jsonl", rows)
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["pages"], artifacts=tmp_path / "art",
                       **{"filters.url": {"enabled": True, "block_domains": ["my-block"]},
                          "filters.lang": {"enabled": False}, "filters.gopher": {"enabled": False},
                          "filters.repetition": {"enabled": False}, "filters.ppl": {"enabled": False},
                          "decontam": {"evals": []}})
    run_corpus("--config", cfg, "run", "-j", "1", "--through", "filter", check=True)
    d = tmp_path / "art" / "corpus" / "t" / "v1" / "stages" / "03-filter"
    rejects = [r for p in sorted((d / "rejects").glob("*.parquet")) for r in pq.read_table(p).to_pylist()]
    assert [(r["url"], r["filter"], r["rule"], r["detail"]) for r in rejects] == [
        (blocked, "url", "domain", host_of(blocked))]
    manifest = json.loads((d / "_STAGE.json").read_text())
    assert manifest["params"]["url_list_sha256"] == {"my-block": rows[1]["sha256"]}
    proc = run_corpus("--config", cfg, "rejects", "--filter", "url", check=True)
    assert "url.domain: 1 documents" in proc.stdout
    proc = run_corpus("--config", cfg, "why", "pages:1", check=True)
    assert f"rule 'domain', value 1, detail '{host_of(blocked)}'" in proc.stdout, proc.stdout
    # the lists as the filter loads them are kept in the cache, and a damaged entry is built again
    lists = (d / "url-lists.json").read_bytes()
    (entry,) = (tmp_path / "art" / "cache" / "url-lists").iterdir()
    assert entry.read_bytes() == lists
    entry.write_bytes(lists + b" ")
    run_corpus("--config", cfg, "filter", "-j", "1", "--replace", check=True)
    assert (d / "url-lists.json").read_bytes() == lists
    assert [e.read_bytes() for e in (tmp_path / "art" / "cache" / "url-lists").iterdir()] == [lists]
