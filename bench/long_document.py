"""Hostile inputs, case 6: peak RSS of every stage against the size of the largest document.

For each --mb size: one document of that many MB of seeded real text (bench/common.real_records, or with
--text cjk the lingua Chinese and Japanese sentences, shuffled
with numpy PCG64 --seed, joined by blank lines) plus 200 real ones, filters off, every stage run in a child
(`corpus --config c.toml <stage>`), its process tree's peak RSS sampled (common.measured). The slope
between the sizes is the memory per MB of the largest document (docs/reliability.md).

    .venv/bin/python bench/long_document.py --mb 2 20 --json bench/results/long-document.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

import common

STAGES = ["fetch", "normalize", "filter", "dedup", "pii", "shard", "tokenize"]


CJK_SOURCES = ["lingua-zh", "lingua-ja"]  # real Chinese and Japanese sentences: no spaces to cut at


def texts(kind: str) -> list[str]:
    if kind == "english":
        return [json.loads(r)["text"] for r in common.real_records(common.mirror_dir())]
    rows = common.ledger_rows()
    return [line for sid in CJK_SOURCES
            for line in (common.mirror_dir() / rows[sid]["sha256"]).read_text(encoding="utf-8").splitlines() if line.strip()]


def run(mb: float, out: Path, seed: int, kind: str = "english") -> dict:
    recs = texts(kind)
    rng = np.random.Generator(np.random.PCG64(seed))
    parts, n = [], 0
    while n < mb * 1e6:
        t = recs[int(rng.integers(len(recs)))]
        parts.append(t)
        n += len(t.encode())
    out.mkdir(parents=True, exist_ok=True)
    src = out / "big.jsonl"
    with open(src, "w") as f:
        f.write(json.dumps({"text": "\n\n".join(parts)}) + "\n")
        for text in recs[:200]:
            f.write(json.dumps({"text": text}) + "\n")
    led = common.write_ledger(out / "LEDGER.jsonl", [common.ledger_row(src, "big", "CC0-1.0")])
    off = {"enabled": False}
    cfg = common.write_config(out / "c.toml", ledger=led, sources=["big"], artifacts=out / "art",
                              **{"filters.lang": off, "filters.gopher": off, "filters.repetition": off,
                                 "filters.ppl": off, "fetch": {"max_doc_bytes": 256 * 2**20}})
    env = dict(os.environ, CORPUS_MIRROR=str(common.mirror_dir()))
    res = {}
    for st in STAGES:
        r = common.measured([sys.executable, "-m", "corpus.commands.launch", "--config", str(cfg), st],
                            log=out / "log.txt", env=env)
        if r["rc"] != 0:
            raise SystemExit(f"{st} failed at {mb} MB: see {out / 'log.txt'}")
        res[st] = {"peak_rss_mb": round(r["tree_peak_rss_mb"]), "wall_s": round(r["wall_s"], 1)}
        print(f"{mb} MB {st}: {res[st]}", flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, nargs="+", default=[2, 20])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--text", choices=["english", "cjk"], default="english",
                    help="the long document's text: the real English records, or CJK sentences (lingua zh, ja)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    sizes = sorted(args.mb)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {mb: run(mb, Path(tmp) / f"{mb}", args.seed, args.text) for mb in sizes}
    lo, hi = sizes[0], sizes[-1]
    slope = {st: round((runs[hi][st]["peak_rss_mb"] - runs[lo][st]["peak_rss_mb"]) / (hi - lo), 1) for st in STAGES}
    print("MB of RSS per MB of the largest document:", slope)
    common.write_results(args.json, {"text": args.text, "sizes_mb": sizes, "runs": {str(k): v for k, v in runs.items()},
                                     "rss_mb_per_document_mb": slope})


if __name__ == "__main__":
    main()
