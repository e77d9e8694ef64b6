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

from corpus.dedup.minhash import ngram_word_spans, normalize_for_shingles, span_hashes64, word_bounds

DECONTAM_NGRAM = 13


def decontam_words(text: str) -> list[str]:
    """Lowercased words with punctuation removed (the same normalisation as near-dup shingles)."""
    normalised = normalize_for_shingles(text)
    return normalised.split(" ") if normalised else []


@dataclass
class _Words:
    """A normalised text as UTF-8 bytes plus the byte bounds of each word."""

    buffer: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, text: str) -> _Words:
        buffer = np.frombuffer(normalize_for_shingles(text).encode("utf-8"), dtype=np.uint8)
        starts, ends = word_bounds(buffer)
        return cls(buffer, starts, ends)

    def __len__(self) -> int:
        return len(self.starts)

    def gram_hashes(self, length: int) -> np.ndarray:
        """64-bit hash of every run of `length` consecutive words (empty if the text is shorter)."""
        first, last, _ = ngram_word_spans(np.array([len(self)]), length, short_as_whole=False)
        return span_hashes64(self.buffer, self.starts[first], self.ends[last])

    def text(self, first_word: int, length: int) -> str:
        return self.buffer[self.starts[first_word] : self.ends[first_word + length - 1]].tobytes().decode("utf-8")


@dataclass
class _Table:
    """Sorted gram hashes of one length, each with the rank of an eval source holding it;
    equal hashes are ordered by rank, so the first hit is the smallest source_id."""

    hashes: np.ndarray
    ranks: np.ndarray


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
        words = _Words.of(text)
        if len(words) < self.min_words:
            self.skipped_items += 1
            return
        length = min(len(words), self.n)
        self._pending.setdefault(length, []).append((words.gram_hashes(length), source_id))
        self._tables = None

    def __len__(self) -> int:
        """Number of distinct (gram hash, source) entries."""
        return sum(len(table.hashes) for table in self._built().values())

    def match(self, text: str) -> tuple[str, str] | None:
        """(eval source_id, matched n-gram as normalised text) or None.

        Deterministic: the earliest word position in the document that starts a protected gram wins;
        ties go to the smallest source_id, then to the longer gram.
        """
        tables = self._built()
        words = _Words.of(text)
        best: tuple[int, int, int] | None = None  # (position, source rank, -length)
        for length, table in tables.items():
            if len(words) < length or len(table.hashes) == 0:
                continue
            grams = words.gram_hashes(length)
            slots = np.minimum(np.searchsorted(table.hashes, grams), len(table.hashes) - 1)
            hits = np.flatnonzero(table.hashes[slots] == grams)
            if len(hits):
                position = int(hits[0])
                candidate = (position, int(table.ranks[slots[position]]), -length)
                best = candidate if best is None else min(best, candidate)
        if best is None:
            return None
        position, rank, negative_length = best
        return self._source_by_rank[rank], words.text(position, -negative_length)

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
