"""Takedown (issue 52): lists of role takedown remove documents by url, domain, id, text sha256 or source,
first in the filter stage; a new version made by `corpus takedown` rewrites only the shards that held a
removed document, gives the bytes of a from-scratch run with the list in its config, and its audit
proves the removed texts are gone."""

from __future__ import annotations

import hashlib

import pytest

from corpus.errors import CorpusError
from corpus.filters import takedown


def test_entries_match_by_kind_first_entry_wins_and_malformed_ones_name_their_line():
    rows = ["# opt-outs", "domain:Example.COM.  # the whole site", "url:https://a.org/p#frag", "id:s:3",
            "sha256:" + hashlib.sha256("gone".encode()).hexdigest(), "source:s2"]
    lines = [x for x in map(takedown.strip_comment, rows) if x]
    entries = [[*takedown.parse_entry(x, "l"), "td", "0" * 64] for x in lines]
    m = takedown.Matcher(entries)
    kind = lambda *a: (x.kind, x.line) if (x := m.match(*a)) else None  # noqa: E731
    assert kind("s:1", "http://www.sub.example.com/x", "s", "t") == ("domain", 1)  # subdomain, any case
    assert kind("s:1", "http://notexample.com/", "s", "t") is None                # not a parent domain
    assert kind("s:1", "https://a.org/p#frag", "s", "t") == ("url", 2)            # '#frag' is no comment
    assert kind("s:1", "https://a.org/p", "s", "t") is None                       # exact URLs only
    assert kind("s:3", "http://example.com/", "s", "t") == ("domain", 1)          # the first entry wins
    assert kind("s:3", None, "s", "t") == ("id", 3)
    assert kind("s:9", None, "s", "gone") == ("sha256", 4)
    assert kind("s2:0", None, "s2", "t") == ("source", 5)
    assert m.match("s:3", None, "s", "t").detail == "td sha256:" + "0" * 64 + " id:s:3"
    for bad in ("http://x.org/", "host:x.org", "sha256:abc", "id:"):
        with pytest.raises(CorpusError, match=r"^list 'td' f#L7: takedown entry"):
            takedown.parse_entry(bad, "list 'td' f#L7")
