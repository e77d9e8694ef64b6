"""MinHash near-duplicate detection: normalisation, shingles, signatures, LSH band keys, candidate pairs.

Everything here is a pure function over strings or numpy arrays; the stage does the file I/O.

Pipeline, and what each step holds per document:
  text -> normalize_for_shingles -> word 5-gram shingles -> 32-bit shingle hashes (shingle_hashes)
       -> MinHash signature (num_perm values, datasketch's permutations)     [per worker]
       -> and verify.sets_from_hashes: the sorted distinct hashes            [per worker]
  signature -> band_keys: one 64-bit key per band (20 bands x 5 rows)       [per worker]
  one band's keys + row ids -> candidate_pair_batches (sort, not a dict)   [global, one band at a time]
  candidate edges -> verify.verified_edges (exact Jaccard >= threshold)     [global]
     (or confirmed_edges: the estimated Jaccard, before exact verification)
  confirmed edges -> unionfind.cluster_roots                                [global]
The banding's P(candidate | s) and how the defaults were chosen: banding.py, docs/dedup-banding.md.

Signatures are bit-for-bit what `datasketch.MinHash(num_perm, seed, hashfunc=..., scheme=...)` gives
after `update_batch(shingles(text))`; the permutations (a, b) are taken from datasketch itself.
Only the arithmetic is vectorised: all shingles of a batch of documents are hashed and permuted at
once with numpy, and each document's minimum is taken with `np.minimum.reduceat`.

Conventions:
- A document with fewer words than `ngram` has one shingle: its whole normalised text.
- A document whose normalised text is empty gets the "empty" signature (every value 0xFFFFFFFF, which
  is datasketch's initial state). Its band keys are EMPTY_BAND_KEY, which candidate_pairs ignores,
  and its estimated Jaccard with anything is 0, so empty documents never collide with anything
  (including each other).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator, Literal, Sequence

import numpy as np

Scheme = Literal["affine32", "legacy"]
ShingleHash = Literal["poly64", "sha1"]

DEFAULT_NGRAM = 5
DEFAULT_NUM_PERM = 100
DEFAULT_BANDS = 20
DEFAULT_SEED = 1
# In a bucket (rows sharing one band key, sorted by row id) each member is paired with its next
# DEFAULT_BUCKET_WINDOW members: every pair in buckets of up to 17 members, O(size * 16) beyond.
DEFAULT_BUCKET_WINDOW = 16

EMPTY_VALUE = np.uint64(0xFFFFFFFF)  # every signature value of an empty document (both schemes)
EMPTY_BAND_KEY = np.uint64(0)  # band key of an empty document; candidate_pairs skips it

_MASK64 = (1 << 64) - 1
_MERSENNE_PRIME = np.uint64((1 << 61) - 1)  # datasketch's legacy scheme
_POLY_BASE = 0x9E3779B97F4A7C15  # odd, so invertible mod 2**64
_POLY_BASE_INV = pow(_POLY_BASE, -1, 1 << 64)
_BAND_MULT = np.uint64(0xFF51AFD7ED558CCD)
_PUNCTUATION = re.compile(r"[^\w\s]")  # "_" is a word character; removed separately (faster than |_)
_SPACE = 0x20
_SHINGLE_CHUNK = 1 << 14  # shingles permuted at once: 16k x num_perm x 4 B = 6.4 MB at 100, cache-friendly scratch
_EDGE_CHUNK = 1 << 13  # edges confirmed at once: 2 x 8k x num_perm values of scratch (8 MB at 128 x uint32)
# Texts hashed together: the byte-level prefix sums stay cache-sized (cumsum/cumprod of tens of MB
# cost more than the rest of the work).
_TEXT_BATCH_CHARS = 1 << 20
# A longer text is normalised a piece at a time (cut at whitespace) and its spans hashed a window of
# bytes at a time: memory per document stays a few bytes per byte of text, not a Python string per word
# and a prefix sum and power table as long as the document (hostile inputs, case 6).
_PIECE_CHARS = 1 << 20
_SPAN_WINDOW = 1 << 21
_WHITESPACE = re.compile(r"\s")


# ---------------------------------------------------------------------------------------------
# Text -> shingles


def normalize_for_shingles(text: str) -> str:
    """Lowercase, delete punctuation/symbols (anything not a word character or space), collapse whitespace.

    Deleting (not spacing) punctuation keeps "don't" one word; the result has single ASCII spaces only.
    A long text is done in pieces cut at whitespace: the same result (no step looks across whitespace,
    not even lower()'s final-sigma rule), without a list of every word of the document.
    """
    if len(text) <= _PIECE_CHARS:
        return _normalize_piece(text)
    return " ".join(normalized_pieces(text))


def normalized_utf8_pieces(data) -> Iterator[str]:
    """normalized_pieces of a text given as its UTF-8 bytes (a memoryview of Arrow's buffer): decoded a
    piece at a time, cut at an ASCII space or newline (a character boundary, and whitespace), so the
    whole text is never one Python string (4 bytes a character if one of them is an emoji)."""
    view = memoryview(data)
    start = 0
    while start < len(view):
        stop = _ascii_space_after(view, start + _PIECE_CHARS) if len(view) - start > _PIECE_CHARS else len(view)
        yield from normalized_pieces(str(view[start:stop], "utf-8"))
        start = stop


def _ascii_space_after(view: memoryview, at: int, probe: int = 1 << 16) -> int:
    """The first position >= at of a b" " or b"\n" in `view`, else its length."""
    while at < len(view):
        window = bytes(view[at:at + probe])
        found = [i for i in (window.find(b" "), window.find(b"\n")) if i >= 0]
        if found:
            return at + min(found)
        at += probe
    return len(view)


def normalized_pieces(text: str) -> Iterator[str]:
    """normalize_for_shingles(text) as non-empty pieces of whole words, cut at whitespace about every
    _PIECE_CHARS characters: joined by single spaces they are the normalised text."""
    start = 0
    while start < len(text):
        cut = _WHITESPACE.search(text, start + _PIECE_CHARS) if len(text) - start > _PIECE_CHARS else None
        stop = cut.start() if cut else len(text)
        piece = _normalize_piece(text[start:stop])
        if piece:
            yield piece
        start = stop


# ASCII characters _PUNCTUATION deletes, and "_": on an ASCII text one str.translate does what the regex and
# the replace do, twice as fast (tests/test_minhash.py checks every ASCII character).
_ASCII_DELETE = {c: None for c in range(128) if not chr(c).isalnum() and not chr(c).isspace()}


def _normalize_piece(text: str) -> str:
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_DELETE).split())
    return " ".join(_PUNCTUATION.sub("", text.lower()).replace("_", "").split())


def shingles(text: str, n: int = DEFAULT_NGRAM) -> list[bytes]:
    """UTF-8 word n-grams of the normalised text, in order (duplicates kept: MinHash is a set sketch).

    Fewer than n words -> the whole normalised text is the one shingle; empty text -> no shingles.
    This is the reference form: MinHasher computes the same spans without building these strings.
    """
    words = normalize_for_shingles(text).split(" ")
    if words == [""]:
        return []
    if len(words) < n:
        return [" ".join(words).encode("utf-8")]
    return [" ".join(words[i : i + n]).encode("utf-8") for i in range(len(words) - n + 1)]


# ---------------------------------------------------------------------------------------------
# Hashing


def fmix64(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: a bijective avalanche mix (uint64 arrays wrap, which is intended)."""
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xFF51AFD7ED558CCD)
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xC4CEB9FE1A85EC53)
    return values ^ (values >> np.uint64(33))


def _fmix32(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finaliser, as datasketch's affine32 scheme applies it to every input hash."""
    values = values ^ (values >> np.uint32(16))
    values = values * np.uint32(0x85EBCA6B)
    values = values ^ (values >> np.uint32(13))
    values = values * np.uint32(0xC2B2AE35)
    return values ^ (values >> np.uint32(16))


def _fmix64_int(value: int) -> int:
    value ^= value >> 33
    value = (value * 0xFF51AFD7ED558CCD) & _MASK64
    value ^= value >> 33
    value = (value * 0xC4CEB9FE1A85EC53) & _MASK64
    return value ^ (value >> 33)


def poly_hash64(data: bytes) -> int:
    """Reference (pure Python) form of the vectorised span hash: fmix64(polynomial of the bytes mod 2**64)."""
    acc = 0
    for byte in data:
        acc = (acc * _POLY_BASE + byte) & _MASK64
    return _fmix64_int(acc)


def poly_hash32(data: bytes) -> int:
    """The default shingle hash: low 32 bits of poly_hash64. Pass it to datasketch as `hashfunc`."""
    return poly_hash64(data) & 0xFFFFFFFF


class _PowerTable:
    """Cached B**k and B**-k mod 2**64 (k = 0..size-1), grown on demand; swapped as one tuple so a
    concurrent reader never sees arrays of two different sizes."""

    def __init__(self) -> None:
        self.tables = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))

    def at_least(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        tables = self.tables
        if len(tables[0]) < size:
            size = max(size, 2 * len(tables[0]))
            tables = (_cumulative_powers(_POLY_BASE, size), _cumulative_powers(_POLY_BASE_INV, size))
            self.tables = tables
        return tables


def _cumulative_powers(base: int, size: int) -> np.ndarray:
    factors = np.full(size, base, dtype=np.uint64)
    factors[0] = 1
    return np.cumprod(factors, dtype=np.uint64)  # wraps mod 2**64, which is the arithmetic we want


_POWERS = _PowerTable()
_POWERS_CACHED = 2 * _SPAN_WINDOW + 2  # what at_least may grow to for a window's spans (it doubles)


def span_hashes64(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """poly_hash64(buffer[s:e]) for every (s, e), vectorised: one prefix sum, O(1) per span.

    Spans come in order (starts and ends non-decreasing, as ngram_word_spans makes them) and are hashed
    a window of about _SPAN_WINDOW bytes at a time: a span's hash depends on its bytes only, so the
    values are the same, and the prefix sum and power tables stay window-sized for any document.
    """
    starts, ends = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
    if len(starts) == 0 or int(ends[-1]) - int(starts[0]) <= _SPAN_WINDOW:
        return _window_hashes64(buffer, starts, ends)
    out = np.empty(len(starts), dtype=np.uint64)
    first = 0
    while first < len(starts):
        low = int(starts[first])
        stop = max(int(np.searchsorted(ends, low + _SPAN_WINDOW, side="right")), first + 1)
        high = int(ends[stop - 1])
        if high - low > _SPAN_WINDOW:  # one span longer than a window (a long word): hashed a window at a time
            out[first] = _long_span_hash64(buffer[low:high])
        else:
            out[first:stop] = _window_hashes64(buffer[low:high], starts[first:stop] - low, ends[first:stop] - low)
        first = stop
    return out


def _long_span_hash64(data: np.ndarray) -> np.uint64:
    """poly_hash64 of a span longer than _SPAN_WINDOW: poly(x + y) = poly(x) * B**len(y) + poly(y) mod 2**64,
    a window of bytes at a time, so the tables stay window-sized however long one word is."""
    powers, _ = _POWERS.at_least(_SPAN_WINDOW + 1)
    acc = np.zeros(1, dtype=np.uint64)
    for at in range(0, len(data), _SPAN_WINDOW):
        chunk = data[at:at + _SPAN_WINDOW]
        whole = np.array([0], dtype=np.int64), np.array([len(chunk)], dtype=np.int64)
        acc = acc * powers[len(chunk)] + _window_polynomials(chunk, *whole)
    return fmix64(acc)[0]


def _window_hashes64(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    return fmix64(_window_polynomials(buffer, starts, ends))


def _window_polynomials(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """With Q[k] = sum_{t<k} c_t B^-(t+1), the polynomial of buffer[s:e] is B^e (Q[e] - Q[s]) mod 2**64."""
    if len(buffer) + 1 > _POWERS_CACHED:  # a buffer longer than any window: its tables are made for it, not kept
        powers, inverse_powers = (_cumulative_powers(_POLY_BASE, len(buffer) + 1),
                                  _cumulative_powers(_POLY_BASE_INV, len(buffer) + 1))
    else:
        powers, inverse_powers = _POWERS.at_least(len(buffer) + 1)
    prefix = np.zeros(len(buffer) + 1, dtype=np.uint64)
    np.cumsum(buffer.astype(np.uint64) * inverse_powers[1 : len(buffer) + 1], out=prefix[1:])
    return powers[ends] * (prefix[ends] - prefix[starts])


def word_bounds(buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Byte start and end of each word in a normalised, space-joined UTF-8 buffer (no empty words)."""
    if len(buffer) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    spaces = np.flatnonzero(buffer == _SPACE)
    starts = np.concatenate(([0], spaces + 1))
    ends = np.concatenate((spaces, [len(buffer)]))
    return starts, ends


def ngram_word_spans(word_counts: np.ndarray, n: int, *, short_as_whole: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and last global word index of every n-gram of consecutive documents, and its document.

    Documents are word ranges laid end to end (word_counts[d] words each). A document with fewer than
    n words yields one span covering all its words if short_as_whole, else none; empty ones yield none.
    """
    word_counts = np.asarray(word_counts, dtype=np.int64)
    first_word = np.concatenate(([0], np.cumsum(word_counts)[:-1]))
    full = np.maximum(word_counts - n + 1, 0)
    counts = np.where((word_counts > 0) & (word_counts < n), 1, full) if short_as_whole else full
    span_words = np.minimum(word_counts, n)
    doc = np.repeat(np.arange(len(word_counts)), counts)
    offset_in_doc = np.arange(len(doc)) - np.repeat(np.cumsum(counts) - counts, counts)
    first = first_word[doc] + offset_in_doc
    last = first + span_words[doc] - 1
    return first, last, doc


# ---------------------------------------------------------------------------------------------
# Signatures


def datasketch_permutations(num_perm: int, seed: int, scheme: Scheme) -> np.ndarray:
    """(2, num_perm) permutation parameters (a, b) that datasketch.MinHash(num_perm, seed, scheme) draws:
    the same numpy RandomState(seed) calls in the same order (tests/test_minhash.py compares them with
    datasketch's own), without importing datasketch, which pulls in scipy (~0.6 s in every dedup worker)."""
    gen = np.random.RandomState(seed)
    if scheme == "legacy":
        return np.array([(gen.randint(1, int(_MERSENNE_PRIME), dtype=np.uint64),
                          gen.randint(0, int(_MERSENNE_PRIME), dtype=np.uint64)) for _ in range(num_perm)],
                        dtype=np.uint64).T
    # affine32: an odd a (a bijection mod 2**32) and any b
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return np.array([a, b])


class MinHasher:
    """MinHash signatures of word shingles, identical to datasketch's, computed a batch at a time.

    scheme: "affine32" (datasketch 2.x default: fmix32 pre-mix, a*h+b mod 2**32, uint32 values) or
        "legacy" (datasketch < 2.0: (a*h+b) mod (2**61-1), truncated to 32 bits, uint64 storage).
    shingle_hash: "poly64" (default; a vectorised polynomial hash of the shingle's bytes, finalised
        with fmix64 and truncated to 32 bits -- datasketch equivalent: hashfunc=poly_hash32), or
        "sha1" (datasketch's default sha1_hash32; ~4x slower end to end: one Python call per shingle).
    Build once per worker: the permutations are datasketch's for (num_perm, seed) (datasketch_permutations).
    """

    def __init__(
        self,
        num_perm: int = DEFAULT_NUM_PERM,
        seed: int = DEFAULT_SEED,
        ngram: int = DEFAULT_NGRAM,
        *,
        scheme: Scheme = "affine32",
        shingle_hash: ShingleHash = "poly64",
    ) -> None:
        if ngram < 1:
            raise ValueError(f"ngram must be >= 1, got {ngram}")
        if shingle_hash not in ("poly64", "sha1"):
            raise ValueError(f"unknown shingle_hash {shingle_hash!r}")
        if scheme not in ("affine32", "legacy"):
            raise ValueError(f"unsupported scheme {scheme!r}")
        self.num_perm = num_perm
        self.seed = seed
        self.ngram = ngram
        self.scheme = scheme
        self.shingle_hash = shingle_hash
        self.dtype = np.uint32 if scheme == "affine32" else np.uint64
        permutations = datasketch_permutations(num_perm, seed, scheme)
        self._a = np.ascontiguousarray(permutations[0], dtype=self.dtype)
        self._b = np.ascontiguousarray(permutations[1], dtype=self.dtype)

    def datasketch_hashfunc(self):
        """The hashfunc to give datasketch.MinHash for identical signatures."""
        if self.shingle_hash == "poly64":
            return poly_hash32
        from datasketch.hashfunc import sha1_hash32

        return sha1_hash32

    def empty_signature(self) -> np.ndarray:
        return np.full(self.num_perm, EMPTY_VALUE, dtype=self.dtype)

    def signature(self, text: str) -> np.ndarray:
        """(num_perm,) signature of one document; values < 2**32."""
        return self.signatures([text])[0]

    def signatures(self, texts: Sequence[str], each_batch: Callable[[int, WordBatch], None] | None = None) -> np.ndarray:
        """(N, num_perm) signatures (uint32 for affine32, uint64 for legacy); one row per text, in order.
        each_batch(first row, words) is called with every batch's normalised words (decontamination)."""
        result = np.empty((len(texts), self.num_perm), dtype=self.dtype)
        for start, hashes, shingle_counts in self.shingled(texts, each_batch):
            result[start:start + len(shingle_counts)] = self.signatures_of_hashes(hashes, shingle_counts)
        return result

    def shingled(self, texts: Sequence[str], each_batch: Callable[[int, WordBatch], None] | None = None
                 ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(first row, shingle hashes, shingle counts) of batches of about _TEXT_BATCH_CHARS characters;
        each_batch(first row, words) sees each batch's WordBatch, normalised once for both."""
        if self.shingle_hash != "poly64":
            for start, stop in batches_by_size(texts, _TEXT_BATCH_CHARS):
                if each_batch is not None:
                    each_batch(start, WordBatch.of(texts[start:stop]))
                yield start, *self._shingle_hashes(texts[start:stop])
            return
        for start, stop in batches_by_size(texts, _TEXT_BATCH_CHARS, alone=_PIECE_CHARS):
            # a long text, alone in its batch (a str, or its UTF-8 bytes: dedup's texts_of)
            if each_batch is None and len(texts[start]) > _PIECE_CHARS:
                hashes = long_text_shingle_hashes(texts[start], self.ngram)
                yield start, hashes, np.array([len(hashes)], dtype=np.int64)
                continue
            words = WordBatch.of(texts[start:stop])
            if each_batch is not None:
                each_batch(start, words)
            yield start, *words.shingle_hashes(self.ngram)

    def signatures_of_hashes(self, hashes: np.ndarray, shingle_counts: np.ndarray) -> np.ndarray:
        """(N, num_perm) signatures from shingle_hashes' output (its 32-bit hashes, per-text counts).

        For callers that also need the hashes themselves (verify.signatures_and_sets): one shingling pass.
        """
        return self._min_per_document(hashes, np.asarray(shingle_counts, dtype=np.int64))

    def _shingle_hashes(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        return shingle_hashes(texts, self.ngram, self.shingle_hash)

    def _premix(self, hashes: np.ndarray) -> np.ndarray:
        """What datasketch does to a hashfunc output before permuting it."""
        if self.scheme == "affine32":
            return _fmix32(hashes.astype(np.uint32))
        return hashes.astype(np.uint64)

    def _permute_into(self, hashes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out[k, s] = permutation k of hash s: datasketch's update_batch arithmetic, transposed.

        The (num_perm, shingles) layout makes the per-document min a contiguous reduceat along axis 1,
        and the preallocated `out` avoids page-faulting fresh scratch on every chunk.
        """
        out = out[:, : len(hashes)]
        np.multiply(self._a[:, None], hashes[None, :], out=out)  # uint32 wraparound is the mod 2**32
        np.add(out, self._b[:, None], out=out)
        if self.scheme == "legacy":
            np.remainder(out, _MERSENNE_PRIME, out=out)
            np.bitwise_and(out, EMPTY_VALUE, out=out)
        return out

    def _min_per_document(self, hashes: np.ndarray, shingle_counts: np.ndarray) -> np.ndarray:
        """Per-document minimum of the permuted (premixed) hashes; documents without shingles stay empty.
        Each chunk is premixed as it is permuted: no premixed copy of all the hashes (a long document's)."""
        signatures = np.full((len(shingle_counts), self.num_perm), EMPTY_VALUE, dtype=self.dtype)
        nonempty = np.flatnonzero(shingle_counts > 0)
        counts = shingle_counts[nonempty]
        ends = np.cumsum(counts)
        starts = ends - counts
        scratch = np.empty((self.num_perm, _SHINGLE_CHUNK), dtype=self.dtype)
        first = 0
        while first < len(nonempty):
            # Whole documents up to _SHINGLE_CHUNK shingles; a longer document goes alone.
            stop = max(int(np.searchsorted(ends, starts[first] + _SHINGLE_CHUNK, side="right")), first + 1)
            chunk = hashes[starts[first] : ends[stop - 1]]
            if len(chunk) > _SHINGLE_CHUNK:  # one long document: a running minimum over scratch-sized pieces
                minimum = signatures[nonempty[first]]
                for at in range(0, len(chunk), _SHINGLE_CHUNK):
                    piece = self._permute_into(self._premix(chunk[at : at + _SHINGLE_CHUNK]), scratch)
                    np.minimum(minimum, piece.min(axis=1), out=minimum)
                first = stop
                continue
            permuted = self._permute_into(self._premix(chunk), scratch)
            # reduceat only over non-empty documents: an empty range would yield a value, not the identity.
            minima = np.minimum.reduceat(permuted, starts[first:stop] - starts[first], axis=1)
            signatures[nonempty[first:stop]] = minima.T
            first = stop
        return signatures


def shingle_hashes(texts: Sequence[str], ngram: int = DEFAULT_NGRAM,
                   shingle_hash: ShingleHash = "poly64") -> tuple[np.ndarray, np.ndarray]:
    """uint32 hash of every shingle of every text (concatenated, in order, duplicates kept), and int64
    shingle counts per text: exactly the values MinHasher's signatures are computed from.

    poly64: the low 32 bits of poly_hash64 (= poly_hash32) of each shingle's UTF-8 bytes; sha1: the first
    4 bytes of its sha1, little-endian (datasketch's sha1_hash32). Texts are hashed together, so pass a
    batch of about _TEXT_BATCH_CHARS characters (MinHasher and verify batch for you).
    """
    if shingle_hash == "sha1":
        return _sha1_shingle_hashes(texts, ngram)
    if shingle_hash != "poly64":
        raise ValueError(f"unknown shingle_hash {shingle_hash!r}")
    return WordBatch.of(texts).shingle_hashes(ngram)


def long_text_shingle_hashes(text, ngram: int = DEFAULT_NGRAM) -> np.ndarray:
    """shingle_hashes([text], ngram)[0] of one long text (a str, or its UTF-8 bytes: a memoryview), a
    normalised piece at a time: each piece's words with the last ngram - 1 words before them, so every
    shingle is hashed once, in order. Memory is the uint32 hashes (4 B a word) and one piece's scratch,
    not the whole text's word and span arrays (~40 B per byte of text; issue 47 item 13)."""
    out: list[np.ndarray] = []
    carry = ""  # the words before the piece that start a shingle ending in it (all of them, if too few)
    for piece in normalized_pieces(text) if isinstance(text, str) else normalized_utf8_pieces(text):
        window = f"{carry} {piece}" if carry else piece
        words = WordBatch.of_normalized([window])
        if int(words.word_counts[0]) >= ngram:
            out.append(words.gram_hashes(ngram, short_as_whole=False)[0].astype(np.uint32))
            carry = " ".join(window.rsplit(" ", ngram - 1)[1:]) if ngram > 1 else ""
        else:
            carry = window
    if not out and carry:  # fewer words than ngram in all: the whole text is the one shingle
        out.append(WordBatch.of_normalized([carry]).shingle_hashes(ngram)[0])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint32)


def word_batches(texts: Sequence[str]) -> Iterator[tuple[int, WordBatch]]:
    """(first row, WordBatch) of consecutive texts of about _TEXT_BATCH_CHARS characters each."""
    for start, stop in batches_by_size(texts, _TEXT_BATCH_CHARS):
        yield start, WordBatch.of(texts[start:stop])


@dataclass
class WordBatch:
    """Texts normalised (normalize_for_shingles) and laid end to end as one UTF-8 buffer, with the byte
    bounds of every word and the word count of every text: what MinHash shingles and decontamination
    n-grams are both hashed from, so a batch is normalised once for both."""

    buffer: np.ndarray
    word_starts: np.ndarray
    word_ends: np.ndarray
    word_counts: np.ndarray
    _prefix: tuple | None = field(default=None, repr=False, compare=False)  # (B**k, Q) of the whole buffer

    @classmethod
    def of(cls, texts: Sequence[str]) -> WordBatch:
        return cls.of_normalized([normalize_for_shingles(text) for text in texts])

    @classmethod
    def of_normalized(cls, normalised: Sequence[str]) -> WordBatch:
        """A batch of texts already normalize_for_shingles'd (normalising twice need not be a no-op)."""
        word_counts = np.array([text.count(" ") + 1 if text else 0 for text in normalised], dtype=np.int64)
        # Join non-empty texts with one space: then words of the whole batch are split by spaces alone.
        buffer = np.frombuffer(" ".join(t for t in normalised if t).encode("utf-8"), dtype=np.uint8)
        word_starts, word_ends = word_bounds(buffer)
        return cls(buffer, word_starts, word_ends, word_counts)

    def gram_hashes(self, n: int, *, short_as_whole: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """poly_hash64 of every n-word gram of every text (a text shorter than n: its whole word sequence
        if short_as_whole, else nothing), its text and its first word's global index."""
        first, last, doc = ngram_word_spans(self.word_counts, n, short_as_whole=short_as_whole)
        return self._span_hashes(self.word_starts[first], self.word_ends[last]), doc, first

    def _span_hashes(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """span_hashes64 of the buffer; a buffer of one window keeps its prefix sum for every gram length
        (a span's hash depends on its bytes only, so a prefix from the buffer's start gives the same)."""
        if len(self.buffer) > _SPAN_WINDOW:
            return span_hashes64(self.buffer, starts, ends)
        if self._prefix is None:
            powers, inverse_powers = _POWERS.at_least(len(self.buffer) + 1)
            prefix = np.zeros(len(self.buffer) + 1, dtype=np.uint64)
            np.cumsum(self.buffer.astype(np.uint64) * inverse_powers[1:len(self.buffer) + 1], out=prefix[1:])
            self._prefix = (powers, prefix)
        powers, prefix = self._prefix
        return fmix64(powers[ends] * (prefix[ends] - prefix[starts]))

    def shingle_hashes(self, ngram: int) -> tuple[np.ndarray, np.ndarray]:
        """shingle_hashes(texts, ngram, "poly64") of the batch's texts."""
        hashes, doc, _ = self.gram_hashes(ngram, short_as_whole=True)
        return hashes.astype(np.uint32), np.bincount(doc, minlength=len(self.word_counts)).astype(np.int64)


def _sha1_shingle_hashes(texts: Sequence[str], ngram: int) -> tuple[np.ndarray, np.ndarray]:
    digests: list[bytes] = []
    counts = np.zeros(len(texts), dtype=np.int64)
    for i, text in enumerate(texts):
        items = shingles(text, ngram)
        counts[i] = len(items)
        digests.extend(h.digest()[:4] for h in map(hashlib.sha1, items))
    return np.frombuffer(b"".join(digests), dtype="<u4").astype(np.uint32), counts


def batches_by_size(texts: Sequence[str], max_chars: int, alone: int | None = None) -> list[tuple[int, int]]:
    """[start, stop) ranges of consecutive texts of about max_chars each (at least one text per range);
    a text longer than `alone` characters (if given) has a range of its own."""
    ranges: list[tuple[int, int]] = []
    start, size = 0, 0
    for i, text in enumerate(texts):
        if alone is not None and len(text) > alone:
            if start < i:
                ranges.append((start, i))
            ranges.append((i, i + 1))
            start, size = i + 1, 0
            continue
        size += len(text)
        if size >= max_chars:
            ranges.append((start, i + 1))
            start, size = i + 1, 0
    if start < len(texts):
        ranges.append((start, len(texts)))
    return ranges


def is_empty_signature(sigs: np.ndarray) -> np.ndarray | bool:
    """True for signatures of empty documents (every value 0xFFFFFFFF); works on (num_perm,) or (N, num_perm)."""
    return np.all(np.asarray(sigs) == EMPTY_VALUE, axis=-1)


# ---------------------------------------------------------------------------------------------
# LSH bands -> candidate pairs


def band_keys(sigs: np.ndarray, bands: int = DEFAULT_BANDS) -> np.ndarray:
    """(N, bands) uint64: a stable 64-bit hash of each band's rows, salted with the band index.

    The salt makes keys of different bands distinct, so all bands can also be bucketed together.
    Empty documents get EMPTY_BAND_KEY in every band; a real key that happens to be 0 becomes 1.
    """
    sigs = np.asarray(sigs)
    count, num_perm = sigs.shape
    if num_perm % bands:
        raise ValueError(f"num_perm {num_perm} is not divisible by bands {bands}")
    values = sigs.reshape(count, bands, num_perm // bands).astype(np.uint64)
    keys = np.broadcast_to(fmix64(np.arange(1, bands + 1, dtype=np.uint64)), (count, bands)).copy()
    for row in range(values.shape[2]):
        # Each step is a bijection of (state xor value): distinct bands collide with p ~ 2**-64.
        keys = fmix64((keys ^ values[:, :, row]) * _BAND_MULT)
    keys[keys == EMPTY_BAND_KEY] = np.uint64(1)
    keys[is_empty_signature(sigs)] = EMPTY_BAND_KEY
    return keys


def _sorted_buckets(keys: np.ndarray, row_ids: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Keys and row ids (dtype kept) ordered by (key, row id), empty keys dropped.

    Scratch beyond the two sorted copies is one int64 permutation, freed before returning.
    row_ids None means 0..n-1: the stable sort's permutation is then the sorted ids, with no copy.
    """
    keys = np.asarray(keys, dtype=np.uint64).ravel()
    if row_ids is None:
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        first_real = int(np.searchsorted(sorted_keys, EMPTY_BAND_KEY, side="right"))
        return sorted_keys[first_real:], order[first_real:]
    row_ids = np.asarray(row_ids).ravel()
    if keys.shape != row_ids.shape:
        raise ValueError(f"keys {keys.shape} and row_ids {row_ids.shape} differ in shape")
    if not np.issubdtype(row_ids.dtype, np.integer):
        raise ValueError(f"row_ids must be integers, got {row_ids.dtype}")
    if len(row_ids) < 2 or np.all(row_ids[1:] >= row_ids[:-1]):
        order = np.argsort(keys, kind="stable")  # ids already ascending: one stable sort is enough
    else:
        order = np.lexsort((row_ids, keys))
    sorted_keys, sorted_ids = keys[order], row_ids[order]
    del order
    # EMPTY_BAND_KEY is 0, the smallest key: empty documents form a prefix, dropped as a view.
    first_real = int(np.searchsorted(sorted_keys, EMPTY_BAND_KEY, side="right"))
    return sorted_keys[first_real:], sorted_ids[first_real:]


def candidate_pairs(
    keys: np.ndarray, row_ids: np.ndarray, *, window: int = DEFAULT_BUCKET_WINDOW
) -> np.ndarray:
    """(E, 2) int64 edges (i < j) between rows whose keys are equal, found by sorting (unique, sorted).

    keys, row_ids: equal-shaped arrays, one band's keys (or several bands' salted keys flattened).
    Within a bucket sorted by row id, each member is paired with its next `window` members: all pairs
    for buckets of up to window+1 members, at most `window` pairs per member in larger ones (the cap
    that keeps a huge boilerplate bucket linear). Rows with EMPTY_BAND_KEY are skipped.
    Holds up to `window` edges per document at once; candidate_pair_batches holds one.
    """
    batches = list(candidate_pair_batches(keys, row_ids, window=window))
    return unique_edges(np.concatenate(batches) if batches else np.zeros((0, 2), dtype=np.int64))


def candidate_pair_batches(
    keys: np.ndarray, row_ids: np.ndarray | None, *, window: int = DEFAULT_BUCKET_WINDOW
) -> Iterator[np.ndarray]:
    """candidate_pairs one bucket offset at a time: batch d pairs members d apart in their bucket.

    Each batch has at most one edge per document (unique, sorted). Confirming and clustering each
    batch before the next lets unionfind.edges_across_clusters drop most later pairs: a bucket of
    exact copies is one cluster after its offset-1 chain, so it costs one edge per member, not `window`.
    """
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    sorted_keys, sorted_ids = _sorted_buckets(keys, row_ids)
    del keys, row_ids  # the sorted copies are all we need: let a caller's temporary input go
    for offset in range(1, window + 1):
        same = sorted_keys[offset:] == sorted_keys[:-offset]
        if not same.any():
            return  # no bucket has more than `offset` members, so larger offsets find nothing either
        pairs = np.stack((sorted_ids[:-offset][same], sorted_ids[offset:][same]), axis=1)
        del same
        yield unique_edges(pairs)


def star_pairs(keys: np.ndarray, row_ids: np.ndarray) -> np.ndarray:
    """(E, 2) edges linking each bucket member to the bucket's smallest row id (unique, sorted).

    Cheapest linking (one edge per member) but weaker before confirmation: see candidate_pairs.
    """
    sorted_keys, sorted_ids = _sorted_buckets(keys, row_ids)
    if len(sorted_keys) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    is_first = np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))
    bucket_first = np.maximum.accumulate(np.where(is_first, np.arange(len(sorted_keys)), 0))
    members = ~is_first
    return unique_edges(np.stack((sorted_ids[bucket_first[members]], sorted_ids[members]), axis=1).astype(np.int64))


def unique_edges(edges: np.ndarray) -> np.ndarray:
    """Edges as (min, max), self-loops dropped, duplicates removed, sorted by (i, j); int64 (E, 2).

    Sort + neighbour mask rather than np.unique, whose hash-based path is ~20x slower on numpy 2.4.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    low, high = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
    keep = low != high
    low, high = low[keep], high[keep]
    if len(low) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if low.min() >= 0 and high.max() < 1 << 32:
        # Both ids fit 32 bits: sort one packed uint64 per edge instead of two columns.
        codes = np.sort((low.astype(np.uint64) << np.uint64(32)) | high.astype(np.uint64))
        codes = codes[first_of_runs(codes)]
        return np.stack(((codes >> np.uint64(32)).astype(np.int64), (codes & EMPTY_VALUE).astype(np.int64)), axis=1)
    order = np.lexsort((high, low))
    low, high = low[order], high[order]
    distinct = first_of_runs(low) | first_of_runs(high)
    return np.stack((low[distinct], high[distinct]), axis=1)


def first_of_runs(sorted_values: np.ndarray) -> np.ndarray:
    """Mask of the positions where a sorted array's value differs from the previous one."""
    first = np.ones(len(sorted_values), dtype=bool)
    first[1:] = sorted_values[1:] != sorted_values[:-1]
    return first


# ---------------------------------------------------------------------------------------------
# Confirmation


def estimated_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Fraction of equal signature values (datasketch's MinHash.jaccard); 0.0 if either is empty."""
    sig_a, sig_b = np.asarray(sig_a), np.asarray(sig_b)
    if sig_a.shape != sig_b.shape:
        raise ValueError(f"signature shapes differ: {sig_a.shape} vs {sig_b.shape}")
    if is_empty_signature(sig_a) or is_empty_signature(sig_b):
        return 0.0
    return float(np.count_nonzero(sig_a == sig_b)) / sig_a.size


def estimated_jaccards(edges: np.ndarray, sigs: np.ndarray) -> np.ndarray:
    """float64 (E,) estimated Jaccard of every edge (i, j) = rows of `sigs` (array or np.memmap).

    Gathers signatures a chunk of edges at a time, so scratch stays ~2 x 8k x num_perm values.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    result = np.zeros(len(edges), dtype=np.float64)
    for start in range(0, len(edges), _EDGE_CHUNK):
        chunk = edges[start : start + _EDGE_CHUNK]
        left, right = np.asarray(sigs[chunk[:, 0]]), np.asarray(sigs[chunk[:, 1]])
        agree = np.count_nonzero(left == right, axis=1) / left.shape[1]
        agree[is_empty_signature(left) | is_empty_signature(right)] = 0.0
        result[start : start + len(chunk)] = agree
    return result


def confirmed_edges(edges: np.ndarray, sigs: np.ndarray, threshold: float = 0.8) -> np.ndarray:
    """The edges whose two signatures have estimated Jaccard >= threshold (order kept)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return edges[estimated_jaccards(edges, sigs) >= threshold]
