"""Each document's MinHash signature, shingle set and decontamination match, kept in the cache
(engine.cache.PartMemo) so that a version whose filter output changed by a few documents shingles only
those: the rest are read back. The global steps (band buckets, exact groups, components) still run over
every document, so the decisions, and every published byte, are those of a run without the cache.

A document's entry is a function of its text alone under the hasher's settings (num_perm, seed,
ngram_words), whether sets are kept (verify = "exact") and the eval index (its sha256): so it is found by
the digest of the text, in the entry of the part it is in now."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pyarrow as pa

from corpus.dedup.minhash import MinHasher, WordBatch
from corpus.dedup.verify import ShingleSets, signatures_and_sets
from corpus.engine.cache import PartMemo

MEMO_COLUMNS = {"digest": pa.binary(16), "signature": pa.binary(), "shingles": pa.binary(), "decontam": pa.string()}


def text_digest(text: str | bytes) -> bytes:
    """Of the text's UTF-8 (a long text comes as its UTF-8 bytes: stages.dedup.texts_of)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


class SignMemo:
    """The per-document MinHash results of one part (signatures, sets when `with_sets`, decontamination
    matches), those the cache holds and those computed now."""

    def __init__(self, root: Path, part: str, hasher: MinHasher, with_sets: bool, eval_sha256: str | None):
        facts = {"num_perm": hasher.num_perm, "seed": hasher.seed, "ngram": hasher.ngram, "scheme": hasher.scheme,
                 "shingle_hash": hasher.shingle_hash, "sets": with_sets, "eval_index": eval_sha256, "part": part}
        self.memo = PartMemo(root, "minhash-memo", facts, MEMO_COLUMNS)
        self.hasher, self.with_sets = hasher, with_sets
        self.hits = self.computed = 0

    def sign(self, texts: Sequence[str], decontaminate: Callable[[int, WordBatch], list] | None
             ) -> tuple[np.ndarray, ShingleSets | None, list[tuple]]:
        """(signatures, sets or None, decontamination matches [(row, eval source, n-gram)]) of every text,
        as signatures_and_sets / hasher.signatures with `decontaminate` would give, shingling only the
        texts the cache does not know. decontaminate(first row, words) returns its batch's match_batch."""
        digests = [text_digest(t) for t in texts]
        known = [self.memo.get(d) for d in digests]
        todo = [i for i, row in enumerate(known) if row is None]
        found: dict[int, tuple] = {}

        def each_batch(first: int, words: WordBatch) -> None:
            if decontaminate is not None:
                for j, m in enumerate(decontaminate(first, words), first):
                    if m is not None:
                        found[todo[j]] = tuple(m)

        sub = [texts[i] for i in todo]
        batches = each_batch if decontaminate is not None else None  # None: a long text is shingled in pieces
        if self.with_sets:
            sigs, sets = signatures_and_sets(self.hasher, sub, batches)
        else:
            sigs, sets = self.hasher.signatures(sub, batches), None
        self.computed += len(todo)
        self.hits += len(texts) - len(todo)
        for j, i in enumerate(todo):
            shingles = sets.set_of(j).astype("<u4").tobytes() if sets is not None else None
            match = json.dumps(list(found[i])) if i in found else None
            known[i] = (sigs[j].astype(sigs.dtype.newbyteorder("<")).tobytes(), shingles, match)
            self.memo.put(digests[i], known[i])
        dtype = np.dtype(self.hasher.dtype).newbyteorder("<")
        out = np.empty((len(texts), self.hasher.num_perm), dtype=self.hasher.dtype)
        for i, (sig, _, _) in enumerate(known):
            out[i] = np.frombuffer(sig, dtype)
        matches = [(i, *json.loads(m)) for i, (_, _, m) in enumerate(known) if m is not None]
        if not self.with_sets:
            return out, None, matches
        flat = [np.frombuffer(s, "<u4") for _, s, _ in known]
        offsets = np.zeros(len(flat) + 1, np.int64)
        np.cumsum([len(f) for f in flat], out=offsets[1:])
        values = np.concatenate(flat).astype(np.uint32) if flat else np.zeros(0, np.uint32)
        return out, ShingleSets(values, offsets), matches

    def save(self) -> None:
        self.memo.save()
