"""Word-level n-gram language model with interpolated Kneser–Ney smoothing, for perplexity filtering.

A model trained on a reference source (e.g. TinyStories) scores other documents; documents whose
perplexity exceeds a threshold look unlike the reference and can be dropped. Plain Python dicts and
numpy, fully deterministic, serialised without pickle.

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
    For every seen n-gram (h w) the fully interpolated log10 P(w | h) is stored, and for every
    seen context h its log10 gamma(h). Scoring one token is then: look up the longest n-gram; on
    a miss add log10 gamma of its context (0 if unseen) and retry one order lower. Unigrams of all
    of V are stored, so the loop always ends. This is exact, not an approximation.

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
    with fixed timestamps: ``meta.json`` (settings, U and vocabulary) and, per order k, the sorted
    n-gram id matrix and its counts. Loading rebuilds the probability tables with the same code as
    training, so a round trip scores identically; identical training input gives identical bytes.
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
from typing import Any

import numpy as np

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
BOS_ID, EOS_ID, UNK_ID = 0, 1, 2
SPECIALS = (BOS, EOS, UNK)

FORMAT = "corpus.ngram_lm/1"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed so identical models give identical bytes

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")

Ngram = tuple[int, ...]


def lm_words(text: str) -> list[str]:
    """Lowercase word tokens: runs of letters/digits joined by inner apostrophes; see module doc."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


class NGramLM:
    """An interpolated Kneser–Ney word n-gram model; build with `train` or `from_bytes`."""

    order: int
    discount: float
    min_count: int
    max_vocab: int | None
    unk_types: int  # distinct training words folded into <unk>; an unknown word gets 1/unk_types of it

    def __init__(self, *, order: int, discount: float, min_count: int, max_vocab: int | None,
                 vocab: Sequence[str], unk_types: int, counts: Sequence[dict[Ngram, int]]) -> None:
        """Internal: `counts[k-1]` maps k-grams of ids to raw (k = order) or continuation counts."""
        _check_settings(order, discount, min_count, max_vocab)
        if not isinstance(unk_types, int) or unk_types < 0:
            raise ValueError(f"unk_types must be an int >= 0, got {unk_types!r}")
        self.order, self.discount = order, float(discount)
        self.min_count, self.max_vocab = min_count, max_vocab
        self.unk_types = unk_types
        self._log10_unk_share = -math.log10(max(unk_types, 1))
        self._vocab = tuple(vocab)
        self._ids = {w: i for i, w in enumerate(self._vocab)}
        self._counts = list(counts)
        self._log10_probs, self._log10_backoffs = _kneser_ney_tables(self._counts, len(self._vocab), discount)

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
        top = Counter[Ngram]()
        for words in documents:
            top.update(_ngrams(_padded_ids(words, ids, order), order))
        counts = _continuation_counts(top, order)
        return cls(order=order, discount=discount, min_count=min_count, max_vocab=max_vocab,
                   vocab=vocab, unk_types=unk_types, counts=counts)

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
        ngram = history + (word_id,)
        return self._log10_windows(ngram, len(ngram)) + unk_share

    def log10_score(self, text: str) -> tuple[float, int]:
        """(sum of log10 P over the predicted tokens, number of predicted tokens) for one document."""
        words = lm_words(text)
        padded = tuple(_padded_ids(words, self._ids, self.order))
        unknown_share = padded.count(UNK_ID) * self._log10_unk_share  # each unknown word: its share of <unk>
        return unknown_share + self._log10_windows(padded, self.order), len(words) + 1

    def perplexity(self, text: str) -> float:
        """Per-token perplexity incl. </s>; inf for a text without words (see module doc)."""
        total, n_tokens = self.log10_score(text)
        if n_tokens == 1:
            return math.inf
        return 10.0 ** (-total / n_tokens)

    def _log10_windows(self, ids: Ngram, width: int) -> float:
        """Sum over every `width`-long window of `ids` of log10 P(last | rest).

        Each window uses its longest stored n-gram, adding log10 gamma for every context backed off
        from; unigrams of all of V are stored, so the inner loop always ends. Inlined for speed.
        """
        probs, backoffs = self._log10_probs, self._log10_backoffs
        total = 0.0
        for end in range(width, len(ids) + 1):
            for start in range(end - width, end):
                p = probs.get(ids[start:end])
                if p is not None:
                    total += p
                    break
                total += backoffs.get(ids[start:end - 1], 0.0)  # unseen context: gamma = 1
        return total

    # ---- serialisation --------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """A pickle-free .npz: meta.json plus sorted n-gram/count arrays per order; deterministic."""
        meta = {"format": FORMAT, "order": self.order, "discount": self.discount,
                "min_count": self.min_count, "max_vocab": self.max_vocab, "unk_types": self.unk_types,
                "vocab": list(self._vocab)}
        members = {"meta.json": json.dumps(meta, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()}
        for k, table in enumerate(self._counts, start=1):
            grams, counts = _sorted_arrays(table, k)
            members[f"ngrams_{k}.npy"] = _npy_bytes(grams)
            members[f"counts_{k}.npy"] = _npy_bytes(counts)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for name, data in members.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.create_system, info.external_attr = 3, 0o644 << 16  # same bytes on every platform
                archive.writestr(info, data)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> NGramLM:
        """Load `to_bytes` output; raises ValueError on anything malformed (never unpickles)."""
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                meta = json.loads(archive.read("meta.json"))
                if meta.get("format") != FORMAT:
                    raise ValueError(f"not an n-gram model file (format {meta.get('format')!r})")
                _check_settings(meta["order"], meta["discount"], meta["min_count"], meta["max_vocab"])
                vocab = _checked_vocab(meta["vocab"])
                counts = [_read_counts(archive, k, len(vocab)) for k in range(1, meta["order"] + 1)]
            return cls(order=meta["order"], discount=meta["discount"], min_count=meta["min_count"],
                       max_vocab=meta["max_vocab"], vocab=vocab, unk_types=meta["unk_types"], counts=counts)
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


def _padded_ids(words: list[str], ids: dict[str, int], order: int) -> list[int]:
    return [BOS_ID] * (order - 1) + [ids.get(w, UNK_ID) for w in words] + [EOS_ID]


def _ngrams(padded: list[int], k: int) -> Iterable[Ngram]:
    """Every k-gram ending on a predicted token (position >= order-1 of the padded list)."""
    return zip(*(padded[i:] for i in range(k)))


def _continuation_counts(top: dict[Ngram, int], order: int) -> list[dict[Ngram, int]]:
    """[level 1, ..., level order]: raw counts at the top, N1+(• g) below."""
    levels: list[dict[Ngram, int]] = [dict(top)]
    for _ in range(order - 1):
        levels.append(dict(Counter(g[1:] for g in levels[-1])))
    return levels[::-1]


# ---- probability tables -----------------------------------------------------------------------

def _kneser_ney_tables(counts: list[dict[Ngram, int]], vocab_size: int,
                       discount: float) -> tuple[dict[Ngram, float], dict[Ngram, float]]:
    """(log10 P for every seen n-gram and every unigram, log10 gamma for every seen context)."""
    uniform = 1.0 / (vocab_size - 1)  # 1 / |V|: every id but <s>
    probs: dict[Ngram, float] = {}
    backoffs: dict[Ngram, float] = {}
    for k, level in enumerate(counts, start=1):
        totals, followers = _context_totals(level)
        gammas = {h: discount * followers[h] / totals[h] for h in totals}
        level_probs: dict[Ngram, float] = {}
        if k == 1:  # words without a continuation count get only the uniform base's share
            level_probs = {(w,): gammas[()] * uniform for w in range(1, vocab_size)}
        for gram, c in level.items():
            h = gram[:-1]
            lower = uniform if k == 1 else _prob_linear(probs, backoffs, gram[1:])
            level_probs[gram] = (c - discount) / totals[h] + gammas[h] * lower
        probs.update(level_probs)
        backoffs.update((h, g) for h, g in gammas.items() if h)
    return ({g: math.log10(p) for g, p in probs.items()},
            {h: math.log10(g) for h, g in backoffs.items()})


def _context_totals(level: dict[Ngram, int]) -> tuple[dict[Ngram, int], dict[Ngram, int]]:
    """Per context h: T(h) = sum of counts, F(h) = number of distinct followers."""
    totals: dict[Ngram, int] = {}
    followers: dict[Ngram, int] = {}
    for gram, c in level.items():
        h = gram[:-1]
        totals[h] = totals.get(h, 0) + c
        followers[h] = followers.get(h, 0) + 1
    return totals, followers


def _prob_linear(probs: dict[Ngram, float], backoffs: dict[Ngram, float], gram: Ngram) -> float:
    """P(last | rest) from the linear tables built so far (lower orders only)."""
    weight = 1.0
    for start in range(len(gram)):
        p = probs.get(gram[start:])
        if p is not None:
            return weight * p
        weight *= backoffs.get(gram[start:-1], 1.0)
    raise AssertionError("every vocabulary id has a unigram entry")


# ---- serialisation helpers --------------------------------------------------------------------

def _sorted_arrays(table: dict[Ngram, int], k: int) -> tuple[np.ndarray, np.ndarray]:
    """(n-gram ids, counts) in lexicographic n-gram order, so bytes never depend on dict order."""
    grams = np.array(list(table), dtype="<u4").reshape(len(table), k)
    counts = np.fromiter(table.values(), dtype="<u8", count=len(table))
    rank = np.lexsort(grams.T[::-1])  # lexsort's last key is the primary one
    return grams[rank], counts[rank]


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _checked_vocab(vocab: Any) -> list[str]:
    if not isinstance(vocab, list) or vocab[:3] != list(SPECIALS) or not all(isinstance(w, str) for w in vocab) \
            or len(set(vocab)) != len(vocab):
        raise ValueError("malformed n-gram model file: bad vocabulary")
    return vocab


def _read_counts(archive: zipfile.ZipFile, k: int, vocab_size: int) -> dict[Ngram, int]:
    grams = np.lib.format.read_array(io.BytesIO(archive.read(f"ngrams_{k}.npy")), allow_pickle=False)
    counts = np.lib.format.read_array(io.BytesIO(archive.read(f"counts_{k}.npy")), allow_pickle=False)
    if grams.ndim != 2 or grams.shape[1] != k or counts.shape != (grams.shape[0],) \
            or grams.dtype.kind != "u" or counts.dtype.kind != "u":
        raise ValueError(f"malformed n-gram model file: order-{k} arrays have the wrong shape or type")
    if grams.size and int(grams.max()) >= vocab_size or counts.size and int(counts.min()) == 0:
        raise ValueError(f"malformed n-gram model file: order-{k} ids out of range or zero counts")
    if grams.size and bool((grams[:, -1] == BOS_ID).any()):
        raise ValueError(f"malformed n-gram model file: order-{k} n-gram predicts <s>")
    return dict(zip(map(tuple, grams.tolist()), counts.tolist()))
