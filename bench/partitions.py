"""Peak memory of the partitioned global steps (shard: sample + rank; tokenize: order; dedup: rank,
keys, exact, near, components, apply) and of the driver, for P = 1 and P = 8 on a 1x corpus and a 16x
one built from it (real text, seeded word substitutions, new ids).

    CORPUS_MIRROR=... .venv/bin/python bench/partitions.py [--scales 1,16]
        [--stages shard,tokenize,dedup] [--out DIR]

The 1x corpus is tinystories-train-head + wikitext2-test run through pii once. Each task's peak is the
worker's VmHWM while it runs the unit (reset through /proc/self/clear_refs before the unit), and `held`
its increase over the RSS at the unit's start (what the unit's own arrays cost, without the interpreter
and libraries every worker carries); in the phases that call pyarrow.compute, each process first runs one
tiny compute call (_warm), so a first unit is not charged with the pandas import that pyarrow's first
compute call makes (reported apart as `first_use`; the peak RSS includes it). The driver's peak is the bench process's VmHWM over the stage.
For dedup the scaled copies are of the 03-filter parts (what dedup reads); the global phases are every
map phase after `signatures` (`rank` per id range, `keys` per part, `exact` and `near` per bucket,
`components` per partition and round, `apply` per part)."""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from common import LEDGER, reset_peak_rss, sha256_of, status_bytes, write_config, write_results
from corpus.commands.pipeline import run_all
from corpus.config import load_config
from corpus.engine.runner import RunOptions
from corpus.formats.parts import write_table
from corpus.dedup import lines as lines_module
from corpus.stages import dedup as dedup_stage, run_stage, shard as shard_stage, tokenize as tok_stage
from corpus.store.atomic import dump_json

LOG = "BENCH_PARTITIONS_LOG"
_real = {"sample": shard_stage.sample_part, "rank": shard_stage.rank_range, "order": tok_stage.order_partition}
# dedup's global phases: name in the log -> (attribute of corpus.stages.dedup, the function)
DEDUP = {f"dedup-{k}": (attr, getattr(dedup_stage, attr)) for k, attr in (
    ("sample", "sample_part"), ("rank", "rank_range"), ("keys", "bucket_keys"), ("exact", "exact_bucket"), ("near", "near_bucket"),
    ("large", "large_star_round"), ("small", "small_star_round"), ("apply", "apply_part"))}
# with --lines ([dedup.lines] on): its two phases, attributes of corpus.dedup.lines
LINES = {"dedup-unit-keys": ("unit_keys_part", lines_module.unit_keys_part),
         "dedup-units": ("unit_bucket", lines_module.unit_bucket)}
_real.update({k: fn for k, (_, fn) in DEDUP.items()})
_real.update({k: fn for k, (_, fn) in LINES.items()})
WITH_LINES = "BENCH_PARTITIONS_LINES"  # set: dedup runs with [dedup.lines] (unit line) on


_POOLS: list = []


_WARM: dict = {}
# The phases whose units call pyarrow.compute (the others use numpy only: warming them would add
# pandas to a worker that never loads it).
WARMED = {"sample", "rank", "dedup-sample", "dedup-rank", "dedup-apply"}


def _warm() -> int:
    """Once per process, before its first measured unit: the one-time costs every worker pays on first
    use whatever the unit, kept out of `held`. The first pyarrow.compute call imports pandas (pyarrow
    checks arguments for pandas types): ~18 MB of code objects and ~5 MB of module state, 23 MB traced,
    which a first rank or sample unit would otherwise count as its own. Returns what the warm-up traced."""
    if "traced" not in _WARM:
        import tracemalloc

        import pyarrow.compute as pc

        tracemalloc.start()
        pc.sort_indices(pa.array(["b", "a"])).to_numpy()
        _WARM["traced"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return _WARM["traced"]


def _measure(phase: str, unit):
    """Run one unit, recording its peak RSS (VmHWM after a reset) and what it held: the peak of Python
    and numpy allocations (tracemalloc) plus the peak of Arrow's allocations (a fresh proxy pool)."""
    import tracemalloc

    first_use = _warm() if phase in WARMED else 0
    reset_peak_rss()
    base = status_bytes("VmRSS")
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
    peak = status_bytes("VmHWM")
    with open(os.environ[LOG], "a") as f:
        f.write(json.dumps({"phase": phase, "key": unit.key, "peak": peak, "rss_gain": peak - base, "held": held,
                            "first_use": first_use, "pid": os.getpid()}) + "\n")
    return result


def measured(phase: str):
    """The unit function to patch in for `phase`: a partial of a module-level function, so it pickles to the
    pool workers by reference, as the stage's own function does."""
    return functools.partial(_measure, phase)


def config(root: Path, name: str, p: int, tokenizer: Path | None = None):
    tok = {"tokenizer": str(tokenizer), "tokenizer_sha256": sha256_of(tokenizer)} if tokenizer else {}
    return load_config(write_config(root / f"{name}.toml", ledger=LEDGER,
                                    sources=["tinystories-train-head", "wikitext2-test"], artifacts=root / name,
                                    shard={"shard_rows": 2000, "val_permille": 50},
                                    tokenize={"vocab_size": 1024, "max_tokens_per_file": 1 << 20, **tok},
                                    run={"partitions": p, "workers": 2},
                                    **({"dedup.lines": {"enabled": True}} if os.environ.get(WITH_LINES) else {})))


def scaled(base: Path, dest: Path, k: int, stage: str = "05-pii") -> None:
    """dest = base with its `stage` parts replaced by k copies each: ids suffixed, ~10% of words substituted
    by other words of the corpus (seeded), so every copy is a different real-looking document."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns("shard-*", "_MANIFEST.json", "tokens"))
    pii = dest / "corpus/t/v1/stages" / stage
    manifest = json.loads((pii / "_STAGE.json").read_text())
    manifest["parts"] = [p for p in manifest["parts"] if p["name"].startswith("part-")]  # side files stay out
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


def _units_logged() -> int:
    """How many unit records the log holds so far (the next run's start)."""
    log = Path(os.environ[LOG])
    return len(log.read_text().splitlines()) if log.exists() else 0


def _largest_units(seen: int, phases) -> dict:
    """Per phase, from the unit records after the first `seen`: how many units, the largest peak RSS and
    the largest held memory of one unit."""
    rows = [json.loads(line) for line in Path(os.environ[LOG]).read_text().splitlines()[seen:]]
    out = {}
    for phase in phases:
        mine = [r for r in rows if r["phase"] == phase]
        out[f"{phase}_units"] = len(mine)
        out[f"{phase}_task_peak"] = max((r["peak"] for r in mine), default=0)
        out[f"{phase}_task_held"] = max((r["held"] for r in mine), default=0)
    return out


def run(root: Path, scale: int, p: int, tokenizer: Path, stages: tuple[str, ...] = ("shard", "tokenize")) -> dict:
    name = f"x{scale}-p{p}"
    src = root / f"x{scale}"
    if (root / name).exists():
        shutil.rmtree(root / name)
    shutil.copytree(src, root / name)
    cfg = config(root, name, p, tokenizer if tokenizer.is_file() else None)
    seen = _units_logged()
    out = {"scale": scale, "P": p}
    for stage in [st for st in ("shard", "tokenize") if st in stages]:
        reset_peak_rss()
        base = status_bytes("VmRSS")
        t0 = time.monotonic()
        run_stage(stage, cfg, RunOptions(workers=2))
        out[f"{stage}_driver_peak"] = status_bytes("VmHWM")
        out[f"{stage}_driver_held"] = status_bytes("VmHWM") - base
        out[f"{stage}_seconds"] = round(time.monotonic() - t0, 1)
    out.update(_largest_units(seen, ("sample", "rank", "order")))
    out["n_docs"] = json.loads((cfg.dataset_dir / "_MANIFEST.json").read_text())["n_docs"]
    return out


def scale_config(scale_dir: Path, scale: int, dest: Path, p: int):
    """bench/scale.py's {scale}x config (kept with --keep), its 03-filter linked under `dest`, P partitions."""
    src = scale_dir / f"artifacts-{scale}x"
    stages = Path("corpus") / "scale" / f"{scale}x" / "stages"
    (dest / stages).mkdir(parents=True)
    (dest / stages / "03-filter").symlink_to(src / stages / "03-filter", target_is_directory=True)
    text = (scale_dir / f"{scale}x.toml").read_text().replace(str(src), str(dest))
    path = dest.with_suffix(".toml")
    path.write_text(text + f"\n[run]\npartitions = {p}\nworkers = 2\n")
    return load_config(path)


def run_dedup(root: Path, scale: int, p: int, scale_dir: Path | None = None) -> dict:
    """Dedup on the scaled 03-filter parts (or bench/scale.py's, with scale_dir) with P partitions and 2
    workers: the driver's peak, and per global phase the largest unit's peak RSS and held memory."""
    name = f"d{scale}-p{p}"
    if (root / name).exists():
        shutil.rmtree(root / name)
    if scale_dir is not None:
        cfg = scale_config(scale_dir, scale, root / name, p)
    else:
        shutil.copytree(root / f"d{scale}", root / name)
        cfg = config(root, name, p)
    seen = _units_logged()
    reset_peak_rss()
    base = status_bytes("VmRSS")
    t0 = time.monotonic()
    result = run_stage("dedup", cfg, RunOptions(workers=2, force=True))
    return {"stage": "dedup", "scale": scale, "P": p, "driver_peak": status_bytes("VmHWM"), "driver_base": base,
            "seconds": round(time.monotonic() - t0, 1), "n_docs": result.manifest["counts"]["docs_in"],
            "rounds": result.output.run_info.get("components_rounds"), **_largest_units(seen, {**DEDUP, **LINES})}


def dedup_table(results: list[dict]) -> list[str]:
    mb = lambda b: f"{b / 2**20:.1f}"  # noqa: E731
    phases = [k for k in {**DEDUP, **LINES} if any(r.get(f"{k}_units") for r in results)]
    lines = ["| corpus | docs | P | driver peak RSS MB | " + " | ".join(f"{k.removeprefix('dedup-')}: held / peak MB"
                                                                       for k in phases) + " |",
             "|---|---|---|---|" + "---|" * len(phases)]
    for r in results:
        cells = [f"{mb(r[f'{k}_task_held'])} / {mb(r[f'{k}_task_peak'])}" if r[f"{k}_units"] else "–" for k in phases]
        lines.append(f"| {r['scale']}x | {r['n_docs']} | {r['P']} | {mb(r['driver_peak'])} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="1,16")
    ap.add_argument("--stages", default="shard,tokenize,dedup")
    ap.add_argument("--scale-dir", type=Path, default=None,
                    help="dedup on bench/scale.py's corpora (its --workdir, kept with --keep) instead of scaled copies")
    ap.add_argument("--out", default="/tmp/corpus-bench-partitions")
    ap.add_argument("--lines", action="store_true", help="dedup with [dedup.lines] on: its unit-keys and units phases too")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.lines:
        os.environ[WITH_LINES] = "1"  # the children's configs
    root = Path(args.out)
    root.mkdir(parents=True, exist_ok=True)
    os.environ[LOG] = str(root / "units.jsonl")  # before any pool starts: workers inherit it
    (root / "units.jsonl").unlink(missing_ok=True)
    if args.one:
        what, scale, p = args.one.split(",")
        # Patch only the stage this child runs: a function is pickled to the workers by its module
        # attribute, so a patched module must not hold a function another stage still sends.
        if what == "dedup":
            for k, (attr, _) in DEDUP.items():
                setattr(dedup_stage, attr, measured(k))
            for k, (attr, _) in LINES.items():
                setattr(lines_module, attr, measured(k))
        else:
            shard_stage.sample_part, shard_stage.rank_range = measured("sample"), measured("rank")
            tok_stage.order_partition = measured("order")
        fn = (lambda r, s, p: run_dedup(r, s, p, args.scale_dir)) if what == "dedup" else \
            (lambda r, s, p: run(r, s, p, root / "tokenizer.json", tuple(args.stages.split(","))))
        print(json.dumps(fn(root, int(scale), int(p))))
        return
    base = root / "x1"
    stages = args.stages.split(",")
    if args.scale_dir is not None and stages == ["dedup"]:
        pass
    elif not (base / "corpus/t/v1/stages/05-pii/_STAGE.json").is_file():
        run_all(config(root, "x1", 1), workers=2, through="pii")
    if "tokenize" in stages and not (root / "tokenizer.json").is_file():  # pinned, so no run trains a tokenizer in its driver
        cfg = config(root, "tok", 1)
        shutil.rmtree(root / "tok", ignore_errors=True)
        shutil.copytree(base, root / "tok")
        run_all(cfg, workers=2)
        (found,) = (root / "tok" / "tokens" / "t" / "v1").glob("*/tokenizer.json")
        shutil.copy(found, root / "tokenizer.json")
    results, dedup = [], []
    for scale in map(int, args.scales.split(",")):
        if scale != 1 and ("shard" in stages or "tokenize" in stages):
            scaled(base, root / f"x{scale}", scale)
        if "dedup" in stages and args.scale_dir is None:
            scaled(base, root / f"d{scale}", scale, "03-filter")
        for p in (1, 8):  # each in a fresh process: the driver's peak is its own
            for what in (["shard"] if "shard" in stages or "tokenize" in stages else []) + \
                    (["dedup"] if "dedup" in stages else []):
                extra = ["--scale-dir", str(args.scale_dir)] if args.scale_dir else []
                out = subprocess.run([sys.executable, __file__, "--one", f"{what},{scale},{p}", "--out", str(root),
                                      "--stages", args.stages, *extra], check=True, stdout=subprocess.PIPE, text=True).stdout
                (dedup if what == "dedup" else results).append(json.loads(out.strip().splitlines()[-1]))
                print(out.strip().splitlines()[-1], flush=True)
    mb = lambda b: f"{b / 2**20:.1f}"  # noqa: E731
    print("\n| corpus | docs | P | driver peak RSS MB (shard / tokenize) | largest rank task: held MB / peak RSS MB "
          "| largest order task: held MB / peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['scale']}x | {r['n_docs']} | {r['P']} | {mb(r['shard_driver_peak'])} / {mb(r.get('tokenize_driver_peak', 0))} "
              f"| {mb(r['rank_task_held'])} / {mb(r['rank_task_peak'])} | {mb(r['order_task_held'])} / {mb(r['order_task_peak'])} |")
    if dedup:
        print("\n" + "\n".join(dedup_table(dedup)))
    write_results(root / "results.json", {"shard_tokenize": results, "dedup": dedup})


if __name__ == "__main__":
    main()
