"""Peak memory and throughput of reading one large JSONL.zst source, and of fetching it, with the
streaming reader (corpus.formats.sources) and with the whole-file reader it replaced (tests/reference_sources.py,
a frozen copy of python/corpus/sources.py at main bb4f3f2).

The source is built from real data, seeded: every JSONL record of the demo mirror (GSM8K, BoolQ, LAMBADA,
EnterprisePII, PIQA, ARC-Easy, HellaSwag) and the TinyStories/WikiText documents as {"text": ...}
records, shuffled anew for every copy (numpy PCG64, --seed) until --gb GB of JSON, zstd level 3.
Each measurement runs in a fresh subprocess; peak RSS is that process's VmHWM from /proc/self/status
(ru_maxrss is not used: after vfork+exec it includes the parent's peak). Fetching one source runs in
one process, so its VmHWM is the whole fetch's.

    CORPUS_MIRROR=../shared/data/mirror .venv/bin/python bench/scale_read.py --gb 2 [--impl new old] \
        [--fetch] [--workdir /tmp/scale_read] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import zstandard

REPO = Path(__file__).resolve().parents[1]
JSONL_SOURCES = ["gsm8k-train", "gsm8k-test", "boolq", "lambada", "enterprise-pii", "piqa", "arc-easy", "hellaswag"]
TEXT_SOURCES = ["tinystories-train-head", "wikitext2-test"]


def sha256_file(path: Path) -> str:
    sys.path.insert(0, str(REPO / "python"))
    from corpus.store.atomic import sha256_file as sha
    return sha(path)


def ledger() -> dict[str, dict]:
    return {r["source_id"]: r for r in map(json.loads, (REPO / "corpus" / "LEDGER.jsonl").read_text().splitlines())}


def records(mirror: Path) -> list[bytes]:
    """Every real record as one JSONL line with a single "text" field."""
    rows, out = ledger(), []
    sys.path.insert(0, str(REPO / "python"))
    from corpus.formats.sources import read_documents
    for sid in JSONL_SOURCES + TEXT_SOURCES:
        row = rows[sid]
        for _, text in read_documents(mirror / row["sha256"], row):
            if text.strip():
                out.append(json.dumps({"text": text}, ensure_ascii=False).encode() + b"\n")
    return out


def write_permuted(z, recs: list[bytes], rng: np.random.Generator, target: int, written: int, n: int) -> tuple[int, int]:
    """Write `recs` to `z` in one seeded permutation, stopping once `target` bytes are written in all;
    returns (bytes written, records written) so far."""
    for i in rng.permutation(len(recs)):
        z.write(recs[i])
        written += len(recs[i])
        n += 1
        if written >= target:
            break
    return written, n


def build(path: Path, mirror: Path, gb: float, seed: int) -> dict:
    recs = records(mirror)
    rng = np.random.Generator(np.random.PCG64(seed))
    target, written, n = int(gb * 1e9), 0, 0
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as z:
        while written < target:
            written, n = write_permuted(z, recs, rng, target, written, n)
    os.replace(tmp, path)
    return {"records": n, "json_bytes": written, "file_bytes": path.stat().st_size}


READ = r"""
import json, sys, time
from pathlib import Path
sys.path[:0] = [sys.argv[3], sys.argv[4]]
def hwm_mb():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024
import importlib
mod = importlib.import_module(sys.argv[2])
row = json.loads(sys.argv[5])
t0 = time.perf_counter(); n = chars = 0
for loc, text in mod.read_documents(Path(sys.argv[1]), row):
    n += 1; chars += len(text)
dt = time.perf_counter() - t0
import resource
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"docs": n, "chars": chars, "seconds": dt, "cpu_seconds": ru.ru_utime + ru.ru_stime,
                  "peak_rss_mb": hwm_mb()}))
"""

FETCH = r"""
import json, sys, time
sys.path[:0] = [sys.argv[2], sys.argv[3]]
def hwm_mb():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024
from corpus.config import load_config
import corpus.stages.fetch as fetch
if sys.argv[4] == "old":
    import reference_sources
    fetch.read_documents = reference_sources.read_documents
t0 = time.perf_counter()
res = fetch.run_fetch(load_config(sys.argv[1]), workers=1, executor="local", force=True)
import resource
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"docs": res[0]["docs"], "seconds": time.perf_counter() - t0, "cpu_seconds": ru.ru_utime + ru.ru_stime,
                  "peak_rss_mb": hwm_mb()}))
"""


def run(code: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"measurement failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, default=2.0, help="uncompressed JSON size of the source (GB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--impl", nargs="+", default=["new", "old"], choices=["new", "old"])
    ap.add_argument("--fetch", action="store_true", help="also run `corpus fetch` of the source (in-process)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/scale_read"))
    ap.add_argument("--keep", action="store_true", help="keep the built source and fetch output")
    ap.add_argument("--json", type=Path, help="write the results here too")
    args = ap.parse_args()
    mirror = Path(os.environ.get("CORPUS_MIRROR", REPO.parent / "shared" / "data" / "mirror"))
    args.workdir.mkdir(parents=True, exist_ok=True)
    src = args.workdir / f"scale-{args.gb:g}gb-seed{args.seed}.jsonl.zst"
    try:
        t0 = time.perf_counter()
        built = build(src, mirror, args.gb, args.seed) if not src.exists() else {"file_bytes": src.stat().st_size}
        print(f"source {src}: {built} ({time.perf_counter() - t0:.1f} s)", flush=True)
        sha = sha256_file(src)
        row = {"source_id": "scale", "role": "corpus", "url": str(src), "sha256": sha, "bytes": src.stat().st_size,
               "license_spdx": "MIT", "format": "jsonl"}
        paths = (str(REPO / "python"), str(REPO / "tests"))
        results = {"source": {"path": str(src), **built}, "read": {}, "fetch": {}}
        for impl in args.impl:
            r = run(READ, str(src), "corpus.formats.sources" if impl == "new" else "reference_sources", *paths, json.dumps(row))
            r["mb_per_s_json"] = built.get("json_bytes", 0) / 1e6 / r["seconds"] if "json_bytes" in built else None
            r["mb_per_s_file"] = src.stat().st_size / 1e6 / r["seconds"]
            if "json_bytes" in built:
                r["mb_per_cpu_s_json"] = built["json_bytes"] / 1e6 / r["cpu_seconds"]
            results["read"][impl] = r
            print(f"read  {impl}: {r}", flush=True)
        if args.fetch:
            (args.workdir / "LEDGER.jsonl").write_text(json.dumps(row) + "\n")
            cfg = args.workdir / "scale.toml"
            cfg.write_text(f'[paths]\nledger = "{args.workdir / "LEDGER.jsonl"}"\nartifacts = "{args.workdir / "art"}"\n\n'
                           f'[dataset]\nname = "scale"\nversion = "v1"\nsources = ["scale"]\n\n'
                           f'[decontam]\nevals = []\n\n[filters.ppl]\nenabled = false\n')
            for impl in args.impl:
                r = run(FETCH, str(cfg), *paths, impl)
                results["fetch"][impl] = r
                print(f"fetch {impl}: {r}", flush=True)
                shutil.rmtree(args.workdir / "art", ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1) + "\n")
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
