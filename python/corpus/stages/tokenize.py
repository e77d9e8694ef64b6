"""Stage 07 tokenize: the corpus shards → token streams a trainer reads directly.

1. The corpus `_MANIFEST.json` is schema-checked and every shard is checked against its sha256 as it is read.
2. The tokenizer is pinned (a tokenizer.json whose sha256 the config names) or trained deterministically
   (byte-level BPE on the train split, the EOS and the PII placeholders as special tokens).
3. Encode: one unit per shard, `encode_batch` without added special tokens, exactly one EOS appended
   per document, the id range checked before the cast; tokens go to unshuffled work files per split.
4. Shuffle: one seeded permutation per split (numpy PCG64 from SeedSequence(seed)); parts are cut at
   `max_tokens_per_file` on document boundaries and written by moving token bytes, never re-encoding.
5. Every finished unit and part is checkpointed; `--resume` verifies them and continues, and the result is
   byte-identical to an uninterrupted run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import platform
import shutil
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..atomic import dump_json, publish_dir, sha256_bytes, sha256_file, write_bytes, write_json
from ..config import Config
from ..errors import CorpusError, StaleError
from ..parts import read_verified
from ..runner import PROGRESS_DIR as PROGRESS, WORK_DIR as WORK, run_resumable
from ..schemas import load_json, validate
from ..tokens.megatron import MegatronWriter, check_range, choose_dtype, manifest_file_entry, memmap_tokens
from .shard import MANIFEST as CORPUS_MANIFEST, SCHEMA as CORPUS_SCHEMA

log = logging.getLogger(__name__)
SCHEMA = "tokens-manifest.schema.json"
MANIFEST = "_MANIFEST.json"
TOKENIZER_FILE = "tokenizer.json"
PLACEHOLDERS = ["<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>"]
SPLITS = ("train", "val")
# encode_batch calls are cut at this many documents or characters: big enough that the tokenizer's
# threads stay busy (small batches cost ~25% of throughput), small enough to bound memory.
ENCODE_BATCH_DOCS = 8192
ENCODE_BATCH_CHARS = 16 << 20


# ---------------------------------------------------------------- inputs

def load_corpus_manifest(config: Config) -> tuple[dict, str]:
    path = config.dataset_dir / CORPUS_MANIFEST
    try:
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
        if not p.is_file():
            raise CorpusError(f"{p}: shard listed in {path} is missing")
    return manifest, hashlib.sha256(data).hexdigest()


def shard_columns(path: Path, sha256: str, columns: list[str]) -> pa.Table:
    return pq.read_table(pa.BufferReader(read_verified(path, sha256)), columns=columns)


# ---------------------------------------------------------------- tokenizer

def train_tokenizer(texts, vocab_size: int, eos: str) -> bytes:
    """Byte-level BPE trained on `texts` (in a fixed order): the same texts give the same bytes."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[eos, *PLACEHOLDERS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    return tok.to_str().encode("utf-8")


def resolve_tokenizer(config: Config, manifest: dict) -> tuple[bytes, str]:
    """(tokenizer.json bytes, tokenizer_id): the pinned file, or one trained on the train split."""
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

    def train_texts():
        for s in manifest["shards"]:
            t = shard_columns(config.dataset_dir / s["name"], s["sha256"], ["text", "split"])
            for text, split in zip(t.column("text").to_pylist(), t.column("split").to_pylist()):
                if split == "train":
                    yield text

    t0 = time.monotonic()
    data = train_tokenizer(train_texts(), tcfg["vocab_size"], tcfg["eos_token"])
    log.info("trained a byte-level BPE tokenizer (vocab %d) on the train split in %.1fs", tcfg["vocab_size"],
             time.monotonic() - t0)
    return data, f"bpe{tcfg['vocab_size']}-{sha256_bytes(data)[:12]}"


def tokenizer_facts(data: bytes, eos: str) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(data.decode("utf-8"))
    eos_id = tok.token_to_id(eos)
    if eos_id is None:
        raise CorpusError(f"tokenizer has no EOS token '{eos}' (tokenize.eos_token)")
    vocab = tok.get_vocab_size(with_added_tokens=True)
    specials = {t: tok.token_to_id(t) for t in [eos, *PLACEHOLDERS] if tok.token_to_id(t) is not None}
    return {"vocab_size": vocab, "eos_id": eos_id, "eos_token": eos, "dtype": np.dtype(choose_dtype(vocab - 1)).name,
            "special_tokens": specials}


# ---------------------------------------------------------------- 3. encode (one unit per shard)

@dataclass(frozen=True)
class EncodeUnit:
    key: str
    shard: Path
    sha256: str
    tokenizer: Path
    eos_id: int
    dtype: str
    work: Path
    threads: int


@functools.cache
def _tokenizer(path: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(path)


def _batches(texts: list[str]) -> list[tuple[int, int]]:
    out, start, chars = [], 0, 0
    for i, t in enumerate(texts):
        chars += len(t)
        if i + 1 - start >= ENCODE_BATCH_DOCS or chars >= ENCODE_BATCH_CHARS:
            out.append((start, i + 1))
            start, chars = i + 1, 0
    if start < len(texts):
        out.append((start, len(texts)))
    return out


def encode_docs(tok, texts: list[str], eos_id: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(tokens in `dtype`, lengths): each text encoded without added special tokens, plus one EOS.
    encode_batch_fast: the same ids as encode_batch, without computing the offsets we never use."""
    tokens, lengths = [], []
    eos = np.array([eos_id], dtype=np.int64)
    for a, b in _batches(texts):
        docs = [np.array(e.ids, dtype=np.int64) for e in tok.encode_batch_fast(texts[a:b], add_special_tokens=False)]
        flat = np.concatenate([x for d in docs for x in (d, eos)])  # exactly one EOS after every document
        check_range(flat, dtype)  # before the cast: a silent wrap (70,000 → 4,464 in uint16) is impossible
        tokens.append(flat.astype(dtype.newbyteorder("<")))
        lengths.append(np.fromiter((len(d) + 1 for d in docs), np.int64, len(docs)))
    if not tokens:
        return np.zeros(0, dtype), np.zeros(0, np.int64)
    return np.concatenate(tokens), np.concatenate(lengths)


def encode_shard(u: EncodeUnit) -> dict:
    os.environ.setdefault("RAYON_NUM_THREADS", str(u.threads))  # before the tokenizer's thread pool starts
    tok = _tokenizer(str(u.tokenizer))
    table = shard_columns(u.shard, u.sha256, ["text", "split"])
    texts, splits = table.column("text").to_pylist(), table.column("split").to_pylist()
    files = []
    for split in SPLITS:
        tokens, lengths = encode_docs(tok, [t for t, s in zip(texts, splits) if s == split], u.eos_id,
                                      np.dtype(u.dtype))
        for name, data in ((f"{u.key}.{split}.bin", tokens.tobytes()), (f"{u.key}.{split}.len", lengths.astype("<i8").tobytes())):
            write_bytes(u.work / name, data)
            files.append({"name": f"{WORK}/{name}", "sha256": sha256_bytes(data), "bytes": len(data)})
    return {"key": u.key, "parts": files}


# ---------------------------------------------------------------- 4. shuffle and write parts

def permutation(seed: int, split: str, n: int) -> np.ndarray:
    train_ss, val_ss = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.Generator(np.random.PCG64(train_ss if split == "train" else val_ss))
    return rng.permutation(n)


def budget(order: np.ndarray, lengths: np.ndarray, max_documents: int | None, train_tokens: int | None) -> np.ndarray:
    """The prefix of the permuted order within the budgets: stop after the document that crosses train_tokens."""
    if max_documents is not None:
        order = order[:max_documents]
    if train_tokens is not None and len(order):
        cum = np.cumsum(lengths[order])
        order = order[: int(np.searchsorted(cum, train_tokens, side="left")) + 1]
    return order


def cut_parts(order: np.ndarray, lengths: np.ndarray, max_tokens: int) -> list[tuple[int, int]]:
    """[first, last) ranges of `order`, each of at most max_tokens (a longer document gets a part of its own)."""
    parts, start, total = [], 0, 0
    for i, n in enumerate(lengths[order].tolist()):
        if i > start and total + n > max_tokens:
            parts.append((start, i))
            start, total = i, 0
        total += n
    if len(order) > start:
        parts.append((start, len(order)))
    return parts


@dataclass(frozen=True)
class PartUnit:
    key: str                # "<split>/part-<nnnnn>"
    first: int              # the part's documents are order[first:last] of the split's plan
    last: int
    shard_keys: tuple[str, ...]
    split: str
    dtype: str
    stage_dir: Path


def write_part(u: PartUnit) -> dict:
    """Move the part's documents' token bytes from the work files, in the planned (shuffled) order."""
    dtype = np.dtype(u.dtype)
    plan = np.load(u.stage_dir / WORK / f"plan.{u.split}.npz")  # small per-document arrays, read per unit
    docs = plan["order"][u.first:u.last]
    doc_shard, doc_offset, doc_len = plan["shard"], plan["offset"], plan["length"]
    maps = {}
    prefix = u.stage_dir / u.key
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with MegatronWriter(prefix, dtype) as w:
        for doc in docs:
            s = int(doc_shard[doc])
            if s not in maps:
                maps[s] = memmap_tokens(u.stage_dir / WORK / f"{u.shard_keys[s]}.{u.split}.bin", dtype)
            a = int(doc_offset[doc])
            n = int(doc_len[doc])
            w.add_raw(maps[s][a:a + n], n)
    entry = manifest_file_entry(prefix, u.stage_dir)
    return {"key": u.key, "entry": entry,
            "parts": [{"name": entry["bin"], "sha256": entry["bin_sha256"], "bytes": entry["bin_bytes"]},
                      {"name": entry["idx"], "sha256": entry["idx_sha256"],
                       "bytes": (u.stage_dir / entry["idx"]).stat().st_size}]}


# ---------------------------------------------------------------- the stage

def tokens_root(config: Config) -> Path:
    return config.artifacts / "tokens" / config.dataset / config.version


def package_versions() -> dict:
    out = {"corpus": __version__, "numpy": np.__version__}
    for pkg in ("tokenizers", "pyarrow"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def run_tokenize(config: Config, *, workers: int, force: bool = False, resume: bool = False,
                 max_documents: int | None = None, train_tokens: int | None = None) -> tuple[dict, Path]:
    t0 = time.monotonic()
    tcfg = config["tokenize"]
    corpus, corpus_sha = load_corpus_manifest(config)
    budgets = {"max_documents": max_documents, "train_tokens": train_tokens,
               "max_tokens_per_file": tcfg["max_tokens_per_file"]}
    tok_bytes, tokenizer_id = resolve_tokenizer(config, corpus)
    final = tokens_root(config) / tokenizer_id
    identity = {"corpus_manifest_sha256": corpus_sha, "config_sha256": config.sha256, "budgets": budgets,
                "seed": tcfg["seed"]}
    if (final / MANIFEST).is_file() and not force:
        published = json.loads((final / MANIFEST).read_text())
        if all(published.get(k) == v for k, v in identity.items()):
            verify_tokens_dir(final, published)
            published["_current"] = True
            return published, final
        raise StaleError(f"{final}: published token streams are stale (corpus, config or budgets changed); "
                          f"use --force to rebuild them")
    staging = final.with_name(final.name + ".incomplete")
    if staging.exists() and not resume:
        shutil.rmtree(staging)
    (staging / WORK).mkdir(parents=True, exist_ok=True)
    (staging / PROGRESS).mkdir(exist_ok=True)
    if (staging / TOKENIZER_FILE).is_file() and (staging / TOKENIZER_FILE).read_bytes() != tok_bytes:
        raise CorpusError(f"{staging}: --resume with a different tokenizer; start again without --resume")
    write_bytes(staging / TOKENIZER_FILE, tok_bytes)
    facts = tokenizer_facts(tok_bytes, tcfg["eos_token"])
    executor = config["run"]["executor"]
    shard_keys = tuple(s["name"].removesuffix(".parquet") for s in corpus["shards"])
    threads = max(1, (os.cpu_count() or 1) // max(1, min(workers, len(shard_keys))))
    enc_units = [EncodeUnit(k, config.dataset_dir / s["name"], s["sha256"], staging / TOKENIZER_FILE,
                            facts["eos_id"], facts["dtype"], staging / WORK, threads)
                 for k, s in zip(shard_keys, corpus["shards"])]
    run_resumable(enc_units, encode_shard, staging, workers=workers, executor=executor, desc="tokenize: encode",
                   unit="shards")
    part_units = []
    for split in SPLITS:
        per_shard = [np.frombuffer((staging / WORK / f"{k}.{split}.len").read_bytes(), "<i8") for k in shard_keys]
        lengths = np.concatenate(per_shard) if per_shard else np.zeros(0, np.int64)
        doc_shard = np.concatenate([np.full(len(x), i, np.int32) for i, x in enumerate(per_shard)]) \
            if per_shard else np.zeros(0, np.int32)
        doc_offset = np.concatenate([np.cumsum(x) - x for x in per_shard]) if per_shard else np.zeros(0, np.int64)
        order = permutation(tcfg["seed"], split, len(lengths))
        if split == "train":
            order = budget(order, lengths, max_documents, train_tokens)
        with open(staging / WORK / f"plan.{split}.npz", "wb") as f:
            np.savez(f, order=order, shard=doc_shard, offset=doc_offset, length=lengths)
        for i, (first, last) in enumerate(cut_parts(order, lengths, tcfg["max_tokens_per_file"])):
            part_units.append(PartUnit(f"{split}/part-{i:05d}", first, last, shard_keys, split, facts["dtype"],
                                       staging))
    # Writing parts only moves bytes (disk-bound): in this process, with no pool to start.
    written, _ = run_resumable(part_units, write_part, staging, workers=1, executor="local",
                             desc="tokenize: write", unit="parts")
    splits = {}
    for split in SPLITS:
        files = [written[u.key]["entry"] for u in part_units if u.split == split]
        splits[split] = {"docs": sum(f["docs"] for f in files), "tokens": sum(f["tokens"] for f in files),
                         "files": files}
    manifest = {"dataset": config.dataset, "version": config.version, "tokenizer_id": tokenizer_id,
                "corpus_manifest_sha256": corpus_sha, "config_sha256": config.sha256,
                "tokenizer": {"file": TOKENIZER_FILE, "sha256": sha256_bytes(tok_bytes), **facts},
                "seed": tcfg["seed"], "budgets": budgets, "splits": splits, "packages": package_versions()}
    validate(manifest, SCHEMA, what=str(final / MANIFEST))
    shutil.rmtree(staging / WORK)
    shutil.rmtree(staging / PROGRESS)
    write_bytes(staging / MANIFEST, dump_json(manifest))
    write_json(staging / "_RUN.json", {"seconds": time.monotonic() - t0, "workers": workers, "executor": executor,
                                       "host": platform.node()})
    publish_dir(staging, final, replace=force)
    return manifest, final


def verify_tokens_dir(directory: Path, manifest: dict | None = None) -> dict:
    """Schema and every file's sha256; raises CorpusError naming the first bad file."""
    path = directory / MANIFEST
    if manifest is None:
        manifest = load_json(path, missing="tokens manifest not found")
    validate(manifest, SCHEMA, what=str(path))
    checks = [(manifest["tokenizer"]["file"], manifest["tokenizer"]["sha256"])]
    for split in manifest["splits"].values():
        for f in split["files"]:
            checks += [(f["bin"], f["bin_sha256"]), (f["idx"], f["idx_sha256"])]
    for rel, sha in checks:
        p = directory / rel
        if not p.is_file():
            raise CorpusError(f"{p}: listed in {path} but missing")
        actual = sha256_file(p)
        if actual != sha:
            raise CorpusError(f"{p}: sha256 mismatch: expected {sha}, got {actual}")
    return manifest
