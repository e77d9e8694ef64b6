"""Writers (and readers, for round trips) of token formats other trainers read directly.

- nanoGPT: `train.bin`, headerless little-endian ids; the reader must know the dtype (nanoGPT assumes uint16);
  `meta.pkl` beside them gives train.py the `vocab_size` (and the dtype).
- llm.c (karpathy/llm.c dev/data/data_common.py): a header of 256 int32 — [0] magic, [1] version,
  [2] token count, the rest 0 — then the ids. GPT-2 style uint16 shards use magic 20240520 / version 1;
  LLaMA-3 style uint32 shards use magic 20240801 / version 7 (upstream's value; train_llama3.py asserts it).
- datatrove (src/datatrove/pipeline/tokens/tokenizer.py, TokenizedFile): `x.ds` little-endian ids,
  `x.ds.index` uint64 end offset (in tokens) of each document, `x.ds.metadata` three text lines
  "<tokenizer>|<bytes per token>", token count, human-readable count. Readers without the metadata
  file assume 2-byte tokens, as datatrove's merger does.

Every writer range-checks before the cast (see megatron.check_range) and writes atomically.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Iterable

import numpy as np

from corpus.store.atomic import atomic_open
from corpus.formats.megatron import check_range, choose_dtype, memmap_tokens, storage_dtype

LLMC_HEADER_INTS = 256
LLMC_HEADER_BYTES = LLMC_HEADER_INTS * 4
LLMC_FORMATS = {  # dtype -> (magic, version)
    np.dtype(np.uint16): (20240520, 1),
    np.dtype(np.uint32): (20240801, 7),
}
WRITE_CHUNK_TOKENS = 1 << 24  # cast and write in chunks so a big array is not copied whole


def _resolve_dtype(tokens: np.ndarray, dtype: np.dtype | type | str | None) -> np.dtype:
    if dtype is not None:
        return storage_dtype(dtype)
    return choose_dtype(int(tokens.max()) if tokens.size else 0)


def _write_ids(f, tokens: np.ndarray, dtype: np.dtype) -> None:
    little = dtype.newbyteorder("<")
    for start in range(0, len(tokens), WRITE_CHUNK_TOKENS):
        f.write(tokens[start:start + WRITE_CHUNK_TOKENS].astype(little, copy=False).tobytes())


def _as_ids(tokens: np.ndarray | Iterable[int]) -> np.ndarray:
    arr = np.asarray(tokens)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of token ids, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    return arr


# ---- nanoGPT

def write_nanogpt(tokens: np.ndarray, path: str | os.PathLike, dtype: np.dtype | type | str | None = None) -> np.dtype:
    """Write a flat .bin (uint16 if every id fits, else uint32) and return the dtype a reader must use."""
    tokens = _as_ids(tokens)
    dt = _resolve_dtype(tokens, dtype)
    check_range(tokens, dt)
    with atomic_open(path, "wb") as f:
        _write_ids(f, tokens, dt)
    return dt


def nanogpt_meta(tokenizer: dict, tokenizer_id: str) -> dict:
    """meta.pkl's dict: nanoGPT's train.py reads `meta['vocab_size']` (without the file it assumes GPT-2's
    50304). No char-level `stoi`/`itos` (those are for nanoGPT's character datasets; ids decode with the
    tokenizer.json named here); `dtype` says how to memmap the .bin files (nanoGPT's get_batch assumes uint16)."""
    return {"vocab_size": int(tokenizer["vocab_size"]), "dtype": tokenizer["dtype"], "eos_id": int(tokenizer["eos_id"]),
            "eos_token": tokenizer["eos_token"], "tokenizer_id": tokenizer_id, "tokenizer_sha256": tokenizer["sha256"]}


def write_nanogpt_meta(path: str | os.PathLike, tokenizer: dict, tokenizer_id: str) -> dict:
    """Write meta.pkl (pickle protocol 4: the same dict gives the same bytes); returns the dict."""
    meta = nanogpt_meta(tokenizer, tokenizer_id)
    with atomic_open(path, "wb") as f:
        pickle.dump(meta, f, protocol=4)
    return meta


def read_nanogpt(path: str | os.PathLike, dtype: np.dtype | type | str = np.uint16) -> np.ndarray:
    """The file as a read-only memmap; the dtype is not in the file, so the caller supplies it."""
    return memmap_tokens(path, storage_dtype(dtype))


# ---- llm.c

def write_llmc_shard(tokens: np.ndarray, path: str | os.PathLike,
                     dtype: np.dtype | type | str | None = None) -> np.dtype:
    """Write one llm.c data shard; returns the token dtype (which fixes magic and version)."""
    tokens = _as_ids(tokens)
    dt = _resolve_dtype(tokens, dtype)
    check_range(tokens, dt)
    if len(tokens) >= 2**31:  # the count is an int32 in the header
        raise ValueError(f"{len(tokens)} tokens do not fit an llm.c header's int32 count")
    magic, version = LLMC_FORMATS[dt]
    header = np.zeros(LLMC_HEADER_INTS, dtype="<i4")
    header[:3] = (magic, version, len(tokens))
    with atomic_open(path, "wb") as f:
        f.write(header.tobytes())
        _write_ids(f, tokens, dt)
    return dt


def read_llmc_shard(path: str | os.PathLike) -> np.ndarray:
    """The shard's tokens (a memmap past the header), after checking magic, version and size."""
    path = Path(path)
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(LLMC_HEADER_BYTES), dtype="<i4")
    if len(header) != LLMC_HEADER_INTS:
        raise ValueError(f"{path}: shorter than the llm.c header ({LLMC_HEADER_BYTES} bytes)")
    by_magic = {magic: (dt, version) for dt, (magic, version) in LLMC_FORMATS.items()}
    magic, version, count = (int(v) for v in header[:3])
    if magic not in by_magic:
        raise ValueError(f"{path}: bad llm.c magic {magic}")
    dt, expected_version = by_magic[magic]
    if version != expected_version:
        raise ValueError(f"{path}: llm.c version {version}, expected {expected_version} for magic {magic}")
    size = path.stat().st_size
    if size != LLMC_HEADER_BYTES + count * dt.itemsize:
        raise ValueError(f"{path}: {size} bytes, but the header claims {count} {dt} tokens")
    if count == 0:
        return np.empty(0, dtype=dt.newbyteorder("<"))
    return np.memmap(path, dtype=dt.newbyteorder("<"), mode="r", offset=LLMC_HEADER_BYTES, shape=(count,))


# ---- datatrove

def write_datatrove(doc_token_arrays: Iterable[np.ndarray], path: str | os.PathLike, *,
                    dtype: np.dtype | type | str | None = None,
                    tokenizer_name: str = "Unknown Tokenizer") -> tuple[int, int]:
    """Write `path` (.ds), `path.index` and `path.metadata`; returns (n_docs, n_tokens).

    Without `dtype` the documents are materialised once to pick uint16/uint32 from the largest id."""
    docs = [_as_ids(d) for d in doc_token_arrays]
    if dtype is None:
        dt = choose_dtype(max((int(d.max()) for d in docs if d.size), default=0))
    else:
        dt = storage_dtype(dtype)
    for d in docs:
        check_range(d, dt)  # all checks before the first byte is written
    ends = np.cumsum([len(d) for d in docs], dtype=np.uint64)
    with atomic_open(path, "wb") as f:
        for d in docs:
            _write_ids(f, d, dt)
    with atomic_open(f"{os.fspath(path)}.index", "wb") as f:
        f.write(ends.astype("<u8").tobytes())
    n_tokens = int(ends[-1]) if len(ends) else 0
    with atomic_open(f"{os.fspath(path)}.metadata", "w") as f:
        f.write("\n".join([f"{tokenizer_name}|{dt.itemsize}", str(n_tokens), _human_count(n_tokens)]))
    return len(docs), n_tokens


def _human_count(n: int) -> str:
    for unit, scale in (("GT", 10**9), ("MT", 10**6), ("kT", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} T"


def read_datatrove(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(tokens as a memmap, document end offsets) of a .ds file, checked against each other."""
    path = Path(path)
    token_size = _datatrove_token_size(path)
    dt = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32)}.get(token_size)
    if dt is None:
        raise ValueError(f"{path}.metadata: unsupported token size {token_size}")
    ends = np.fromfile(f"{path}.index", dtype="<u8")
    tokens = memmap_tokens(path, dt)
    if (len(ends) and int(ends[-1]) != len(tokens)) or (not len(ends) and len(tokens)):
        raise ValueError(f"{path}: index ends at {int(ends[-1]) if len(ends) else 0} tokens, file holds {len(tokens)}")
    if np.any(np.diff(ends.astype(np.int64)) < 0):
        raise ValueError(f"{path}.index: document ends are not non-decreasing")
    return tokens, ends


def _datatrove_token_size(path: Path) -> int:
    meta = Path(f"{path}.metadata")
    if not meta.exists():
        return 2
    first_line = meta.read_text(encoding="utf-8").splitlines()[0]
    _, sep, size = first_line.rpartition("|")
    return int(size) if sep else 2
