"""Each document's token ids (with its EOS, in the stage's dtype), kept in the cache by the digest of its
text, so that a version whose shards changed by a few documents encodes only those: the others' ids are
read back. Every document is encoded alone (tokens.encode), so its ids are a function of its text and the
tokenizer (its sha256), the EOS id and the dtype, never of the shard it is in or of its neighbours.

An entry is kept per shard position as three files in `<artifacts>/cache/tokens-docs/`: the shard's
digests sorted, the offsets of each one's ids, and the ids end to end, found through a JSON index of
their sha256 (as the encode cache's files). A lookup memory-maps them: memory is not the shard's tokens,
and an entry holds one shard's documents. Shard i looks in the entries of positions i, i-1, i+1, ... up
to NEIGHBOURS away: documents dropped upstream shift the later ones towards lower positions (a 2% drop
moves a document of shard 100 two shards down), and a document found in any entry has the same ids."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from corpus.engine.cache import Cache, cache_key
from corpus.store.atomic import atomic_open, dump_json, sha256_file

KIND = "tokens-docs"
FILES = ("digests.npy", "offsets.npy", "tokens.bin")


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


NEIGHBOURS = 2


def memo_key(tokenizer_sha256: str, eos_id: int, dtype: str, index: int) -> str:
    return cache_key({"kind": KIND, "tokenizer_sha256": tokenizer_sha256, "eos_id": eos_id, "dtype": dtype,
                      "index": index})


def _load(root: Path, key: str, work: Path, name: str, dtype: np.dtype):
    """(sorted digests, offsets, ids) of an entry, memory-mapped from links in the work dir; None when
    the cache has none (or a file of it fails its sha256)."""
    raw = Cache(root, KIND, ".json").get(key)
    if raw is None:
        return None
    files = json.loads(raw)["files"]
    for suffix in FILES:
        if Cache(root, KIND, f".{suffix}").get_file(key, work / f"{name}.{suffix}") != files[suffix]:
            return None
    offsets = np.load(work / f"{name}.offsets.npy", mmap_mode="r")
    tokens = np.memmap(work / f"{name}.tokens.bin", dtype=dtype, mode="r") if offsets[-1] else np.zeros(0, dtype)
    return np.load(work / f"{name}.digests.npy", mmap_mode="r"), offsets, tokens


class DocTokens:
    """The ids an earlier run kept for documents of this shard position and its neighbours (`get`), and
    the digests of the documents read now per split, in shard order, from which `save` writes the new
    entry of this position."""

    def __init__(self, root: Path, tokenizer_sha256: str, eos_id: int, dtype: str, index: int, work: Path,
                 name: str):
        self.root, self.work, self.name = root, work, name
        self.key = memo_key(tokenizer_sha256, eos_id, dtype, index)
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.digests: dict[str, list[bytes]] = {}
        self.hits = self.computed = 0
        near = sorted(range(max(0, index - NEIGHBOURS), index + NEIGHBOURS + 1), key=lambda i: (abs(i - index), i))
        entries = (_load(root, memo_key(tokenizer_sha256, eos_id, dtype, i), work, f"{name}.memo{i}", self.dtype)
                   for i in near)
        self.entries = [e for e in entries if e is not None and len(e[0])]

    def get(self, text: str, split: str) -> np.ndarray | None:
        """The document's ids (with its EOS) when an earlier run kept them; its digest is noted either way."""
        digest = text_digest(text)
        self.digests.setdefault(split, []).append(digest)
        key = np.frombuffer(digest, "S16")[0]  # compared as numpy compares S16 (trailing NULs aside)
        for digests, offsets, tokens in self.entries:
            i = int(np.searchsorted(digests, key))
            if i < len(digests) and digests[i] == key:
                self.hits += 1
                return np.array(tokens[offsets[i]:offsets[i + 1]])
        self.computed += 1
        return None

    def save(self, lengths: dict[str, np.ndarray]) -> None:
        """The new entry: every document of the shard (the split files `<name>.<split>.bin` in the work dir
        hold their ids in shard order, `lengths` their token counts), sorted by digest."""
        items = []  # (digest, split, start, length)
        for split, digests in self.digests.items():
            n = lengths[split]
            starts = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64) if len(n) else np.zeros(0, np.int64)
            items += zip(digests, [split] * len(digests), starts.tolist(), n.tolist())
        items.sort()
        kept, last = [], None
        for item in items:  # a text twice in a shard: one entry (its ids are the same)
            if item[0] != last:
                kept.append(item)
                last = item[0]
        maps = {split: np.memmap(self.work / f"{self.name}.{split}.bin", dtype=self.dtype, mode="r")
                for split in self.digests if (self.work / f"{self.name}.{split}.bin").stat().st_size}
        paths = {suffix: self.work / f"{self.name}.new.{suffix}" for suffix in FILES}
        offsets = np.zeros(len(kept) + 1, np.int64)
        with atomic_open(paths["tokens.bin"], "wb") as f:
            for i, (_, split, start, n) in enumerate(kept):
                f.write(maps[split][start:start + n].tobytes())
                offsets[i + 1] = offsets[i] + n
        np.save(paths["digests.npy"], np.array([d for d, *_ in kept], dtype="S16"))
        np.save(paths["offsets.npy"], offsets)
        shas = {suffix: sha256_file(p) for suffix, p in paths.items()}
        for suffix, p in paths.items():
            Cache(self.root, KIND, f".{suffix}").put_file(self.key, p, shas[suffix])
        Cache(self.root, KIND, ".json").put(self.key, dump_json({"files": shas}))
        for p in paths.values():
            p.unlink()
