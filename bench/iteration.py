"""Iterating on a dataset (issues 33, 48): what an edit costs after a first run, on the demo config or on
a corpus file (--corpus, e.g. the >= 50 MB one of bench_corpus.py).

    python bench/iteration.py --json bench/results/iteration-<date>-<commit>-<machine>.json
    python bench/iteration.py --corpus bench/data/bench-corpus-55mb-s0.jsonl.zst --repeat 1 --json ...

In a fresh artifacts root: (1) `corpus run` from scratch; (2) the same again (nothing to do); (3) a new
version with one filter threshold changed ([filters.gopher] min_words 50 -> 60, or --min-words); (4) a new version with a
threshold edit that changes no decision (min_words 50 -> the largest value that keeps the same documents,
found with `corpus tune` from v1's signals: what a user would do), which should leave every later stage
reused; (5) a further version that adds sources of about 5% of the documents; (6) the version of (3)
built from scratch in another root ([run] cache off), whose published files must be byte for byte those
of (3) (_RUN.json and the manifests, which name the version and record timings, aside). With
--pin-tokenizer every version pins the tokenizer a run of v1 in another root trained (what a user iterating on
filters for one model does: a trained tokenizer is a function of the corpus, so any edit that changes a
document retrains it and re-encodes every document; pinned, only the changed documents are encoded). Each is `corpus
run` in a child process; its seconds are the run's own (the summary line: interpreter start aside), per
stage from its table, and the wall time. For (3)-(5): the per-part units reused from published versions
and computed, from each stage's _RUN.json. The sequence is repeated (--repeat, in fresh roots) and each
figure is the fastest of its repeats: the share is of the fastest first run, so one disturbed run does
not decide it."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from common import PY, REPO, write_results
from corpus.config import dump_toml

PART_STAGES = ("02-normalize", "03-filter", "05-pii")


STATUS = re.compile(r"^(\w+)\s+(current|computed|recomputed|reused \d+/\d+ units)\s+([0-9.]+)\s")


def run(config: Path, log: Path, *args: str) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "corpus.commands.launch", "--config", str(config), "run", *args],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    log.write_text(p.stdout + p.stderr)
    if p.returncode != 0:
        raise SystemExit(f"corpus run failed ({config}): {p.stderr.strip().splitlines()[-1]}")
    m = re.search(r"all stages through \w+ in ([0-9.]+)s", p.stdout)
    rows = [STATUS.match(line) for line in p.stdout.splitlines()]
    return {"seconds": float(m.group(1)), "wall_s": wall,
            "stages": {r.group(1): r.group(2) for r in rows if r},
            "stage_seconds": {r.group(1): float(r.group(3)) for r in rows if r}}


def tune(config: Path, key: str, values: list) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "corpus.commands.launch", "--config", str(config), "tune", "--json", key,
                        *map(str, values)], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"corpus tune failed ({config}): {p.stderr.strip().splitlines()[-1]}")
    return {**json.loads(p.stdout), "wall_s": time.perf_counter() - t0}


NO_CHANGE = ("filters.gopher.max_words", 1_000_000)  # above every document's word count here (tune checks it)


def published_files(artifacts: Path, dataset: str, version: str) -> dict[str, str]:
    """sha256 of every published file of a version, _RUN.json (timings, hosts) aside."""
    import hashlib

    root = artifacts / "corpus" / dataset / version
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name not in ("_RUN.json", ".corpus.lock")}


def units(artifacts: Path, version: str, dataset: str = "demo") -> dict:
    out = {}
    for stage in PART_STAGES:
        r = json.loads((artifacts / "corpus" / dataset / version / "stages" / stage / "_RUN.json").read_text())
        total = sum(r.get("units_run", {}).values())
        reused = sum(r.get("reused_units", {}).values())
        out[stage] = {"units": total, "reused": reused, "computed": total - reused}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="a JSONL(.zst) corpus file as the only source (run_bench.py's --corpus), e.g. the "
                         ">= 50 MB one of bench_corpus.py")
    ap.add_argument("--add-sources", nargs="+", default=["lingua-en", "lingua-de"],
                    help="the sources v3 adds (default lingua-en lingua-de: ~2,000 documents, ~5%% of the demo's)")
    ap.add_argument("--min-words", type=int, default=60,
                    help="the [filters.gopher] min_words of the threshold edit (default 60; v1 has the config's)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="repeat the whole sequence in fresh roots; each figure is the fastest (default 3)")
    ap.add_argument("--pin-tokenizer", action="store_true",
                    help="every version pins the tokenizer a first run of v1 trained (in another root, not timed)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    a.tokenizer = None
    if a.pin_tokenizer:
        keep = tempfile.TemporaryDirectory(prefix="iteration-tokenizer-")
        a.tokenizer = trained_tokenizer(a, Path(keep.name))
    runs = [sequence(a) for _ in range(a.repeat)]
    res = min(runs, key=lambda r: r["first"]["seconds"])  # the least disturbed first run
    for step in ("first", "noop", "filter_edit", "no_change_edit", "add_source"):
        res[step] = {**res[step], "seconds": min(r[step]["seconds"] for r in runs),
                     "seconds_each_repeat": [r[step]["seconds"] for r in runs]}
    first, edit = res["first"], res["filter_edit"]
    edit["share_of_first"] = edit["seconds"] / first["seconds"]
    edit["filter_stage_share_of_first"] = min(r["filter_edit"]["stage_seconds"]["filter"] for r in runs) / first["seconds"]
    edit["filter_stage_share_of_first_filter_stage"] = (min(r["filter_edit"]["stage_seconds"]["filter"] for r in runs)
                                                       / min(r["first"]["stage_seconds"]["filter"] for r in runs))
    res["no_change_edit"]["share_of_first"] = res["no_change_edit"]["seconds"] / first["seconds"]
    res["byte_identical_to_scratch"] = all(r["scratch"]["identical"] for r in runs)
    res["repeat"] = a.repeat
    res["tokenizer"] = "pinned (trained by a run of v1 in another root)" if a.pin_tokenizer else "trained by each version"
    write_results(a.json, res)
    print(json.dumps(res, indent=1))
    return 0


def trained_tokenizer(a, work: Path) -> Path:
    """The tokenizer.json a run of v1 (tokenizer trained) in a root of its own gives, copied to `work`."""
    import shutil

    base = base_config(argparse.Namespace(**{**vars(a), "tokenizer": None}), work)
    config = work / "v1.toml"
    config.write_text(dump_toml(base))
    run(config, work / "tokenizer.log")
    trained = sorted((Path(base["paths"]["artifacts"]) / "tokens" / base["dataset"]["name"] / base["dataset"]["version"])
                     .glob("*/tokenizer.json"))
    shutil.copyfile(trained[0], work / "tokenizer.json")
    shutil.rmtree(base["paths"]["artifacts"])
    return work / "tokenizer.json"


def base_config(a, work: Path) -> dict:
    """The config of v1: the given one, or (--corpus) the bench config of run_bench.py, whose ledger also
    holds the sources v3 adds; with a.tokenizer, pinned to it."""
    base = _base_config(a, work)
    if a.tokenizer is not None:
        import hashlib

        base.setdefault("tokenize", {}).update(tokenizer=str(a.tokenizer),
                                               tokenizer_sha256=hashlib.sha256(a.tokenizer.read_bytes()).hexdigest())
    return base


def _base_config(a, work: Path) -> dict:
    if a.corpus is None:
        base = tomllib.loads(a.config.read_text())
        base["paths"]["artifacts"] = str(work / "artifacts")
        base["paths"]["ledger"] = str((REPO / base["paths"]["ledger"]).resolve())
        return base
    from run_bench import bench_config, resolve

    path, _ = bench_config(a.config, work, a.corpus)
    base = tomllib.loads(path.read_text())
    rows = [json.loads(line) for line in resolve(tomllib.loads(a.config.read_text())["paths"]["ledger"])
            .read_text().splitlines() if line.strip()]
    ledger = Path(base["paths"]["ledger"])
    with ledger.open("a") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows if r["source_id"] in a.add_sources)
    return base


def sequence(a) -> dict:
    """One first run, no-op, filter edit, edit that changes nothing and added source, in a fresh artifacts
    root; then the filter edit's version from scratch in another root."""
    with tempfile.TemporaryDirectory(prefix="iteration-") as tmp:
        work = Path(tmp)
        base = base_config(a, work)
        dataset = base["dataset"]["name"]
        artifacts = Path(base["paths"]["artifacts"])

        def write(name: str, data: dict) -> Path:
            path = work / f"{name}.toml"
            path.write_text(dump_toml(data))
            return path

        def version(name: str, data: dict, **gopher) -> dict:
            out = json.loads(json.dumps(data))
            out["dataset"]["version"] = name
            out.setdefault("filters", {}).setdefault("gopher", {}).update(gopher)
            return out

        v1 = write("v1", base)
        res = {"first": run(v1, work / "first.log"), "noop": run(v1, work / "noop.log")}
        edit = version("v2", base, min_words=a.min_words)
        res["filter_edit"] = {**run(write("v2", edit), work / "v2.log"), "units": units(artifacts, "v2", dataset)}
        key, value = NO_CHANGE
        t = tune(v1, key, [base.get("filters", {}).get("gopher", {}).get("max_words", 100_000), value])
        same = t["values"][0]["by_source"] == t["values"][1]["by_source"]
        res["tune"] = {"key": key, "values": [v["value"] for v in t["values"]], "same_documents": same,
                       "wall_s": t["wall_s"]}
        res["tune_min_words"] = {k: v for k, v in tune(v1, "filters.gopher.min_words", [30, 50, 80]).items()
                                 if k in ("values", "wall_s", "unit")}
        res["no_change_edit"] = {**run(write("v2n", version("v2n", base, max_words=value)), work / "v2n.log"),
                                 "units": units(artifacts, "v2n", dataset), "edit": f"{key} = {value}"}
        more = json.loads(json.dumps(edit))
        more["dataset"]["version"] = "v3"
        more["dataset"]["sources"] = base["dataset"]["sources"] + a.add_sources
        res["add_source"] = {**run(write("v3", more), work / "v3.log"), "units": units(artifacts, "v3", dataset),
                             "sources": a.add_sources}
        u = res["add_source"]["units"]
        res["add_source"]["computed_share"] = sum(x["computed"] for x in u.values()) / max(1, sum(x["units"] for x in u.values()))
        res["scratch"] = scratch(work, edit, artifacts, dataset)
    return res


def scratch(work: Path, edit: dict, artifacts: Path, dataset: str) -> dict:
    """v2 built in a fresh root with the cache off (the raw outputs copied, so fetch dates agree): the
    published files that differ from the edited run's."""
    import shutil

    fresh = json.loads(json.dumps(edit))
    fresh["paths"]["artifacts"] = str(work / "scratch")
    fresh.setdefault("run", {})["cache"] = False
    shutil.copytree(artifacts / "corpus" / "raw", work / "scratch" / "corpus" / "raw")
    path = work / "scratch.toml"
    path.write_text(dump_toml(fresh))
    r = run(path, work / "scratch.log")
    a, b = published_files(artifacts, dataset, "v2"), published_files(work / "scratch", dataset, "v2")
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return {"seconds": r["seconds"], "stages": r["stages"], "files": len(b), "differ": differ, "identical": not differ}


if __name__ == "__main__":
    sys.exit(main())
