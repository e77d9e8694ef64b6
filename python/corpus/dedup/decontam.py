"""Benchmark decontamination: flag documents that share a word 13-gram with a protected eval set.

Words are those of the near-dup normalisation (lowercased, punctuation deleted, whitespace split).
Every 13-gram of every eval item is hashed to 64 bits (minhash.span_hashes64: a polynomial hash of
the n-gram's UTF-8 bytes, fmix64-finalised) and kept in a sorted uint64 array per n-gram length,
so a document is checked with one vectorised np.searchsorted. Eval items shorter than 13 words
(but at least `min_words`) are matched as whole sequences: all their words, contiguous, in order.

A 64-bit hash match is not re-verified against the text: the chance of a false hit is about
(eval n-grams x document n-grams) / 2**64, e.g. 1e-7 for 1e6 x 1e6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpus.dedup.minhash import WordBatch, normalize_for_shingles

DECONTAM_NGRAM = 13


def decontam_words(text: str) -> list[str]:
    """Lowercased words with punctuation removed (the same normalisation as near-dup shingles)."""
    normalised = normalize_for_shingles(text)
    return normalised.split(" ") if normalised else []


@dataclass
class _Table:
    """Sorted gram hashes of one length, each with the rank of an eval source holding it;
    equal hashes are ordered by rank, so the first hit is the smallest source_id."""

    hashes: np.ndarray
    ranks: np.ndarray
    _bits: np.ndarray | None = None

    def slots_of(self, grams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(indexes into grams that are in the table, the table slot of each: its first = smallest rank).

        A bitmap of the hashes' low bits (about 16 bits per entry) answers "surely not in the table" for
        nearly every document gram, so the binary search runs only on the few that may be."""
        bits = self._bitmap()
        low = (grams & np.uint64(len(bits) * 8 - 1)).astype(np.int64)
        maybe = np.flatnonzero((bits[low >> 3] >> (low & 7).astype(np.uint8)) & 1)
        slots = np.minimum(np.searchsorted(self.hashes, grams[maybe]), len(self.hashes) - 1)
        found = self.hashes[slots] == grams[maybe]
        return maybe[found], slots[found]

    def _bitmap(self) -> np.ndarray:
        if self._bits is None:
            # bits, a power of two: ~16 per entry, at most 2**28 (32 MB; a larger table only passes more to the search)
            size = 1 << max(16, min(28, int(len(self.hashes) * 16).bit_length()))
            bits = np.zeros(size // 8, dtype=np.uint8)
            low = (self.hashes & np.uint64(size - 1)).astype(np.int64)
            np.bitwise_or.at(bits, low >> 3, (np.uint8(1) << (low & 7).astype(np.uint8)))
            self._bits = bits
        return self._bits


class EvalIndex:
    """Protected eval texts, indexed for `match`. Add everything first; tables are (re)built lazily.

    n: n-gram length (13). min_words: eval items with fewer words are ignored, because a whole-sequence
    match of a 1- or 2-word item would flag almost every document; the default 1 keeps every item.
    """

    def __init__(self, n: int = DECONTAM_NGRAM, *, min_words: int = 1) -> None:
        if n < 1 or min_words < 1:
            raise ValueError("n and min_words must be >= 1")
        self.n = n
        self.min_words = min_words
        self.skipped_items = 0  # eval items with fewer than min_words words
        self._pending: dict[int, list[tuple[np.ndarray, str]]] = {}
        self._tables: dict[int, _Table] | None = None
        self._source_by_rank: list[str] = []

    def add(self, source_id: str, text: str) -> None:
        """Protect one eval item: all its n-grams, or its whole word sequence if shorter than n words."""
        words = WordBatch.of([text])
        count = int(words.word_counts[0])
        if count < self.min_words:
            self.skipped_items += 1
            return
        length = min(count, self.n)
        self._pending.setdefault(length, []).append((words.gram_hashes(length, short_as_whole=False)[0], source_id))
        self._tables = None

    def __len__(self) -> int:
        """Number of distinct (gram hash, source) entries."""
        return sum(len(table.hashes) for table in self._built().values())

    def match(self, text: str) -> tuple[str, str] | None:
        """(eval source_id, matched n-gram as normalised text) or None.

        Deterministic: the earliest word position in the document that starts a protected gram wins;
        ties go to the smallest source_id, then to the longer gram.
        """
        return self.match_batch(WordBatch.of([text]))[0]

    def match_batch(self, words: WordBatch) -> list[tuple[str, str] | None]:
        """match() of every text of a WordBatch: each length's grams of all its texts looked up at once."""
        best: list[tuple[int, int, int] | None] = [None] * len(words.word_counts)  # (position, rank, -length)
        first_word = np.cumsum(words.word_counts) - words.word_counts
        for length, table in self._built().items():
            if len(table.hashes) == 0:
                continue
            grams, doc, first = words.gram_hashes(length, short_as_whole=False)
            hit, slots = table.slots_of(grams)
            # grams come in text order, then word order: a text's first hit is its earliest
            texts, earliest = np.unique(doc[hit], return_index=True)
            for d, k in zip(texts.tolist(), earliest.tolist()):
                candidate = (int(first[hit[k]] - first_word[d]), int(table.ranks[slots[k]]), -length)
                if best[d] is None or candidate < best[d]:
                    best[d] = candidate
        out: list[tuple[str, str] | None] = []
        for d, found in enumerate(best):
            if found is None:
                out.append(None)
                continue
            position, rank, negative_length = found
            start = int(words.word_starts[first_word[d] + position])
            end = int(words.word_ends[first_word[d] + position - negative_length - 1])
            out.append((self._source_by_rank[rank], words.buffer[start:end].tobytes().decode("utf-8")))
        return out

    def _built(self) -> dict[int, _Table]:
        if self._tables is None:
            sources = sorted({source for items in self._pending.values() for _, source in items})
            rank_of = {source: rank for rank, source in enumerate(sources)}
            self._source_by_rank = sources
            self._tables = {
                length: _build_table(items, rank_of) for length, items in sorted(self._pending.items())
            }
        return self._tables


def _build_table(items: list[tuple[np.ndarray, str]], rank_of: dict[str, int]) -> _Table:
    hashes = np.concatenate([gram_hashes for gram_hashes, _ in items])
    ranks = np.concatenate([np.full(len(h), rank_of[source], dtype=np.int32) for h, source in items])
    order = np.lexsort((ranks, hashes))
    hashes, ranks = hashes[order], ranks[order]
    distinct = np.ones(len(hashes), dtype=bool)
    distinct[1:] = (hashes[1:] != hashes[:-1]) | (ranks[1:] != ranks[:-1])
    return _Table(hashes[distinct], ranks[distinct])


def index_to_bytes(index: EvalIndex) -> bytes:
    """The built index as an uncompressed .npz (no pickle): n, min_words, sources, one table per length.
    The same eval items give the same bytes, so the stage can checksum it like any other output."""
    import io
    import json
    import zipfile

    tables = index._built()
    arrays = {"meta": np.frombuffer(json.dumps({"n": index.n, "min_words": index.min_words,
                                                "skipped_items": index.skipped_items,
                                                "sources": index._source_by_rank}).encode(), dtype=np.uint8)}
    for length, table in tables.items():
        arrays[f"hashes_{length}"] = table.hashes
        arrays[f"ranks_{length}"] = table.ranks
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            z.writestr(info, member.getvalue())
    return buf.getvalue()


def index_from_bytes(data: bytes) -> EvalIndex:
    import io
    import json

    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        meta = json.loads(z["meta"].tobytes())
        index = EvalIndex(meta["n"], min_words=meta["min_words"])
        index.skipped_items = meta["skipped_items"]
        index._source_by_rank = list(meta["sources"])
        lengths = sorted(int(k.split("_")[1]) for k in z.files if k.startswith("hashes_"))
        index._tables = {n: _Table(z[f"hashes_{n}"], z[f"ranks_{n}"]) for n in lengths}
    return index
