"""Peak memory and throughput of reading one large JSONL.zst source with the streaming reader
(corpus.formats.sources), and of fetching it.

The source is built from real data, seeded (common.build_big_source): every JSONL record of the demo mirror
(GSM8K, BoolQ, LAMBADA, EnterprisePII, PIQA, ARC-Easy, HellaSwag) and the TinyStories/WikiText documents as
{"text": ...} records, shuffled anew for every copy (numpy PCG64, --seed) until --gb GB of JSON, zstd
level 3. Each measurement runs in a fresh process (this script with --measure); peak RSS is that
process's VmHWM from /proc/self/status (ru_maxrss is not used: after vfork+exec it includes the parent's
peak). Fetching one source with one worker runs in one process, so its VmHWM is the whole fetch's.

The comparison with the whole-file reader that streaming replaced (main bb4f3f2) was measured once, at
commit 738c1b7, and is kept in bench/results/scale_read-2026-12-01.json; tests/test_streaming.py checks
that both readers give the same documents.

    CORPUS_MIRROR=../shared/data/mirror .venv/bin/python bench/scale_read.py --gb 2 [--fetch] \
        [--workdir /tmp/scale_read] [--keep] [--json bench/results/scale_read-<date>.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import PY, build_big_source, ledger_row, mirror_dir, status_bytes, write_config, write_ledger, write_results


def measure_read(source: Path, row: dict) -> dict:
    """Read every document of `source`: documents, characters, seconds, CPU seconds, peak RSS."""
    import resource

    from corpus.formats.sources import read_documents

    t0 = time.perf_counter()
    n = chars = 0
    for _, text in read_documents(source, row):
        n += 1
        chars += len(text)
    dt = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"docs": n, "chars": chars, "seconds": dt, "cpu_seconds": ru.ru_utime + ru.ru_stime,
            "peak_rss_mb": status_bytes("VmHWM") / 2**20}


def measure_fetch(config: Path) -> dict:
    """`corpus fetch` of the source with one worker, in this process."""
    import resource

    from corpus.config import load_config
    from corpus.stages import run_stage

    t0 = time.perf_counter()
    res = run_stage("fetch", load_config(str(config)), workers=1, force=True)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"docs": res.manifest["counts"]["docs_out"], "seconds": time.perf_counter() - t0,
            "cpu_seconds": ru.ru_utime + ru.ru_stime, "peak_rss_mb": status_bytes("VmHWM") / 2**20}


def run(*args: str) -> dict:
    """One measurement in a fresh process: this script with --measure."""
    proc = subprocess.run([PY, __file__, "--measure", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"measurement failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, default=2.0, help="uncompressed JSON size of the source (GB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fetch", action="store_true", help="also run `corpus fetch` of the source (one worker)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/scale_read"))
    ap.add_argument("--keep", action="store_true", help="keep the built source and fetch output")
    ap.add_argument("--json", type=Path, help="write the results here too")
    ap.add_argument("--measure", nargs="+", help=argparse.SUPPRESS)  # read SOURCE ROW_JSON | fetch CONFIG
    args = ap.parse_args()
    if args.measure:
        what, *rest = args.measure
        result = measure_read(Path(rest[0]), json.loads(rest[1])) if what == "read" else measure_fetch(Path(rest[0]))
        print(json.dumps(result))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    src = args.workdir / f"scale-{args.gb:g}gb-seed{args.seed}.jsonl.zst"
    try:
        t0 = time.perf_counter()
        built = build_big_source(src, mirror_dir(), args.gb, args.seed) if not src.exists() else \
            {"file_bytes": src.stat().st_size}
        print(f"source {src}: {built} ({time.perf_counter() - t0:.1f} s)", flush=True)
        row = ledger_row(src, "scale", "MIT")
        results = {"source": {"path": str(src), **built}, "read": None, "fetch": None}
        r = run("read", str(src), json.dumps(row))
        r["mb_per_s_file"] = src.stat().st_size / 1e6 / r["seconds"]
        if "json_bytes" in built:
            r["mb_per_s_json"] = built["json_bytes"] / 1e6 / r["seconds"]
            r["mb_per_cpu_s_json"] = built["json_bytes"] / 1e6 / r["cpu_seconds"]
        results["read"] = r
        print(f"read: {r}", flush=True)
        if args.fetch:
            ledger = write_ledger(args.workdir / "LEDGER.jsonl", [row])
            cfg = write_config(args.workdir / "scale.toml", ledger=ledger, sources=["scale"],
                               artifacts=args.workdir / "art", name="scale", version="v1",
                               decontam={"evals": []}, **{"filters.ppl": {"enabled": False}})
            results["fetch"] = r = run("fetch", str(cfg))
            print(f"fetch: {r}", flush=True)
            shutil.rmtree(args.workdir / "art", ignore_errors=True)
        write_results(args.json, results)
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
