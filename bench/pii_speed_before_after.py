"""The pii scrub's cost before and after a change, on the same texts, robust to a loaded machine.

    python bench/pii_speed_before_after.py --before DIR --after DIR --input PARTS_DIR [--rounds 3]
        [--stage-json NAME=FILE ...] [--json PATH]

DIR is a checkout's ``python/`` directory (e.g. ``git archive <commit> | tar -x -C /tmp/x``, then
/tmp/x/python). Each round runs one child process per side, alternating before/after; a child imports
``corpus.pii`` from its DIR, builds the engine, scrubs every text of the parts once to warm up, then once
more, and reports the CPU time (``time.process_time``: what the scrub costs, unlike wall time not inflated
by other processes on a shared machine), the wall time, the engine build time and a hash of the output.
The figure is the best round of each side and their ratio (the issue's budget: after <= 1.2x before).
``--stage-json`` adds bench/pii_speed.py results (whole-stage wall times) as they are.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from common import PY, write_results

CHILD = r"""
import glob, hashlib, json, sys, time
import pyarrow.parquet as pq
t0 = time.perf_counter()
from corpus.pii.scrub import PiiParams, detectors, scrub
params = PiiParams()
detectors(*params.engine_key)
build = time.perf_counter() - t0
texts = []
for f in sorted(glob.glob(sys.argv[1] + "/part-*.parquet")):
    texts += pq.read_table(f, columns=["text"]).column("text").to_pylist()
for t in texts:
    scrub(t, params)
c0, w0 = time.process_time(), time.perf_counter()
out = [scrub(t, params)[0] for t in texts]
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
h = hashlib.sha256("\x00".join(out).encode()).hexdigest()
print(json.dumps({"docs": len(texts), "mb": sum(len(t.encode()) for t in texts) / 1e6, "cpu_s": cpu, "wall_s": wall,
                  "import_and_build_s": build, "output_sha256": h,
                  "changed": sum(a != b for a, b in zip(out, texts))}))
"""


def child(pythonpath: Path, parts: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    proc = subprocess.run([PY, "-c", CHILD, str(parts)], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--input", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stage-json", nargs="*", default=[], help="NAME=FILE: bench/pii_speed.py results to include")
    ap.add_argument("--note", default="", help="free text kept in the results (e.g. which commits the DIRs hold)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for side in ("before", "after"):
            runs[side].append(child(getattr(args, side), args.input))
            x = runs[side][-1]
            print(f"round {r + 1} {side:6} cpu {x['cpu_s']:.2f} s  wall {x['wall_s']:.2f} s  "
                  f"build {x['import_and_build_s']:.2f} s  changed {x['changed']}", flush=True)
    best = {side: min(rs, key=lambda x: x["cpu_s"]) for side, rs in runs.items()}
    fig = {"note": args.note, "input": str(args.input), "before": str(args.before), "after": str(args.after), "runs": runs,
           "best": best, "cpu_ratio": best["after"]["cpu_s"] / best["before"]["cpu_s"],
           "wall_ratio_of_best": best["after"]["wall_s"] / best["before"]["wall_s"],
           "stage_runs": {}}
    for item in args.stage_json:
        name, _, path = item.partition("=")
        fig["stage_runs"][name] = json.loads(Path(path).read_text())
    print(f"best cpu: before {best['before']['cpu_s']:.2f} s, after {best['after']['cpu_s']:.2f} s, "
          f"ratio {fig['cpu_ratio']:.3f}")
    write_results(args.json, fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
