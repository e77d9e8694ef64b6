"""`[run] partitions = P`: how many tasks a partitioned global step splits into (the shard stage's id
sort, dedup's global step, the tokenize stage's shuffle). P decides memory per task and parallelism,
never an output byte: every partitioned step computes a result that is a function of the data alone.
Also the id reads the id sort (corpus.engine.idsort) is built on: a part's ids (`read_ids`), and an id
range's ids from every part (`range_ids`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus.store.atomic import sha256_file
from corpus.config import Config
from corpus.store.root import localize
from corpus.errors import CorpusError

# P = 0 (automatic): about this many documents per partition (a few tens of MB of per-document arrays).
DOCS_PER_PARTITION = 1_000_000
MIN_DOCS_PER_PARTITION = 10_000  # below this a partition's task is mostly its fixed cost
MAX_PARTITIONS = 4096


def partitions(config: Config, n_docs: int, *, workers: int = 1, cap: int = MAX_PARTITIONS) -> int:
    """The configured P, or for 0: ceil(n_docs / DOCS_PER_PARTITION), raised to the worker count while
    every partition still gets MIN_DOCS_PER_PARTITION documents (so that a global step of a single-file
    corpus keeps every worker busy, not one); at least 1, never above `cap` or the document count (more
    partitions than documents are tasks with nothing to do, and dedup's component rounds read about P x P
    files: over 980 documents dedup took 4.5 s at P = 64, 14.8 s at P = 256, 114 s at P = 980). P never
    changes a byte."""
    p = int(config["run"].get("partitions", 0) or 0)
    n = max(0, n_docs)
    if p <= 0:
        p = max(-(-n // DOCS_PER_PARTITION), min(workers, n // MIN_DOCS_PER_PARTITION))
    return max(1, min(p, cap, n))


def ranges(n: int, p: int) -> list[tuple[int, int]]:
    """[lo, hi) of p contiguous, near-equal ranges of range(n) (some empty when p > n)."""
    return [(k * n // p, (k + 1) * n // p) for k in range(p)]


def read_ids(path: Path, rows: int) -> pa.Array:
    # ParquetFile.read, not pq.read_table: read_table imports pyarrow.dataset on first use (~26 MB of
    # Python objects, ~60 MB of RSS) in a rank or sample worker that needs none of it.
    localize(path)  # an s3 root: the part's local copy (its sha256 is checked by the reader that needs it)
    col = pq.ParquetFile(path).read(columns=["id"], use_threads=False).column("id")
    if len(col) != rows:
        raise CorpusError(f"{path}: {len(col)} rows, manifest says {rows}")
    return col.combine_chunks() if len(col) else pa.array([], pa.string())


def rows_in_range(ids: pa.Array, lo: str | None, hi: str | None) -> np.ndarray | None:
    """Positions of the ids in [lo, hi) in byte order, or None when the range is unbounded (every row)."""
    mask = None
    if lo is not None:
        mask = pc.greater_equal(ids, pa.scalar(lo, pa.string()))
    if hi is not None:
        below = pc.less(ids, pa.scalar(hi, pa.string()))
        mask = below if mask is None else pc.and_(mask, below)
    return None if mask is None else np.flatnonzero(mask.to_numpy(zero_copy_only=False)).astype(np.int64)


def range_ids(parts, lo: str | None, hi: str | None) -> tuple[pa.Array, list[np.ndarray], list[int]]:
    """A rank task's input: the ids in [lo, hi) of every (path, rows) part, concatenated in part order;
    each part's picked row positions; and where each part's ids start in the concatenation."""
    ids, rows, offsets = [], [], [0]
    for path, n in parts:
        col = read_ids(path, n)
        picked = rows_in_range(col, lo, hi)
        if picked is None:
            ids.append(col)
            picked = np.arange(len(col), dtype=np.int64)
        else:
            ids.append(col.take(pa.array(picked)))
        rows.append(picked)
        offsets.append(offsets[-1] + len(picked))
        del col
    return (pa.concat_arrays(ids) if ids else pa.array([], pa.string())), rows, offsets


def work_entry(path: Path, staging: Path) -> dict:
    """The checkpoint entry of a work file a unit wrote under `staging`."""
    return {"name": str(path.relative_to(staging)), "sha256": sha256_file(path), "bytes": path.stat().st_size}
