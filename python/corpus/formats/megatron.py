"""Megatron-LM `MMIDIDX` v1 token files: a `.bin` of raw token ids and an `.idx` describing its documents.

Format (all integers little-endian), as megatron/core/datasets/indexed_dataset.py writes and reads it:

    <prefix>.bin  token ids back to back, no header: uint16, or 32-bit when an id exceeds 65,535
    <prefix>.idx  b"MMIDIDX\\x00\\x00"   9-byte magic
                  uint64  version = 1
                  uint8   dtype code: 8 = uint16, 4 = 32-bit (Megatron's int32 code)
                  uint64  N, the number of sequences (one per document here)
                  uint64  N + 1, the length of the document index below
                  int32   [N] sequence lengths in tokens
                  int64   [N] byte offset of each sequence in the .bin
                  int64   [N + 1] document index: sequence i starts document i, so 0, 1, ..., N

Megatron reads code 4 as int32, so 32-bit ids are range-checked to 0..2**31-1: the same bytes then mean
the same ids to Megatron (int32) and to us and nanoGPT-style readers (uint32).
"""

from __future__ import annotations

import contextlib
import os
import struct
from array import array
from pathlib import Path

import numpy as np

from corpus.store.atomic import temp_beside

MAGIC = b"MMIDIDX\x00\x00"
VERSION = 1
HEADER = struct.Struct("<9sQBQQ")  # magic, version, dtype code, sequence count, document count
DTYPE_CODES = {np.dtype(np.uint16): 8, np.dtype(np.uint32): 4}
CODE_DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}
# The largest id each on-disk width may hold; 32-bit stops at int32's maximum (see the module docstring).
MAX_ID = {np.dtype(np.uint16): 2**16 - 1, np.dtype(np.uint32): 2**31 - 1}
MAX_SEQUENCE_TOKENS = 2**31 - 1  # a sequence length is an int32


def choose_dtype(max_id: int) -> np.dtype:
    """uint16 when every id fits (max_id + 1 <= 65,536), else uint32; refuse what neither can hold."""
    if max_id < 0:
        raise ValueError(f"token ids must be non-negative, got max id {max_id}")
    for dtype in (np.dtype(np.uint16), np.dtype(np.uint32)):
        if max_id <= MAX_ID[dtype]:
            return dtype
    raise ValueError(f"max token id {max_id} exceeds {MAX_ID[np.dtype(np.uint32)]}, the largest 32-bit id")


def storage_dtype(dtype: np.dtype | type | str) -> np.dtype:
    """Normalise a requested token dtype to one we store; anything else is an error, not a guess."""
    dt = np.dtype(dtype)
    if dt not in MAX_ID:
        raise ValueError(f"token dtype must be uint16 or uint32, got {dt}")
    return dt


def check_range(arr: np.ndarray, dtype: np.dtype | type | str) -> None:
    """Raise ValueError unless every id in `arr` is an integer that `dtype` stores exactly.

    Casts wrap silently (70,000 -> 4,464 as uint16), so this runs before every cast."""
    dt = storage_dtype(dtype)
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"token ids must be integers, got dtype {arr.dtype}")
    if arr.size == 0:
        return
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 0 or hi > MAX_ID[dt]:
        raise ValueError(f"token ids span [{lo}, {hi}], outside {dt}'s range 0..{MAX_ID[dt]}")


def to_storage_bytes(ids: np.ndarray, dtype: np.dtype) -> bytes:
    """Range-check, then cast to little-endian `dtype` and return the raw bytes."""
    check_range(ids, dtype)
    return np.asarray(ids).astype(dtype.newbyteorder("<"), copy=False).tobytes()


def index_bytes(lengths: np.ndarray, dtype: np.dtype) -> bytes:
    """The whole .idx file for documents of these lengths, one sequence per document."""
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(lengths)
    pointers = np.zeros(n, dtype=np.int64)
    if n:
        np.cumsum(lengths[:-1] * dtype.itemsize, out=pointers[1:])
    header = HEADER.pack(MAGIC, VERSION, DTYPE_CODES[dtype], n, n + 1)
    return b"".join([header, lengths.astype("<i4").tobytes(), pointers.astype("<i8").tobytes(),
                     np.arange(n + 1, dtype="<i8").tobytes()])


class MegatronWriter:
    """Writes `<prefix>.bin` + `<prefix>.idx`; nothing appears under those names until close() succeeds.

    Use as a context manager, or call close() (publish) / abort() (discard) yourself."""

    def __init__(self, path_prefix: str | os.PathLike, dtype: np.dtype | type | str) -> None:
        self.prefix = Path(path_prefix)
        self.dtype = storage_dtype(dtype)
        self.bin_path = self.prefix.with_name(self.prefix.name + ".bin")
        self.idx_path = self.prefix.with_name(self.prefix.name + ".idx")
        self.prefix.parent.mkdir(parents=True, exist_ok=True)
        fd, self._bin_tmp = temp_beside(self.bin_path)
        self._bin = os.fdopen(fd, "wb")
        self._lengths = array("q")
        self.n_tokens = 0
        self._closed = False
        self._aborted = False

    def __enter__(self) -> MegatronWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    @property
    def n_docs(self) -> int:
        return len(self._lengths)

    def add_document(self, ids: np.ndarray) -> None:
        """Append one document; raises ValueError (and writes nothing) if an id does not fit the dtype."""
        ids = np.asarray(ids)
        if ids.ndim != 1:
            raise ValueError(f"a document is a 1-D array of ids, got shape {ids.shape}")
        self._append(to_storage_bytes(ids, self.dtype), len(ids))

    def add_raw(self, tokens_bytes: bytes | memoryview | np.ndarray, n_tokens: int) -> None:
        """Append one document already encoded in this writer's dtype (little-endian), e.g. moved from
        another .bin by the shuffle. The bytes are checked for length and, for 32-bit, for range."""
        data = memoryview(tokens_bytes).cast("B")
        if len(data) != n_tokens * self.dtype.itemsize:
            raise ValueError(f"{len(data)} bytes is not {n_tokens} tokens of {self.dtype}")
        if self.dtype.itemsize == 4:  # every uint16 bit pattern is a valid id; not so for 32-bit
            check_range(np.frombuffer(data, dtype="<u4"), self.dtype)
        self._append(data, n_tokens)

    def add_raw_documents(self, tokens_bytes: bytes | memoryview, lengths: np.ndarray) -> None:
        """Append several documents already encoded in this writer's dtype, back to back (`lengths`
        tokens each): `add_raw` for each, in one write."""
        lengths = np.asarray(lengths, dtype=np.int64)
        data = memoryview(tokens_bytes).cast("B")
        n_tokens = int(lengths.sum())
        if len(data) != n_tokens * self.dtype.itemsize or (lengths.size and int(lengths.min()) < 0):
            raise ValueError(f"{len(data)} bytes is not {n_tokens} tokens of {self.dtype} in {lengths.size} documents")
        if lengths.size and int(lengths.max()) > MAX_SEQUENCE_TOKENS:
            raise ValueError(f"a document of {int(lengths.max())} tokens exceeds the int32 sequence length limit")
        if self.dtype.itemsize == 4:
            check_range(np.frombuffer(data, dtype="<u4"), self.dtype)
        self._append(data, n_tokens, lengths)

    def _append(self, data: bytes | memoryview, n_tokens: int, lengths: np.ndarray | None = None) -> None:
        if self._closed:
            raise ValueError(f"{self.prefix}: writer is closed")
        if lengths is None and n_tokens > MAX_SEQUENCE_TOKENS:
            raise ValueError(f"a document of {n_tokens} tokens exceeds the int32 sequence length limit")
        from corpus.store.atomic import naming_enospc  # local: keep this module importable on its own

        with naming_enospc(self.bin_path, f"{memoryview(data).nbytes:,} bytes of a document"):
            self._bin.write(data)
        if lengths is None:
            self._lengths.append(n_tokens)
        else:
            self._lengths.frombytes(lengths.astype(np.int64).tobytes())
        self.n_tokens += n_tokens

    def close(self) -> tuple[int, int]:
        """fsync both files and rename them into place; returns (n_docs, n_tokens)."""
        if self._aborted:
            raise ValueError(f"{self.prefix}: writer was aborted; nothing was published")
        if self._closed:
            return self.n_docs, self.n_tokens
        from corpus.store.atomic import naming_enospc

        try:
            with naming_enospc(self.bin_path, f"its last buffered bytes and an index of {self.n_docs} documents"):
                self._bin.flush()
                os.fsync(self._bin.fileno())
                self._bin.close()
                idx_tmp = self._write_index_temp()
            # .bin first: a reader needs both, and an .idx is what makes a part look complete.
            os.replace(self._bin_tmp, self.bin_path)
            os.replace(idx_tmp, self.idx_path)
        except BaseException:
            self.abort()
            raise
        self._closed = True
        return self.n_docs, self.n_tokens

    def _write_index_temp(self) -> str:
        fd, tmp = temp_beside(self.idx_path)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(index_bytes(np.frombuffer(self._lengths, dtype=np.int64), self.dtype))
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return tmp

    def abort(self) -> None:
        """Discard everything written; the final names are never touched."""
        if self._closed and not self._aborted:
            return  # already published: nothing to discard
        self._closed = self._aborted = True
        with contextlib.suppress(Exception):
            self._bin.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._bin_tmp)


class MegatronIndex:
    """Reads `<prefix>.idx` (memmapped) and gives access to `<prefix>.bin` documents without loading it."""

    def __init__(self, path_prefix: str | os.PathLike) -> None:
        self.prefix = Path(path_prefix)
        self.idx_path = self.prefix.with_name(self.prefix.name + ".idx")
        self.bin_path = self.prefix.with_name(self.prefix.name + ".bin")
        self._idx = np.memmap(self.idx_path, dtype=np.uint8, mode="r")
        self.dtype, n_sequences = self._read_header()
        self.lengths = self._array("<i4", HEADER.size, n_sequences)
        self.pointers = self._array("<i8", HEADER.size + 4 * n_sequences, n_sequences)
        self.doc_idx = self._array("<i8", HEADER.size + 12 * n_sequences, n_sequences + 1)
        self._bin: np.ndarray | None = None

    def _read_header(self) -> tuple[np.dtype, int]:
        if len(self._idx) < HEADER.size:
            raise ValueError(f"{self.idx_path}: too short for an MMIDIDX header ({len(self._idx)} bytes)")
        magic, version, code, n_seq, n_doc = HEADER.unpack(self._idx[:HEADER.size].tobytes())
        if magic != MAGIC:
            raise ValueError(f"{self.idx_path}: bad magic {magic!r}, expected {MAGIC!r}")
        if version != VERSION:
            raise ValueError(f"{self.idx_path}: unsupported MMIDIDX version {version}")
        if code not in CODE_DTYPES:
            raise ValueError(f"{self.idx_path}: unsupported dtype code {code} (expected 8 or 4)")
        expected = HEADER.size + 12 * n_seq + 8 * n_doc
        if n_doc != n_seq + 1 or len(self._idx) != expected:
            raise ValueError(f"{self.idx_path}: {n_seq} sequences / {n_doc} documents do not match its "
                             f"{len(self._idx)} bytes (a text-only index with one sequence per document is "
                             f"{HEADER.size + 12 * n_seq + 8 * (n_seq + 1)} bytes)")
        return CODE_DTYPES[code], n_seq

    def _array(self, dtype: str, offset: int, count: int) -> np.ndarray:
        return np.frombuffer(self._idx, dtype=dtype, count=count, offset=offset)

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def n_docs(self) -> int:
        return len(self.lengths)

    @property
    def n_tokens(self) -> int:
        return int(self.lengths.sum(dtype=np.int64))

    @property
    def bin_bytes(self) -> int:
        """The .bin size this index implies: the last pointer plus the last length."""
        if not len(self.lengths):
            return 0
        return int(self.pointers[-1]) + int(self.lengths[-1]) * self.dtype.itemsize

    def check(self, bin_bytes: int | None = None) -> None:
        """Raise ValueError (one line naming the .idx and the document) unless the index describes a
        .bin of `bin_bytes` bytes (default: the file's size) exactly: non-negative lengths, each pointer
        the running sum of the lengths before it times the itemsize, the last document ending at the end
        of the .bin, and the document index 0, 1, ..., N. Vectorised: O(N) numpy, nothing read from the .bin."""
        size = os.path.getsize(self.bin_path) if bin_bytes is None else int(bin_bytes)
        where, itemsize = self.idx_path, self.dtype.itemsize
        lengths = self.lengths.astype(np.int64)
        pointers = self.pointers.astype(np.int64, copy=False)
        bad = np.flatnonzero(lengths < 0)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{where}: document {i}: negative length {lengths[i]}")
        # Pointers are compared before any running sum so that a wild pointer gets its own message.
        ends = pointers + lengths * itemsize
        bad = np.flatnonzero((pointers < 0) | (ends > size))
        if bad.size:
            i = int(bad[0])
            p = int(pointers[i])
            if p < 0:
                raise ValueError(f"{where}: document {i}: negative pointer {p}")
            if p > size:
                raise ValueError(f"{where}: document {i}: pointer {p} past the end of {self.bin_path} ({size} bytes)")
            raise ValueError(f"{where}: document {i}: {lengths[i]} tokens from pointer {p} end at byte {int(ends[i])}, "
                             f"past the end of {self.bin_path} ({size} bytes)")
        expected = np.zeros(len(lengths), dtype=np.int64)
        if len(lengths):
            np.cumsum(lengths[:-1] * itemsize, out=expected[1:])
        bad = np.flatnonzero(pointers != expected)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{where}: document {i}: pointer {int(pointers[i])} is not the running sum of the "
                             f"lengths before it times {itemsize} bytes ({int(expected[i])})")
        total = int(lengths.sum()) * itemsize
        if total != size:
            raise ValueError(f"{where}: lengths sum to {int(lengths.sum())} tokens ({total} bytes), "
                             f"but {self.bin_path} has {size} bytes")
        bad = np.flatnonzero(self.doc_idx != np.arange(len(self.doc_idx)))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{where}: document index entry {i} is {int(self.doc_idx[i])}, expected {i} "
                             f"(one sequence per document)")

    def tokens(self) -> np.ndarray:
        """The whole .bin as a read-only memmap (an empty array for an empty file, which mmap refuses)."""
        if self._bin is None:
            self._bin = memmap_tokens(self.bin_path, self.dtype)
        return self._bin

    def document(self, i: int) -> np.ndarray:
        """Document i's ids as a view into the memmapped .bin."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"document {i} out of range for {len(self)} documents")
        start = int(self.pointers[i]) // self.dtype.itemsize
        return self.tokens()[start:start + int(self.lengths[i])]


def memmap_tokens(path: str | os.PathLike, dtype: np.dtype) -> np.ndarray:
    """A read-only little-endian memmap of a headerless token file."""
    dtype = np.dtype(dtype).newbyteorder("<")
    if os.path.getsize(path) == 0:
        return np.empty(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r")


def manifest_file_entry(path_prefix: str | os.PathLike, root: str | os.PathLike) -> dict:
    """The `splits.<split>.files[]` entry of the tokens _MANIFEST.json for one finished part."""
    from corpus.store.atomic import sha256_file  # local: keep this module importable on its own

    index = MegatronIndex(path_prefix)
    root = Path(root)
    return {"bin": index.bin_path.relative_to(root).as_posix(), "idx": index.idx_path.relative_to(root).as_posix(),
            "bin_sha256": sha256_file(index.bin_path), "idx_sha256": sha256_file(index.idx_path),
            "bin_bytes": index.bin_path.stat().st_size, "docs": index.n_docs, "tokens": index.n_tokens}
