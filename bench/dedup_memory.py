"""Peak memory per document of stage 04's global step (the only step that sees every document).

Builds synthetic per-part work files (sha256, signatures, band keys) for N documents with a few
percent near-duplicates, then runs corpus.dedup.decide.row_ranks + decide under tracemalloc.

    .venv/bin/python bench/dedup_memory.py --docs 1000000 [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from corpus.dedup.minhash import band_keys
from corpus.dedup.decide import decide, row_ranks


def build(work: Path, n: int, parts: int, num_perm: int, bands: int, seed: int = 0) -> list[tuple[Path, dict]]:
    rng = np.random.default_rng(seed)
    out, k = [], 0
    for p, size in enumerate(np.diff(np.linspace(0, n, parts + 1).astype(int))):
        sigs = rng.integers(0, 2**32 - 1, size=(size, num_perm), dtype=np.uint64).astype(np.uint32)
        dup = rng.random(size) < 0.05           # 5% copy the signature of the previous document
        sigs[1:][dup[1:]] = sigs[:-1][dup[1:]]
        sha = rng.integers(0, 256, size=(size, 32), dtype=np.uint8)
        key = f"part-{p:05d}"
        np.save(work / f"{key}.sig.npy", sigs)
        np.save(work / f"{key}.bands.npy", band_keys(sigs, bands))
        np.save(work / f"{key}.sha.npy", sha)
        ids = pa.table({"id": [f"src-{p % 7}:{k + i}" for i in range(size)]})
        pq.write_table(ids, work / f"{key}.parquet")
        out.append((work / f"{key}.parquet", {"rows": int(size)}))
        k += size
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--parts", type=int, default=20)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    d = {"exact": True, "near": True, "mode": "drop", "num_perm": 128, "bands": 16, "jaccard_threshold": 0.8}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        parts = build(work, args.docs, args.parts, d["num_perm"], d["bands"])
        keys = [p.stem for p, _ in parts]
        sizes = [m["rows"] for _, m in parts]
        offsets = np.cumsum([0] + sizes)
        hits = [[] for _ in sizes]
        tracemalloc.start()
        t0 = time.monotonic()
        rank, _ = row_ranks([p for p, _ in parts])
        dec = decide(hits, rank, offsets, work, keys, d)
        reason, edges = dec.reason, dec.near_edges
        seconds = time.monotonic() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    arrow = pa.total_allocated_bytes()
    result = {"docs": args.docs, "peak_python_bytes": peak, "bytes_per_doc": peak / args.docs,
              "arrow_bytes_after": arrow, "seconds": seconds, "near_dropped": int(np.sum(reason == 3)),
              "confirmed_edges": edges}
    print(f"{args.docs:,} docs: peak {peak / 1e6:.1f} MB traced by numpy/Python = {peak / args.docs:.1f} B/doc "
          f"(+ the Arrow id column, {arrow / args.docs:.1f} B/doc); {seconds:.1f}s; {edges} edges")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
