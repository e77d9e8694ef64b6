"""What each filter of a chain measured for each document (its *signals*: registry.FilterSpec.signals),
kept in the cache (engine.cache) so that a run with a filter's thresholds edited measures nothing again:
it decides from the stored values (registry.decide_document), and a run with one filter's measuring
settings edited measures that filter only (the language ID, repetition and perplexity values of a
document are the same whatever the Gopher settings say).

A filter's signals for a document are a pure function of what it sees: the document's text as left by
the cleaning filters before it, its url and id, the language the lang filter measured (for filters that
read a Doc), the *measuring* part of its table (FilterSpec.measuring_table: not its thresholds) and the
resources (models) it loads. So they are filed under the filter's *measuring identity*, the sha256 of
those settings and of what the cleaning and annotating filters before it measure by (they change what it
sees), and found by a digest of the document (text, url, id). A cleaning filter's result (the text left,
the lines removed, the failure) is kept the same way, under its whole table. Entries are kept per part name: the
documents the last run that used the identity measured, and beside them, up to engine.cache.MEMO_KEEP
times as many, those earlier runs kept (a threshold moved back finds them), so an entry stays bounded."""

from __future__ import annotations

import hashlib
import json

import pyarrow as pa

from corpus.engine.cache import PartMemo

DIGEST = {"digest": pa.binary(16)}


# a cleaning filter's result: the text left (null: unchanged), the removed lines, the failure
CLEAN_COLUMNS = {"text": pa.string(), "lines": pa.string(), "rule": pa.string(), "value": pa.float64(),
                 "detail": pa.string()}


def document_digest(text: str, url: str, doc_id: str) -> bytes:
    """A digest of (text, url, id): each field's UTF-8 after its length, so no two triples run together."""
    a, b, c = (field.encode("utf-8", "surrogatepass") for field in (text, url, doc_id))
    return hashlib.blake2b(b"".join((len(a).to_bytes(8, "little"), a, len(b).to_bytes(8, "little"), b,
                                     len(c).to_bytes(8, "little"), c)), digest_size=16).digest()


def clean_row(text: str, cleaned: str, lines: list, fail: tuple | None) -> tuple:
    """A cleaning filter's clean(text) result as a memo row (CLEAN_COLUMNS)."""
    rule, value, detail = (fail[0], float(fail[1]), fail[2] if len(fail) > 2 else None) if fail else (None,) * 3
    return (None if cleaned == text else cleaned, json.dumps([list(x) for x in lines]), rule, value, detail)


def clean_result(text: str, row: tuple) -> tuple[str, list, tuple | None]:
    """The clean(text) result a memo row holds."""
    cleaned, lines, rule, value, detail = row
    fail = None if rule is None else (rule, value) if detail is None else (rule, value, detail)
    return (text if cleaned is None else cleaned), [tuple(x) for x in json.loads(lines)], fail


class ChainMemo:
    """The signals of one part's documents per memoised filter (an engine.cache.PartMemo each, one column
    per signal): those the cache holds for the part, and those measured now. `get`/`put` take the step's
    index and the document's digest."""

    def __init__(self, root, identities: list[str | None], columns: list[dict], part: str):
        self.memos = [PartMemo(root, f"filter-memo/{i}", {"identity": i, "part": part}, {**DIGEST, **cols})
                      if i else None for i, cols in zip(identities, columns)]
        self.hits = self.misses = 0

    def get(self, k: int, digest: bytes) -> tuple | None:
        """Step k's signals of the document, or None when not known."""
        if self.memos[k] is None:
            return None
        row = self.memos[k].get(digest)
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return row

    def put(self, k: int, digest: bytes, signals: tuple) -> None:
        if self.memos[k] is not None:
            self.memos[k].put(digest, tuple(signals))

    def save(self) -> None:
        """Keep this run's signals per filter (unchanged entries are not rewritten)."""
        for memo in self.memos:
            if memo is not None:
                memo.save()
