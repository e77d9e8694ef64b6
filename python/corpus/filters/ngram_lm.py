"""Word-level n-gram language model with interpolated Kneser–Ney smoothing, for perplexity filtering.

A model trained on a reference source (e.g. TinyStories) scores other documents; documents whose
perplexity exceeds a threshold look unlike the reference and can be dropped. Plain Python and numpy
arrays, fully deterministic, serialised without pickle.

Tokenisation (`lm_words`)
    ``text.lower()``, curly apostrophes (’) turned into ``'``, then every match of
    ``[^\\W_]+(?:'[^\\W_]+)*``: runs of Unicode letters and digits, joined by single inner
    apostrophes ("lily's", "don't", "l'école"). Punctuation, symbols and whitespace are dropped,
    so spacing conventions (WikiText's " , ") and hard line-wraps do not change the score.

Boundaries
    One *document* is one unit: it is padded with ``order - 1`` tokens ``<s>`` before its first
    word and gets one ``</s>`` after its last. Line breaks inside a document are ignored, because
    hard-wrapped sources would otherwise gain spurious sentence ends, and the filter decides per
    document anyway. ``<s>`` is only ever context, never predicted; ``</s>`` is predicted.

Vocabulary
    Words seen at least ``min_count`` times, ranked by (count descending, word ascending) and cut
    to ``max_vocab`` words (specials not counted), plus ``<s>``, ``</s>`` and ``<unk>``. Every
    other word, in training and in scoring, becomes ``<unk>``. V is the set of predictable tokens:
    the kept words, ``</s>`` and ``<unk>`` (not ``<s>``).

Smoothing: interpolated Kneser–Ney, one absolute discount D (0 < D <= 1), order n.
    Counts. At the highest order, c(h w) is the raw count of the n-gram. At lower orders k < n it
    is the continuation count N1+(• h w) = number of distinct tokens v such that the (k+1)-gram
    v h w occurs. Padding with n-1 ``<s>`` gives every lower-order n-gram a left neighbour, so no
    special case is needed for n-grams that start a document.

    For a context h at one order, with T(h) = sum_w c(h w) and F(h) = #{w : c(h w) > 0}:

        P(w | h) = max(c(h w) - D, 0) / T(h) + gamma(h) * P(w | h'),   gamma(h) = D * F(h) / T(h)

    where h' drops the oldest word of h. If T(h) = 0 (unseen context) then P(w | h) = P(w | h').
    The recursion ends at the unigram level (empty context) with a uniform base:

        P(w) = max(N1+(• w) - D, 0) / N1+(• •) + D * F() / N1+(• •) * 1 / |V|

    Each level sums to 1 over V because every non-zero count is >= 1 >= D, so the discounted mass
    D * F(h) / T(h) is exactly what gamma(h) hands down to a distribution that itself sums to 1.

Precomputation (backoff form of the same model, as in ARPA files)
    Training computes the final tables once. For every seen n-gram (h w) the fully interpolated
    log10 P(w | h) is stored, and for every seen context h its log10 gamma(h). Scoring one token is
    then: look up the longest n-gram; on a miss add log10 gamma of its context (0 if unseen) and
    retry one order lower. Unigrams of all of V are stored, so the loop always ends. This is exact,
    not an approximation.

Tables (exact integer keys, any order)
    Per order k there is one sorted table S_k of k-grams: the seen k-grams plus the seen contexts
    of length k (the prefixes of seen (k+1)-grams; all of them are seen k-grams except the runs of
    ``<s>``, which are only context and carry log10 P = -inf, i.e. P(<s> | h) = 0). S_1 is every id.
    A k-gram's key is ``rank of its (k-1)-prefix in S_(k-1) * |vocab| + its last id`` (|vocab|
    counting <s>); every prefix of an entry is itself in S_(k-1), so keys are exact and unique (no
    hashing, no collisions) for every order and vocabulary size, as long as they fit in int64:
    training refuses a model with (|S_(k-1)| + 1) * |vocab| >= 2**63 - 1 (about 10**14 n-grams for
    a 50k vocabulary). Each S_k is three parallel arrays: int64 keys (strictly increasing), float64
    log10 P (-inf: context only) and, below the top order, float64 log10 gamma (0.0: not a context).

    Scoring a document maps its words to ids once, then for every start position and every order
    finds the rank of the k-gram starting there with one vectorised ``searchsorted`` per order
    (query rank_(k-1) * |vocab| + id in S_k; an absent prefix makes an absent query), and combines
    the backoff chain with array operations. The per-token terms are added in the same sequence as a
    scalar loop over tokens and orders would add them, and the tables are computed with the same
    floating-point operations as the scalar formulas (``math.log10`` per entry), so results do not
    depend on the vectorisation. Training counts n-grams with arrays too (suffix extension with
    ``np.unique``), and loading is reading the arrays: no per-n-gram Python work.

Unknown words
    The ``<unk>`` class stands for the U = ``unk_types`` distinct training words that were folded
    into it, so one unknown word is scored as P(<unk> | h) / max(U, 1): its even share of the
    class. Without this, text made only of unknown words (French under an English model) reads as
    a repetitive run of ``<unk>`` and scores as *fluent*; with it, the model is a normalised
    distribution over every word type seen in training. `log10_prob(h, "<unk>")` is still the whole
    class, so the sum over V is 1.

Perplexity
    10 ** (-(1/N) * sum log10 P) over all N = words + 1 predicted tokens (the words and ``</s>``),
    unknown words scored as above. A text without any word token has perplexity ``inf``: there is
    no evidence that it resembles the reference, and any finite threshold drops it. Very short
    texts (a line of dialogue) are noisy: score documents, or blocks of a few paragraphs.

Serialisation
    An uncompressed .npz (zip of .npy arrays, readable with ``np.load(..., allow_pickle=False)``)
    with fixed timestamps: ``meta.json`` (format ``corpus.ngram_lm/2``, settings, U and vocabulary)
    and, per order k, ``keys_k.npy``, ``log10_probs_k.npy`` and (k < order) ``log10_backoffs_k.npy``:
    the final tables above. Loading reads the arrays and checks them without any per-n-gram Python
    work, so a round trip scores identically; identical training input gives identical bytes. Files
    of the earlier count-based format ``corpus.ngram_lm/1`` (per order the sorted n-gram id matrix
    ``ngrams_k.npy`` and its counts ``counts_k.npy``) still load: their tables are computed from
    the counts exactly as in training, and `to_bytes` then writes the current format.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

import numpy as np

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
BOS_ID, EOS_ID, UNK_ID = 0, 1, 2
SPECIALS = (BOS, EOS, UNK)

FORMAT = "corpus.ngram_lm/2"
LEGACY_FORMAT = "corpus.ngram_lm/1"  # counts only: tables are recomputed on load
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed so identical models give identical bytes
_KEY_LIMIT = 2**63 - 1  # table keys are int64, below the sentinel 2**63 - 1
_SORT_QUERIES = 256  # look up longer query arrays in sorted order

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_find_words = _WORD.findall


def lm_words(text: str) -> list[str]:
    """Lowercase word tokens: runs of letters/digits joined by inner apostrophes; see module doc.

    Same result as ``_WORD.findall`` on the whole lowered text, faster: a match never contains
    whitespace (neither alphanumeric nor an apostrophe), so the text can be matched chunk by
    whitespace-separated chunk, and a chunk made only of letters and digits (``str.isalnum``, the
    very test behind ``\\w`` apart from "_") is exactly one match.
    """
    words: list[str] = []
    for chunk in text.lower().replace("\u2019", "'").split():
        if chunk.isalnum():
            words.append(chunk)
        else:
            words += _find_words(chunk)
    return words


def perplexity_of(log10_total: float, n_tokens: int) -> float:
    """10 ** (-log10 P / tokens); inf for a text without words (its one token is </s>)."""
    if n_tokens == 1:
        return math.inf
    return 10.0 ** (-log10_total / n_tokens)


class NGramLM:
    """An interpolated Kneser–Ney word n-gram model; build with `train` or `from_bytes`."""

    order: int
    discount: float
    min_count: int
    max_vocab: int | None
    unk_types: int  # distinct training words folded into <unk>; an unknown word gets 1/unk_types of it

    def __init__(self, *, order: int, discount: float, min_count: int, max_vocab: int | None,
                 vocab: Sequence[str], unk_types: int, keys: Sequence[np.ndarray],
                 log10_probs: Sequence[np.ndarray], log10_backoffs: Sequence[np.ndarray]) -> None:
        """Internal: the final tables S_1..S_order of the module doc (`train`, `from_bytes` build them)."""
        _check_settings(order, discount, min_count, max_vocab)
        if not isinstance(unk_types, int) or isinstance(unk_types, bool) or unk_types < 0:
            raise ValueError(f"unk_types must be an int >= 0, got {unk_types!r}")
        if not len(keys) == len(log10_probs) == len(log10_backoffs) + 1 == order:
            raise ValueError("need one key and probability array per order, one backoff array per lower order")
        self.order, self.discount = order, float(discount)
        self.min_count, self.max_vocab = min_count, max_vocab
        self.unk_types = unk_types
        self._log10_unk_share = -math.log10(max(unk_types, 1))
        self._vocab = tuple(vocab)
        self._ids = {w: i for i, w in enumerate(self._vocab)}
        # Scoring arrays, one entry longer than S_k: keys end with a sentinel that no query equals (so a
        # lookup never runs off the end) and an absent k-gram, rank len(S_k), reads log10 P = -inf and
        # log10 gamma = 0.0 there. The plain tables are views of these.
        self._search_keys = [np.append(np.asarray(k, dtype=np.int64), np.iinfo(np.int64).max) for k in keys]
        self._keys = [k[:-1] for k in self._search_keys]
        self._lookup_probs = [np.append(np.asarray(p, dtype=np.float64), -math.inf) for p in log10_probs]
        self._lookup_backoffs = [np.append(np.asarray(g, dtype=np.float64), 0.0) for g in log10_backoffs]
        self._log10_probs = [p[:-1] for p in self._lookup_probs]
        self._log10_backoffs = [g[:-1] for g in self._lookup_backoffs]

    # ---- training -------------------------------------------------------------------------

    @classmethod
    def train(cls, texts: Iterable[str], *, order: int = 3, discount: float = 0.75, min_count: int = 2,
              max_vocab: int | None = 50_000) -> NGramLM:
        """Count n-grams over `texts` (one document each); the result does not depend on their order."""
        _check_settings(order, discount, min_count, max_vocab)
        documents = [lm_words(t) for t in texts]
        if not documents:
            raise ValueError("cannot train an n-gram model on no documents")
        vocab, unk_types = _build_vocab(documents, min_count, max_vocab)
        ids = {w: i for i, w in enumerate(vocab)}
        levels = _count_levels(_padded_corpus(documents, ids, order), order)
        keys, probs, backoffs = _kneser_ney_tables(levels, len(vocab), float(discount))
        return cls(order=order, discount=discount, min_count=min_count, max_vocab=max_vocab,
                   vocab=vocab, unk_types=unk_types, keys=keys, log10_probs=probs, log10_backoffs=backoffs)

    # ---- scoring --------------------------------------------------------------------------

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The predictable tokens V: kept words, </s> and <unk> (not <s>)."""
        return tuple(w for w in self._vocab if w != BOS)

    def log10_prob(self, context: tuple[str, ...], word: str) -> float:
        """log10 P(word | context); only the last order-1 context tokens matter, unknown ones are <unk>.

        `word` "<unk>" gets the whole <unk> class (so V sums to 1); any other out-of-vocabulary word
        gets its 1/unk_types share of it, as in `perplexity`. A context shorter than order-1 uses
        the lower-order (continuation) distribution; pass "<s>" explicitly for a document start.
        P(<s>) is 0, so that gives -inf.
        """
        if word == BOS:
            return -math.inf
        history = tuple(self._ids.get(w, UNK_ID) for w in context[-(self.order - 1):]) if self.order > 1 else ()
        word_id = self._ids.get(word, UNK_ID)
        unk_share = self._log10_unk_share if word_id == UNK_ID and word != UNK else 0.0
        ngram = np.array(history + (word_id,), dtype=np.int64)
        return self._log10_windows(ngram, len(ngram)) + unk_share

    def log10_score(self, text: str) -> tuple[float, int]:
        """(sum of log10 P over the predicted tokens, number of predicted tokens) for one document."""
        return self.log10_scores([text])[0]

    def log10_scores(self, texts: Sequence[str]) -> list[tuple[float, int]]:
        """log10_score of each text, the windows of all of them looked up at once: the texts' padded ids
        laid end to end, every window's terms computed, and each text's own windows summed on their own
        in the same order, so a text's value does not depend on the batch it is scored in."""
        if not texts:
            return []
        pad = [BOS_ID] * (self.order - 1)
        flat: list[int] = []
        starts, n_words = [], []
        ids_get = self._ids.get
        for text in texts:
            words = lm_words(text)
            starts.append(len(flat))
            n_words.append(len(words))
            flat += pad
            flat += map(ids_get, words, repeat(UNK_ID))
            flat.append(EOS_ID)
        ids = np.array(flat, dtype=np.int64)
        terms = self._window_terms(ids, self.order)
        unknown = np.cumsum(ids == UNK_ID)
        out = []
        for start, count in zip(starts, n_words):
            stop = start + count + self.order  # this text's padded ids: ids[start:stop]
            n_unknown = int(unknown[stop - 1] - (unknown[start - 1] if start else 0))
            unknown_share = n_unknown * self._log10_unk_share  # each: its share of <unk>
            # its windows are the count + 1 that start at start .. start + count
            total = float(np.add.accumulate(terms[start:start + count + 1].ravel())[-1])
            out.append((unknown_share + total, count + 1))
        return out

    def perplexity(self, text: str) -> float:
        """Per-token perplexity incl. </s>; inf for a text without words (see module doc)."""
        return perplexity_of(*self.log10_score(text))

    def perplexities(self, texts: Sequence[str]) -> list[float]:
        """perplexity() of each text, scored together (log10_scores)."""
        return [perplexity_of(total, n_tokens) for total, n_tokens in self.log10_scores(texts)]

    def _log10_windows(self, ids: np.ndarray, width: int) -> float:
        """Sum over every `width`-long window of `ids` of log10 P(last | rest), vectorised.

        Each window uses its longest stored n-gram, adding log10 gamma for every context backed off
        from. The terms are laid out as one row per window and one column per order tried (longest
        first): log10 gamma before the first hit, log10 P at it, 0.0 after; and added sequentially in
        that row-major order: exactly the sequence of a scalar loop over windows and orders.
        """
        if len(ids) - width + 1 <= 0:
            return 0.0
        return float(np.add.accumulate(self._window_terms(ids, width).ravel())[-1])  # sequential, unlike np.sum

    def _window_terms(self, ids: np.ndarray, width: int) -> np.ndarray:
        """The (windows, width) terms _log10_windows adds, one row per `width`-long window of `ids`."""
        n_windows = len(ids) - width + 1
        # per order k, for the k-gram starting at each position: log10 P and (k < width) log10 gamma
        log10_p = [self._lookup_probs[0][ids]]  # S_1 is every id
        log10_gamma = [self._lookup_backoffs[0][ids]] if width > 1 else []
        rank = ids
        for k in range(1, width):
            tables = (self._lookup_probs[k], self._lookup_backoffs[k]) if k < width - 1 else (self._lookup_probs[k],)
            rank, *values = _lookup(self._search_keys[k], rank[:-1] * len(self._vocab) + ids[k:], tables)
            log10_p.append(values[0])
            log10_gamma.extend(values[1:])
        # column j: order k = width - j, whose k-gram in window i starts at i + j, as does its context.
        # -inf: absent, or a context-only entry. Every id but <s> has a unigram, and <s> is never
        # predicted, so the unigram column always hits.
        terms = np.empty((n_windows, width))
        unresolved = None
        for j in range(width):
            k = width - j
            p = log10_p[k - 1][j:j + n_windows]
            if k > 1:
                missed = p == -math.inf
                term = np.where(missed, log10_gamma[k - 2][j:j + n_windows], p)
            else:
                term = p
            if unresolved is None:
                terms[:, j] = term
                unresolved = missed if k > 1 else None
            else:
                terms[:, j] = np.where(unresolved, term, 0.0)
                if k > 1:
                    unresolved &= missed
        return terms

    # ---- serialisation --------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """A pickle-free .npz: meta.json plus the sorted tables per order (see module doc); deterministic."""
        meta = {"format": FORMAT, "order": self.order, "discount": self.discount,
                "min_count": self.min_count, "max_vocab": self.max_vocab, "unk_types": self.unk_types,
                "vocab": list(self._vocab)}
        members = {"meta.json": json.dumps(meta, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()}
        for k in range(1, self.order + 1):
            members[f"keys_{k}.npy"] = _npy_bytes(self._keys[k - 1].astype("<i8"))
            members[f"log10_probs_{k}.npy"] = _npy_bytes(self._log10_probs[k - 1].astype("<f8"))
            if k < self.order:
                members[f"log10_backoffs_{k}.npy"] = _npy_bytes(self._log10_backoffs[k - 1].astype("<f8"))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for name, data in members.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.create_system, info.external_attr = 3, 0o644 << 16  # same bytes on every platform
                archive.writestr(info, data)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> NGramLM:
        """Load `to_bytes` output (or a legacy count file); raises ValueError on anything malformed (never
        unpickles)."""
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                meta = json.loads(archive.read("meta.json"))
                if meta.get("format") not in (FORMAT, LEGACY_FORMAT):
                    raise ValueError(f"not an n-gram model file (format {meta.get('format')!r})")
                order = meta["order"]
                _check_settings(order, meta["discount"], meta["min_count"], meta["max_vocab"])
                vocab = _checked_vocab(meta["vocab"])
                if meta["format"] == LEGACY_FORMAT:
                    levels = [_read_counts(archive, k, len(vocab)) for k in range(1, order + 1)]
                    tables = _kneser_ney_tables(levels, len(vocab), float(meta["discount"]))
                else:
                    tables = _read_tables(archive, order, len(vocab))
            keys, probs, backoffs = tables
            return cls(order=order, discount=meta["discount"], min_count=meta["min_count"],
                       max_vocab=meta["max_vocab"], vocab=vocab, unk_types=meta["unk_types"],
                       keys=keys, log10_probs=probs, log10_backoffs=backoffs)
        except (KeyError, TypeError, AttributeError, zipfile.BadZipFile, json.JSONDecodeError) as e:
            raise ValueError(f"malformed n-gram model file: {e!r}") from e

    def fingerprint(self) -> str:
        """sha256 hex of `to_bytes()`: names the exact model in manifests."""
        return hashlib.sha256(self.to_bytes()).hexdigest()


# ---- training helpers -------------------------------------------------------------------------

def _check_settings(order: Any, discount: Any, min_count: Any, max_vocab: Any) -> None:
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"order must be an int >= 1, got {order!r}")
    # D <= 1 keeps max(c - D, 0) = c - D for every seen count, which is what makes levels sum to 1.
    if not isinstance(discount, float | int) or isinstance(discount, bool) or not 0.0 < discount <= 1.0:
        raise ValueError(f"discount must be in (0, 1], got {discount!r}")
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
        raise ValueError(f"min_count must be an int >= 1, got {min_count!r}")
    if max_vocab is not None and (not isinstance(max_vocab, int) or max_vocab < 0):
        raise ValueError(f"max_vocab must be None or an int >= 0, got {max_vocab!r}")


def _build_vocab(documents: list[list[str]], min_count: int, max_vocab: int | None) -> tuple[list[str], int]:
    """(specials + kept words by (count desc, word asc), number of word types folded into <unk>).

    Sorting on (count, word) makes the result independent of document order.
    """
    frequency = Counter(w for words in documents for w in words)
    kept = sorted((w for w, c in frequency.items() if c >= min_count), key=lambda w: (-frequency[w], w))
    if max_vocab is not None:
        kept = kept[:max_vocab]
    return [*SPECIALS, *kept], len(frequency) - len(kept)


def _padded_corpus(documents: list[list[str]], ids: dict[str, int], order: int) -> np.ndarray:
    """All documents' ids, each padded with order-1 <s> before and one </s> after, concatenated.

    <s> occurs only as padding, so the predicted positions are exactly those that are not <s>, and
    the n-gram (n <= order) ending on a predicted position never reaches into the previous document.
    """
    flat: list[int] = []
    pad = [BOS_ID] * (order - 1)
    get = ids.get
    for words in documents:
        flat += pad
        flat += map(get, words, repeat(UNK_ID))
        flat.append(EOS_ID)
    return np.array(flat, dtype=np.int64)


def _count_levels(tokens: np.ndarray, order: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """[level 1, ..., level order] as (distinct k-grams as a k-column id matrix, counts): raw counts
    at the top, continuation counts N1+(• g) below.

    The k-grams ending on predicted positions get dense ids by suffix extension: the k-gram is the
    pair (its first id, the dense id of its (k-1)-suffix), numbered by np.unique. Level k holds the
    suffixes of level k+1, and N1+(• g) counts the distinct (k+1)-grams whose suffix is g.
    """
    ends = np.flatnonzero(tokens != BOS_ID)
    distinct, dense = np.unique(tokens[ends], return_inverse=True)
    grams = [distinct[:, None]]
    suffixes: list[np.ndarray] = []  # per level k >= 2: dense id (at level k-1) of each distinct k-gram's suffix
    for k in range(2, order + 1):
        n_lower = len(grams[-1])
        distinct, dense = np.unique(tokens[ends - (k - 1)] * n_lower + dense.reshape(-1), return_inverse=True)
        first, suffix = np.divmod(distinct, n_lower)
        grams.append(np.column_stack([first, grams[-1][suffix]]))
        suffixes.append(suffix)
    counts = [np.bincount(suffix, minlength=len(g)) for g, suffix in zip(grams, suffixes)]
    counts.append(np.bincount(dense.reshape(-1), minlength=len(grams[-1])))
    return list(zip(grams, counts))


# ---- probability tables -----------------------------------------------------------------------

def _lookup(keys: np.ndarray, query: np.ndarray,
            tables: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """(index of each query in `keys`, and each of `tables` at that index).

    `keys` is sorted and ends with a sentinel no query equals; an absent query gets the sentinel's
    index len(S), where the tables hold their "absent" value, and whose own extension queries
    rank * |vocab| + id are beyond every key of the next order. Long query arrays are handled in
    sorted order, where searchsorted and the table reads walk memory forwards.
    """
    if len(query) <= _SORT_QUERIES:
        found = keys.searchsorted(query)
        found = np.where(keys[found] == query, found, len(keys) - 1)
        return (found, *(table[found] for table in tables))
    order = np.argsort(query)
    query = query[order]
    found = keys.searchsorted(query)
    found = np.where(keys[found] == query, found, len(keys) - 1)
    results = []
    for values in (found, *(table[found] for table in tables)):
        result = np.empty_like(values)
        result[order] = values
        results.append(result)
    return tuple(results)


def _row_ranks(keys: Sequence[np.ndarray], rows: np.ndarray, vocab_size: int) -> np.ndarray:
    """Rank in S_j of each j-column row of ids, -1 if it is not in the table (plain key arrays)."""
    rank = rows[:, 0].astype(np.int64)  # S_1 is every id
    for j in range(1, rows.shape[1]):
        query = rank * vocab_size + rows[:, j]  # an absent rank -1 gives a negative query: absent again
        found = np.minimum(keys[j].searchsorted(query), len(keys[j]) - 1)
        rank = np.where(keys[j][found] == query, found, -1)
    return rank


def _kneser_ney_tables(levels: Sequence[tuple[np.ndarray, np.ndarray]], vocab_size: int,
                       discount: float) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(keys, log10 P, log10 gamma) per order for the tables S_k of the module doc.

    `levels[k-1]` holds the distinct k-grams (id matrix, any row order) and their raw (k = order) or
    continuation counts. The arithmetic per entry is that of the formulas in the module doc, in the
    same order of operations, so the tables do not depend on the vectorisation.
    """
    order = len(levels)
    for k, (grams, counts) in enumerate(levels, start=1):
        _require(grams.ndim == 2 and grams.shape[1] == k and counts.shape == (len(grams),) and len(grams) > 0,
                 f"order-{k} counts are empty or have the wrong shape")
    # S_k: the seen k-grams plus the seen contexts of length k (prefixes of the seen (k+1)-grams).
    keys = [np.arange(vocab_size, dtype=np.int64)]
    for k in range(2, order + 1):
        # (|S_(k-1)| + 1) * |vocab| bounds every key and every query of order k, absent prefixes included
        _require((len(keys[-1]) + 1) * vocab_size < _KEY_LIMIT, "too many n-grams for 64-bit table keys")
        members = [levels[k - 1][0]] + ([levels[k][0][:, :-1]] if k < order else [])
        rows = np.concatenate(members)
        prefix = _row_ranks(keys, rows[:, :-1], vocab_size)
        _require(bool((prefix >= 0).all()), f"an order-{k} n-gram's prefix is not a seen context")
        keys.append(np.unique(prefix * vocab_size + rows[:, -1]))

    uniform = 1.0 / (vocab_size - 1)  # 1 / |V|: every id but <s>
    linear: list[np.ndarray] = []
    log10_backoffs: list[np.ndarray] = []
    for k, (grams, counts) in enumerate(levels, start=1):
        c = counts.astype(np.float64)
        if k == 1:  # empty context; words without a continuation count get only the uniform base's share
            _require(bool((grams[:, 0] > BOS_ID).all() and (grams[:, 0] < vocab_size).all()),
                     "unigram ids out of range")
            total, followers = float(counts.sum()), float(len(counts))
            gamma = discount * followers / total
            level = np.full(vocab_size, gamma * uniform)
            level[grams[:, 0]] = (c - discount) / total + gamma * uniform
            level[BOS_ID] = np.nan  # <s>: context only
        else:
            n_contexts = len(keys[k - 2])
            context = _row_ranks(keys, grams[:, :-1], vocab_size)
            lower_rank = _row_ranks(keys, grams[:, 1:], vocab_size)
            _require(bool((context >= 0).all() and (lower_rank >= 0).all()),
                     f"an order-{k} n-gram's context or suffix is not in the order-{k - 1} table")
            lower = linear[-1][lower_rank]
            _require(not np.isnan(lower).any(), f"an order-{k} n-gram's suffix is only a context")
            totals = np.bincount(context, weights=c, minlength=n_contexts)  # integer-valued: exact
            followers = np.bincount(context, minlength=n_contexts).astype(np.float64)
            seen = followers > 0
            gammas = np.ones(n_contexts)
            gammas[seen] = discount * followers[seen] / totals[seen]
            log10_gamma = np.zeros(n_contexts)
            log10_gamma[seen] = _log10(gammas[seen])
            log10_backoffs.append(log10_gamma)
            level = np.full(len(keys[k - 1]), np.nan)
            level[keys[k - 1].searchsorted(context * vocab_size + grams[:, -1])] = \
                (c - discount) / totals[context] + gammas[context] * lower  # S_k holds every seen k-gram
            _require(bool((keys[k - 1][np.isnan(level)] % vocab_size == BOS_ID).all()),
                     f"an order-{k} context-only entry does not end with <s>")
        linear.append(level)
    log10_probs = []
    for level in linear:
        log10_p = np.full(len(level), -math.inf)
        seen = ~np.isnan(level)
        log10_p[seen] = _log10(level[seen])
        log10_probs.append(log10_p)
    return keys, log10_probs, log10_backoffs


def _log10(values: np.ndarray) -> np.ndarray:
    """math.log10 per entry: the scalar function, whose results np.log10's SIMD loops need not reproduce."""
    return np.fromiter(map(math.log10, values.tolist()), dtype=np.float64, count=len(values))


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"malformed n-gram model: {message}")


# ---- serialisation helpers --------------------------------------------------------------------

def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _read_array(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    return np.lib.format.read_array(io.BytesIO(archive.read(name)), allow_pickle=False)


def _checked_vocab(vocab: Any) -> list[str]:
    if not isinstance(vocab, list) or vocab[:3] != list(SPECIALS) or not all(isinstance(w, str) for w in vocab) \
            or len(set(vocab)) != len(vocab):
        raise ValueError("malformed n-gram model file: bad vocabulary")
    return vocab


def _read_tables(archive: zipfile.ZipFile, order: int,
                 vocab_size: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The tables of a current-format file, checked with array operations only."""
    keys: list[np.ndarray] = []
    probs: list[np.ndarray] = []
    backoffs: list[np.ndarray] = []
    for k in range(1, order + 1):
        key = _read_array(archive, f"keys_{k}.npy")
        log10_p = _read_array(archive, f"log10_probs_{k}.npy")
        _require(key.dtype == np.dtype("<i8") and key.ndim == 1 and len(key) > 0
                 and log10_p.dtype == np.dtype("<f8") and log10_p.shape == key.shape,
                 f"order-{k} arrays have the wrong shape or type")
        bound = vocab_size if k == 1 else len(keys[-1]) * vocab_size
        _require(k == order or (len(key) + 1) * vocab_size < _KEY_LIMIT, "too many n-grams for 64-bit keys")
        _require(int(key[0]) >= 0 and int(key[-1]) < bound and bool((np.diff(key) > 0).all()),
                 f"order-{k} keys out of range or not strictly increasing")
        _require(not bool(np.isnan(log10_p).any() or (log10_p == math.inf).any()),
                 f"order-{k} probabilities are not log10 values")
        if k == 1:
            _require(len(key) == vocab_size and log10_p[BOS_ID] == -math.inf
                     and bool(np.isfinite(log10_p[1:]).all()),
                     "the unigram table must hold every id, <s> with P = 0 and every other id with P > 0")
        if k < order:
            log10_gamma = _read_array(archive, f"log10_backoffs_{k}.npy")
            _require(log10_gamma.dtype == np.dtype("<f8") and log10_gamma.shape == key.shape
                     and bool(np.isfinite(log10_gamma).all()), f"order-{k} backoffs are malformed")
            backoffs.append(log10_gamma)
        keys.append(key)
        probs.append(log10_p)
    return keys, probs, backoffs


def _read_counts(archive: zipfile.ZipFile, k: int, vocab_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Order-k (n-gram id matrix, counts) of a legacy count-format file."""
    grams = _read_array(archive, f"ngrams_{k}.npy")
    counts = _read_array(archive, f"counts_{k}.npy")
    if grams.ndim != 2 or grams.shape[1] != k or counts.shape != (grams.shape[0],) \
            or grams.dtype.kind != "u" or counts.dtype.kind != "u":
        raise ValueError(f"malformed n-gram model file: order-{k} arrays have the wrong shape or type")
    if grams.size and int(grams.max()) >= vocab_size or counts.size and int(counts.min()) == 0:
        raise ValueError(f"malformed n-gram model file: order-{k} ids out of range or zero counts")
    if grams.size and bool((grams[:, -1] == BOS_ID).any()):
        raise ValueError(f"malformed n-gram model file: order-{k} n-gram predicts <s>")
    if counts.size and int(counts.max()) >= 2**53:
        raise ValueError(f"malformed n-gram model file: order-{k} counts too large")
    return grams.astype(np.int64), counts.astype(np.int64)
