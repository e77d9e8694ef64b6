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


# Hosts as a browser reads them (the WHATWG URL standard), so that a list entry matches however a URL
# writes its host: a backslash is a slash before the query of an http(s), ws(s), ftp or file URL
# (`http://bad.example\@good.example/` is bad.example), the host is percent-decoded (`bad%2eexample`),
# the ideographic and fullwidth full stops are dots, and a Unicode host is IDNA-encoded (UTS 46,
# nontransitional: `faß.de` is xn--fa-hia.de), as blocklists write it. An ASCII host is only lower-cased.
_SPECIAL_SCHEME = re.compile(r"\s*(https?|wss?|ftp|file):", re.I)
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


def browser_slashes(url: str) -> str:
    """`url` with each backslash before its query or fragment a slash, for the schemes browsers do it for."""
    if "\\" not in url or not _SPECIAL_SCHEME.match(url):
        return url
    end = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:end].replace("\\", "/") + url[end:]


def canonical_host(host: str) -> str:
    """A host as lists and URLs are compared: percent-decoded, every full stop a dot, without a trailing
    dot, lower-cased, IDNA-encoded when it is not ASCII (left Unicode when no IDNA form exists)."""
    host = urllib.parse.unquote(host, errors="replace") if "%" in host else host
    host = host.translate(_DOTS).rstrip(".").lower()
    return host if host.isascii() else _idna(host)


def _idna(host: str) -> str:
    import idna

    try:
        mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
        return ".".join(label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii")
                        for label in mapped.split("."))
    except (idna.IDNAError, UnicodeError):
        return host


def _split(url: str) -> urllib.parse.SplitResult:
    return urllib.parse.urlsplit(browser_slashes(url.strip()))


def host_of(url: str) -> str:
    """The URL's host (canonical_host), without its port ("" when there is none)."""
    try:
        host = _split(url).hostname or ""
    except ValueError:
        return ""
    return canonical_host(host)


def unicode_host(host: str) -> str:
    """A canonical host with its xn-- labels decoded (to read its words), each left as it is if it does not
    decode."""
    if "xn--" not in host:
        return host
    labels = []
    for label in host.split("."):
        try:
            labels.append(label[4:].encode("ascii").decode("punycode") if label.startswith("xn--") else label)
        except UnicodeError:
            labels.append(label)
    return ".".join(labels)


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
    `www.` and the default port (canonical_host), no fragment, an empty path as `/`; path and query kept as
    they are (but a backslash before the query, a slash: browser_slashes)."""
    try:
        p = _split(url)
        port = p.port
    except ValueError:
        return url.strip()
    host = canonical_host(p.hostname or "")
    host = host[4:] if host.startswith("www.") else host
    if port is not None and port not in (80, 443):
        host = f"{host}:{port}"
    return f"{host}{p.path or '/'}" + (f"?{p.query}" if p.query else "")


_WORD = re.compile(r"[^\W_]+")


def words_of(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return _WORD.findall(text.lower())


def url_words(url: str) -> list[str]:
    """The lower-cased words of a URL's host (in Unicode: `bücher`, not its xn-- form), path and query
    (runs of letters and digits)."""
    normal = normalize_url(url)
    host, slash, rest = normal.partition("/")
    return words_of(unicode_host(host) + slash + rest)


def url_letters(url: str) -> str:
    """The URL's host, path and query lower-cased with everything but letters and digits removed: where a
    banned subword is looked for ("free-porn.example" holds "porn" in "freepornexample")."""
    return "".join(url_words(url))
