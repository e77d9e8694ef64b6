"""The torch loader: a tokens directory's split as one memmapped stream, batched for training and eval.

- `TokenStream.open(tokens_dir, split)` checks `_MANIFEST.json` (schema, sizes) and every `.idx` against
  its `.bin` (lengths, pointers, total), then memmaps every part; windows may cross part boundaries. Ids
  stay uint16/uint32 on disk and become int64 only per batch. Every id read is checked to be below the
  manifest's vocab_size (one max per batch); `verify=True` adds every file's sha256 (reads everything),
  `_MANIFEST.json`'s own against the `_STAGE.json` that lists it (a directory without one is refused).
- `get_batch` draws random windows: `(x, y)` int64 (B, T), `y[:, :-1] == x[:, 1:]`, offsets uniform in
  [0, len - T - 1], so every token can land at every position.
- `make_train_loader` is stateless: batch k is a pure function of (seed, k) through its own
  `torch.Generator`; its state is {"step", "seed"}; resuming is one integer. The global RNG is untouched.
- `RandomWindowDataset` (map-style; item i depends only on seed, epoch, i) and `TrainBatches`
  (iterable, sharded by worker so any `num_workers` yields the same batches) serve `DataLoader` users.
- `SequentialEvalDataset` scores every target 1..n-1 exactly once with strided windows and a loss mask.
- Document boundaries come from the `.idx` files: pass `return_doc_info=True` for per-token document
  ids, then `position_ids` / `document_attention_mask` to keep attention inside a document (each
  document ends with its EOS, so ids restart right after an EOS).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

from corpus.store.atomic import sha256_file
from corpus.errors import CorpusError
from corpus.config.layout import STAGE_FILE, STAGE_SCHEMA
from corpus.config.schemas import load_json
from corpus.store.root import local_copy
from corpus.formats.megatron import MAX_ID, MegatronIndex, memmap_tokens

MANIFEST = "_MANIFEST.json"
SCHEMA = "tokens-manifest.schema.json"
DTYPES = {"uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32)}

_max = np.maximum.reduce  # a little cheaper per call than ndarray.max
_MASK64 = (1 << 64) - 1
_TRAIN_TAG = 0x7472_6169_6E00  # "train": keeps train-batch seeds apart from dataset-epoch seeds
_EPOCH_TAG = 0x6570_6F63_6800  # "epoch"


# ---- seeds: a bijective 64-bit mix, so for a fixed seed no two steps (or epochs) share a generator seed

def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def derive_seed(tag: int, seed: int, k: int) -> int:
    """A 64-bit generator seed for (tag, seed, k); injective in k for a fixed (tag, seed)."""
    return _splitmix64(_splitmix64(_splitmix64(tag) ^ (seed & _MASK64)) ^ (k & _MASK64))


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ---- the stream

@dataclass(frozen=True)
class Part:
    """One .bin/.idx pair and where it sits in the split's stream."""

    prefix: Path
    start: int  # global token offset of the part's first token
    tokens: int
    docs: int


class TokenStream:
    """A split's parts as one sequence of token ids, memmapped; picklable (workers reopen the maps)."""

    def __init__(self, parts: list[Part], dtype: np.dtype, name: str = "", vocab_size: int | None = None) -> None:
        self.parts = parts
        self.dtype = np.dtype(dtype)
        self.name = name
        self.vocab_size = vocab_size
        # Ids read must be below this; without a manifest, below what Megatron's int32 can mean. None when
        # the dtype cannot hold a bad id (uint16 with a vocabulary of 65,536), so nothing is compared.
        self._id_limit = vocab_size if vocab_size is not None else MAX_ID[self.dtype] + 1
        if self._id_limit >= 1 << (8 * self.dtype.itemsize):
            self._id_limit = None
        self._starts = np.array([p.start for p in parts] + [sum(p.tokens for p in parts)], dtype=np.int64)
        self._arrays: list[np.ndarray] | None = None
        self._doc_ends: np.ndarray | None = None

    # -- construction

    @classmethod
    def open(cls, tokens_dir: str | os.PathLike, split: str, *, verify: bool = False) -> TokenStream:
        """Open `<tokens_dir>/_MANIFEST.json`'s `split`: schema-checked, every .bin's size and every .idx
        checked against the manifest and its .bin, nothing read beyond the indexes. `verify` adds every
        file's sha256, which reads every byte of the split, and the manifest's against `_STAGE.json`."""
        tokens_dir = local_copy(tokens_dir)  # an s3:// tokens directory: its verified local copy
        if verify:
            _check_manifest_sha(tokens_dir)
        manifest = read_manifest(tokens_dir)
        stale = stale_reason(tokens_dir, manifest)
        if stale is not None:
            warnings.warn(stale, stacklevel=2)
        if split not in manifest["splits"]:
            raise CorpusError(f"{tokens_dir / MANIFEST}: no split '{split}' (has {', '.join(sorted(manifest['splits']))})")
        dtype = _check_tokenizer(tokens_dir, manifest["tokenizer"], verify=verify)
        entry = manifest["splits"][split]
        _check_split_totals(tokens_dir, split, entry)
        parts, start = [], 0
        for file in entry["files"]:
            prefix = _check_part(tokens_dir, file, dtype, verify=verify)
            parts.append(Part(prefix, start, file["tokens"], file["docs"]))
            start += file["tokens"]
        stream = cls(parts, dtype, name=f"{tokens_dir}:{split}", vocab_size=manifest["tokenizer"]["vocab_size"])
        stream._open_arrays()
        return stream

    @classmethod
    def from_megatron(cls, prefixes: list[str | os.PathLike]) -> TokenStream:
        """A stream over .bin/.idx pairs without a manifest (benchmarks, ad-hoc inspection)."""
        parts, start, dtypes = [], 0, set()
        for prefix in prefixes:
            try:
                index = MegatronIndex(prefix)
                index.check()
            except ValueError as e:
                raise CorpusError(str(e)) from None
            dtypes.add(index.dtype)
            parts.append(Part(Path(prefix), start, index.n_tokens, index.n_docs))
            start += index.n_tokens
        if len(dtypes) > 1:
            raise ValueError(f"parts mix token dtypes {sorted(map(str, dtypes))}")
        stream = cls(parts, dtypes.pop() if dtypes else np.dtype(np.uint16))
        stream._open_arrays()
        return stream

    def _open_arrays(self) -> list[np.ndarray]:
        if self._arrays is None:
            self._arrays = [memmap_tokens(_bin(p.prefix), self.dtype) for p in self.parts]
        return self._arrays

    def __getstate__(self) -> dict[str, Any]:
        # A pickled np.memmap would carry its whole contents; workers reopen the files instead.
        return {**self.__dict__, "_arrays": None, "_doc_ends": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- reading

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __repr__(self) -> str:
        return f"TokenStream({self.name or 'unnamed'}, {len(self)} tokens, {len(self.parts)} parts, {self.dtype})"

    def read(self, start: int, stop: int) -> np.ndarray:
        """Ids [start, stop) in the on-disk dtype; a view when inside one part, a copy across parts.
        Raises CorpusError if an id is not below the vocabulary size."""
        ids = self._read(start, stop)
        if self._id_limit is not None and ids.size and _max(ids, axis=None) >= self._id_limit:
            self._refuse_ids(ids, np.array([start], dtype=np.int64))
        return ids

    def _read(self, start: int, stop: int) -> np.ndarray:
        if not 0 <= start <= stop <= len(self):
            raise IndexError(f"range [{start}, {stop}) outside a stream of {len(self)} tokens")
        arrays = self._open_arrays()
        first = int(np.searchsorted(self._starts, start, side="right")) - 1
        pieces = []
        while start < stop:
            local = start - int(self._starts[first])
            take = min(stop - start, len(arrays[first]) - local)
            pieces.append(arrays[first][local:local + take])
            start += take
            first += 1
        if len(pieces) == 1:
            return pieces[0]
        return np.concatenate(pieces) if pieces else np.empty(0, dtype=self.dtype)

    def windows(self, offsets: np.ndarray, length: int) -> np.ndarray:
        """An int64 (len(offsets), length) array, row i = ids [offsets[i], offsets[i] + length)."""
        offsets = np.asarray(offsets, dtype=np.int64)
        if offsets.size and (int(offsets.min()) < 0 or int(offsets.max()) + length > len(self)):
            raise IndexError(f"a window of {length} at offsets {offsets.min()}..{offsets.max()} "
                             f"runs outside a stream of {len(self)} tokens")
        out = np.empty((len(offsets), length), dtype=np.int64)
        arrays = self._open_arrays()
        part_of = np.searchsorted(self._starts, offsets, side="right") - 1
        for row, (offset, part) in enumerate(zip(offsets.tolist(), part_of.tolist())):
            local = offset - int(self._starts[part])
            source = arrays[part]
            if local + length <= len(source):
                out[row] = source[local:local + length]  # the int64 cast happens in this copy
            else:
                out[row] = self._read(offset, offset + length)
        # One max per batch, inline: this is on get_batch's path (the loader bench times it).
        if self._id_limit is not None and out.size and _max(out, axis=None) >= self._id_limit:
            self._refuse_ids(out, offsets)
        return out

    def _refuse_ids(self, ids: np.ndarray, offsets: np.ndarray) -> None:
        """Raise for the first id not below the limit; row i of `ids` starts at stream offset offsets[i]."""
        ids = ids.reshape(len(offsets), -1)
        row, col = divmod(int(np.flatnonzero(ids.reshape(-1) >= self._id_limit)[0]), ids.shape[1])
        position = int(offsets[row]) + col
        part = int(np.searchsorted(self._starts, position, side="right")) - 1
        limit = (f"the vocabulary size {self.vocab_size}" if self.vocab_size is not None
                 else f"{self._id_limit} (the largest id a 32-bit Megatron .bin may hold is {self._id_limit - 1})")
        raise CorpusError(f"{_bin(self.parts[part].prefix)}: token id {int(ids[row, col])} at position "
                          f"{position - int(self._starts[part])} is not below {limit}")

    # -- document boundaries (from the .idx files; loaded on first use)

    @property
    def doc_ends(self) -> np.ndarray:
        """int64 end offset (exclusive) of every document in stream order."""
        if self._doc_ends is None:
            ends = [p.start + np.cumsum(MegatronIndex(p.prefix).lengths, dtype=np.int64) for p in self.parts]
            self._doc_ends = np.concatenate(ends) if ends else np.empty(0, dtype=np.int64)
        return self._doc_ends

    @property
    def n_docs(self) -> int:
        return sum(p.docs for p in self.parts)

    def doc_ids(self, positions: np.ndarray) -> np.ndarray:
        """The index (in stream order) of the document holding each position."""
        return np.searchsorted(self.doc_ends, np.asarray(positions, dtype=np.int64), side="right")

    def window_doc_ids(self, offsets: np.ndarray, length: int) -> np.ndarray:
        """int64 (len(offsets), length): doc_ids of every position of each window, computed from the
        few document ends inside the windows instead of a binary search per token."""
        offsets = np.asarray(offsets, dtype=np.int64)
        ends = self.doc_ends
        first = np.searchsorted(ends, offsets, side="right")  # document of each window's first token
        last = np.searchsorted(ends, offsets + length - 1, side="right")
        counts = last - first  # document ends strictly inside each window
        rows = np.repeat(np.arange(len(offsets)), counts)
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = ends[np.repeat(first, counts) + within] - offsets[rows]
        steps = np.zeros((len(offsets), length), dtype=np.int64)
        np.add.at(steps, (rows, cols), 1)  # add.at: empty documents make repeated ends
        return first[:, None] + np.cumsum(steps, axis=1)


def _bin(prefix: Path) -> Path:
    return prefix.with_name(prefix.name + ".bin")


def corpus_manifest_of(tokens_dir: Path, manifest: dict) -> Path | None:
    """The dataset's shard manifest a token directory belongs to: <root>/tokens/<dataset>/<version>/<id>
    -> <root>/corpus/<dataset>/<version>/_MANIFEST.json (None for a directory laid out otherwise)."""
    parts = tokens_dir.resolve().parts
    if len(parts) < 5 or parts[-4] != "tokens" or parts[-3:-1] != (manifest["dataset"], manifest["version"]):
        return None
    return Path(*parts[:-4]) / "corpus" / manifest["dataset"] / manifest["version"] / MANIFEST


def stale_reason(tokens_dir: Path, manifest: dict) -> str | None:
    """Why a token directory is not of its dataset's current shards (None when it is, or when the shards
    are not on this machine to compare)."""
    corpus = corpus_manifest_of(tokens_dir, manifest)
    if corpus is None or not corpus.is_file():
        return None
    if sha256_file(corpus) != manifest["corpus_manifest_sha256"]:
        return (f"{tokens_dir}: made from other shards than {corpus} holds now (a stale token directory: "
                f"re-tokenize, or `corpus gc` lists it)")
    return None


def current_tokens_dir(artifacts: str | os.PathLike, dataset: str, version: str, mix: str | None = None) -> Path:
    """The token directory of <dataset>/<version>'s current shards under an artifacts root (the one the
    README's example opens): the unmixed stream, or with `mix` ("mix-<12 hex>", its manifest's mix id)
    that mixture's; an error naming them when there is none (and the `mix=` of each current one that is
    not the one asked for), or several (other tokenizers)."""
    root = Path(artifacts) / "tokens" / dataset / version
    dirs = sorted(d for d in root.glob("*") if (d / MANIFEST).is_file() and not d.name.endswith(".incomplete"))
    current = {}  # directory -> its mix id (None: unmixed), for the directories of the current shards
    for d in dirs:
        m = read_manifest(d)
        if stale_reason(d, m) is None:
            current[d] = m.get("mix", {}).get("id")
    chosen = [d for d, mixed in current.items() if mixed == mix]
    if len(chosen) == 1:
        return chosen[0]
    wanted = f"with mixture {mix}" if mix else "without a mixture"
    found = f"{len(dirs)} token director{'y' if len(dirs) == 1 else 'ies'}"
    if chosen:
        raise CorpusError(f"{root}: {found}, several are current {wanted} ({', '.join(d.name for d in chosen)}): "
                          f"open one by path")
    raise CorpusError(f"{root}: {found}, none is current {wanted}" + _other_current(current))


def _other_current(current: dict[Path, str | None]) -> str:
    """'; current instead: pass mix="mix-…" (<dir>), …': what to pass for each current directory not asked for."""
    offers = [f'mix="{mixed}" ({d.name})' if mixed else f"mix=None for the unmixed stream ({d.name})"
              for d, mixed in current.items()]
    return f"; current instead: pass {', or '.join(offers)}" if offers else ""


def read_manifest(tokens_dir: str | os.PathLike) -> dict:
    """The tokens _MANIFEST.json, validated against schemas/tokens-manifest.schema.json."""
    return load_json(local_copy(tokens_dir) / MANIFEST, SCHEMA, missing="tokens manifest not found (has the tokenize stage run?)")


def _check_manifest_sha(tokens_dir: Path) -> None:
    """The manifest's sha256 against its `_STAGE.json` entry, as audit checks it: the manifest holds every
    other file's sha256, so an edited one would vouch for edited parts. Without `_STAGE.json` nothing
    records it, and deleting the file would have skipped the check (issue 53): refused."""
    stage_path = tokens_dir / STAGE_FILE
    if not stage_path.is_file():
        raise CorpusError(f"{tokens_dir}: no {STAGE_FILE}, so nothing records {MANIFEST}'s sha256 and verify=True "
                          f"cannot check it (the tokenize stage publishes one with every tokens directory; "
                          f"verify=False checks the sizes and indexes only)")
    stage = load_json(stage_path, STAGE_SCHEMA)
    entry = next((p for p in stage["parts"] if p["name"] == MANIFEST), None)
    if entry is None:
        raise CorpusError(f"{stage_path}: does not list {MANIFEST}, so the manifest cannot be verified")
    path = tokens_dir / MANIFEST
    if not path.is_file():
        raise CorpusError(f"{path}: listed in {stage_path} but missing")
    actual = sha256_file(path)
    if actual != entry["sha256"]:
        raise CorpusError(f"{path}: sha256 mismatch: expected {entry['sha256']} (recorded in {stage_path}), "
                          f"got {actual}")


def _check_tokenizer(tokens_dir: Path, tokenizer: dict, *, verify: bool) -> np.dtype:
    """Cross-field checks the schema cannot express; returns the token dtype."""
    dtype = DTYPES[tokenizer["dtype"]]
    where = tokens_dir / MANIFEST
    if tokenizer["vocab_size"] - 1 > MAX_ID[dtype]:
        raise CorpusError(f"{where}: vocab_size {tokenizer['vocab_size']} does not fit tokenizer.dtype {dtype}")
    if tokenizer["eos_id"] >= tokenizer["vocab_size"]:
        raise CorpusError(f"{where}: eos_id {tokenizer['eos_id']} is outside vocab_size {tokenizer['vocab_size']}")
    if verify:
        path = tokens_dir / tokenizer["file"]
        if not path.is_file():
            raise CorpusError(f"{path}: listed in {MANIFEST} but missing")
        actual = sha256_file(path)
        if actual != tokenizer["sha256"]:
            raise CorpusError(f"{path}: sha256 mismatch: expected {tokenizer['sha256']}, got {actual}")
    return dtype


def _check_split_totals(tokens_dir: Path, split: str, entry: dict) -> None:
    for key in ("docs", "tokens"):
        total = sum(f[key] for f in entry["files"])
        if total != entry[key]:
            raise CorpusError(f"{tokens_dir / MANIFEST}: splits.{split}.{key} is {entry[key]}, "
                              f"but its files sum to {total}")


def _check_part(tokens_dir: Path, file: dict, dtype: np.dtype, *, verify: bool) -> Path:
    """Check one manifest file entry against the disk; returns the part's path prefix."""
    bin_path, idx_path = tokens_dir / file["bin"], tokens_dir / file["idx"]
    prefix = bin_path.with_suffix("")
    if idx_path != prefix.with_name(prefix.name + ".idx"):
        raise CorpusError(f"{tokens_dir / MANIFEST}: {file['idx']} is not the index of {file['bin']} (same prefix)")
    for path in (bin_path, idx_path):
        if not path.is_file():
            raise CorpusError(f"{path}: listed in {MANIFEST} but missing")
    size = bin_path.stat().st_size
    if size != file["bin_bytes"] or size != file["tokens"] * dtype.itemsize:
        raise CorpusError(f"{bin_path}: size mismatch: expected {file['bin_bytes']} bytes "
                          f"({file['tokens']} {dtype} tokens), got {size}")
    if verify:
        for path, key in ((bin_path, "bin_sha256"), (idx_path, "idx_sha256")):
            actual = sha256_file(path)
            if actual != file[key]:
                raise CorpusError(f"{path}: sha256 mismatch: expected {file[key]}, got {actual}")
    _check_index(idx_path, prefix, file, dtype, size)
    return prefix


def _check_index(idx_path: Path, prefix: Path, file: dict, dtype: np.dtype, bin_bytes: int) -> None:
    try:
        index = MegatronIndex(prefix)
    except ValueError as e:
        raise CorpusError(str(e)) from None
    if index.dtype != dtype:
        raise CorpusError(f"{idx_path}: dtype {index.dtype}, but the manifest says {dtype}")
    try:
        index.check(bin_bytes)  # O(documents), unlike the sha256s: always on
    except ValueError as e:
        raise CorpusError(str(e)) from None
    if index.n_docs != file["docs"] or index.bin_bytes != file["bin_bytes"]:
        raise CorpusError(f"{idx_path}: describes {index.n_docs} documents in {index.bin_bytes} bytes, "
                          f"the manifest {file['docs']} documents in {file['bin_bytes']} bytes")


# ---- batches

def _check_block(stream: TokenStream, block_size: int) -> None:
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    if len(stream) < block_size + 1:
        raise ValueError(f"a stream of {len(stream)} tokens has no window of block_size + 1 = {block_size + 1}")


_pinning_available: bool | None = None


def pin(tensor: torch.Tensor) -> torch.Tensor:
    """Page-locked copy when an accelerator exists; the tensor itself (with one warning) when not."""
    global _pinning_available
    if _pinning_available is None:
        try:
            torch.empty(1).pin_memory()
            _pinning_available = True
        except RuntimeError as e:  # CPU-only builds/machines: "Cannot access accelerator device ..."
            _pinning_available = False
            warnings.warn(f"pin_memory requested but unavailable ({e}); batches stay in pageable memory",
                          RuntimeWarning, stacklevel=3)
    return tensor.pin_memory() if _pinning_available else tensor


def _finish(tensors: tuple[torch.Tensor, ...], pin_memory: bool,
            device: torch.device | str | None) -> tuple[torch.Tensor, ...]:
    if pin_memory:
        tensors = tuple(pin(t) for t in tensors)
    if device is not None:
        tensors = tuple(t.to(device, non_blocking=pin_memory) for t in tensors)
    return tensors


def batch_from_offsets(stream: TokenStream, offsets: np.ndarray, block_size: int, *,
                       return_doc_info: bool = False) -> tuple[torch.Tensor, ...]:
    """(x, y[, doc_ids]) for windows starting at `offsets`; doc_ids[b, t] is x[b, t]'s document."""
    windows = torch.from_numpy(stream.windows(offsets, block_size + 1))
    x, y = windows[:, :-1].contiguous(), windows[:, 1:].contiguous()
    if not return_doc_info:
        return x, y
    return x, y, torch.from_numpy(stream.window_doc_ids(offsets, block_size))


def get_batch(stream: TokenStream, block_size: int, batch_size: int, generator: torch.Generator, *,
              return_doc_info: bool = False, pin_memory: bool = False,
              device: torch.device | str | None = None) -> tuple[torch.Tensor, ...]:
    """B random windows: x, y int64 (B, T), y[:, :-1] == x[:, 1:]; offsets uniform in [0, len - T - 1],
    drawn from `generator` only. With `return_doc_info`, also doc_ids int64 (B, T) (see position_ids)."""
    _check_block(stream, block_size)
    offsets = torch.randint(0, len(stream) - block_size, (batch_size,), generator=generator)
    batch = batch_from_offsets(stream, offsets.numpy(), block_size, return_doc_info=return_doc_info)
    return _finish(batch, pin_memory, device)


def train_batch(stream: TokenStream, block_size: int, batch_size: int, seed: int, step: int, *,
                return_doc_info: bool = False) -> tuple[torch.Tensor, ...]:
    """Training batch `step` of run `seed`: a pure function of (seed, step), on its own generator."""
    return get_batch(stream, block_size, batch_size, _generator(derive_seed(_TRAIN_TAG, seed, step)),
                     return_doc_info=return_doc_info)


class TrainBatchIterator:
    """Infinite iterator of training batches; whole state {"step", "seed"}, step = the next batch."""

    def __init__(self, stream: TokenStream, block_size: int, batch_size: int, seed: int, start_step: int = 0, *,
                 return_doc_info: bool = False, pin_memory: bool = False,
                 device: torch.device | str | None = None) -> None:
        _check_block(stream, block_size)
        if start_step < 0:
            raise ValueError(f"start_step must be >= 0, got {start_step}")
        self.stream, self.block_size, self.batch_size = stream, block_size, batch_size
        self.seed, self.step = seed, start_step
        self.return_doc_info, self.pin_memory, self.device = return_doc_info, pin_memory, device

    def __iter__(self) -> TrainBatchIterator:
        return self

    def __next__(self) -> tuple[torch.Tensor, ...]:
        batch = train_batch(self.stream, self.block_size, self.batch_size, self.seed, self.step,
                            return_doc_info=self.return_doc_info)
        self.step += 1
        return _finish(batch, self.pin_memory, self.device)

    def state_dict(self) -> dict[str, int]:
        return {"step": self.step, "seed": self.seed}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.step, self.seed = int(state["step"]), int(state.get("seed", self.seed))


def make_train_loader(stream: TokenStream, block_size: int, batch_size: int, seed: int, start_step: int = 0, *,
                      return_doc_info: bool = False, pin_memory: bool = False,
                      device: torch.device | str | None = None) -> TrainBatchIterator:
    """The stateless training loader: resume with `start_step=k` (or load_state_dict)."""
    return TrainBatchIterator(stream, block_size, batch_size, seed, start_step, return_doc_info=return_doc_info,
                              pin_memory=pin_memory, device=device)


class TrainBatches(IterableDataset):
    """The same batches as make_train_loader, for DataLoader(..., batch_size=None, num_workers=W).

    Worker w makes batches start_step + w, + w + W, ...; DataLoader takes one from each worker in turn,
    so the order equals num_workers=0. `num_steps=None` runs forever."""

    def __init__(self, stream: TokenStream, block_size: int, batch_size: int, seed: int, start_step: int = 0,
                 num_steps: int | None = None, *, return_doc_info: bool = False) -> None:
        _check_block(stream, block_size)
        self.stream, self.block_size, self.batch_size = stream, block_size, batch_size
        self.seed, self.start_step, self.num_steps = seed, start_step, num_steps
        self.return_doc_info = return_doc_info

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        stop = None if self.num_steps is None else self.start_step + self.num_steps
        step = self.start_step + worker
        while stop is None or step < stop:
            yield train_batch(self.stream, self.block_size, self.batch_size, self.seed, step,
                              return_doc_info=self.return_doc_info)
            step += workers


class RandomWindowDataset(Dataset):
    """`num_samples` random windows per epoch; item i = (x, y[, doc_ids]) each (T,), a function of
    (seed, epoch, i) only. Call set_epoch(e) before each epoch (recreate the DataLoader, or avoid
    persistent_workers: a worker keeps the epoch it was started with)."""

    def __init__(self, stream: TokenStream, block_size: int, num_samples: int, seed: int, *,
                 return_doc_info: bool = False) -> None:
        _check_block(stream, block_size)
        self.stream, self.block_size, self.num_samples, self.seed = stream, block_size, num_samples, seed
        self.return_doc_info = return_doc_info
        self.epoch = 0
        self._offsets: np.ndarray | None = None

    def set_epoch(self, epoch: int) -> None:
        if epoch != self.epoch:
            self.epoch, self._offsets = epoch, None

    def offsets(self) -> np.ndarray:
        """This epoch's window starts, all drawn at once from a generator seeded by (seed, epoch)."""
        if self._offsets is None:
            generator = _generator(derive_seed(_EPOCH_TAG, self.seed, self.epoch))
            high = len(self.stream) - self.block_size
            self._offsets = torch.randint(0, high, (self.num_samples,), generator=generator).numpy()
        return self._offsets

    def __len__(self) -> int:
        return self.num_samples

    def __getitem__(self, i: int) -> tuple[torch.Tensor, ...]:
        if not 0 <= i < self.num_samples:
            raise IndexError(i)
        batch = batch_from_offsets(self.stream, self.offsets()[i:i + 1], self.block_size,
                                   return_doc_info=self.return_doc_info)
        return tuple(t[0] for t in batch)


# ---- evaluation

def eval_window_starts(n_tokens: int, block_size: int, stride: int) -> np.ndarray:
    """Starts 0, s, 2s, ... while a full (T+1)-window fits, plus one right-aligned window for the tail."""
    last = n_tokens - 1 - block_size
    if last < 0:
        return np.zeros(1 if n_tokens >= 2 else 0, dtype=np.int64)
    starts = np.arange(0, last + 1, stride, dtype=np.int64)
    return starts if starts[-1] == last else np.append(starts, last)


class SequentialEvalDataset(Dataset):
    """Ordered eval windows; item k = (x, y, loss_mask[, doc_ids]), loss_mask bool.

    stride == T: non-overlapping windows. stride < T: each later window re-predicts T - stride targets
    already scored, and its mask turns them off. A final right-aligned window (shape (T,), full context)
    scores the tail. Over all items every target 1..n-1 is scored exactly once.
    A stream with 2 <= n < T + 1 tokens gives a single unpadded window: x, y, mask of shape (n - 1,),
    mask all True (nothing is padded, so no pad id has to be invented); n < 2 gives no windows."""

    def __init__(self, stream: TokenStream, block_size: int, stride: int | None = None, *,
                 return_doc_info: bool = False) -> None:
        stride = block_size if stride is None else stride
        if not 1 <= stride <= block_size:
            raise ValueError(f"stride must be in 1..block_size ({block_size}), got {stride}")
        self.stream, self.block_size, self.stride = stream, block_size, stride
        self.return_doc_info = return_doc_info
        self.starts = eval_window_starts(len(stream), block_size, stride)
        self.window = min(block_size, max(len(stream) - 1, 0))  # x length: T, or n - 1 for a short stream

    def __len__(self) -> int:
        return len(self.starts)

    def first_scored(self, k: int) -> int:
        """Position in window k of its first target not scored by window k - 1."""
        if k == 0:
            return 0
        previous_last_target = int(self.starts[k - 1]) + self.window
        return previous_last_target - int(self.starts[k])

    def __getitem__(self, k: int) -> tuple[torch.Tensor, ...]:
        if not 0 <= k < len(self):
            raise IndexError(k)
        start = int(self.starts[k])
        batch = batch_from_offsets(self.stream, np.array([start]), self.window, return_doc_info=self.return_doc_info)
        x, y, *doc = (t[0] for t in batch)
        loss_mask = torch.arange(self.window) >= self.first_scored(k)
        return (x, y, loss_mask, *doc)


# ---- keeping attention inside a document

def position_ids(doc_ids: torch.Tensor) -> torch.Tensor:
    """(B, T) positions that restart at 0 wherever a new document begins inside the window."""
    t = torch.arange(doc_ids.shape[-1], device=doc_ids.device).expand_as(doc_ids)
    new_doc = torch.ones_like(doc_ids, dtype=torch.bool)
    new_doc[..., 1:] = doc_ids[..., 1:] != doc_ids[..., :-1]
    doc_start = torch.where(new_doc, t, torch.zeros_like(t)).cummax(dim=-1).values
    return t - doc_start


def document_attention_mask(doc_ids: torch.Tensor) -> torch.Tensor:
    """(B, T, T) bool, True where query t may attend key s: s <= t and both in the same document
    (block-diagonal causal; pass as attn_mask to F.scaled_dot_product_attention after unsqueeze(1))."""
    T = doc_ids.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool, device=doc_ids.device).tril()
    return (doc_ids[..., :, None] == doc_ids[..., None, :]) & causal
