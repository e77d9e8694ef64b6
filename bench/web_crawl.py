"""A crawl as one ledger row: `corpus fetch` of a listing of many WARC files over loopback HTTP, against the
same records as one WARC file, and records fetched by HTTP Range (format warc-records).

    python bench/web_crawl.py                                  # 200 files, ~3.5 MB of pages per copy
    python bench/web_crawl.py --files 200 --copies 145 --ray   # 513 MB (~23 min on 2 shared cores)
    python bench/web_crawl.py --files 40 --copies 2 --small 10 --json out.json
    python bench/web_crawl.py --files 200 --copies 145 --j1-pairs 2   # only the -j 1 share, runs paired

1. examples/local_crawl.py writes --files WARC files of the shared pages, --copies times over (seeded),
   served on 127.0.0.1 by bench/range_server.py (HTTP/1.1 keep-alive, Range requests), in a process of
   its own.
2. `corpus fetch` (a fresh child process and artifacts root per run: wall, peak RSS of the process tree) of
   a listing of the first --small files and of all of them, at 1 and 2 workers (and `[run] executor =
   "ray"` with --ray): files/s and WARC records/s per worker. Memory should not grow with the file count.
3. The single-file path: all the files concatenated into one .warc.gz (gzip members stay whole), fetched
   as one `format = "warc"` row: records/s per worker beside the listing's of the same records.
4. `format = "warc-records"`: an index of every record of the --small files, each fetched by a Range request.
5. Each run's output digest (every raw part's records, fetched_at aside): the listing's at 1 and 2 workers
   and on Ray, the single file's and warc-records' at 1 and 2, must be the same; a bench where they are
   not exits 1 (its results written). A listing's documents' locators name the member files' URLs, so
   its digest holds the server's port: compare digests within one invocation, not across them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, measured, mirror_dir, sha256_of, write_config, write_ledger, write_results  # noqa: E402

sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "examples"))


def serve(root: Path) -> tuple[subprocess.Popen, str]:
    """bench/range_server.py over `root` in a process of its own (HTTP/1.1, Range), and its base URL: a
    server thread in this process would share its GIL with the sampling of the measured process tree."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parent / "range_server.py"), str(root)],
                            stdout=subprocess.PIPE, text=True)
    base = proc.stdout.readline().strip()
    if not base.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"error: bench/range_server.py did not start (it said {base!r})")
    return proc, base


def row_of(path: Path, fmt: str = "warc", **extra) -> dict:
    return {"source_id": "crawl", "role": "corpus", "url": str(path), "sha256": sha256_of(path),
            "bytes": path.stat().st_size, "license_spdx": "LicenseRef-bench", "format": fmt, **extra}


def output_digest(raw: Path) -> str:
    """sha256 of every raw part's path and records (documents and rejects/), fetched_at aside (when the
    run was): the same for the same records, whatever the worker count or executor."""
    from corpus.formats.jsonl import read_zst_jsonl

    h = hashlib.sha256()
    for part in sorted(raw.rglob("*.jsonl.zst")):
        h.update(part.relative_to(raw).as_posix().encode() + b"\n")
        for rec in read_zst_jsonl(part):
            rec.pop("fetched_at", None)
            h.update(json.dumps(rec, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return h.hexdigest()


def fetch_run(work: Path, name: str, row: dict, workers: int, engine: str, executor: str = "local") -> dict:
    """One `corpus fetch` in a child process, on a fresh artifacts root: wall, peak RSS, records, files,
    and the digest of its output (output_digest, taken after the clock stops)."""
    art = work / f"art-{name}"
    shutil.rmtree(art, ignore_errors=True)
    ledger = write_ledger(work / f"{name}.jsonl", [row])
    pins = ledger.with_name(f"{name}.pins.jsonl")
    pins.unlink(missing_ok=True)  # first use: every file downloaded, hashed and pinned
    cfg = write_config(work / f"{name}.toml", ledger=ledger, sources=["crawl"], artifacts=art,
                       extract={"engine": engine}, run={"executor": executor, "workers": workers})
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "RAY_USAGE_STATS_ENABLED": "0"}
    res = measured([sys.executable, "-m", "corpus.commands.launch", "--config", str(cfg), "fetch", "-j", str(workers)],
                   log=work / "fetch.log", env=env, timeout=6 * 3600)
    if res["rc"] != 0:
        raise SystemExit(f"error: fetch {name} failed (rc {res['rc']}); see {work / 'fetch.log'}")
    (stage,) = (art / "corpus" / "raw" / "crawl").glob("*/_STAGE.json")
    counts = json.loads(stage.read_text())["counts"]
    digest = output_digest(stage.parent)
    records = sum(counts["records"].values())
    files = counts.get("files", {}).get("read", 1)
    wall = res["wall_s"]
    shutil.rmtree(art, ignore_errors=True)
    return {"name": name, "workers": workers, "executor": executor, "wall_s": round(wall, 2), "files": files,
            "records": records, "docs": counts["docs_out"], "files_per_s": round(files / wall, 2),
            "records_per_s_per_worker": round(records / wall / workers, 1),
            "tree_peak_rss_mb": round(res["tree_peak_rss_mb"], 1), "output_sha256": digest[:16]}


def one_file(www: Path, paths: list[Path]) -> Path:
    """Every file as one file: gzip members concatenated."""
    one = www / "one.warc.gz"
    with open(one, "wb") as out:
        for p in paths:
            out.write(p.read_bytes())
    return one


def j1_pairs(work: Path, www: Path, paths: list[Path], base: str, pairs: int, engine: str) -> tuple[dict, list]:
    """--j1-pairs: only the listing of every file and the single file at 1 worker, one after the other,
    `pairs` times: each pair's share is measured under the same load (a shared machine's drifts)."""
    listing = work / f"warc-{len(paths)}.paths"
    listing.write_text("".join(p.name + "\n" for p in paths))
    row, one = row_of(listing, base_url=base), row_of(one_file(www, paths))
    runs, shares = [], []
    for k in range(pairs):
        pair = [fetch_run(work, f"listing-{len(paths)}-j1", row, 1, engine), fetch_run(work, "single-file-j1", one, 1, engine)]
        for r in pair:
            r["pair"] = k
            print(json.dumps(r), flush=True)
        runs += pair
        shares.append(round(pair[0]["records_per_s_per_worker"] / pair[1]["records_per_s_per_worker"], 3))
    same = len({r["output_sha256"] for r in runs if r["name"].startswith("listing-")}) == 1 and \
        len({r["output_sha256"] for r in runs if r["name"].startswith("single-")}) == 1
    return {"listing_vs_single_file_records_per_s_per_worker_j1_pairs": shares,
            "listing_vs_single_file_records_per_s_per_worker_j1_median": round(statistics.median(shares), 3),
            "outputs_identical_across_workers_and_executors": same}, runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--small", type=int, default=20, help="the smaller listing (memory must not grow from it)")
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--engine", default="resiliparse")
    ap.add_argument("--ray", action="store_true", help="also `[run] executor = \"ray\"` at 2 workers")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None, help="scratch directory (default a temp dir, removed)")
    ap.add_argument("--j1-pairs", type=int, default=0, metavar="K",
                    help="only K pairs of (listing of all files, single file) at 1 worker, one after the other")
    args = ap.parse_args()
    from local_crawl import build

    work = args.work or Path(tempfile.mkdtemp(prefix="web_crawl."))
    www = work / "www"
    paths = build(www, mirror_dir(), args.files, args.copies, seed=0)
    crawl_mb = sum(p.stat().st_size for p in paths) / 1e6
    server, base = serve(www)
    crawl = {"files": args.files, "mb": round(crawl_mb, 1), "copies": args.copies, "engine": args.engine}
    if args.j1_pairs:
        try:
            summary, runs = j1_pairs(work, www, paths, base, args.j1_pairs, args.engine)
        finally:
            server.terminate()
            server.wait()
            if args.work is None:
                shutil.rmtree(work, ignore_errors=True)
        print(json.dumps({"crawl": crawl, **summary}))
        write_results(args.json, {"summary": {"crawl": crawl, **summary}, "runs": runs})
        return 0 if summary["outputs_identical_across_workers_and_executors"] else 1
    try:
        runs = []
        for n in (args.small, args.files):
            listing = work / f"warc-{n}.paths"
            listing.write_text("".join(p.name + "\n" for p in paths[:n]))
            row = row_of(listing, base_url=base)
            for workers in (1, 2):
                runs.append(fetch_run(work, f"listing-{n}-j{workers}", row, workers, args.engine))
                print(json.dumps(runs[-1]), flush=True)
            if args.ray and n == args.files:
                runs.append(fetch_run(work, f"listing-{n}-ray", row, 2, args.engine, executor="ray"))
                print(json.dumps(runs[-1]), flush=True)
        one = one_file(www, paths)
        for workers in (1, 2):
            runs.append(fetch_run(work, f"single-file-j{workers}", row_of(one), workers, args.engine))
            print(json.dumps(runs[-1]), flush=True)
        import pyarrow as pa
        import pyarrow.parquet as pq

        from corpus.formats.sources.warc import record_offsets

        table: dict[str, list] = {"warc_filename": [], "warc_record_offset": [], "warc_record_length": []}
        for p in paths[:args.small]:
            offsets = record_offsets(p, str(p))
            for a, b in zip(offsets, offsets[1:] + [p.stat().st_size]):
                table["warc_filename"].append(p.name)
                table["warc_record_offset"].append(a)
                table["warc_record_length"].append(b - a)
        index = work / "index.parquet"
        pq.write_table(pa.table(table), index)
        for workers in (1, 2):
            runs.append(fetch_run(work, f"warc-records-j{workers}", row_of(index, "warc-records", base_url=base),
                                  workers, args.engine))
            print(json.dumps(runs[-1]), flush=True)
    finally:
        server.terminate()
        server.wait()
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    by = {r["name"]: r for r in runs}
    summary = {
        "crawl": crawl,
        "rss_growth_small_to_all_files_j2": round(by[f"listing-{args.files}-j2"]["tree_peak_rss_mb"]
                                                  / by[f"listing-{args.small}-j2"]["tree_peak_rss_mb"], 3),
        **{f"listing_vs_single_file_records_per_s_per_worker_j{w}": round(
            by[f"listing-{args.files}-j{w}"]["records_per_s_per_worker"]
            / by[f"single-file-j{w}"]["records_per_s_per_worker"], 3) for w in (1, 2)},
    }
    # 1 = 2 workers = Ray, record for record: a row that differs is a failed bench, its figures kept
    groups = {"listing": [r for r in runs if r["name"].startswith(f"listing-{args.files}-")],
              "listing_small": [r for r in runs if r["name"].startswith(f"listing-{args.small}-")],
              "single_file": [r for r in runs if r["name"].startswith("single-file-")],
              "warc_records": [r for r in runs if r["name"].startswith("warc-records-")]}
    differ = [f"{g}: " + ", ".join(f"{r['name']} {r['output_sha256']}" for r in rs)
              for g, rs in groups.items() if len({r["output_sha256"] for r in rs}) > 1]
    summary["outputs_identical_across_workers_and_executors"] = not differ
    print(json.dumps(summary))
    write_results(args.json, {"summary": summary, "runs": runs})
    for line in differ:
        print(f"error: outputs differ: {line}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
