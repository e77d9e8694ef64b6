"""`corpus audit`'s proof that a version's takedown held: no shard holds a removed document (by id, or
by the sha256 of its text: its normalized text, recorded in the corpus manifest, and the text any other
version of the dataset on this root published for it), and no token file or export holds a removed
document's token sequence (a rolling hash of windows of min(length, 64) tokens over the stream, chunked, each hit
confirmed by comparing the whole sequence)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from corpus.config import Config
from corpus.config.layout import CORPUS_MANIFEST, TOKENS_MANIFEST, tokens_root
from corpus.errors import CorpusError
from corpus.formats.parts import read_parquet

WINDOW = 64          # tokens a rolling-hash window holds at most
CHUNK = 1 << 22      # tokens of a stream hashed at a time (plus the window's overlap)
BASE = np.uint64(0x100000001B3)


def removed_texts(config: Config, manifest: dict) -> dict[str, list[str]]:
    """Removed id -> its texts: the normalized text (the filter stage's takedown reject) and the text
    every other version of the dataset on this root published for it."""
    from corpus.filters import takedown
    from corpus.engine.runner import read_stage_manifest
    from corpus.stages import STAGE

    filtered = STAGE["filter"].path(config)
    out: dict[str, list[str]] = {}
    for r in takedown.removed_rows(filtered, read_stage_manifest(filtered), ("id", "text")):
        out.setdefault(r["id"], []).append(r["text"])
    for d in sorted((config.artifacts / "corpus" / config.dataset).glob("*/" + CORPUS_MANIFEST)):
        if d.parent == config.dataset_dir:
            continue
        for s in json.loads(d.read_text())["shards"]:
            t = read_parquet(d.parent / s["name"], columns=["id", "text"])
            for i, text in zip(t.column("id").to_pylist(), t.column("text").to_pylist()):
                if i in out and text not in out[i]:
                    out[i].append(text)
    return out


def check_shards(config: Config, manifest: dict, texts: dict[str, list[str]]) -> str:
    """No shard row has a removed id or a removed text's sha256 (computed here from the text)."""
    gone = set(manifest["takedown"]["removed_text_sha256"])
    gone |= {hashlib.sha256(t.encode("utf-8")).hexdigest() for ts in texts.values() for t in ts}
    for s in manifest["shards"]:
        path = config.dataset_dir / s["name"]
        t = read_parquet(path, columns=["id", "text"])
        for i, text in zip(t.column("id").to_pylist(), t.column("text").to_pylist()):
            if i in texts:
                raise CorpusError(f"{path}: holds document {i!r}, which the takedown removed")
            if hashlib.sha256(text.encode("utf-8")).hexdigest() in gone:
                raise CorpusError(f"{path}: document {i!r} holds the text of a document the takedown removed")
    return f"{len(texts)} removed documents, {len(gone)} texts: in none of {len(manifest['shards'])} shards"


BASE_INV = np.uint64(pow(int(BASE), -1, 1 << 64))  # BASE is odd: invertible mod 2^64


def window_hashes(tokens: np.ndarray, w: int) -> np.ndarray:
    """The polynomial hash (mod 2^64) of every window of w tokens, sum of tokens[i+j] * BASE^(w-1-j):
    hashes[i] covers tokens[i:i+w]. A constant number of passes whatever w: with P the prefix sums of
    tokens[m] * BASE^-m, a window's hash is (P[i+w] - P[i]) * BASE^(i+w-1) (uint64 arithmetic wraps)."""
    n = len(tokens) - w + 1
    if n <= 0:
        return np.zeros(0, np.uint64)
    t = tokens.astype(np.uint64)
    inv = np.full(len(t), BASE_INV, np.uint64)
    inv[0] = 1
    pw = np.full(len(t), BASE, np.uint64)
    pw[0] = 1
    with np.errstate(over="ignore"):
        prefix = np.concatenate([np.zeros(1, np.uint64), np.cumsum(t * np.cumprod(inv), dtype=np.uint64)])
        return (prefix[w:w + n] - prefix[:n]) * np.cumprod(pw)[w - 1:w - 1 + n]


def find_sequences(path: Path, dtype: str, seqs: list[np.ndarray], offset: int = 0) -> tuple[int, int] | None:
    """(sequence index, token offset) of the first removed sequence found whole in the file (its tokens
    from byte `offset` on), or None. The stream is read a CHUNK at a time (memory-mapped), each chunk
    overlapping the next by a window."""
    dt = np.dtype(dtype)
    n = (path.stat().st_size - offset) // dt.itemsize
    stream = np.memmap(path, dtype=dt, mode="r", offset=offset, shape=(n,)) if n > 0 else np.zeros(0, dt)
    by_w: dict[int, dict[int, list[int]]] = {}
    for k, s in enumerate(seqs):
        if len(s):
            w = min(len(s), WINDOW)
            by_w.setdefault(w, {}).setdefault(int(window_hashes(s[:w], w)[0]), []).append(k)
    for w, targets in sorted(by_w.items()):
        wanted = np.array(sorted(targets), np.uint64)
        for a in range(0, len(stream), CHUNK):
            hs = window_hashes(np.asarray(stream[a:a + CHUNK + w - 1]), w)
            for i in np.flatnonzero(np.isin(hs, wanted)).tolist():
                for k in targets[int(hs[i])]:
                    s, at = seqs[k], a + i
                    if at + len(s) <= len(stream) and np.array_equal(np.asarray(stream[at:at + len(s)]), s):
                        return k, at
    return None


def check_tokens(config: Config, texts: dict[str, list[str]]) -> str:
    """No token file of the version holds a removed text's tokens, with each token directory's tokenizer."""
    from tokenizers import Tokenizer

    flat = [(i, t) for i, ts in sorted(texts.items()) for t in ts]
    n = 0
    for d in sorted(tokens_root(config).glob(f"*/{TOKENS_MANIFEST}")):
        m = json.loads(d.read_text())
        tok = Tokenizer.from_file(str(d.parent / m["tokenizer"]["file"]))
        seqs = [np.array(e.ids, np.int64) for e in tok.encode_batch_fast([t for _, t in flat], add_special_tokens=False)]
        for split in m["splits"].values():
            for f in split["files"]:
                hit = find_sequences(d.parent / f["bin"], m["tokenizer"]["dtype"], seqs)
                n += 1
                if hit is not None:
                    raise CorpusError(f"{d.parent / f['bin']}: holds the tokens of removed document "
                                      f"{flat[hit[0]][0]!r} at token {hit[1]:,}")
        n += check_exports(d.parent, m["tokenizer"]["dtype"], seqs, [i for i, _ in flat])
    return f"{len(flat)} removed texts' token sequences: in none of {n} token and export files"


def check_exports(directory: Path, dtype: str, seqs: list[np.ndarray], ids: list[str]) -> int:
    """The token directory's exports (export-<format>/: nanoGPT, llm.c, datatrove, MDS), every file read as
    token ids of the stream's dtype and of uint16/uint32, at every byte alignment (a header may shift them)."""
    n = 0
    for p in sorted(x for e in directory.glob("export-*") for x in e.rglob("*") if x.is_file()):
        if p.suffix in (".json", ".txt", ".metadata"):
            continue
        n += 1
        for dt in dict.fromkeys([dtype, "uint16", "uint32"]):
            for offset in range(np.dtype(dt).itemsize):
                hit = find_sequences(p, dt, seqs, offset)
                if hit is not None:
                    raise CorpusError(f"{p}: holds the tokens of removed document {ids[hit[0]]!r} ({dt})")
    return n
