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
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq

from corpus.formats.parts import read_parquet
from corpus.store.atomic import canonical_json
from corpus.engine.cache import Cache, cache_key

MEMO_COLUMNS = {"digest": pa.binary(16), "annotation": pa.string(), "rule": pa.string(), "value": pa.float64(),
                "detail": pa.string()}
MEMO_SCHEMA = pa.schema(list(MEMO_COLUMNS.items()))


def document_digest(text: str, url: str, doc_id: str) -> bytes:
    return hashlib.blake2b(canonical_json([text, url, doc_id]).encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


class ChainMemo:
    """The results of one part's documents per memoised filter: those the cache holds for the part, and
    those computed now. `get`/`put` take the checker's index and the document's digest."""

    def __init__(self, root, identities: list[str | None], part: str):
        self.part = part
        self.caches = [Cache(root, f"filter-memo/{i}", ".parquet") if i else None for i in identities]
        self.keys = [cache_key({"identity": i, "part": part}) if i else None for i in identities]
        self.known = [self._load(c, k) if c is not None else {} for c, k in zip(self.caches, self.keys)]
        self.used: list[dict] = [{} for _ in identities]
        self.hits = self.misses = 0

    @staticmethod
    def _load(cache: Cache, key: str) -> dict:
        data = cache.get(key)
        if data is None:
            return {}
        t = read_parquet(pa.BufferReader(data))
        out = {}
        for d, a, r, v, x in zip(*(t.column(c).to_pylist() for c in MEMO_COLUMNS)):
            out[d] = (tuple(json.loads(a)) if a is not None else None, (r, v, x) if r is not None else None)
        return out

    def get(self, k: int, digest: bytes):
        """(annotation or None, failure or None) of checker k for the document, or None when not known."""
        if self.caches[k] is None:
            return None
        found = self.known[k].get(digest)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self.used[k][digest] = found
        return found

    def put(self, k: int, digest: bytes, annotation, failed) -> None:
        if self.caches[k] is not None:
            self.used[k][digest] = (tuple(annotation) if annotation is not None else None,
                                    (failed[0], float(failed[1]), failed[2] if len(failed) > 2 else None)
                                    if failed is not None else None)

    def save(self) -> None:
        """Keep this run's results per filter (unchanged entries are not rewritten)."""
        for cache, key, used, known in zip(self.caches, self.keys, self.used, self.known):
            if cache is None or (used.keys() == known.keys()):
                continue
            rows = sorted(used.items())
            cols = {"digest": [d for d, _ in rows],
                    "annotation": [json.dumps(list(a)) if a is not None else None for _, (a, _) in rows],
                    "rule": [f[0] if f else None for _, (_, f) in rows],
                    "value": [f[1] if f else None for _, (_, f) in rows],
                    "detail": [f[2] if f else None for _, (_, f) in rows]}
            buf = io.BytesIO()
            pq.write_table(pa.table({c: pa.array(v, t) for (c, t), v in zip(MEMO_COLUMNS.items(), cols.values())},
                                    schema=MEMO_SCHEMA), buf, compression="zstd")
            cache.put(key, buf.getvalue())
