"""Takedown (issue 52): what removing 0.1% of a published dataset's documents costs, and whether it holds.

    python bench/takedown.py [--config configs/demo.toml] [--corpus bench/data/bench-corpus-55mb-s0.jsonl.zst]
        [--fraction 0.001] [--seed 0] [--md bench/results/takedown-<date>.md] [--json ...] [--keep DIR]

In a fresh artifacts root: (1) `corpus run` of v1 from scratch; (2) a takedown list of about --fraction of
v1's published documents, drawn with numpy PCG64(--seed), each named by an entry of a kind taken in turn
(id, url, sha256 of the normalized text; a domain entry too when some host has no more documents than
that), as a ledger row of role takedown; (3) `corpus takedown <name>/v1 --to v2 --list <it>`, its wall
time against (1)'s; (4) which shards and token files it rewrote, in bytes, against the share of v1's
shards and token files that held a removed document; (5) `corpus audit` of v2; (6) the config the
takedown wrote, run from scratch in another root with the cache off: its shards and token files must be
byte for byte v2's. Each corpus command runs in a child process."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import subprocess
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

from common import PY, REPO, RESULTS, write_results
from corpus.config import dump_toml
from corpus.formats.parts import read_parquet


def corpus(config: Path, *args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "corpus.commands.launch", "--config", str(config), *args], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit(f"corpus {' '.join(args)} failed ({config}): {(p.stderr.strip().splitlines() or [''])[-1]}")
    return time.perf_counter() - t0, p.stdout


STAGE_NAMES = ("fetch", "normalize", "filter", "dedup", "pii", "shard", "tokenize")


def stage_table(out: str) -> list[str]:
    """The run table a `corpus run`/`takedown` printed (takedown's has no header): per stage its status and
    seconds."""
    return [x.rstrip() for x in out.splitlines() if x.split(" ", 1)[0] in STAGE_NAMES]


def base_config(a, work: Path) -> dict:
    if a.corpus is None:
        base = tomllib.loads(a.config.read_text())
        base["paths"]["ledger"] = str((REPO / base["paths"]["ledger"]).resolve())
    else:
        from run_bench import bench_config

        base = tomllib.loads(bench_config(a.config, work, a.corpus)[0].read_text())
    base["paths"]["artifacts"] = str(work / "artifacts")
    work_ledger = work / "LEDGER.jsonl"
    if Path(base["paths"]["ledger"]) != work_ledger:  # the takedown row goes into a copy, never the repo's
        work_ledger.write_text(Path(base["paths"]["ledger"]).read_text())
        base["paths"]["ledger"] = str(work_ledger)
    return base


def files(directory: Path) -> dict[str, tuple[str, int]]:
    """Shards and token files under a version's directory: relative name -> (sha256, bytes)."""
    out = {}
    for p in sorted(directory.rglob("*")):
        if p.is_file() and p.suffix in (".parquet", ".bin", ".idx") and "stages" not in p.parts:
            data = p.read_bytes()
            out[str(p.relative_to(directory))] = (hashlib.sha256(data).hexdigest(), len(data))
    return out


def pick(artifacts: Path, dataset: str, fraction: float, seed: int) -> tuple[list[str], dict]:
    """The takedown entries and what they name: ~fraction of v1's published documents, kinds in turn."""
    v1 = artifacts / "corpus" / dataset / "v1"
    ids, urls = [], []
    for s in sorted(v1.glob("shard-*.parquet")):
        t = read_parquet(s, columns=["id", "url"])
        ids += t.column("id").to_pylist()
        urls += t.column("url").to_pylist()
    n = max(4, round(fraction * len(ids)))
    chosen = sorted(np.random.Generator(np.random.PCG64(seed)).choice(len(ids), n, replace=False).tolist())
    wanted = {ids[i] for i in chosen}
    texts = {}
    for p in sorted((v1 / "stages" / "02-normalize").glob("part-*.parquet")):
        t = read_parquet(p, columns=["id", "text"])
        texts.update({i: x for i, x in zip(t.column("id").to_pylist(), t.column("text").to_pylist()) if i in wanted})
    from urllib.parse import urlsplit

    hosts: dict[str, int] = {}
    for u in urls:
        h = (urlsplit(u).hostname or "") if u else ""
        hosts[h] = hosts.get(h, 0) + 1
    small = sorted(h for h, c in hosts.items() if h and c <= max(1, n // 4))
    entries, kinds = [], {}
    for k, i in enumerate(chosen):
        kind = ("id", "url", "sha256")[k % 3]
        if kind == "url" and not urls[i]:
            kind = "id"
        value = {"id": ids[i], "url": urls[i], "sha256": hashlib.sha256(texts[ids[i]].encode()).hexdigest()
                 if ids[i] in texts else None}[kind] or ids[i]
        entries.append(f"{kind}:{value}")
        kinds[kind] = kinds.get(kind, 0) + 1
    if small:
        entries.append(f"domain:{small[0]}")
        kinds["domain"] = 1
    return entries, {"documents": len(ids), "chosen": n, "entries_by_kind": kinds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml")
    ap.add_argument("--corpus", type=Path, default=None, help="a JSONL(.zst) corpus as the only source")
    ap.add_argument("--fraction", type=float, default=0.001)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shard-rows", type=int, default=None,
                    help="[shard] shard_rows of v1 (default the config's): the demo's 100,000 make one shard")
    ap.add_argument("--md", type=Path, default=RESULTS / f"takedown-{dt.date.today().isoformat()}.md")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep", type=Path, default=None,
                    help="work in this new directory and leave it (the roots, configs and list) for a closer look")
    a = ap.parse_args(argv)
    if a.keep is not None and a.keep.exists():
        raise SystemExit(f"--keep {a.keep}: exists; name a new directory")
    with tempfile.TemporaryDirectory(prefix="takedown-") as tmp:
        work = Path(tmp) if a.keep is None else a.keep.resolve()
        work.mkdir(parents=True, exist_ok=True)
        base = base_config(a, work)
        dataset = base["dataset"]["name"]
        base["dataset"]["version"] = "v1"
        if a.shard_rows:
            base.setdefault("shard", {})["shard_rows"] = a.shard_rows
        v1 = work / "v1.toml"
        v1.write_text(dump_toml(base))
        first_s, _ = corpus(v1, "run")
        art = Path(base["paths"]["artifacts"])
        entries, picked = pick(art, dataset, a.fraction, a.seed)
        lst = work / "takedown.txt"
        lst.write_text("# bench/takedown.py\n" + "\n".join(entries) + "\n")
        data = lst.read_bytes()
        with open(base["paths"]["ledger"], "a") as f:
            f.write(json.dumps({"source_id": "td-bench", "role": "takedown", "url": str(lst),
                                "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                                "license_spdx": "CC0-1.0", "reason": "bench", "format": "text", "split": "line"}) + "\n")
        takedown_s, out = corpus(v1, "takedown", f"{dataset}/v1", "--to", "v2", "--list", "td-bench")
        m2 = json.loads((art / "corpus" / dataset / "v2" / "_MANIFEST.json").read_text())
        removed = sorted({i for ids in m2["takedown"]["removed"].values() for i in ids})
        old = {**files(art / "corpus" / dataset / "v1"), **{f"tokens/{k}": v for k, v in files(art / "tokens" / dataset / "v1").items()}}
        new = {**files(art / "corpus" / dataset / "v2"), **{f"tokens/{k}": v for k, v in files(art / "tokens" / dataset / "v2").items()}}
        # v1's shards that held a removed document (by id), and every token file of a split that held one
        held = set()
        for s in sorted((art / "corpus" / dataset / "v1").glob("shard-*.parquet")):
            t = read_parquet(s, columns=["id", "split"])
            splits = {sp for i, sp in zip(t.column("id").to_pylist(), t.column("split").to_pylist()) if i in set(removed)}
            if splits:  # the shard, and the token files of the splits its removed documents were in
                held.add(s.name)
                held |= {k for split in splits for k in old if k.startswith("tokens/") and f"/{split}/" in k}
        rewritten = {k: v for k, v in new.items() if old.get(k, ("", 0))[0] != v[0]}
        audit_s, audit_out = corpus(work / "v1-v2.toml", "audit")
        fresh = tomllib.loads((work / "v1-v2.toml").read_text())
        fresh["paths"]["artifacts"] = str(work / "fresh")
        fresh.setdefault("run", {})["cache"] = False
        (work / "fresh.toml").write_text(dump_toml(fresh))
        scratch_s, _ = corpus(work / "fresh.toml", "run")
        fresh_files = {**files(work / "fresh" / "corpus" / dataset / "v2"),
                       **{f"tokens/{k}": v for k, v in files(work / "fresh" / "tokens" / dataset / "v2").items()}}
        total = sum(b for _, b in new.values())
        res = {"config": str(a.config), "corpus": str(a.corpus) if a.corpus else None, "fraction": a.fraction,
               "shard_rows": base.get("shard", {}).get("shard_rows"),
               "seed": a.seed, **picked, "removed": len(removed),
               "removed_by_kind": {k: len(v) for k, v in m2["takedown"]["removed"].items()},
               "first_run_s": round(first_s, 1), "takedown_s": round(takedown_s, 1),
               "takedown_share_of_first": round(takedown_s / first_s, 3),
               "shard_and_token_bytes": total, "rewritten_bytes": sum(b for _, b in rewritten.values()),
               "rewritten_files": sorted(rewritten), "affected_share_bytes": sum(old[k][1] for k in held if k in old),
               "affected_files": sorted(held), "takedown_report": [x for x in out.splitlines() if x.startswith("shards and")],
               "takedown_stages": stage_table(out),
               "audit_ok": audit_out.strip().splitlines()[-1], "audit_s": round(audit_s, 1),
               "scratch_s": round(scratch_s, 1), "byte_identical_to_scratch": fresh_files == new}
    md = (f"# Takedown: {res['removed']} of {res['documents']} documents ({'--corpus ' + res['corpus'] if a.corpus else a.config.name}"
          f", shard_rows {res['shard_rows']})\n\n"
          f"- entries by kind: {res['entries_by_kind']}; removed by kind: {res['removed_by_kind']}\n"
          f"- first run {res['first_run_s']} s; `corpus takedown` {res['takedown_s']} s "
          f"({100 * res['takedown_share_of_first']:.1f}% of it); from scratch with the list {res['scratch_s']} s\n"
          f"- shards and token files of v2: {total:,} bytes; rewritten {res['rewritten_bytes']:,} bytes "
          f"({len(rewritten)} files: {', '.join(res['rewritten_files'])}); v1's files that held a removed document "
          f"(shards, and the token files of the removed documents' splits): {res['affected_share_bytes']:,} bytes "
          f"({len(held)} files)\n"
          f"- {res['takedown_report'][0] if res['takedown_report'] else ''}\n"
          f"- audit of v2: {res['audit_ok']} ({res['audit_s']} s)\n"
          f"- shards and token files byte-identical to the from-scratch run: {res['byte_identical_to_scratch']}\n")
    before = a.md.read_text() if a.md.is_file() else ""  # a second corpus's section goes after the first's
    write_results(a.json, res, md_path=a.md, markdown=md)
    if before:
        a.md.write_text(before.rstrip("\n") + "\n\n" + a.md.read_text())
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
