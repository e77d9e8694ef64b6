"""Encoding a corpus shard: each document encoded alone without added special tokens plus exactly one
EOS, the id range checked before the cast, the tokens written per split in shard order with the shard's
bucket index (tokens.buckets). The shard is streamed and cut into tasks that threads encode while the
unit's own thread reads ahead and writes what came back in order; the bytes depend on neither."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from corpus.formats.megatron import check_range
from corpus.formats.parts import PartReader, fixed_binary_values
from corpus.store.atomic import atomic_open
from corpus.tokens import pieces
from corpus.tokens.docmemo import DIGEST_BYTES, DocTokens
from corpus.tokens.buckets import write_bucket_index
from corpus.tokens.workfiles import READ_ROWS, SPLITS, work_entry

# encode_batch calls are cut at this many documents, or at this many characters per tokenizer thread:
# an Encoding costs ~50 bytes per character of text until its ids are taken, so a call on 16 MiB held
# ~800 MB. At 256 KiB a thread a worker encoding a 62 MB row group of short stories peaked 48 MB above
# its baseline (1 MiB: 75 MB, 2 MiB: 116 MB), and was no slower: the ids stay in cache. 128 KiB: on the
# 16x bench corpus's two shards (100,000 short documents; 4,152 long ones), with 2 threads, 44 -> 38 MB
# and 66 -> 58 MB above the baseline, in the same time (13.6 -> 13.0 s, 3.7 -> 4.0 s); 64 KiB saved nothing
# more (a batch is at least one document) and was slower on long ones.
ENCODE_BATCH_DOCS = 8192
ENCODE_BATCH_CHARS_PER_THREAD = 128 << 10
# Each encode thread works on its own task (ENCODE_BATCH_DOCS documents or ENCODE_BATCH_CHARS_PER_THREAD
# characters) with the tokenizer's own parallelism off, and the unit's thread keeps up to this many tasks
# per thread under way while it reads the shard and writes what came back, in order. One encode_batch call
# for all threads (Rayon's pool) made every thread wait for the call's longest document, and the reading,
# the ids' conversion and the writing ran while no thread encoded.
ENCODE_TASKS_PER_THREAD = 2


@dataclass(frozen=True)
class EncodeUnit:
    key: str
    index: int              # the shard's position in the corpus manifest
    shard: Path
    sha256: str
    tokenizer: Path
    eos_id: int
    dtype: str
    work: Path
    threads: int
    seed: int
    tokenizer_sha256: str = ""
    cache: Path | None = None   # the artifacts root whose cache/tokens-encode/ keeps encoded shards (None: off)


def encode_threads(rows: list[int], cores: int, workers: int) -> list[int]:
    """Encode threads for each shard's encode unit: the cores over the units that run at once, or, if
    more, the shard's share of all documents times the cores (at most all of them). An even split left
    the 16x corpus's 100,000-document shard on one thread beside a 4,152-document one, and two workers
    slower than one (encode 19.5 s against 15.1 s); the big shard now gets both cores and the small one
    one, overlapping only while the small one runs (14.4 s). Threads never change the tokens."""
    even = max(1, cores // max(1, min(workers, len(rows))))
    total = max(1, sum(rows))
    return [min(cores, max(even, round(cores * r / total))) for r in rows]


def encode_unit(u: EncodeUnit, memo: DocTokens | None = None) -> dict:
    """Per split: `<key>.<split>.bin` (tokens in shard order), `<key>.<split>.docs.npy` ([token offset,
    length] of each document, grouped by bucket in shard order) and `<key>.<split>.bstart.npy` (where each
    bucket's documents start). The shard is streamed in record batches (hashed as it is read) and cut into
    tasks of ENCODE_BATCH_DOCS documents or ENCODE_BATCH_CHARS_PER_THREAD characters (a longer document
    alone, or in pieces: tokens/pieces.py), which `u.threads` threads encode while this one reads ahead and
    writes the tokens back in order: memory is a few tasks a thread, not the shard. Each document is
    encoded alone, so the bytes depend neither on the tasks nor on the threads, nor on which documents'
    ids `memo` (tokens.docmemo) knows; with a memo the result's `docs_memo` names the new entry's files."""
    with contextlib.ExitStack() as stack:
        out = {split: _SplitTokens(stack, u.work, f"{u.key}.{split}.bin") for split in SPLITS}
        _encode_in_order(stack, u, _shard_docs(u, memo), out)
    files = []
    for split in SPLITS:
        o = out[split]
        files.append(o.entry())
        files += write_bucket_index(u.work, u.key, split, u.seed, u.index, o.doc_lengths())
    if memo is None:
        return {"key": u.key, "work": files}
    return {"key": u.key, "work": files, "docs_cache": {"hits": memo.hits, "computed": memo.computed},
            "docs_memo": memo.save({split: out[split].doc_lengths() for split in SPLITS})}


def _shard_docs(u: EncodeUnit, memo: DocTokens | None = None) -> Iterator[tuple[str | np.ndarray, str]]:
    """(text, split) of each document of the shard, in shard order; with a memo, a document whose ids
    it holds comes as those ids instead of its text. A shard with its `sha256` column is looked up by it
    first, and its texts are read only when a document is not known (a takedown's shards: all are)."""
    def texts_and_splits():
        for batch in PartReader(u.shard, u.sha256, columns=["text", "split"], batch_rows=READ_ROWS).batches():
            yield from zip(batch.column("text").to_pylist(), batch.column("split").to_pylist())

    keyed = PartReader(u.shard, u.sha256, columns=["sha256", "split"], batch_rows=READ_ROWS) if memo is not None else None
    if keyed is None or "sha256" not in keyed.schema.names:  # no memo; or a shard of text and split only (tests, tools)
        if keyed is not None:
            keyed.close()
        for text, split in texts_and_splits():
            known = memo.get(text, split) if memo is not None else None
            yield (known if known is not None else text), split
        return
    entries, positions, splits = [], [], []  # per batch: where the memo holds each document's ids (-1: nowhere)
    for batch in keyed.batches():
        digests = fixed_binary_values(batch.column("sha256"))[:, :DIGEST_BYTES]
        split = batch.column("split").to_pylist()
        e, p = memo.lookup(np.ascontiguousarray(digests).view("S16").ravel(), split)
        entries.append(e)
        positions.append(p)
        splits += split
    entry = np.concatenate(entries) if entries else np.zeros(0, np.int64)
    pos = np.concatenate(positions) if positions else np.zeros(0, np.int64)
    texts: Iterable[str | None] = [None] * len(entry)
    if (entry < 0).any():
        texts = (text for text, _ in texts_and_splits())
    for e, p, split, text in zip(entry.tolist(), pos.tolist(), splits, texts):
        yield (memo.ids(e, p) if e >= 0 else text), split


def _encode_in_order(stack: contextlib.ExitStack, u: EncodeUnit, docs: Iterable[tuple[str, str]],
                     out: dict[str, _SplitTokens]) -> None:
    """The documents' tasks encoded on `u.threads` threads, each task's tokens written to its split's
    file in the order the tasks were cut, with at most ENCODE_TASKS_PER_THREAD tasks a thread under way."""
    # loaded at the first text to encode: a shard whose documents the memo all knows never loads it (~0.1 s)
    tok = functools.cache(lambda: _tokenizer(str(u.tokenizer)))
    dtype = np.dtype(u.dtype)
    threads = max(1, u.threads)
    window = threads * ENCODE_TASKS_PER_THREAD
    stack.enter_context(_tokenizer_parallelism_off())
    pool = ThreadPoolExecutor(threads, thread_name_prefix="encode")
    stack.callback(pool.shutdown, wait=True, cancel_futures=True)  # first: no thread outlives the files
    pending: deque = deque()  # (split, future) in the order the tasks were cut
    for split, texts, kind in _tasks(docs, ENCODE_BATCH_CHARS_PER_THREAD, lambda: _cuttable(tok())):
        encodes = kind != "docs" or any(isinstance(t, str) for t in texts)
        pending.append((split, pool.submit(_encode_task, tok() if encodes else None, texts, u.eos_id, dtype, kind)))
        _write_done(pending, out, keep=window)
    _write_done(pending, out, keep=0)


def _write_done(pending: deque, out: dict[str, _SplitTokens], keep: int) -> None:
    """Write the finished tasks at the head of `pending`, waiting for the head until at most `keep` remain."""
    while pending and (len(pending) > keep or pending[0][1].done()):
        split, fut = pending.popleft()
        out[split].write(*fut.result())


@functools.cache
def _tokenizer(path: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(path)


def _tasks(docs: Iterable[tuple[str, str]], limit: int, cut: pieces.Cuts | None | Callable[[], pieces.Cuts | None]
           ) -> Iterator[tuple[str, list[str], str]]:
    """The encode tasks of (text, split) documents, in order: (split, texts, kind). A split's documents
    are gathered until ENCODE_BATCH_DOCS of them or `limit` characters (kind "docs"); a longer document
    goes alone: encoded whole, or when `cut` (tokens/pieces.py: where it may be cut) in pieces of limit/4 characters, `limit`
    of them a task ("piece", then "last"). Only a split's own order matters: its tasks are written in
    the order they come."""
    texts: dict[str, list] = {}
    chars: dict[str, int] = {}
    for text, split in docs:
        if isinstance(text, np.ndarray):  # ids known (tokens.docmemo): nothing to encode, its place kept
            texts.setdefault(split, []).append(text)
            if len(texts[split]) >= ENCODE_BATCH_DOCS:
                yield split, texts.pop(split), "docs"
                chars[split] = 0
            continue
        if len(text) > limit:
            if texts.get(split):
                yield split, texts.pop(split), "docs"
                chars[split] = 0
            if callable(cut):  # asked for at the first long document only
                cut = cut()
            if cut:
                yield from _long_doc_tasks(split, text, limit, cut)
            else:
                yield split, [text], "docs"
            continue
        texts.setdefault(split, []).append(text)
        chars[split] = chars.get(split, 0) + len(text)
        if len(texts[split]) >= ENCODE_BATCH_DOCS or chars[split] >= limit:
            yield split, texts.pop(split), "docs"
            chars[split] = 0
    for split, rest in texts.items():
        if rest:
            yield split, rest, "docs"


def _long_doc_tasks(split: str, text: str, limit: int, cut: pieces.Cuts) -> Iterator[tuple[str, list[str], str]]:
    """A long document's tasks: its pieces of limit/4 characters, about `limit` characters a task, the
    last task "last" (it ends the document) and the others "piece"."""
    batch, n = [], 0
    for piece in pieces.pieces(text, max(1, limit // 4), cut):
        if n >= limit:
            yield split, batch, "piece"
            batch, n = [], 0
        batch.append(piece)
        n += len(piece)
    yield split, batch, "last"


def encode_docs(tok, texts: list[str], eos_id: int, dtype: np.dtype,
                max_chars: int = ENCODE_BATCH_CHARS_PER_THREAD) -> tuple[np.ndarray, np.ndarray]:
    """(tokens in `dtype`, lengths): each text encoded without added special tokens, plus one EOS, in
    this thread (the encode stage's tasks, one after another)."""
    tokens, lengths, open_doc = [], [], 0
    for _, batch, kind in _tasks(((t, "") for t in texts), max_chars, _cuttable(tok)):
        flat, n = _encode_task(tok, batch, eos_id, dtype, kind)
        tokens.append(flat)
        if n is None:
            open_doc += len(flat)
        else:
            lengths.append(n + open_doc if kind == "last" else n)
            open_doc = 0
    if not tokens:
        return np.zeros(0, dtype), np.zeros(0, np.int64)
    return np.concatenate(tokens), np.concatenate(lengths)


_CUTTABLE: dict[int, tuple] = {}  # id -> (the tokenizer, kept so that its id is never reused; the answer)


def _cuttable(tok) -> pieces.Cuts | None:
    """tokens.pieces.cuttable for this tokenizer object, decided once per process."""
    if id(tok) not in _CUTTABLE:
        _CUTTABLE[id(tok)] = (tok, pieces.cuttable(tok.to_str()))
    return _CUTTABLE[id(tok)][1]


def _ids(tok, texts: list[str]) -> list[np.ndarray]:
    """Each text's ids, without added special tokens (encode_batch_fast: no offsets computed)."""
    return [np.array(e.ids, dtype=np.int64) for e in tok.encode_batch_fast(texts, add_special_tokens=False)]


def _encode_task(tok, texts: list[str], eos_id: int, dtype: np.dtype, kind: str = "docs"
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """One task, on an encode thread. kind "docs": whole documents, each + EOS (tokens, lengths); "piece":
    pieces of a long document (its ids, no EOS; lengths None); "last": its last pieces (their ids + the
    EOS, lengths [their tokens + 1]: the writer adds the pieces before)."""
    if kind == "docs":
        eos = np.array([eos_id], dtype=np.int64)
        todo = [t for t in texts if isinstance(t, str)]
        encoded = iter(_ids(tok, todo) if todo else [])
        # a document given as its ids (tokens.docmemo) already ends with its EOS
        ids = [np.concatenate((next(encoded), eos)) if isinstance(t, str) else t.astype(np.int64) for t in texts]
        flat = np.concatenate(ids) if ids else np.zeros(0, np.int64)
        lengths = np.fromiter((len(d) for d in ids), np.int64, len(ids))
    else:
        flat = np.concatenate([*_ids(tok, texts), np.array([eos_id] if kind == "last" else [], dtype=np.int64)])
        lengths = np.array([len(flat)], np.int64) if kind == "last" else None
    check_range(flat, dtype)  # before the cast: a silent wrap (70,000 → 4,464 in uint16) is impossible
    return flat.astype(dtype.newbyteorder("<")), lengths


class _SplitTokens:
    """One split's token work file, written (and hashed) as the encoded tasks come back in order; the
    documents' lengths are kept (8 bytes a document) for the bucket index."""

    def __init__(self, stack: contextlib.ExitStack, work: Path, name: str):
        self.name, self.path = name, work / name
        self.file = stack.enter_context(atomic_open(self.path, "wb"))
        self.sha, self.bytes = hashlib.sha256(), 0
        self.lengths: list[np.ndarray] = []
        self.open_doc = 0  # tokens written so far of a long document encoded in pieces

    def write(self, tokens: np.ndarray, lengths: np.ndarray | None) -> None:
        """Whole documents (`lengths`, each with its EOS), or a piece of a long one (lengths None)."""
        data = tokens.tobytes()
        self.file.write(data)
        self.sha.update(data)
        self.bytes += len(data)
        if lengths is None:
            self.open_doc += len(tokens)
            return
        if self.open_doc:  # the last piece: its EOS ends the long document
            lengths = lengths + self.open_doc
            self.open_doc = 0
        self.lengths.append(lengths)

    def doc_lengths(self) -> np.ndarray:
        """Every document's tokens (with its EOS), in shard order."""
        return np.concatenate(self.lengths) if self.lengths else np.zeros(0, np.int64)

    def entry(self) -> dict:
        return work_entry(self.name, self.sha.hexdigest(), self.bytes)


@contextlib.contextmanager
def _tokenizer_parallelism_off():
    """TOKENIZERS_PARALLELISM=false while the unit's threads encode: each encode_batch call then runs in
    its calling thread (the GIL released), instead of handing its documents to Rayon's pool and waiting."""
    key = "TOKENIZERS_PARALLELISM"
    before = os.environ.get(key)
    os.environ[key] = "false"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = before
