"""Each document's token ids (with its EOS, in the stage's dtype), kept in the cache by the digest of its
text, so that a version whose shards changed by a few documents encodes only those: the others' ids are
read back. Every document is encoded alone (tokens.encode), so its ids are a function of its text and the
tokenizer (its sha256), the EOS id and the dtype, never of the shard it is in or of its neighbours.

An entry is kept per shard position as three files in `<artifacts>/cache/tokens-docs/` (the stage,
stages.tokenize, moves them in and out of the cache): the shard's digests sorted, the offsets of each
one's ids, and the ids end to end, found through a JSON index of their sha256 (as the encode cache's). A lookup memory-maps them: memory is not the shard's tokens,
and an entry holds one shard's documents. Shard i looks in the entries of positions i, i-1, i+1, ... up
to NEIGHBOURS away: documents dropped upstream shift the later ones towards lower positions (a 2% drop
moves a document of shard 100 two shards down), and a document found in any entry has the same ids."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from corpus.store.atomic import atomic_open, sha256_file

KIND = "tokens-docs"
FILES = ("digests.npy", "offsets.npy", "tokens.bin")
NEIGHBOURS = 2


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def near_positions(index: int) -> list[int]:
    """The shard positions whose entries shard `index` looks in, nearest first."""
    return sorted(range(max(0, index - NEIGHBOURS), index + NEIGHBOURS + 1), key=lambda i: (abs(i - index), i))


def open_entry(prefix: Path, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted digests, offsets, ids) of the entry whose files are `<prefix>.<FILES>`, memory-mapped."""
    dt = np.dtype(dtype).newbyteorder("<")
    offsets = np.load(f"{prefix}.offsets.npy", mmap_mode="r")
    tokens = np.memmap(f"{prefix}.tokens.bin", dtype=dt, mode="r") if offsets[-1] else np.zeros(0, dt)
    return np.load(f"{prefix}.digests.npy", mmap_mode="r"), offsets, tokens


class DocTokens:
    """The ids earlier runs kept for documents of this shard position and its neighbours (`entries`, as
    open_entry gives them, nearest first; `get`), and the digests of the documents read now per split,
    in shard order, from which `save` writes this position's new entry."""

    def __init__(self, entries: list, dtype: str, work: Path, name: str):
        self.entries = [e for e in entries if len(e[0])]
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.work, self.name = work, name
        self.digests: dict[str, list[bytes]] = {}
        self.hits = self.computed = 0

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

    def save(self, lengths: dict[str, np.ndarray]) -> dict[str, list]:
        """The new entry's files in the work dir, {suffix: [path, sha256]}: every document of the shard
        (the split files `<name>.<split>.bin` hold their ids in shard order, `lengths` their token
        counts), sorted by digest."""
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
        return {suffix: [str(p), sha256_file(p)] for suffix, p in paths.items()}
