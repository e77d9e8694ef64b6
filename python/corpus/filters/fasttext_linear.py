"""A fastText supervised classifier scored as the linear model it is, many documents at a time.

fastText's logits for a line are W_out · mean(input rows of its words and word n-grams). Both steps are
linear, so every input row is projected through W_out once, at load: the model becomes a table of
(words + buckets) × labels float64 values -- one value per row for two labels, the difference of their
logits: 2.2 MB for the bench's 113 MB model, which is never held in memory itself. Scoring a batch of lines is then what fastText does before its arithmetic, vectorised:

- split at ' \\n\\r\\t\\v\\f\\0', each line ending in the word '</s>' (fastText reads the line's end as a word);
- look each word up in the vocabulary, exactly: a word of at most 16 bytes is its own key (two
  little-endian uint64 of its bytes, zero-padded: no word holds a 0 byte) in an open-addressed table,
  a longer one goes through a dict;
- hash the words not in the vocabulary with fastText's FNV-1a (bytes as signed chars), and the word
  n-grams as fastText does (h = h * 116049371 + next, sign-extended int32 hashes, modulo bucket);
- sum the rows' table values per line with np.bincount (in token order, one line's sums whatever else is
  in the batch), divide by the row count, softmax, and add fastText's 1e-5 (it reports exp(log(p + 1e-5))).

The sums are float64 where fastText's are float32, so a score can differ from fastText's own in its last
float32 bits (at most 3e-6 on the bench's 5,997 documents); it is the same for any batch, worker or
partition. The models covered: supervised, softmax loss, no character n-grams, not quantized; for any other
LinearScorer raises Unsupported and the caller scores it with fastText's predictor."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

import numpy as np

MAGIC, VERSION = 793712314, 12
LOSS_SOFTMAX, MODEL_SUPERVISED = 3, 3
EOS = b"</s>"
NGRAM_PRIME = np.uint64(116049371)
FNV_PRIME, FNV_BASIS = np.uint32(16777619), 2166136261
SHORT = 16               # bytes: a word this long or shorter is its own key
VECTOR_FNV_MAX = 64      # bytes: longer out-of-vocabulary words are hashed in Python (rare; bounds the loop)
PROJECT_ROWS = 8192      # input rows projected at a time (memory bounded whatever the model's size)
_SEPARATORS = np.zeros(256, dtype=bool)
_SEPARATORS[list(b" \n\r\t\v\f\0")] = True
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F)


class Unsupported(ValueError):
    """A model this scorer does not cover (the caller uses fastText's predictor)."""


def fnv1a(word: bytes) -> int:
    """fastText's Dictionary::hash: 32-bit FNV-1a over the bytes read as signed chars."""
    h = FNV_BASIS
    for c in word:
        h = ((h ^ (c | 0xFFFFFF00 if c >= 0x80 else c)) * 16777619) & 0xFFFFFFFF
    return h


def fnv1a_many(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """fnv1a of each word buf[start:start + length] (uint32), vectorised over words sorted by length;
    words longer than VECTOR_FNV_MAX are hashed in Python."""
    n = len(starts)
    out = np.empty(n, dtype=np.uint32)
    if not n:
        return out
    signed = buf.view(np.int8).astype(np.int32).view(np.uint32)  # a byte >= 0x80 sign-extends, as in fastText
    long_ = lengths > VECTOR_FNV_MAX
    for i in np.flatnonzero(long_).tolist():
        out[i] = fnv1a(buf[starts[i]:starts[i] + lengths[i]].tobytes())
    short = np.flatnonzero(~long_)
    order = short[np.argsort(-lengths[short].astype(np.int16), kind="stable")]  # longest first
    pos, h = starts[order].copy(), np.full(len(order), FNV_BASIS, dtype=np.uint32)
    longer = len(order) - np.cumsum(np.bincount(lengths[order], minlength=VECTOR_FNV_MAX + 1))
    for k in range(VECTOR_FNV_MAX):
        m = int(longer[k])  # the words longer than k bytes: a prefix of `order`
        if m == 0:
            break
        hm = h[:m]
        hm ^= signed[pos[:m]]
        hm *= FNV_PRIME
        pos[:m] += 1
    out[order] = h
    return out


def _keys(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each word's first 16 bytes as two little-endian uint64, zero beyond its end. `buf` ends in 16 spare
    bytes so that every 8-byte read stays inside it."""
    window = np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
    k1 = window[starts] & _MASKS[np.minimum(lengths, 8)]
    k2 = np.zeros(len(starts), dtype=np.uint64)
    longer = np.flatnonzero(lengths > 8)
    k2[longer] = window[starts[longer] + 8] & _MASKS[lengths[longer] - 8]
    return k1, k2


def _slots(k1: np.ndarray, k2: np.ndarray, bits: int) -> np.ndarray:
    return ((k1 * _MIX1) ^ (k2 * _MIX2)) >> np.uint64(64 - bits)


class _Header:
    def __init__(self, data, path: Path):
        if len(data) < 64 or struct.unpack_from("<ii", data, 0) != (MAGIC, VERSION):
            raise Unsupported(f"{path}: not a fastText model of version {VERSION}")
        (self.dim, _ws, _epoch, _min_count, _neg, self.word_ngrams, self.loss, self.model, self.bucket, self.minn,
         self.maxn, _lr_update) = struct.unpack_from("<12i", data, 8)


def _read_dictionary(data, path: Path) -> tuple[list[bytes], int, int]:
    """(the words then the labels, nwords, offset after the dictionary)."""
    off = 64
    size, nwords, nlabels = struct.unpack_from("<3i", data, off)
    _ntokens, prune = struct.unpack_from("<qq", data, off + 12)
    off += 28
    if not (0 < nwords <= size and nlabels == size - nwords and nlabels > 0):
        raise Unsupported(f"{path}: a dictionary of {size} entries, {nwords} words, {nlabels} labels")
    if prune > 0:
        raise Unsupported(f"{path}: a pruned (quantized) dictionary")
    entries = []
    for _ in range(size):
        end = data.find(b"\0", off)
        if end < 0:
            raise Unsupported(f"{path}: the dictionary ends early")
        entries.append(bytes(data[off:end]))
        off = end + 1 + 8 + 1  # the word, its count (int64), its type (int8)
    return entries, nwords, off


class LinearScorer:
    """P(label | line) for many lines of a fastText softmax classifier, from its projected rows."""

    def __init__(self, path: str | Path):
        path = Path(path)
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            head = _Header(data, path)
            if head.model != MODEL_SUPERVISED:
                raise Unsupported(f"{path}: not a supervised model")
            if head.loss != LOSS_SOFTMAX:
                raise Unsupported(f"{path}: loss {head.loss}, not softmax (hs, ns and ova use fastText's sigmoid table)")
            if head.maxn > 0:
                raise Unsupported(f"{path}: character n-grams (maxn {head.maxn})")
            words, nwords, off = _read_dictionary(data, path)
            table = self._project(data, off, head, nwords, len(words) - nwords, path)
        columns = [np.ascontiguousarray(table[:, c]) for c in range(table.shape[1])]  # 1-D: fast gathers
        # what a row adds up: its logit per label, or for two labels one value, the second's minus the first's
        self.values = [columns[1] - columns[0]] if len(columns) == 2 else columns
        self.labels = [w.decode("utf-8", "replace") for w in words[nwords:]]
        self.nwords, self.bucket, self.word_ngrams = nwords, head.bucket, head.word_ngrams
        self._index_vocabulary(words[:nwords])

    @staticmethod
    def _project(data, off: int, head: _Header, nwords: int, nlabels: int, path: Path) -> np.ndarray:
        """(rows, labels) float64: each input row times W_out, summed over the dimensions in order."""
        if data[off]:
            raise Unsupported(f"{path}: a quantized input matrix")
        rows, dim = struct.unpack_from("<qq", data, off + 1)
        start = off + 17
        out_at = start + rows * dim * 4
        if rows != nwords + head.bucket or dim != head.dim or out_at + 17 > len(data) or data[out_at]:
            raise Unsupported(f"{path}: an input matrix of {rows} x {dim} (or a quantized output matrix)")
        labels, odim = struct.unpack_from("<qq", data, out_at + 1)
        if labels != nlabels or odim != dim or out_at + 17 + labels * dim * 4 != len(data):
            raise Unsupported(f"{path}: an output matrix of {labels} x {odim} for {nlabels} labels")
        w_out = np.frombuffer(data, np.float32, labels * dim, out_at + 17).reshape(labels, dim).astype(np.float64)
        table = np.empty((rows, labels), dtype=np.float64)
        for lo in range(0, rows, PROJECT_ROWS):
            n = min(PROJECT_ROWS, rows - lo)
            block = np.frombuffer(data, np.float32, n * dim, start + lo * dim * 4).reshape(n, dim).T.astype(np.float64)
            acc = np.zeros((labels, n), dtype=np.float64)
            for j in range(dim):  # products of float32 values are exact in float64; the order is fixed
                acc += w_out[:, j:j + 1] * block[j]
            table[lo:lo + n] = acc.T
        return table

    def _index_vocabulary(self, words: list[bytes]) -> None:
        n = len(words)
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=n)
        buf = b"".join(words) + bytes(SHORT)
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        self.hashes = fnv1a_many(np.frombuffer(buf, np.uint8), starts, lengths).view(np.int32).astype(np.int64)
        short = np.flatnonzero((lengths <= SHORT) & (lengths > 0))
        k1, k2 = _keys(buf, starts[short], lengths[short])
        self.bits = max(4, int(2 * n - 1).bit_length())  # load factor at most 1/2
        size = 1 << self.bits
        self.key1, self.key2 = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
        self.ids = np.full(size, -1, dtype=np.int32)
        slot, pending = _slots(k1, k2, self.bits).astype(np.int64), np.arange(len(short))
        while len(pending):  # linear probing, inserted in id order: among words wanting one slot the lowest id wins
            free = self.ids[slot] < 0
            cand = np.flatnonzero(free)
            taken, first = np.unique(slot[cand], return_index=True)
            won = cand[first]
            self.ids[taken] = short[pending[won]]
            self.key1[taken], self.key2[taken] = k1[pending[won]], k2[pending[won]]
            rest = np.ones(len(pending), dtype=bool)
            rest[won] = False
            pending, slot = pending[rest], (slot[rest] + 1) & (size - 1)
        self.long_words = {w: i for i, w in enumerate(words) if len(w) > SHORT}
        eos_hash = fnv1a(EOS)
        self.eos = (self.lookup_one(EOS), eos_hash - (1 << 32) if eos_hash >= 1 << 31 else eos_hash)  # as int32

    def lookup_one(self, word: bytes) -> int:
        buf = word + bytes(SHORT)
        if len(word) > SHORT:
            return self.long_words.get(word, -1)
        found = self._lookup(*_keys(buf, np.zeros(1, np.int64), np.array([len(word)])))
        return int(found[0])

    def _lookup(self, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
        """The vocabulary id of each short word's key, or -1. An empty slot's key1 is 0, which no word's is
        (a word's first byte is not 0), so equal keys are a found word."""
        mask = (1 << self.bits) - 1
        slot = _slots(k1, k2, self.bits).astype(np.intp)
        ids = self.ids[slot]
        missed = (self.key1[slot] != k1) | (self.key2[slot] != k2)
        found = np.where(missed, -1, ids)
        active = np.flatnonzero(missed & (ids >= 0))  # a collision: probe on (linear probing)
        slot = slot[active]
        while len(active):
            slot = (slot + 1) & mask
            ids = self.ids[slot]
            hit = (self.key1[slot] == k1[active]) & (self.key2[slot] == k2[active])
            found[active[hit]] = ids[hit]
            go_on = ~hit & (ids >= 0)
            active, slot = active[go_on], slot[go_on]
        return found

    def scores(self, lines: list[str], label: str) -> np.ndarray:
        """P(label | line) + 1e-5, at most 1, of each line (classifier_text's output: no newline, no
        word starting with __label__), as fastText's predict(line, k=-1) reports it up to float rounding."""
        li = self.labels.index(label)
        if not lines:
            return np.zeros(0, dtype=np.float64)
        raw = b"\n".join(t.encode("utf-8", "replace") for t in lines) + b"\n"
        if raw.count(b"\n") != len(lines):
            raise ValueError("a line to score holds a newline (classifier_text removes them)")
        buf = (raw.replace(b"\0", b" ") if b"\0" in raw else raw) + bytes(SHORT)
        a = np.frombuffer(buf, np.uint8)
        # separators: every byte <= 0x20 that fastText splits at (other control bytes are word bytes)
        low = np.flatnonzero(a[:len(raw)] <= 0x20)
        seps = low[_SEPARATORS[a[low]]]
        newline = a[seps] == 10
        prev = np.empty_like(seps)
        prev[0], prev[1:] = -1, seps[:-1]
        gap = seps - prev - 1
        word_at = np.flatnonzero(gap > 0)  # a word ends at each separator that follows a non-separator
        starts, lengths = prev[word_at] + 1, gap[word_at]
        lines_before = np.cumsum(newline) - newline  # newlines before each separator
        word_line = lines_before[word_at]
        ids = np.full(len(starts), -1, dtype=np.int64)
        short = np.flatnonzero(lengths <= SHORT)
        ids[short] = self._lookup(*_keys(buf, starts[short], lengths[short]))
        if len(short) < len(starts):
            for i in np.flatnonzero(lengths > SHORT).tolist():
                ids[i] = self.long_words.get(buf[starts[i]:starts[i] + lengths[i]], -1)
        hashes = self.hashes[ids]  # ids == -1 reads the last entry: replaced just below
        oov = np.flatnonzero(ids < 0)
        if len(oov):
            hashes[oov] = fnv1a_many(a, starts[oov], lengths[oov]).view(np.int32)
        # the rows: the known words, each line's '</s>', then the word n-grams of the token sequence (each
        # line's words and its '</s>'); each line's sums, in this order, whatever else is in the batch
        known = np.flatnonzero(ids >= 0)
        known_line, known_ids = word_line[known], ids[known]
        per_line = np.bincount(word_line, minlength=len(lines))  # words per line
        count = np.bincount(known_line, minlength=len(lines))
        columns = self.values
        z = [np.bincount(known_line, weights=c[known_ids], minlength=len(lines)) for c in columns]
        if self.eos[0] >= 0:
            count += 1
            z = [zc + c[self.eos[0]] for zc, c in zip(z, columns)]
        if self.bucket > 0 and self.word_ngrams > 1:
            n_tok = len(starts) + len(lines)
            seq_hashes, seq_line = np.empty(n_tok, np.int64), np.empty(n_tok, np.int64)
            at = np.arange(len(starts)) + word_line  # word j goes to j + the lines before it
            seq_hashes[at], seq_line[at] = hashes, word_line
            eos_at = np.cumsum(per_line) + np.arange(len(lines))
            seq_hashes[eos_at], seq_line[eos_at] = self.eos[1], np.arange(len(lines))
            h = seq_hashes.view(np.uint64)
            for k in range(1, self.word_ngrams):
                h = h[:-1] * NGRAM_PRIME + seq_hashes[k:].view(np.uint64)
                same = np.flatnonzero(seq_line[:-k] == seq_line[k:])
                rows, row_line = self.nwords + (h[same] % np.uint64(self.bucket)).astype(np.int64), seq_line[same]
                z = [zc + np.bincount(row_line, weights=c[rows], minlength=len(lines)) for zc, c in zip(z, columns)]
                count += np.maximum(per_line + 1 - k, 0)  # a line of t tokens has t - k (k+1)-grams
        scored = count > 0  # fastText predicts nothing for a line without a known word or n-gram: 0
        out = np.zeros(len(lines), dtype=np.float64)
        with np.errstate(over="ignore"):
            if len(self.labels) == 2:  # the softmax of two logits: 1 / (1 + e^-(z_label - z_other))
                d = z[0][scored] / count[scored]
                p = 1.0 / (1.0 + np.exp(d if li == 0 else -d))
            else:
                zs = np.stack(z)[:, scored] / count[scored]
                e = np.exp(zs - zs.max(axis=0))
                p = e[li] / e.sum(axis=0)
        out[scored] = np.minimum(1.0, p + 1e-5)
        return out
