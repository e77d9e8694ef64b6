"""fastText's supervised predict in numpy, bit for bit, for a batch of documents (issue 31).

fastText's own predictor spends most of its time per word: reading bytes from a stream, building a string
for every character n-gram, hashing it, looking the row up. The rows a word adds do not depend on the
document, so here they are computed once per word (a bounded cache) and a document is one gather and one
sum of its rows. Everything after that is done over the whole batch at once.

The result is the same bits as fastText 0.9.2 (fasttext-predict): the same words (split at fastText's six
whitespace bytes and NUL, `</s>` ends the line, label-prefixed words are not words), the rows added one at
a time in fastText's order (numpy sums along axis 0 in row order), every product and sum in float32 where
fastText uses `real`, and its few double-precision steps in double. The one function numpy does not round
as glibc does is `expf`: glibc's result is within 0.0017 float ulp of exp's true value before rounding
(checked over every float below 88 in magnitude), so a value numpy finds more than 0.01 ulp from a rounding
midpoint rounds the same way, and the ~0.5% nearer ones are computed by glibc's expf itself.

Supported: hierarchical-softmax and softmax models (lid.176 is the one, the quality classifiers the
other), plain or quantized input matrix, plain output matrix; `load` returns None for anything else and the
caller keeps fastText's predictor."""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import math
import struct
from dataclasses import dataclass

import numpy as np

MAGIC, VERSION = 793712314, 12
LOSS_HS, LOSS_SOFTMAX = 1, 3
MODEL_SUPERVISED = 3
EOS, BOW, EOW, LABEL_PREFIX = "</s>", "<", ">", "__label__"
WHITESPACE = " \n\r\t\v\f\0"   # the bytes fastText's readWord splits at
WORD_CACHE_SIZE = 300_000      # words whose rows are kept (cleared when full: memory does not grow)
_LOG_EPS = 1e-5                # fastText's std_log(x) = log(x + 1e-5)

try:
    _libm = ctypes.CDLL("libm.so.6")
except OSError:  # not glibc's name for it
    _libm = ctypes.CDLL(ctypes.util.find_library("m"))
_expf = _libm.expf
_expf.restype, _expf.argtypes = ctypes.c_float, [ctypes.c_float]

F32 = np.float32


_SIGNED_BYTE = [c | 0xFFFFFF00 if c > 127 else c for c in range(256)]  # uint32_t(int8_t(byte))


_SIGNED_BYTE_U64 = np.array(_SIGNED_BYTE, np.uint64)


def fnv1a(data: bytes) -> int:
    """fastText's string hash: FNV-1a over bytes taken as *signed* chars (as its released models were built)."""
    h = 2166136261
    for c in data:
        h = ((h ^ _SIGNED_BYTE[c]) * 16777619) & 0xFFFFFFFF
    return h


def expf(x: np.ndarray) -> np.ndarray:
    """glibc's expf of each float32, bit for bit (see the module's docstring)."""
    e = np.exp(x.astype(np.float64))
    return _round_like(e, x, lambda v: _expf(v))


def log_f32(x: np.ndarray) -> np.ndarray:
    """float32(log(double x)), glibc's log, bit for bit (numpy's double log can be one double ulp off)."""
    return _round_like(np.log(x), x, math.log)


def _round_like(v: np.ndarray, x: np.ndarray, exact) -> np.ndarray:
    """v (doubles) rounded to float32; where v lies within 0.01 float ulp of a rounding midpoint, exact(x)."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = v.astype(F32)
        toward = np.where(v > r, np.inf, -np.inf).astype(F32)
        nb = np.nextafter(r, toward)
        ulp = np.abs(nb.astype(np.float64) - r)
        mid = (r.astype(np.float64) + nb) / 2
        risky = ~(np.abs(v - mid) > 0.01 * ulp)     # NaN and inf compare false: recomputed too
    if risky.any():
        idx = np.flatnonzero(risky)
        flat_x, flat_r = x.reshape(-1), r.reshape(-1)
        for i in idx:
            flat_r[i] = exact(float(flat_x[i]))
    return r


@dataclass
class _Matrix:
    rows: np.ndarray          # float32 (m, n): dense, or the quantized rows decoded as fastText adds them


class FastTextNumpy:
    """A loaded supervised model; predict_top1 / predict_all give what fastText's predict(k=1 / k=-1) gives."""

    def __init__(self, args: dict, words: list[tuple[str, int, int]], pruneidx: dict[int, int] | None,
                 input_rows: np.ndarray, output: np.ndarray):
        self.dim, self.minn, self.maxn = args["dim"], args["minn"], args["maxn"]
        self.bucket, self.word_ngrams, self.loss = args["bucket"], args["wordNgrams"], args["loss"]
        self.nwords = sum(1 for _, _, t in words if t == 0)
        self.labels = [w for w, _, t in words if t == 1]
        self.ids = {w: i for i, (w, _, _) in enumerate(words)}
        self.pruneidx = pruneidx          # None = not pruned; {} = every n-gram pruned
        self._prune_table: np.ndarray | None = None
        self.rows, self.wo = input_rows, output
        self.cache: dict[str, bytes] = {}         # word -> its rows (int32 bytes), bounded
        if self.loss == LOSS_HS:
            self._build_tree([c for _, c, t in words if t == 1])

    # ---------------------------------------------------------------- loading

    @classmethod
    def load(cls, path: str) -> FastTextNumpy | None:
        """The model at path, or None when it is a kind this module does not reproduce."""
        with open(path, "rb") as f:
            data = f.read()
        r = _Reader(data)
        magic, version = r.unpack("<ii")
        if magic != MAGIC or version != VERSION:
            return None
        names = "dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate".split()
        args = dict(zip(names, r.unpack("<12i")))
        r.unpack("<d")
        if args["model"] != MODEL_SUPERVISED or args["loss"] not in (LOSS_HS, LOSS_SOFTMAX):
            return None
        size, _nwords, _nlabels = r.unpack("<3i")
        _ntokens, prune_size = r.unpack("<2q")
        words = []
        for _ in range(size):
            end = data.index(b"\0", r.pos)
            word = data[r.pos:end].decode("utf-8", "surrogateescape")
            r.pos = end + 1
            count, kind = r.unpack("<qb")
            words.append((word, count, kind))
        if any(w[2] == 0 for w in words[sum(1 for w in words if w[2] == 0):]):
            return None  # words after labels: not a dictionary fastText wrote
        pruneidx = None
        if prune_size >= 0:
            pairs = np.frombuffer(data, "<i4", 2 * prune_size, r.pos).reshape(-1, 2)
            r.pos += 8 * prune_size
            pruneidx = dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()))
        (quant_input,) = r.unpack("<?")
        rows = _quant_rows(r) if quant_input else _dense(r)
        (qout,) = r.unpack("<?")
        if qout and quant_input:
            return None
        wo = _dense(r)
        if rows.shape[1] != args["dim"] or wo.shape != (len(words) - sum(1 for w in words if w[2] == 0), args["dim"]):
            return None
        return cls(args, words, pruneidx, rows, wo)

    def _build_tree(self, counts: list[int]) -> None:
        """fastText's Huffman tree over the labels (HierarchicalSoftmaxLoss::buildTree)."""
        osz = len(counts)
        n = 2 * osz - 1
        count = [1e15] * n
        count[:osz] = counts
        left, right, parent = [-1] * n, [-1] * n, [-1] * n
        leaf, node = osz - 1, osz
        for i in range(osz, n):
            mini = [0, 0]
            for j in range(2):
                if leaf >= 0 and count[leaf] < count[node]:
                    mini[j], leaf = leaf, leaf - 1
                else:
                    mini[j], node = node, node + 1
            left[i], right[i] = mini
            count[i] = count[mini[0]] + count[mini[1]]
            parent[mini[0]] = parent[mini[1]] = i
        self.osz, self.left, self.right = osz, left, right
        # top-down order (parents before children) and, per node, its parent and which child it is
        order, stack = [], [n - 1]
        while stack:
            v = stack.pop()
            order.append(v)
            if left[v] != -1:
                stack += [right[v], left[v]]
        self.order = order
        self.parent = np.array(parent)
        self.is_right = np.array([parent[v] != -1 and right[parent[v]] == v for v in range(n)])
        # ancestors of each leaf, padded with the leaf itself: for the check that the DFS reaches the best leaf
        paths = []
        for leaf in range(osz):
            path, v = [], leaf
            while parent[v] != -1:
                v = parent[v]
                path.append(v)
            paths.append(path)
        depth_max = max(len(p) for p in paths)
        self.ancestors = np.array([p + [leaf] * (depth_max - len(p)) for leaf, p in enumerate(paths)])
        # levels of the tree, top-down: nodes of one depth are scored together
        depth = [0] * n
        for v in order[1:]:
            depth[v] = depth[parent[v]] + 1
        self.levels = [np.array([v for v in order if depth[v] == d]) for d in range(1, max(depth) + 1)]
        self.dfs_rank = np.empty(n, np.int64)        # position in fastText's DFS (left child first)
        self.dfs_rank[np.array(order)] = np.arange(n)

    # ---------------------------------------------------------------- words to rows

    def _learn(self, tokens: set[str]) -> None:
        """Put the rows of these words (Dictionary::addSubwords) in the cache, as int32 bytes: the word's own
        row when it is in the dictionary, then its character n-grams (none for `</s>`); none for a label."""
        plain = []
        for t in tokens:
            wid = self.ids.get(t, -1)
            if wid >= self.nwords or (wid < 0 and t.startswith(LABEL_PREFIX)):
                self.cache[t] = b""
            elif self.maxn <= 0 or t == EOS:
                self.cache[t] = struct.pack("<i", wid) if wid >= 0 else b""
            else:
                plain.append(t)
        if not plain:
            return
        encoded = [(BOW + t + EOW).encode("utf-8", "surrogateescape") for t in plain]
        wids = np.fromiter(map(self.ids.get, plain, itertools.repeat(-1)), np.int64, len(plain))
        ids, counts = self._ngram_rows(encoded, wids)
        blob = ids.astype("<i4").tobytes()
        ends = np.cumsum(counts) * 4
        self.cache.update(zip(plain, map(blob.__getitem__, map(slice, (ends - counts * 4).tolist(), ends.tolist()))))

    def _ngram_rows(self, words: list[bytes], wids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Dictionary::addSubwords for many words at once: the word's own row when it is in the dictionary
        (wid >= 0), then the rows of its n-grams of minn..maxn characters (BOW and EOW included; not BOW or EOW
        alone), by start character then length; all words' rows one after the other, and how many each word
        has. FNV-1a runs on from an n-gram to the next longer one with the same start."""
        lens = np.fromiter(map(len, words), np.int64, len(words))
        flat = np.frombuffer(b"".join(words), np.uint8)
        word_start = np.cumsum(lens) - lens
        is_start = (flat & 0xC0) != 0x80
        pos = np.flatnonzero(is_start)                        # where each character starts
        nchars = np.add.reduceat(is_start.astype(np.int64), word_start)
        first = np.cumsum(nchars) - nchars                    # the word's first character
        char_word = np.repeat(np.arange(len(words)), nchars)
        chars_left = (first + nchars)[char_word] - np.arange(len(pos))   # characters from here to the word's end
        c_idx = nchars[char_word] - chars_left
        char_len = np.diff(np.append(pos, len(flat)))
        signed = _SIGNED_BYTE_U64[flat]
        prime, mask = np.uint64(16777619), np.uint64(0xFFFFFFFF)
        h = np.full(len(pos), 2166136261, np.uint64)
        # one column per n-gram length, and a first column for the word's own row
        ids = np.full((len(pos), self.maxn + 1), -1, np.int64)
        ids[first, 0] = wids
        g = np.arange(len(pos))
        for n in range(1, self.maxn + 1):
            live = np.flatnonzero(chars_left >= n)            # n-grams that fit in their word
            at = live + n - 1                                  # the character this n-gram adds
            start = pos[at]
            h[live] = ((h[live] ^ signed[start]) * prime) & mask
            longer = np.flatnonzero(char_len[at] > 1)         # the rest of a multi-byte character
            for b in range(1, int(char_len[at].max(initial=1))):
                longer = longer[char_len[at[longer]] > b]
                k = live[longer]
                h[k] = ((h[k] ^ signed[start[longer] + b]) * prime) & mask
            emit = live[n >= self.minn] if n >= self.minn else live[:0]
            if n == 1:
                emit = emit[(c_idx[emit] != 0) & (chars_left[emit] != 1)]
            ids[emit, n] = (h[emit] % np.uint64(self.bucket)).astype(np.int64)
        del g
        if self.pruneidx is not None:
            ids[:, 1:] = self._pruned(ids[:, 1:])
        ids[:, 1:] = np.where(ids[:, 1:] >= 0, ids[:, 1:] + self.nwords, -1)
        flat_ids = ids.reshape(-1)
        keep = flat_ids >= 0
        per_char = keep.reshape(len(pos), -1).sum(axis=1)
        counts = np.add.reduceat(per_char, first)
        return flat_ids[keep], counts

    def _pruned(self, ids: np.ndarray) -> np.ndarray:
        """Dictionary::pushHash for a pruned (quantized) model: the kept n-grams' new ids, -1 for the others
        (a table over the buckets: 4 bytes each)."""
        if self._prune_table is None:
            self._prune_table = np.full(self.bucket, -1, np.int32)
            if self.pruneidx:
                keys = np.fromiter(self.pruneidx.keys(), np.int64, len(self.pruneidx))
                values = np.fromiter(self.pruneidx.values(), np.int64, len(self.pruneidx))
                inside = (keys >= 0) & (keys < self.bucket)
                self._prune_table[keys[inside]] = values[inside]
        return np.where(ids >= 0, self._prune_table[np.maximum(ids, 0)], -1)

    def _word_hash(self, token: str) -> int | None:
        """The word's hash for word n-grams, or None for a label (labels are not in the chain)."""
        wid = self.ids.get(token, -1)
        if wid >= self.nwords or (wid < 0 and token.startswith(LABEL_PREFIX)):
            return None
        return fnv1a(token.encode("utf-8", "surrogateescape"))

    def _push(self, rows: list, h: int) -> None:
        if self.pruneidx is not None:
            h = self.pruneidx.get(h, -1)
            if h < 0:
                return
        rows.append(self.nwords + h)

    def _hiddens(self, lines: list[list[str]]) -> list[np.ndarray | None]:
        tokens = set(itertools.chain.from_iterable(lines))
        tokens.add(EOS)
        missing = tokens.difference(self.cache)
        if missing:
            if len(self.cache) + len(missing) > WORD_CACHE_SIZE:
                self.cache.clear()
                missing = tokens
            self._learn(missing)
        return [self.hidden(w) for w in lines]

    def hidden(self, words: list[str]) -> np.ndarray | None:
        """The hidden vector (Model::computeHidden) of a line's words (fasttext_words), or None when they add
        no row (fastText then predicts nothing)."""
        if EOS in words:
            words = words[:words.index(EOS) + 1]    # readWord gives `</s>` for the line's end, and getLine stops
        else:
            words = words + [EOS]
        ids = np.frombuffer(b"".join(map(self.cache.__getitem__, words)), np.int32)
        if self.word_ngrams > 1:
            hashes = [h for h in map(self._word_hash, words) if h is not None]
            ids = np.concatenate([ids, self._word_ngram_rows(hashes).astype(np.int32)])
        if not len(ids):
            return None
        h = np.add.reduce(self.rows[ids], axis=0)
        return h * F32(1.0 / len(ids))

    def _word_ngram_rows(self, hashes: list[int]) -> np.ndarray:
        """Dictionary::addWordNgrams: for each word i, the hash chain over words i+1 .. i+n-1, in that order."""
        n, m = self.word_ngrams, len(hashes)
        if m < 2:
            return np.zeros(0, np.int64)
        hv = np.array(hashes, np.uint32).view(np.int32).astype(np.int64).view(np.uint64)  # int32 -> uint64
        chains, h = [], hv.copy()
        for k in range(1, n):
            h = h[:m - k] * np.uint64(116049371) + hv[k:]
            chains.append(h % np.uint64(self.bucket))
        # order: i-major, then k; chain k has m-k entries (words i with i+k < m)
        grid = np.full((m, n - 1), -1, np.int64)
        for k, c in enumerate(chains):
            grid[:m - k - 1, k] = c.astype(np.int64)
        flat = grid.reshape(-1)
        flat = flat[flat >= 0]
        if self.pruneidx is not None:
            mapped = np.array([self.pruneidx.get(v, -1) for v in flat.tolist()], np.int64)
            flat = mapped[mapped >= 0]
        return flat + self.nwords

    # ---------------------------------------------------------------- outputs

    def _dots(self, hidden: np.ndarray) -> np.ndarray:
        """DenseMatrix::dotRow of every output row with every hidden vector: float32, j in order."""
        d = np.zeros((hidden.shape[0], self.wo.shape[0]), F32)
        for j in range(self.dim):
            d += hidden[:, j:j + 1] * self.wo[:, j]
        return d

    def predict_top1(self, lines: list[list[str]]) -> list[tuple[str, float] | None]:
        """(label, probability) of each line (its words) as fastText's predict(line, k=1) gives it; None when
        fastText gives no label."""
        hs = self._hiddens(lines)
        live = [i for i, h in enumerate(hs) if h is not None]
        out: list[tuple[str, float] | None] = [None] * len(lines)
        if not live:
            return out
        hidden = np.stack([hs[i] for i in live])
        if self.loss == LOSS_HS:
            best = self._hs_top1(hidden)
        else:
            best = self._softmax_top1(hidden)
        for i, (label, score) in zip(live, best):
            if label is not None:
                out[i] = (self.labels[label], score)
        return out

    def predict_all(self, lines: list[list[str]]) -> list[dict[str, float]]:
        """{label: probability} of each line (its words) over every label, as fastText's predict(line, k=-1)
        gives them (softmax models)."""
        if self.loss != LOSS_SOFTMAX:
            raise ValueError("predict_all needs a softmax model")
        hs = self._hiddens(lines)
        live = [i for i, h in enumerate(hs) if h is not None]
        out: list[dict[str, float]] = [{} for _ in lines]
        if live:
            probs = self._softmax_probs(np.stack([hs[i] for i in live]))
            for i, row in zip(live, probs.tolist()):
                out[i] = dict(zip(self.labels, row))
        return out

    def _softmax(self, hidden: np.ndarray) -> np.ndarray:
        """SoftmaxLoss::computeOutput, float32 as fastText does it (z summed over labels in order)."""
        out = self._dots(hidden)
        m = out[:, :1].copy()
        for i in range(out.shape[1]):
            m = np.maximum(out[:, i:i + 1], m)
        e = expf(out - m)
        z = np.zeros((out.shape[0], 1), F32)
        for i in range(out.shape[1]):
            z += e[:, i:i + 1]
        return e / z

    def _softmax_probs(self, hidden: np.ndarray) -> np.ndarray:
        """exp(std_log(output)) per label: what findKBest stores and predictLine returns."""
        return expf(log_f32(self._softmax(hidden).astype(np.float64) + _LOG_EPS)).astype(np.float64)

    def _softmax_top1(self, hidden: np.ndarray) -> list[tuple[int | None, float]]:
        logs = log_f32(self._softmax(hidden).astype(np.float64) + _LOG_EPS)
        # findKBest(k=1): a later label with an equal std_log replaces the kept one (pushed, then the heap's
        # front, the older, is popped): the last of the largest
        best = logs.shape[1] - 1 - np.argmax(logs[:, ::-1], axis=1)
        probs = expf(logs[np.arange(len(best)), best])
        return list(zip(best.tolist(), probs.astype(np.float64).tolist()))

    def _hs_top1(self, hidden: np.ndarray) -> list[tuple[int | None, float]]:
        """HierarchicalSoftmaxLoss::dfs with k=1 for each hidden vector."""
        osz, b = self.osz, hidden.shape[0]
        f = self._dots(hidden)[:, :osz - 1]              # internal node v uses output row v - osz
        e = expf(-f)
        t = F32(1) + e                                   # 1 + std::exp(-f): float
        sig = (1.0 / t.astype(np.float64)).astype(F32)   # 1. / (...): double, stored in a real
        one_minus = (1.0 - sig.astype(np.float64)).astype(F32)
        term_left = log_f32(one_minus.astype(np.float64) + _LOG_EPS)
        term_right = log_f32(sig.astype(np.float64) + _LOG_EPS)
        score = np.zeros((b, 2 * osz - 1), F32)
        for level in self.levels:
            par = self.parent[level]
            term = np.where(self.is_right[level], term_right[:, par - osz], term_left[:, par - osz])
            score[:, level] = score[:, par] + term
        threshold = F32(math.log(0.0 + _LOG_EPS))      # std_log(threshold = 0)
        leaves = score[:, :osz]
        best_score = leaves.max(axis=1)
        # the DFS keeps the last of equal leaves in its visiting order
        ranks = np.where(leaves == best_score[:, None], self.dfs_rank[:osz], -1)
        best = ranks.argmax(axis=1)
        # The DFS takes that leaf when no ancestor's score is below it (a subtree is pruned when its root
        # scores below the best leaf so far, and a log term can be slightly positive): else it is run as is.
        reached = (np.take_along_axis(score, self.ancestors[best], axis=1) >= best_score[:, None]).all(axis=1)
        reached &= best_score >= threshold
        leaves, scores = best.tolist(), best_score.copy()
        for i in np.flatnonzero(~reached).tolist():
            leaves[i], scores[i] = self._dfs(score[i].tolist(), float(threshold))
        probs = expf(scores).astype(np.float64).tolist()
        return [(leaf, p) if leaf is not None else (None, 0.0) for leaf, p in zip(leaves, probs)]

    def _dfs(self, score: list[float], threshold: float) -> tuple[int | None, float]:
        """fastText's DFS with pruning, on the scores of every node, for a document the shortcut cannot take."""
        best_leaf, best = None, None
        stack = [2 * self.osz - 2]
        while stack:
            v = stack.pop()
            s = score[v]
            if s < threshold or (best is not None and s < best):
                continue
            if self.left[v] == -1:
                best_leaf, best = v, s
                continue
            stack += [self.right[v], self.left[v]]
        return best_leaf, (F32(best) if best is not None else F32(0))


_TO_SPACE = str.maketrans({c: " " for c in WHITESPACE})


def fasttext_words(line: str) -> list[str]:
    """A line's words as fastText reads them: split only at its whitespace bytes (str.split also splits at
    Unicode spaces such as U+00A0 and at U+001C..U+001F, which fastText keeps inside a word)."""
    return [w for w in line.translate(_TO_SPACE).split(" ") if w]


def spaced_words(text: str) -> list[str]:
    """What fastText reads from " ".join(text.split()): str.split's words, split again at NUL."""
    words = text.split()
    return [p for w in words for p in w.split("\0") if p] if "\0" in text else words


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def unpack(self, fmt: str) -> tuple:
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v


def _dense(r: _Reader) -> np.ndarray:
    m, n = r.unpack("<2q")
    a = np.frombuffer(r.data, "<f4", m * n, r.pos).reshape(m, n).astype(F32)
    r.pos += 4 * m * n
    return a


def _pq(r: _Reader) -> tuple[int, int, int, int, np.ndarray]:
    dim, nsubq, dsub, lastdsub = r.unpack("<4i")
    centroids = np.frombuffer(r.data, "<f4", dim * 256, r.pos).astype(F32)
    r.pos += 4 * dim * 256
    return dim, nsubq, dsub, lastdsub, centroids


def _quant_rows(r: _Reader) -> np.ndarray:
    """A QuantMatrix's rows as ProductQuantizer::addcode adds them: float32(norm * centroid[n])."""
    (qnorm,) = r.unpack("<?")
    m, n = r.unpack("<2q")
    (codesize,) = r.unpack("<i")
    codes = np.frombuffer(r.data, np.uint8, codesize, r.pos)
    r.pos += codesize
    dim, nsubq, dsub, lastdsub, centroids = _pq(r)
    norm = np.ones(m, F32)
    if qnorm:
        norm_codes = np.frombuffer(r.data, np.uint8, m, r.pos)
        r.pos += m
        _, _, _, nlast, ncent = _pq(r)
        norm = ncent[norm_codes.astype(np.int64) * nlast]   # one sub-quantizer of one dimension
    codes = codes.reshape(m, nsubq).astype(np.int64)
    rows = np.zeros((m, n), F32)
    for q in range(nsubq):
        d = lastdsub if q == nsubq - 1 else dsub
        base = q * 256 * dsub
        for k in range(d):
            c = centroids[base + codes[:, q] * d + k]      # get_centroids(q, code)[k]
            rows[:, q * dsub + k] = norm * c
    return rows
