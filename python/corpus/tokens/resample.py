"""The train split resampled by a `[mix]` (tokens.mix has the rules), shard by shard over the encoded work
files: each train document's source and keyed hash, its copies, and the shard's mixed index, in which
copies lie in buckets apart; and the sums over the shards the steps between them need.

    <shard key>.train.mix.npy        uint64 [source, u bits, placement bits] per document, in bucket order
    <shard key>.train.mixhist.npy    tokens of each source by u (what targets are resolved from)
    <shard key>.train.mixdocs.npy    [token offset, length, source] of the mixed documents, grouped by bucket
    <shard key>.train.mixbstart.npy  where each bucket's mixed documents start

The val split is never resampled."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.errors import CorpusError
from corpus.formats.parts import PartReader
from corpus.tokens import mix as mixing
from corpus.tokens.buckets import bucket_starts, shard_order
from corpus.tokens.plan import BUCKETS
from corpus.tokens.workfiles import READ_ROWS, SPLITS, npy_bytes, write_work_file


@dataclass(frozen=True)
class MixUnit:
    key: str                # the shard key
    index: int
    shard: Path
    sha256: str
    work: Path
    seed: int               # [tokenize] seed: the buckets
    mix_seed: int
    sources: tuple[str, ...]
    whole: tuple[int, ...] = ()       # per source: floor(w)
    threshold: tuple[int, ...] = ()   # per source: frac(w) as a threshold on u's 64 bits
    kept: tuple[int, ...] = ()        # the buckets holding a kept train document (any shard)


def mix_sources(u: MixUnit) -> dict:
    """Each train document's source and keyed hash (`<key>.train.mix.npy`, uint64 [source, u bits,
    placement bits], in encode's bucket order), the tokens of each source by u (`.mixhist.npy`, what
    targets are resolved from) and per source the documents and tokens of both splits."""
    index = {s: i for i, s in enumerate(u.sources)}
    ids, srcs = _ids_and_sources(u, index)
    counts = {}
    for split in SPLITS:
        docs = np.load(u.work / f"{u.key}.{split}.docs.npy")
        if len(docs) != len(ids[split]):
            raise CorpusError(f"{u.shard}: {len(ids[split])} {split} documents, the encoded shard {len(docs)}")
        by_bucket, _ = shard_order(u.seed, split, u.index, len(docs))
        src = np.fromiter((index[s] for s in srcs[split]), np.int64, len(docs))[by_bucket]
        lengths = docs[:, 1]
        counts[split] = {"docs": np.bincount(src, minlength=len(u.sources)).tolist(),
                         "tokens": np.bincount(src, weights=lengths, minlength=len(u.sources)).astype(np.int64).tolist()}
        if split != "train":
            continue
        hashes = mixing.doc_hashes(u.mix_seed, srcs[split], ids[split])[by_bucket]
        table = np.column_stack([src.astype(np.uint64), hashes]) if len(src) else np.zeros((0, 3), np.uint64)
        files = [write_work_file(u.work, f"{u.key}.train.mix.npy", npy_bytes(table)),
                 write_work_file(u.work, f"{u.key}.train.mixhist.npy",
                                 npy_bytes(mixing.histogram(src, hashes[:, 0], lengths, len(u.sources))))]
    return {"key": u.key, "work": files, "sources": counts}


def _ids_and_sources(u: MixUnit, index: dict[str, int]) -> tuple[dict[str, list], dict[str, list]]:
    """Per split, the shard's documents' ids and sources in shard order (a source not in `index` is an error)."""
    reader = PartReader(u.shard, u.sha256, columns=["id", "source_id", "split"], batch_rows=READ_ROWS * 64)
    ids: dict[str, list] = {s: [] for s in SPLITS}
    srcs: dict[str, list] = {s: [] for s in SPLITS}
    for batch in reader.batches():
        for doc_id, sid, split in zip(*(batch.column(c).to_pylist() for c in ("id", "source_id", "split"))):
            if sid not in index:
                raise CorpusError(f"{u.shard}: document {doc_id} is of source '{sid}', not one of [dataset] sources")
            ids[split].append(doc_id)
            srcs[split].append(sid)
    return ids, srcs


def _copies_of(u: MixUnit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the mix table, each train document's copies, its bucket), in encode's bucket order."""
    table = np.load(u.work / f"{u.key}.train.mix.npy")
    src = table[:, 0].astype(np.int64)
    n = mixing.copies(table[:, 1], np.asarray(u.whole, np.int64)[src],
                      np.asarray(u.threshold, np.uint64)[src] if len(src) else np.zeros(0, np.uint64))
    _, bucket = shard_order(u.seed, "train", u.index, len(table))
    return table, n, bucket


def mix_copies(u: MixUnit) -> dict:
    """How many copies each train document gets: per source the documents and tokens after mixing and the
    repetition counts ({copies: documents}), and the buckets holding a kept document."""
    table, n, bucket = _copies_of(u)
    lengths = np.load(u.work / f"{u.key}.train.docs.npy")[:, 1]
    src = table[:, 0].astype(np.int64)
    k = len(u.sources)
    reps = {}
    for i, sid in enumerate(u.sources):
        values, counts = np.unique(n[src == i], return_counts=True)
        reps[sid] = {str(int(v)): int(c) for v, c in zip(values, counts)}
    return {"key": u.key, "kept": np.unique(bucket[n >= 1]).tolist(), "max_copies": int(n.max()) if len(n) else 0,
            "after": {"docs": np.bincount(src, weights=n, minlength=k).astype(np.int64).tolist(),
                      "tokens": np.bincount(src, weights=n * lengths, minlength=k).astype(np.int64).tolist()},
            "repetitions": reps}


def mix_place(u: MixUnit) -> dict:
    """The mixed train documents of the shard (`<key>.train.mixdocs.npy`: [token offset, length, source],
    grouped by bucket, and `.mixbstart.npy`): each kept document once in its own bucket, as unmixed, then
    its further copies in the buckets tokens.mix.place picks (in bucket order: the originals, then the
    copies by document and copy number). All weights 1 gives exactly the unmixed files."""
    table, n, bucket = _copies_of(u)
    docs = np.load(u.work / f"{u.key}.train.docs.npy")
    src = table[:, 0].astype(np.int64)
    keep = n >= 1
    rows = [np.column_stack([bucket[keep], docs[keep, 0], docs[keep, 1], src[keep]])]
    kept = np.asarray(u.kept, np.int64)
    extra = []
    for i in np.flatnonzero(n > 1).tolist():
        for b in mixing.place(int(bucket[i]), int(n[i]), int(table[i, 2]), kept):
            extra.append((b, int(docs[i, 0]), int(docs[i, 1]), int(src[i])))
    if extra:
        rows.append(np.asarray(extra, np.int64))
    allrows = np.concatenate(rows).astype(np.int64)
    allrows = allrows[np.argsort(allrows[:, 0], kind="stable")]
    return {"key": u.key,
            "work": [write_work_file(u.work, f"{u.key}.train.mixdocs.npy", npy_bytes(allrows[:, 1:].copy())),
                     write_work_file(u.work, f"{u.key}.train.mixbstart.npy", npy_bytes(bucket_starts(allrows[:, 0])))]}


def counts_before(results: list[dict], work: Path, n_sources: int) -> tuple[dict, np.ndarray]:
    """From the mix-sources results: per split the documents and tokens of each source before mixing, and
    the train tokens of each source by u (the sum of the shards' histograms)."""
    before = {split: {"docs": [0] * n_sources, "tokens": [0] * n_sources} for split in SPLITS}
    hist = np.zeros((n_sources, mixing.HIST_BINS), np.int64)
    for r in results:
        for split in SPLITS:
            for kind in ("docs", "tokens"):
                before[split][kind] = [a + b for a, b in zip(before[split][kind], r["sources"][split][kind])]
        hist += np.load(work / f"{r['key']}.train.mixhist.npy")
    return before, hist


def kept_buckets(results: list[dict], where: str) -> tuple[int, ...]:
    """From the mix-copies results: the buckets holding a kept train document (where further copies may
    go), after checking there are enough of them to keep every document's copies apart."""
    kept = sorted({b for r in results for b in r["kept"]})
    most = max([r["max_copies"] for r in results] or [0])
    if len(kept) < mixing.need_buckets(most):
        raise CorpusError(f"{where}: mix: a document gets {most} copies, but the train split's kept "
                          f"documents fill only {len(kept)} of {BUCKETS} shuffle buckets ({mixing.need_buckets(most)} "
                          f"needed to keep its copies apart); lower the weights or mix.max_repeats")
    return tuple(kept)
