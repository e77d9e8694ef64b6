"""The texts a tokenizer is trained on: the train split of the corpus shards, whole or a seeded sample of
`[tokenize] train_sample_bytes`, streamed in shard order (each shard hashed as it is read)."""

from __future__ import annotations

import hashlib
from typing import Iterator

import pyarrow.compute as pc

from corpus.config import Config
from corpus.formats.parts import PartReader
from corpus.tokens.workfiles import READ_ROWS


def train_sample(config: Config, manifest: dict) -> tuple[Iterator[str], str]:
    """The texts the tokenizer is trained on, streamed: every train document, in shard order, when the
    train split holds at most `[tokenize].train_sample_bytes` of text (UTF-8); otherwise a seeded sample
    of about that size — a document is in it when blake2b("<seed>:<id>") < budget / total of 2^64, so
    whether a document is chosen depends on its id and the seed only — in shard order. The trainer's
    memory grows with the distinct words it counts, so a stream of everything would not bound it: the
    sample does, and a BPE vocabulary of this size is settled well before 32 MiB of text."""
    arrays, what = sample_arrays(config, manifest)
    return (text for arr in arrays for text in arr.to_pylist()), what


def sample_arrays(config: Config, manifest: dict):
    """train_sample's texts as the Arrow arrays of each record batch (the trainer's feed checks them for
    long words in C++, tokens.train._trainer_feed), and what was sampled."""
    budget_bytes = config["tokenize"]["train_sample_bytes"]
    total = _train_text_bytes(config, manifest)
    if total <= budget_bytes:
        return _every_train_text(config, manifest), f"the train split ({total} bytes of text)"
    cut = int(budget_bytes / total * 2**64)
    return (_sampled_train_texts(config, manifest, config["tokenize"]["seed"], cut),
            f"a seeded sample of about {budget_bytes} of the train split's {total} bytes of text")


class CountedText:
    """Arrow string arrays passed on as they are, their texts' UTF-8 bytes counted as they go by (what a
    tokenizer was trained on: the manifest's tokenizer.trained_on_bytes)."""

    def __init__(self, arrays):
        self._arrays, self.bytes = arrays, 0

    def __iter__(self):
        for arr in self._arrays:
            self.bytes += pc.sum(pc.binary_length(arr)).as_py() or 0
            yield arr


def sample_bytes(config: Config, manifest: dict) -> int:
    """The UTF-8 bytes of the texts a tokenizer is trained on (train_sample's), without training."""
    counted = CountedText(sample_arrays(config, manifest)[0])
    for _ in counted:
        pass
    return counted.bytes


def _shard_batches(config: Config, manifest: dict, columns: list[str]):
    """The shards' record batches (columns + split), in shard order, each shard hashed as it is read."""
    for s in manifest["shards"]:
        reader = PartReader(config.dataset_dir / s["name"], s["sha256"], columns=[*columns, "split"],
                            batch_rows=READ_ROWS)
        yield from reader.batches()


def _train_text_bytes(config: Config, manifest: dict) -> int:
    """The UTF-8 bytes of the train split's texts (a first pass over the shards)."""
    total = 0
    for b in _shard_batches(config, manifest, ["text"]):
        train = pc.equal(b.column("split"), "train")
        total += pc.sum(pc.binary_length(pc.filter(b.column("text"), train))).as_py() or 0
    return total


def _every_train_text(config: Config, manifest: dict):
    for b in _shard_batches(config, manifest, ["text"]):
        yield pc.filter(b.column("text"), pc.equal(b.column("split"), "train"))


def _sampled_train_texts(config: Config, manifest: dict, seed: int, cut: int):
    """The train texts whose keyed hash of their id is below `cut` (of 2^64)."""
    import pyarrow as pa

    for b in _shard_batches(config, manifest, ["id", "text"]):
        ids, splits = b.column("id").to_pylist(), b.column("split").to_pylist()
        yield pc.filter(b.column("text"), pa.array([split == "train" and sample_key(seed, doc_id) < cut
                                                    for doc_id, split in zip(ids, splits)], pa.bool_()))


def sample_key(seed: int, doc_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{doc_id}".encode(), digest_size=8).digest(), "big")
