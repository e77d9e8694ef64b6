"""What each filter of a chain found for each document, kept in the cache (engine.cache) so that a run with
one filter's settings edited recomputes that filter only: the language ID, repetition and perplexity
results of a document are the same whatever the Gopher thresholds say.

A filter's result for a document is a pure function of what it sees: the document's text as left by the
cleaning filters before it, its url and id, the language found (for filters that read a Doc), its own
table and the resources (models) it loads. So a result is filed under the filter's *identity*, the
sha256 of its table and resources and of the tables of the filters before it that clean or annotate
(they change what it sees), and found by a digest of the document (text, url, id). Entries are kept per
part name: those of the documents that reached the filter in the last run that used the identity, so the
cache of a part never holds more than the part's documents."""

from __future__ import annotations

import hashlib
import json

import pyarrow as pa

from corpus.store.atomic import canonical_json
from corpus.engine.cache import PartMemo

MEMO_COLUMNS = {"digest": pa.binary(16), "annotation": pa.string(), "rule": pa.string(), "value": pa.float64(),
                "detail": pa.string()}


def document_digest(text: str, url: str, doc_id: str) -> bytes:
    return hashlib.blake2b(canonical_json([text, url, doc_id]).encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


class ChainMemo:
    """The results of one part's documents per memoised filter (an engine.cache.PartMemo each): those the
    cache holds for the part, and those computed now. `get`/`put` take the checker's index and the
    document's digest."""

    def __init__(self, root, identities: list[str | None], part: str):
        self.memos = [PartMemo(root, f"filter-memo/{i}", {"identity": i, "part": part}, MEMO_COLUMNS) if i else None
                      for i in identities]
        self.hits = self.misses = 0

    def get(self, k: int, digest: bytes):
        """(annotation or None, failure or None) of checker k for the document, or None when not known."""
        if self.memos[k] is None:
            return None
        row = self.memos[k].get(digest)
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        annotation, rule, value, detail = row
        return (tuple(json.loads(annotation)) if annotation is not None else None,
                (rule, value, detail) if rule is not None else None)

    def put(self, k: int, digest: bytes, annotation, failed) -> None:
        if self.memos[k] is not None:
            rule, value, detail = (failed[0], float(failed[1]), failed[2] if len(failed) > 2 else None) \
                if failed is not None else (None, None, None)
            self.memos[k].put(digest, (json.dumps(list(annotation)) if annotation is not None else None,
                                       rule, value, detail))

    def save(self) -> None:
        """Keep this run's results per filter (unchanged entries are not rewritten)."""
        for memo in self.memos:
            if memo is not None:
                memo.save()
