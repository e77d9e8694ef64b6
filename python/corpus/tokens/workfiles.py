"""What the tokenize stage's per-shard and per-partition work shares: the splits, how a shard is read, and
the work files (numpy arrays in the job's `_work/`, each listed with its sha256 so a resume can verify it)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from corpus.config.layout import WORK_DIR
from corpus.store.atomic import sha256_bytes, write_bytes

SPLITS = ("train", "val")
# the shard is read 128 rows at a time: a 1,024-row batch of Wikipedia articles was 19 MB of text, and
# Python strings of it (the encoded bytes never depend on how the shard is read)
READ_ROWS = 128


def work_entry(name: str, sha256: str, size: int) -> dict:
    """A unit's result entry for the work file `name` (in `_work/`)."""
    return {"name": f"{WORK_DIR}/{name}", "sha256": sha256, "bytes": size}


def write_work_file(work: Path, name: str, data: bytes) -> dict:
    write_bytes(work / name, data)
    return work_entry(name, sha256_bytes(data), len(data))


def npy_bytes(arr: np.ndarray) -> bytes:
    """The array as a .npy file's bytes."""
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()
