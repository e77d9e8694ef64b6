"""Data mixtures (issue 32): what a second mix of the same shards costs, on the demo config.

    python bench/mix_reuse.py --json bench/results/mix-reuse-<date>.json

In a fresh artifacts root: `corpus run` (every stage; its tokenize fills the encode cache), then four
`corpus tokenize` runs in child processes: the unmixed stream again with the cache off (`--force`, every
shard encoded: the baseline), mix A ([mix.weights]) and mix B ([mix.targets]) with the cache on (each a new
token directory; encoded shards from the cache), and mix A again with the cache off (`--force`: what mix A
costs when it encodes). For each: the run's seconds (_RUN.json), the wall time, the encode cache counts,
and for the mixes the realised share per source against the target. Mix A's bytes with and without the
cache are compared."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from common import PY, REPO, write_results
from corpus.config import dump_toml

MIX_A = {"seed": 1, "weights": {"wikitext2-test": 2.5, "tinystories-train-head": 0.5, "webtext": 0}}
MIX_B = {"seed": 1, "max_repeats": 4, "targets": {"wikitext2-test": "30%", "gsm8k-train": "10%"}}


def corpus(config: Path, *args: str) -> float:
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "corpus.commands.launch", "--config", str(config), *args], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit(f"corpus {' '.join(args)} failed ({config}): {p.stderr.strip().splitlines()[-1]}")
    return time.perf_counter() - t0


def token_dirs(artifacts: Path) -> dict[str, Path]:
    root = artifacts / "tokens" / "demo" / "v1"
    return {d.name: d for d in root.iterdir() if (d / "_MANIFEST.json").is_file()}


def facts(d: Path, wall: float) -> dict:
    run = json.loads((d / "_RUN.json").read_text())
    m = json.loads((d / "_MANIFEST.json").read_text())
    out = {"dir": d.name, "seconds": run["seconds"], "wall_s": round(wall, 3), "encode_cache": run["encode_cache"],
           "train_tokens": m["splits"]["train"]["tokens"], "val_tokens": m["splits"]["val"]["tokens"]}
    if "mix" in m:
        out["sources"] = {s: {"weight": round(x["weight"], 6), "target": x["target"], "share": round(x["share"], 5),
                              **({"share_error": round(x["share_error"], 5)} if "share_error" in x else {}),
                              "reason": x["reason"], "repetitions": x["repetitions"]}
                          for s, x in m["mix"]["sources"].items() if x["target"] or x["weight"] != 1}
    return out


def token_bytes(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted([*d.rglob("*.bin"), *d.rglob("*.idx")])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    base = tomllib.loads(a.config.read_text())
    with tempfile.TemporaryDirectory(prefix="mix-reuse-") as tmp:
        work = Path(tmp)
        art = work / "artifacts"
        base["paths"]["artifacts"] = str(art)
        base["paths"]["ledger"] = str((REPO / base["paths"]["ledger"]).resolve())

        def write(name: str, mix: dict | None, cache: bool) -> Path:
            data = json.loads(json.dumps(base))
            data.setdefault("run", {})["cache"] = cache
            if mix:
                data["mix"] = mix
            path = work / f"{name}.toml"
            path.write_text(dump_toml(data))
            return path

        t_run = corpus(write("plain", None, True), "run")
        (plain,) = token_dirs(art).values()
        res = {"corpus_run_wall_s": round(t_run, 3)}
        wall = corpus(write("plain-nocache", None, False), "tokenize", "--force")
        res["unmixed_encoding"] = facts(plain, wall)
        for name, mix in (("mix_a", MIX_A), ("mix_b", MIX_B)):
            before = set(token_dirs(art))
            wall = corpus(write(name, mix, True), "tokenize")
            (new,) = set(token_dirs(art)) - before
            res[name] = {**facts(token_dirs(art)[new], wall), "mix": mix}
        a_dir = token_dirs(art)[res["mix_a"]["dir"]]
        cached = token_bytes(a_dir)
        wall = corpus(write("mix_a-nocache", MIX_A, False), "tokenize", "--force")
        res["mix_a_encoding"] = facts(a_dir, wall)
        res["mix_a_identical_with_and_without_cache"] = token_bytes(a_dir) == cached
        res["mix_a_share_of_encoding_run"] = round(res["mix_a"]["seconds"] / res["mix_a_encoding"]["seconds"], 3)
    write_results(a.json, res)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
