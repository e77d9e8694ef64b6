"""URLs as the URL filter and URL dedup compare them: a normal form, the host's registered domain by the
public suffix list (the snapshot bundled with tldextract, never fetched at run time), and the words of a
URL. Plain functions; lists are loaded by corpus.filters.url."""

from __future__ import annotations

import functools
import re
import urllib.parse


@functools.cache
def offline_tld_extractor():
    """A TLDExtract that only ever reads the public suffix list snapshot bundled with tldextract."""
    import tldextract

    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)


def host_of(url: str) -> str:
    """The URL's host, lower-cased, without a trailing dot or port ("" when there is none)."""
    try:
        host = urllib.parse.urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host.rstrip(".").lower()


def registered_domain(host: str) -> str:
    """example.co.uk for a.b.example.co.uk; the host itself when the suffix list knows no domain (an IP)."""
    parts = offline_tld_extractor()(host)
    return parts.top_domain_under_public_suffix or host


def host_suffixes(host: str) -> list[str]:
    """The host and each parent domain down to its registered domain: a.b.example.com, b.example.com,
    example.com (a blocklist entry for any of them blocks the host)."""
    top = registered_domain(host)
    labels = host.split(".")
    out = []
    for i in range(len(labels)):
        d = ".".join(labels[i:])
        out.append(d)
        if d == top:
            break
    return out


def normalize_url(url: str) -> str:
    """The form two crawls of one page share: scheme-less (http and https alike), host lower-cased without
    `www.` and the default port, no fragment, an empty path as `/`; path and query kept as they are."""
    try:
        p = urllib.parse.urlsplit(url.strip())
        port = p.port
    except ValueError:
        return url.strip()
    host = (p.hostname or "").rstrip(".").lower()
    host = host[4:] if host.startswith("www.") else host
    if port is not None and port not in (80, 443):
        host = f"{host}:{port}"
    return f"{host}{p.path or '/'}" + (f"?{p.query}" if p.query else "")


_WORD = re.compile(r"[^\W_]+")


def words_of(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return _WORD.findall(text.lower())


def url_words(url: str) -> list[str]:
    """The lower-cased words of a URL's host, path and query (runs of letters and digits)."""
    return words_of(normalize_url(url))


def url_letters(url: str) -> str:
    """The URL's host, path and query lower-cased with everything but letters and digits removed: where a
    banned subword is looked for ("free-porn.example" holds "porn" in "freepornexample")."""
    return "".join(url_words(url))
