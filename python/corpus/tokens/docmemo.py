"""Each document's token ids (with its EOS, in the stage's dtype), kept in the cache by the digest of its
text (the first DIGEST_BYTES of its UTF-8's sha256: the shard's own `sha256` column, so that a shard whose
documents are all known is never decompressed for its texts), so that a version whose shards changed by a
few documents encodes only those: the others' ids are read back. Every document is encoded alone (tokens.encode), so its ids are a function of its text and the
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


DIGEST_BYTES = 16
DIGEST = "sha256[:16]"  # in the entries' cache key: entries filed under another digest are never read


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:DIGEST_BYTES]


def near_positions(index: int) -> list[int]:
    """The shard positions whose entries shard `index` looks in, nearest first."""
    return sorted(range(max(0, index - NEIGHBOURS), index + NEIGHBOURS + 1), key=lambda i: (abs(i - index), i))


def open_entry(prefix: Path, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted digests, offsets, ids) of the entry whose files are `<prefix>.<FILES>`, memory-mapped (as
    plain arrays: a np.memmap's item and slice cost ~10x an array's, once a document)."""
    dt = np.dtype(dtype).newbyteorder("<")
    offsets = np.load(f"{prefix}.offsets.npy", mmap_mode="r").view(np.ndarray)
    tokens = np.memmap(f"{prefix}.tokens.bin", dtype=dt, mode="r").view(np.ndarray) if offsets[-1] else np.zeros(0, dt)
    return np.load(f"{prefix}.digests.npy", mmap_mode="r").view(np.ndarray), offsets, tokens


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

    def lookup(self, keys: np.ndarray, splits: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """For documents in shard order, their digests (text_digest) as S16 `keys` and their splits: per
        document the entry that holds its ids (-1: none) and its position there, the nearest entry first;
        the digests are noted either way, in shard order per split."""
        raw = np.ascontiguousarray(keys, "S16").tobytes()
        for n, split in enumerate(splits):
            self.digests.setdefault(split, []).append(raw[n * DIGEST_BYTES:(n + 1) * DIGEST_BYTES])
        entry = np.full(len(keys), -1, np.int64)
        pos = np.zeros(len(keys), np.int64)
        for e, (digests, _, _) in enumerate(self.entries):
            todo = np.flatnonzero(entry < 0)
            if not len(todo):
                break
            i = np.searchsorted(digests, keys[todo])
            hit = i < len(digests)
            hit[hit] = digests[i[hit]] == keys[todo[hit]]
            entry[todo[hit]], pos[todo[hit]] = e, i[hit]
        self.hits += int((entry >= 0).sum())
        self.computed += int((entry < 0).sum())
        return entry, pos

    def ids(self, entry: int, pos: int) -> np.ndarray:
        """The ids (with the EOS) at what lookup() found: a view of the entry's file."""
        _, offsets, tokens = self.entries[entry]
        return tokens[offsets[pos]:offsets[pos + 1]]

    def get(self, text: str, split: str) -> np.ndarray | None:
        """The document's ids (with its EOS) when an earlier run kept them; its digest is noted either way."""
        entry, pos = self.lookup(np.array([text_digest(text)], "S16"), [split])
        return None if entry[0] < 0 else np.array(self.ids(int(entry[0]), int(pos[0])))

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
        maps = {split: np.memmap(self.work / f"{self.name}.{split}.bin", dtype=self.dtype, mode="r").view(np.ndarray)
                for split in self.digests if (self.work / f"{self.name}.{split}.bin").stat().st_size}
        paths = {suffix: self.work / f"{self.name}.new.{suffix}" for suffix in FILES}
        offsets = np.zeros(len(kept) + 1, np.int64)
        np.cumsum(np.fromiter((n for *_, n in kept), np.int64, len(kept)), out=offsets[1:])
        with atomic_open(paths["tokens.bin"], "wb") as f:
            for _, split, start, n in kept:
                f.write(maps[split][start:start + n])
        np.save(paths["digests.npy"], np.array([d for d, *_ in kept], dtype="S16"))
        np.save(paths["offsets.npy"], offsets)
        return {suffix: [str(p), sha256_file(p)] for suffix, p in paths.items()}
