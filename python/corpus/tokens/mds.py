"""MosaicML Streaming (MDS) export, written with mosaicml-streaming's own `MDSWriter`.

Layout: `<out>/<split>/index.json` + `shard.<nnnnn>.mds`, one MDS dataset per split, read with
`streaming.StreamingDataset(local=<out>/<split>)` (or `streaming.base.StreamingDataset`, see below).

**One sample per document**, column `tokens` (`ndarray:uint16` or `ndarray:uint32`, the manifest's dtype):
the document's ids with its EOS, in the order of the Megatron parts (the seeded shuffle). Chosen over
fixed-length windows because it is lossless and reconciles with the tokens manifest (samples = docs, the
sum of lengths = tokens, sample i of a split = sequence i of its Megatron stream), and because the window
length is a training decision: llm-foundry's text dataset reads a `tokens` ndarray column per sample and
cuts or packs to its own `max_seq_len`; a fixed window baked in here would have to be re-exported for every
context length. Uncompressed (the ids are already compact, and a compressed local MDS dataset is
decompressed next to its shards by the reader, i.e. into the export directory); no per-shard hashes (the
files are checked by the export's sha256 list and the tokens manifest).

`import streaming` fails on a CPU-only machine: streaming/__init__.py imports `streaming.vision`, which
imports torchvision, and PyPI's torchvision wheels are built against CUDA torch (with torch 2.13.0+cpu,
torchvision 0.28.0 fails with `RuntimeError: operator torchvision::nms does not exist`; without torchvision,
`ModuleNotFoundError: No module named 'torchvision'`). `streaming_base()` then loads `streaming.base` — where
`MDSWriter` and `StreamingDataset` are defined, the objects `streaming` re-exports — without running that
__init__, so the library's own writer and reader are used either way.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
import types
from pathlib import Path
from typing import Iterable

import numpy as np

from corpus.store.atomic import publish_dir
from corpus.formats.megatron import check_range, storage_dtype

SIZE_LIMIT = 1 << 26  # bytes per shard (MDSWriter's default)
COLUMN = "tokens"


def streaming_base():
    """The `streaming.base` module (MDSWriter, StreamingDataset), importable on CPU-only torch."""
    try:
        import streaming.base as base  # the normal path, where torchvision imports
        return base
    except (ImportError, RuntimeError) as e:  # torchvision missing, or a CUDA torchvision on CPU torch
        first_error = e
    for name in [m for m in sys.modules if m == "streaming" or m.startswith("streaming.")]:
        del sys.modules[name]  # drop the half-imported package
    spec = importlib.util.find_spec("streaming")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("mosaicml-streaming is not installed (make setup installs it from the lock)") from first_error
    pkg = types.ModuleType("streaming")
    pkg.__path__ = list(spec.submodule_search_locations)
    pkg.__spec__ = spec
    pkg.__file__ = spec.origin
    sys.modules["streaming"] = pkg
    base = importlib.import_module("streaming.base")
    pkg.base = base
    pkg.MDSWriter, pkg.StreamingDataset = base.MDSWriter, base.StreamingDataset
    return base


def write_mds(docs: Iterable[np.ndarray], out_dir: str | os.PathLike, dtype, *,
              size_limit: int = SIZE_LIMIT) -> tuple[int, int]:
    """Write one MDS dataset of per-document `tokens` samples into `out_dir` (replaced as a whole, by one
    rename once complete); returns (samples, tokens)."""
    dt = storage_dtype(dtype)
    base = streaming_base()
    out_dir = Path(out_dir)
    staging = out_dir.with_name(out_dir.name + ".incomplete")
    if staging.exists():
        shutil.rmtree(staging)
    n_docs = n_tokens = 0
    try:
        with base.MDSWriter(out=str(staging), columns={COLUMN: f"ndarray:{dt.name}"}, compression=None,
                            hashes=None, size_limit=size_limit) as writer:
            for d in docs:
                d = np.asarray(d)
                check_range(d, dt)  # before the cast: a silent wrap is impossible
                writer.write({COLUMN: d.astype(dt.newbyteorder("<"), copy=False)})
                n_docs += 1
                n_tokens += len(d)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # nothing half-written is left, the old output stays
        raise
    publish_dir(staging, out_dir, replace=True)
    return n_docs, n_tokens
