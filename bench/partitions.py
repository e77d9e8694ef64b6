"""Peak memory of the partitioned global steps (shard: sample + rank; tokenize: order) and of the driver,
for P = 1 and P = 8 on a 1x corpus and a 16x one built from it (real text, seeded word substitutions,
new ids).

    CORPUS_MIRROR=... PYTHONPATH=python .venv/bin/python bench/partitions.py [--scales 1,16] [--out DIR]

The 1x corpus is tinystories-train-head + wikitext2-test run through pii once. Each task's peak is the
worker's VmHWM while it runs the unit (reset through /proc/self/clear_refs before the unit), and `held`
its increase over the RSS at the unit's start (what the unit's own arrays cost, without the interpreter
and libraries every worker carries). The driver's peak is the bench process's VmHWM over the stage."""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from corpus.atomic import dump_json  # noqa: E402
from corpus.config import load_config  # noqa: E402
from corpus.parts import write_table  # noqa: E402
from corpus.pipeline import run_all  # noqa: E402
from corpus.runner import RunOptions  # noqa: E402
from corpus.stages import run_stage, shard as shard_stage, tokenize as tok_stage  # noqa: E402

LOG = "BENCH_PARTITIONS_LOG"
_real = {"sample": shard_stage.sample_part, "rank": shard_stage.rank_range, "order": tok_stage.order_partition}


def _status(field: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


_POOLS: list = []


def _measure(phase: str, unit):
    """Run one unit, recording its peak RSS (VmHWM after a reset) and what it held: the peak of Python
    and numpy allocations (tracemalloc) plus the peak of Arrow's allocations (a fresh proxy pool)."""
    import tracemalloc

    _reset_peak()
    base = _status("VmRSS")
    old_pool = pa.default_memory_pool()
    pool = pa.proxy_memory_pool(old_pool)
    _POOLS.append(pool)  # buffers it allocated may be freed later: the pool must outlive them
    pa.set_memory_pool(pool)
    tracemalloc.start()
    try:
        result = _real[phase](unit)
        held = tracemalloc.get_traced_memory()[1] + pool.max_memory()
    finally:
        tracemalloc.stop()
        pa.set_memory_pool(old_pool)
    peak = _status("VmHWM")
    with open(os.environ[LOG], "a") as f:
        f.write(json.dumps({"phase": phase, "key": unit.key, "peak": peak, "rss_gain": peak - base, "held": held,
                            "pid": os.getpid()}) + "\n")
    return result


def measured_sample(u):
    return _measure("sample", u)


def measured_rank(u):
    return _measure("rank", u)


def measured_order(u):
    return _measure("order", u)


def config(root: Path, name: str, p: int, tokenizer: Path | None = None):
    from conftest import LEDGER, write_config

    tok = {"tokenizer": str(tokenizer), "tokenizer_sha256": hashlib.sha256(tokenizer.read_bytes()).hexdigest()} \
        if tokenizer else {}
    return load_config(write_config(root / f"{name}.toml", ledger=LEDGER,
                                    sources=["tinystories-train-head", "wikitext2-test"], artifacts=root / name,
                                    shard={"shard_rows": 2000, "val_permille": 50},
                                    tokenize={"vocab_size": 1024, "max_tokens_per_file": 1 << 20, **tok},
                                    run={"partitions": p, "workers": 2}))


def scaled(base: Path, dest: Path, k: int) -> None:
    """dest = base with its pii parts replaced by k copies each: ids suffixed, ~10% of words substituted
    by other words of the corpus (seeded), so every copy is a different real-looking document."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns("shard-*", "_MANIFEST.json", "tokens"))
    pii = dest / "corpus/t/v1/stages/05-pii"
    manifest = json.loads((pii / "_STAGE.json").read_text())
    tables = [pq.read_table(pii / p["name"]) for p in manifest["parts"]]
    vocab = sorted({w for t in tables for text in t.column("text").to_pylist()[:200] for w in text.split()})
    for p in manifest["parts"]:
        (pii / p["name"]).unlink()
    parts, rng = [], random.Random(0)
    for t in tables:
        for c in range(k):
            rows = t.to_pylist()
            for r in rows:
                if c:
                    r["id"] = f"{r['id']}~{c:03d}"
                    words = r["text"].split(" ")
                    for i in range(len(words)):
                        if rng.random() < 0.1:
                            words[i] = rng.choice(vocab)
                    r["text"] = " ".join(words)
            parts.append(write_table(pa.Table.from_pylist(rows, schema=t.schema), pii / f"part-{len(parts):05d}.parquet"))
    manifest["parts"] = parts
    manifest["counts"]["docs_out"] = sum(p["rows"] for p in parts)
    (pii / "_STAGE.json").write_bytes(dump_json(manifest))


def run(root: Path, scale: int, p: int, tokenizer: Path) -> dict:
    name = f"x{scale}-p{p}"
    src = root / f"x{scale}"
    if (root / name).exists():
        shutil.rmtree(root / name)
    shutil.copytree(src, root / name)
    cfg = config(root, name, p, tokenizer)
    log = Path(os.environ[LOG])
    seen = len(log.read_text().splitlines()) if log.exists() else 0
    out = {"scale": scale, "P": p}
    for stage in ("shard", "tokenize"):
        _reset_peak()
        base = _status("VmRSS")
        t0 = time.monotonic()
        run_stage(stage, cfg, RunOptions(workers=2))
        out[f"{stage}_driver_peak"] = _status("VmHWM")
        out[f"{stage}_driver_held"] = _status("VmHWM") - base
        out[f"{stage}_seconds"] = round(time.monotonic() - t0, 1)
    rows = [json.loads(line) for line in log.read_text().splitlines()[seen:]]
    for phase in ("sample", "rank", "order"):
        mine = [r for r in rows if r["phase"] == phase]
        out[f"{phase}_units"] = len(mine)
        out[f"{phase}_task_peak"] = max((r["peak"] for r in mine), default=0)
        out[f"{phase}_task_held"] = max((r["held"] for r in mine), default=0)
    out["n_docs"] = json.loads((cfg.dataset_dir / "_MANIFEST.json").read_text())["n_docs"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", default="1,16")
    ap.add_argument("--out", default="/tmp/corpus-bench-partitions")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    root = Path(args.out)
    root.mkdir(parents=True, exist_ok=True)
    os.environ[LOG] = str(root / "units.jsonl")  # before any pool starts: workers inherit it
    (root / "units.jsonl").unlink(missing_ok=True)
    shard_stage.sample_part, shard_stage.rank_range = measured_sample, measured_rank
    tok_stage.order_partition = measured_order
    if args.one:
        scale, p = map(int, args.one.split(","))
        print(json.dumps(run(root, scale, p, root / "tokenizer.json")))
        return
    base = root / "x1"
    if not (base / "corpus/t/v1/stages/05-pii/_STAGE.json").is_file():
        run_all(config(root, "x1", 1), workers=2, through="pii")
    if not (root / "tokenizer.json").is_file():  # pinned, so no run trains a tokenizer in its driver
        cfg = config(root, "tok", 1)
        shutil.rmtree(root / "tok", ignore_errors=True)
        shutil.copytree(base, root / "tok")
        run_all(cfg, workers=2)
        (found,) = (root / "tok" / "tokens" / "t" / "v1").glob("*/tokenizer.json")
        shutil.copy(found, root / "tokenizer.json")
    results = []
    for scale in map(int, args.scales.split(",")):
        if scale != 1:
            scaled(base, root / f"x{scale}", scale)
        for p in (1, 8):  # each in a fresh process: the driver's peak is its own
            out = subprocess.run([sys.executable, __file__, "--one", f"{scale},{p}", "--out", str(root)],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
            results.append(json.loads(out.strip().splitlines()[-1]))
            print(json.dumps(results[-1]), flush=True)
    mb = lambda b: f"{b / 2**20:.1f}"  # noqa: E731
    print("\n| corpus | docs | P | driver peak RSS MB (shard / tokenize) | largest rank task: held MB / peak RSS MB "
          "| largest order task: held MB / peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['scale']}x | {r['n_docs']} | {r['P']} | {mb(r['shard_driver_peak'])} / {mb(r['tokenize_driver_peak'])} "
              f"| {mb(r['rank_task_held'])} / {mb(r['rank_task_peak'])} | {mb(r['order_task_held'])} / {mb(r['order_task_peak'])} |")
    (root / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
