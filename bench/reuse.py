"""Downstream reuse by content (issue 48 item 2): per-stage wall time of a new version after a filter edit.

    python bench/reuse.py --json bench/results/reuse-<date>-<commit>.json [--package DIR]

In a fresh artifacts root, on the demo config: (1) `corpus run` from scratch; (2) a new version with a
threshold edit that drops about 2% of the documents (default `filters.gopher.min_words=55`); (3) a further
version with an edit that keeps every document (`filters.gopher.max_words=99999`). Each is `corpus run`
in a child process; per stage: its status and seconds from the run table, and the per-document cache
counts its _RUN.json records. `--package DIR` runs the children on another checkout's python/ (the
code before a change), so one script measures before and after. The sequence is repeated (--repeat, in
fresh roots) and each stage's figure is the fastest of its repeats."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from common import PY, REPO, write_results
from corpus.config import dump_toml

ROW = re.compile(r"^(\w+)\s+(.+?)\s+([0-9]+\.[0-9]+)  ")
CACHES = {"04-dedup": "minhash_cache", "05-pii": "pii_cache"}


def run(config: Path, log: Path, env: dict) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "corpus.commands.launch", "--config", str(config), "run"], capture_output=True,
                       text=True, env=env)
    wall = time.perf_counter() - t0
    log.write_text(p.stdout + p.stderr)
    if p.returncode != 0:
        raise SystemExit(f"corpus run failed ({config}): {p.stderr.strip().splitlines()[-1]}")
    stages = {}
    for line in p.stdout.splitlines()[1:-1]:
        m = ROW.match(line)
        if m:
            stages[m.group(1)] = {"status": m.group(2), "seconds": float(m.group(3))}
    return {"wall_s": round(wall, 2), "stages": stages}


def counts(artifacts: Path, version: str) -> dict:
    """Documents out of filter, the per-document cache use of dedup, pii and tokenize."""
    base = artifacts / "corpus" / "demo" / version
    out = {"filter_docs_out": json.loads((base / "stages/03-filter/_STAGE.json").read_text())["counts"]["docs_out"]}
    for stage, key in CACHES.items():
        run_file = base / "stages" / stage / "_RUN.json"
        if run_file.is_file():
            out[key] = json.loads(run_file.read_text()).get(key)
    for d in (artifacts / "tokens" / "demo" / version).iterdir():
        r = json.loads((d / "_RUN.json").read_text())
        out["tokenize"] = {k: r.get(k) for k in ("encode_cache", "token_docs_cache", "tokenizer_training")}
    return out


def edited(base: dict, version: str, edit: str) -> dict:
    key, value = edit.split("=")
    data = json.loads(json.dumps(base))
    data["dataset"]["version"] = version
    *tables, leaf = key.split(".")
    t = data
    for name in tables:
        t = t.setdefault(name, {})
    t[leaf] = json.loads(value)
    return data


def sequence(a, env: dict) -> dict:
    base = tomllib.loads(a.config.read_text())
    with tempfile.TemporaryDirectory(prefix="reuse-") as tmp:
        work = Path(tmp)
        base["paths"]["artifacts"] = str(work / "artifacts")
        base["paths"]["ledger"] = str((REPO / base["paths"]["ledger"]).resolve())
        res = {}
        for step, version, edit in (("first", "v1", None), ("drop_edit", "v2", a.drop_edit),
                                    ("same_edit", "v3", a.same_edit)):
            data = edited(base, version, edit) if edit else base
            path = work / f"{version}.toml"
            path.write_text(dump_toml(data))
            res[step] = {**run(path, work / f"{version}.log", env), "edit": edit,
                         **counts(work / "artifacts", version)}
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml")
    ap.add_argument("--drop-edit", default="filters.gopher.min_words=55", help="an edit dropping ~2%% of documents")
    ap.add_argument("--same-edit", default="filters.gopher.max_words=99999", help="an edit that keeps every document")
    ap.add_argument("--package", type=Path, default=None, help="run the children on this python/ directory")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    env = dict(os.environ)
    if a.package is not None:
        env["PYTHONPATH"] = str(a.package.resolve())
    runs = [sequence(a, env) for _ in range(a.repeat)]
    res = runs[0]
    for step in res:
        for stage, s in res[step]["stages"].items():
            s["seconds_each_repeat"] = [r[step]["stages"][stage]["seconds"] for r in runs]
            s["seconds"] = min(s["seconds_each_repeat"])
        res[step]["total_s"] = round(sum(s["seconds"] for s in res[step]["stages"].values()), 2)
    for step in ("drop_edit", "same_edit"):
        res[step]["share_of_first"] = round(res[step]["total_s"] / res["first"]["total_s"], 3)
        res[step]["docs_dropped_share"] = round(1 - res[step]["filter_docs_out"] / res["first"]["filter_docs_out"], 4)
    res["package"] = str(a.package or REPO / "python")
    res["repeat"] = a.repeat
    write_results(a.json, res)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
