"""`make bench-scale`: does memory stay flat and time stay linear as the input grows, and are both cores busy
on a single file? (issue 13)

    CORPUS_MIRROR=../shared/data/mirror .venv/bin/python bench/scale.py [--sizes 1 4 16] [--workers 1 2]
        [--single-mb 133] [--fetch-gb 2] [--workdir /tmp/corpus-scale] [--keep]

1. Corpora from real shared text at 1x, 4x and 16x: the documents of five mirror sources — news
   (minhash-articles-1000, abc-news), stories (tinystories-train-head, tinystories-val-head) and wiki
   (wikitext2-test), consecutive short ones (headlines, paragraphs) joined until a document holds 100
   words — written as one uncompressed JSONL source each. Copy 0 is the original text; every
   further copy replaces each word with probability --sub (default 0.3) by a word drawn from the source's
   own word frequencies (numpy PCG64, seeded by --seed and the copy number), so copies are neither exact
   nor near-duplicates (at 0.3 a 5-word shingle survives with probability 0.17) and stay English-like.
2. Every stage (fetch normalize filter dedup pii shard tokenize), each `corpus <stage> --force` in a fresh
   child process, at every size with every worker count, on the default config (only the ledger, the
   artifacts and the dataset's sources are set). Wall time = the child's; peak RSS = the largest sum of
   RSS over its whole process tree (pool workers included), sampled every 50 ms (common.measured).
   Then tokenize once more at every size with the tokenizer trained at the first size pinned (row
   "tokenize (pinned)"): its memory without the BPE training, which train_sample_bytes bounds.
3. A single JSONL.zst source holding --single-mb MB of JSON (the file is ~2.5x smaller: the default, 133,
   makes a 53.6 MB file, the size of issue 13's "single 53 MB source file", a 53 MB JSONL.zst; --single-mb
   53 gives 53 MB of JSON in a 21 MB file) of the same substituted copies of all five sources, shuffled:
   normalize, filter, dedup, pii with 1 and 2 workers (fetch and shard first), the speedup of 2 workers.
4. `corpus fetch` of one --fetch-gb GB JSONL.zst (common.build_big_source, as bench/scale_read.py: real
   records, shuffled copies), 2 workers, peak RSS of the process tree. --fetch-gb 0 skips it.

Writes bench/results/scale-<date>.json and .md (the Markdown is printed; both record the commit, the
machine and this command line: common.write_results) and checks the targets of
issue 13: at the largest size with 2 workers every stage's peak RSS <= 1.25x and wall <= 18x (for 16x)
its value at 1x; on the single source every per-part stage >= 1.7x faster with 2 workers; the big fetch
peaks below 500 MB. Timings depend on what else runs on the machine: the load average is recorded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import zstandard

from common import (BENCH, PY, REPO, STAGE_CHILD, best_of, build_big_source, config_artifacts, drop_caches, jsonl_line,
                    ledger_row, ledger_rows, loadavg, measured, mirror_dir, sha256_of, stage_names,
                    write_config as config_file, write_ledger, write_permuted, write_results)
from corpus.formats.sources import read_documents

STAGES = stage_names()
BASE_SOURCES = ["minhash-articles-1000", "abc-news", "tinystories-train-head", "tinystories-val-head", "wikitext2-test"]
PER_PART = ("normalize", "filter", "dedup", "pii")
# tokenize again with the tokenizer trained at the first size pinned: its memory without the BPE training
# (which is bounded by [tokenize].train_sample_bytes, not by the corpus)
PINNED = "tokenize (pinned)"
ROWS = (*STAGES, PINNED)
WORD = re.compile(r"\S+")
TARGETS = {"rss_ratio": 1.25, "wall_ratio_per_x": 18 / 16, "single_speedup": 1.7, "big_fetch_mb": 500}


MIN_WORDS = 100


def base_documents(mirror: Path) -> dict[str, list[str]]:
    """Each source's documents, consecutive short ones (headlines, story paragraphs) joined with a newline
    until a document holds MIN_WORDS words: web-page-like documents, most of which pass the Gopher rules,
    so that every later stage gets real work at every size."""
    return {sid: page_documents(mirror, sid) for sid in BASE_SOURCES}


def page_documents(mirror: Path, sid: str, word: re.Pattern = WORD) -> list[str]:
    """A ledger source's documents, consecutive short ones joined with a newline until one holds MIN_WORDS
    words (matches of `word`)."""
    row = ledger_rows()[sid]
    docs, cur, words = [], [], 0
    for _, t in read_documents(mirror / row["sha256"], row):
        if not t.strip():
            continue
        cur.append(t.strip("\n"))
        words += len(word.findall(t))
        if words >= MIN_WORDS:
            docs.append("\n".join(cur))
            cur, words = [], 0
    if cur:
        docs.append("\n".join(cur))
    return docs


class Substituter:
    """Seeded word substitution: each word is replaced with probability `p` by a word drawn from the
    source's own word frequencies (the whitespace between words is kept)."""

    def __init__(self, docs: list[str], p: float):
        words = [w for d in docs for w in WORD.findall(d)]
        self.words = np.array(words, dtype=object)
        self.p = p

    def copy(self, docs: list[str], rng: np.random.Generator) -> list[str]:
        out = []
        for d in docs:
            spans = [m.span() for m in WORD.finditer(d)]
            if not spans:
                out.append(d)
                continue
            hit = rng.random(len(spans)) < self.p
            picks = iter(self.words[rng.integers(0, len(self.words), int(hit.sum()))])
            pieces, last = [], 0
            for (a, b), h in zip(spans, hit):
                if h:
                    pieces.append(d[last:a])
                    pieces.append(next(picks))
                    last = b
            pieces.append(d[last:])
            out.append("".join(pieces))
        return out


def one_copy(subs: dict[str, Substituter], docs: dict[str, list[str]], sid: str, c: int, seed: int) -> list[str]:
    """Copy c of a source's documents; copy 0 is the original."""
    if c == 0:
        return docs[sid]
    return subs[sid].copy(docs[sid], np.random.Generator(np.random.PCG64([seed, c, BASE_SOURCES.index(sid)])))


def copies(docs: dict[str, list[str]], n: int, p: float, seed: int):
    """(source_id, copy number, documents) for copies 0..n-1 of every source."""
    subs = {sid: Substituter(d, p) for sid, d in docs.items()}
    for c in range(n):
        for sid in docs:
            yield sid, c, one_copy(subs, docs, sid, c, seed)


def build_sized(work: Path, docs: dict[str, list[str]], n: int, p: float, seed: int) -> list[dict]:
    """One uncompressed JSONL source per base source with n copies; returns their ledger rows."""
    d = work / f"data-{n}x"
    d.mkdir(parents=True, exist_ok=True)
    base_rows = ledger_rows()
    files = {sid: open(d / f"{sid}.jsonl", "wb") for sid in BASE_SOURCES}
    try:
        for sid, _, texts in copies(docs, n, p, seed):
            files[sid].write(b"".join(map(jsonl_line, texts)))
    finally:
        for f in files.values():
            f.close()
    return [ledger_row(d / f"{sid}.jsonl", f"scale-{sid}", base_rows[sid]["license_spdx"],
                       notes=f"bench/scale.py: {n} copies of {sid}, word substitution p={p}, seed {seed}")
            for sid in BASE_SOURCES]


def build_single(work: Path, docs: dict[str, list[str]], mb: float, p: float, seed: int) -> dict:
    """One JSONL.zst source of about `mb` MB of JSON: copies of every source, shuffled per copy."""
    path = work / f"single-{mb:g}mb.jsonl.zst"
    target, written, n = int(mb * 1e6), 0, 0
    rng = np.random.Generator(np.random.PCG64([seed, 99]))
    with open(path, "wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as z:
        c = 0
        subs = {sid: Substituter(d, p) for sid, d in docs.items()}
        while written < target:
            recs = [jsonl_line(t) for sid in docs for t in one_copy(subs, docs, sid, c, seed)]
            written, n = write_permuted(z, recs, rng, target, written, n)
            c += 1
    return ledger_row(path, "scale-single", "LicenseRef-mixed", notes=f"bench/scale.py: {n} documents, {written} "
                      "bytes of JSON", _docs=n, _json_bytes=written)


def write_config(work: Path, name: str, rows: list[dict], tokenizer: Path | None = None) -> Path:
    """The default config on these rows (only the ledger, the artifacts and the sources set), with
    `tokenizer` pinned if given."""
    ledger = write_ledger(work / f"{name}-LEDGER.jsonl", rows)
    pinned = {"tokenize": {"tokenizer": str(tokenizer), "tokenizer_sha256": sha256_of(tokenizer)}} if tokenizer else {}
    return config_file(work / f"{name}{'-pinned' if tokenizer is not None else ''}.toml", ledger=ledger,
                       sources=[r["source_id"] for r in rows], artifacts=work / f"artifacts-{name}", name="scale",
                       version=name, mirror="", **pinned)


class Runner:
    def __init__(self, work: Path):
        self.work, self.logs = work, work / "logs"
        self.env = {k: v for k, v in os.environ.items() if k not in ("CORPUS_ARTIFACTS", "CORPUS_CONFIG", "RAYON_NUM_THREADS")}
        self.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), self.env.get("PYTHONPATH")]))
        self.env["PYTHONUNBUFFERED"] = "1"

    def stage(self, config: Path, name: str, stage: str, workers: int) -> dict:
        out = self.work / "stage-json" / f"{name}-{stage}-w{workers}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"{name}-{stage}-w{workers}.log"
        cmd = [PY, "-c", STAGE_CHILD, str(out), "--config", str(config), stage, "--workers", str(workers), "--force"]
        drop_caches(config_artifacts(config))  # the stage's whole work, not the last run's per-document results
        m = measured(cmd, log=log, env=self.env, timeout=3600)
        if m["rc"] != 0:
            raise SystemExit(f"{name}: stage {stage} failed with {workers} workers; log: {log}")
        m.update(json.loads(out.read_text()))
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip() and not ln.startswith("$ ")]
        ours = [ln.strip() for ln in lines if ln.startswith(f"{stage}:") or ln.startswith("fetched ")]
        summary = ours[-1] if ours else ""
        print(f"[scale {time.strftime('%H:%M:%S')}] {name:<8} {stage:<9} w{workers}: {m['wall_s']:7.2f} s, "
              f"peak RSS {m['tree_peak_rss_mb']:7.1f} MB", file=sys.stderr, flush=True)
        return {"stage": stage, "workers": workers, "wall_s": round(m["wall_s"], 3),
                "peak_rss_mb": round(m["tree_peak_rss_mb"], 1), "cpu_s": round(m["cpu_s_approx"], 2),
                "processes": m["processes"], "cores_used": round(m["cpu_s_approx"] / max(m["wall_s"], 1e-9), 2),
                "load_after": loadavg(), "summary": summary[:300]}


def input_mb(rows: list[dict]) -> float:
    return sum(r["bytes"] for r in rows) / 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 4, 16])
    ap.add_argument("--reuse-sizes", type=Path, default=None, metavar="JSON",
                    help="take the sized runs from an earlier scale-<date>.json instead of running them "
                         "(to re-run only the single-file part, e.g. when the machine was busy)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--sub", type=float, default=0.3, help="probability that a word of a copy is substituted")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--single-mb", type=float, default=133.0,
                    help="MB of JSON in the single-file source (0: skip); 133 makes a 53.6 MB .jsonl.zst")
    ap.add_argument("--fetch-gb", type=float, default=2.0, help="size of the big fetch (0: skip)")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each single-file stage (the fastest is kept)")
    ap.add_argument("--stages", nargs="+", choices=STAGES, default=None,
                    help="measure only these stages (the stages before them run once, with the most workers, "
                         "unrecorded; none after them runs)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/corpus-scale"))
    ap.add_argument("--keep", action="store_true", help="keep the work dir (corpora and artifacts)")
    ap.add_argument("--out", type=Path, default=BENCH / "results")
    args = ap.parse_args(argv)
    mirror = mirror_dir().resolve()
    work = args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    runner = Runner(work)
    res: dict = {"date": dt.date.today().isoformat(), "load_before": loadavg(), "cpus": os.cpu_count(),
                 "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                 "sizes": [], "single": None, "big_fetch": None}
    pinned = work / "pinned-tokenizer.json"
    pinned.unlink(missing_ok=True)
    if args.reuse_sizes:
        earlier = json.loads(args.reuse_sizes.read_text())
        res["sizes"], res["reused_sizes_from"] = earlier["sizes"], {
            "file": args.reuse_sizes.name, "load_before": earlier["load_before"], "load_after": earlier.get("load_after")}
        args.sizes = []
    try:
        docs = base_documents(mirror)
        for n in args.sizes:
            t0 = time.perf_counter()
            rows = build_sized(work, docs, n, args.sub, args.seed)
            cfg = write_config(work, f"{n}x", rows)
            entry = {"x": n, "input_mb": round(input_mb(rows), 2), "build_s": round(time.perf_counter() - t0, 1),
                     "runs": []}
            print(f"[scale] {n}x: {entry['input_mb']} MB of JSONL in {len(rows)} sources", file=sys.stderr, flush=True)
            if args.stages:
                last = max(STAGES.index(st) for st in args.stages)
                for stage in STAGES[:last + 1]:
                    if stage not in args.stages:  # a prerequisite: its output is what the measured stage reads
                        runner.stage(cfg, f"{n}x", stage, max(args.workers))
                        continue
                    for w in args.workers:
                        entry["runs"].append(runner.stage(cfg, f"{n}x", stage, w))
            else:
                for w in args.workers:
                    for stage in STAGES:
                        entry["runs"].append(runner.stage(cfg, f"{n}x", stage, w))
            if not args.stages or "tokenize" in args.stages:
                if not pinned.is_file():  # the first size's trained tokenizer, pinned at every size
                    shutil.copy(next((work / f"artifacts-{n}x" / "tokens").glob("*/*/*/tokenizer.json")), pinned)
                pinned_cfg = write_config(work, f"{n}x", rows, tokenizer=pinned)
                for w in args.workers:
                    entry["runs"].append({**runner.stage(pinned_cfg, f"{n}x-pinned", "tokenize", w), "stage": PINNED})
            res["sizes"].append(entry)
            if not args.keep:
                shutil.rmtree(work / f"artifacts-{n}x", ignore_errors=True)
                shutil.rmtree(work / f"data-{n}x", ignore_errors=True)
        if args.single_mb:
            row = build_single(work, docs, args.single_mb, args.sub, args.seed)
            cfg = write_config(work, "single", [row])
            single = {"file_mb": round(row["bytes"] / 1e6, 2), "json_mb": round(row["_json_bytes"] / 1e6, 2),
                      "docs": row["_docs"], "runs": []}
            for stage in ("fetch", "normalize", "filter", "dedup", "pii"):
                for w in args.workers:
                    if stage == "fetch" and w != max(args.workers):
                        continue
                    runs = [runner.stage(cfg, "single", stage, w) for _ in range(1 if stage == "fetch" else args.repeat)]
                    single["runs"].append(best_of(runs))
            art = work / "artifacts-single" / "corpus" / "scale" / "single" / "stages" / "02-normalize" / "_STAGE.json"
            single["parts"] = len(json.loads(art.read_text())["parts"])
            res["single"] = single
            if not args.keep:
                shutil.rmtree(work / "artifacts-single", ignore_errors=True)
        if args.fetch_gb:
            src = work / f"big-{args.fetch_gb:g}gb.jsonl.zst"
            built = build_big_source(src, mirror, args.fetch_gb, args.seed)
            row = ledger_row(src, "scale-big", "LicenseRef-mixed")
            cfg = write_config(work, "big", [row])
            r = runner.stage(cfg, "big", "fetch", max(args.workers))
            res["big_fetch"] = {**r, "file_mb": round(row["bytes"] / 1e6, 1), "json_mb": round(built["json_bytes"] / 1e6, 1),
                                "docs": built["records"]}
            if not args.keep:
                shutil.rmtree(work / "artifacts-big", ignore_errors=True)
                src.unlink()
    finally:
        res["load_after"] = loadavg()
        stem = args.out / f"scale-{res['date']}"
        res["checks"] = checks(res)
        md = markdown(res)
        write_results(stem.with_suffix(".json"), res, md_path=stem.with_suffix(".md"), markdown=md)
        print(stem.with_suffix(".md").read_text())
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _run(entry: dict, stage: str, w: int) -> dict | None:
    return next((r for r in entry["runs"] if r["stage"] == stage and r["workers"] == w), None)


def checks(res: dict) -> list[dict]:
    out = []
    sizes = res["sizes"]
    if len(sizes) >= 2:
        lo, hi = sizes[0], sizes[-1]
        w = max(r["workers"] for r in lo["runs"])
        ratio_x = hi["x"] / lo["x"]
        for stage in ROWS:
            a, b = _run(lo, stage, w), _run(hi, stage, w)
            if a and b:
                rss = b["peak_rss_mb"] / a["peak_rss_mb"]
                wall = b["wall_s"] / a["wall_s"]
                out.append({"check": f"{stage}: peak RSS {hi['x']}x / {lo['x']}x (w{w})", "value": round(rss, 2),
                            "target": f"<= {TARGETS['rss_ratio']}", "ok": rss <= TARGETS["rss_ratio"]})
                lim = TARGETS["wall_ratio_per_x"] * ratio_x
                out.append({"check": f"{stage}: wall {hi['x']}x / {lo['x']}x (w{w})", "value": round(wall, 2),
                            "target": f"<= {lim:g}", "ok": wall <= lim})
    if res.get("single"):
        for stage in PER_PART:
            a, b = _run(res["single"], stage, 1), _run(res["single"], stage, 2)
            if a and b:
                s = a["wall_s"] / b["wall_s"]
                out.append({"check": f"single file: {stage} speedup 2 vs 1 worker", "value": round(s, 2),
                            "target": f">= {TARGETS['single_speedup']}", "ok": s >= TARGETS["single_speedup"]})
    if res.get("big_fetch"):
        v = res["big_fetch"]["peak_rss_mb"]
        out.append({"check": f"fetch of one {res['big_fetch']['file_mb']} MB JSONL.zst: peak RSS MB", "value": v,
                    "target": f"< {TARGETS['big_fetch_mb']}", "ok": v < TARGETS["big_fetch_mb"]})
    return out


def end_to_end(entry: dict, w: int) -> dict | None:
    """Core-seconds per MB of a size's input at w workers, every stage (tokenizer trained) and with
    tokenize's pinned run in its place; None when a stage is missing."""
    runs = {st: _run(entry, st, w) for st in ROWS}
    if any(runs[st] is None for st in STAGES):
        return None
    trained = sum(runs[st]["wall_s"] for st in STAGES) * w / entry["input_mb"]
    pinned = trained + ((runs[PINNED]["wall_s"] - runs["tokenize"]["wall_s"]) * w / entry["input_mb"]
                        if runs[PINNED] else float("nan"))
    return {"trained": trained, "pinned": pinned}


def markdown(res: dict) -> str:
    L = [f"# Scale bench {res['date']} (bench/scale.py)", "",
         f"{res['cpus']} CPUs, load average before {res['load_before']}, after {res.get('load_after')}. "
         "Default config; wall = the stage's child process; peak RSS = largest sum of RSS over its process tree "
         "(sampled every 50 ms).", ""]
    reused = res.get("reused_sizes_from") or {}
    busiest = max(res["load_before"][0], (res.get("load_after") or [0])[0],
                  *((reused.get(k) or [0])[0] for k in ("load_before", "load_after")))
    if busiest > res["cpus"]:
        L += [f"The machine was busy (load average up to {busiest} on {res['cpus']} CPUs, others' jobs): wall "
              "times are inflated and the 1-vs-2-worker speedups measure the competition for cores, not the "
              "stages; the peak RSS figures are unaffected.", ""]
    if res.get("reused_sizes_from"):
        r = res["reused_sizes_from"]
        L += [f"The sized runs (1x/4x/16x) are those of an earlier run ({r['file']}: load average before "
              f"{r['load_before']}, after {r['load_after']}); only the single-file part was run again.", ""]
    if res["sizes"]:
        workers = sorted({r["workers"] for r in res["sizes"][0]["runs"]})
        head = "| stage | " + " | ".join(f"{e['x']}x ({e['input_mb']} MB) w{w} wall s / RSS MB"
                                         for e in res["sizes"] for w in workers) + " |"
        L += [head, "|" + "---|" * (1 + len(res["sizes"]) * len(workers))]
        for stage in ROWS:
            cells = []
            for e in res["sizes"]:
                for w in workers:
                    r = _run(e, stage, w)
                    cells.append(f"{r['wall_s']:.1f} / {r['peak_rss_mb']:.0f}" if r else "")
            L.append(f"| {stage} | " + " | ".join(cells) + " |")
        L.append("")
        L += ["End to end: core-seconds per MB of input (wall × workers ÷ MB, every stage in its own process) and "
              "core-hours per TB (× 10⁶ ÷ 3600), with the BPE tokenizer trained and pinned:", "",
              "| size | workers | core-s per MB (trained) | core-h per TB (trained) | core-s per MB (pinned) | "
              "core-h per TB (pinned) |", "|---|---:|---:|---:|---:|---:|"]
        for e in res["sizes"]:
            for w in workers:
                e2e = end_to_end(e, w)
                if e2e:
                    L.append(f"| {e['x']}x ({e['input_mb']} MB) | {w} | {e2e['trained']:.3f} | "
                             f"{e2e['trained'] * 1e6 / 3600:.0f} | {e2e['pinned']:.3f} | "
                             f"{e2e['pinned'] * 1e6 / 3600:.0f} |")
        L.append("")
        L += ["What each stage did (its summary line, 2 workers):", ""]
        for e in res["sizes"]:
            w = max(workers)
            said = [(st, (_run(e, st, w) or {}).get("summary", "")) for st in STAGES]
            L.append(f"- {e['x']}x: " + "; ".join(f"{st}: {x}" if not x.startswith(st) else x for st, x in said
                                                 if x.startswith((st, "fetched "))))
        L.append("")
    s = res.get("single")
    if s:
        L += [f"Single source: {s['file_mb']} MB JSONL.zst ({s['json_mb']} MB of JSON, {s['docs']} docs, "
              f"{s.get('parts', '?')} parts)", "", "| stage | w1 wall s | w2 wall s | speedup | w1 RSS MB | w2 RSS MB | w2 cores used (CPU s / wall s) |",
              "|---|---|---|---|---|---|---|"]
        for stage in ("fetch", *PER_PART):
            a, b = _run(s, stage, 1), _run(s, stage, 2)
            if b:
                L.append(f"| {stage} | {a['wall_s']:.1f} | {b['wall_s']:.1f} | {a['wall_s'] / b['wall_s']:.2f} | "
                         f"{a['peak_rss_mb']:.0f} | {b['peak_rss_mb']:.0f} | {b['cores_used']} |" if a else
                         f"| {stage} | | {b['wall_s']:.1f} | | | {b['peak_rss_mb']:.0f} | {b['cores_used']} |")
        L.append("")
    b = res.get("big_fetch")
    if not b and not res["args"].get("fetch_gb"):
        L += ["The big fetch was skipped (--fetch-gb 0).", ""]
    if b:
        L += [f"Fetch of one {b['file_mb']} MB JSONL.zst ({b['json_mb']} MB of JSON, {b['docs']} docs), "
              f"{b['workers']} workers: {b['wall_s']:.1f} s, peak RSS {b['peak_rss_mb']:.0f} MB.", ""]
    if res.get("checks"):
        L += ["| target | value | wanted | met |", "|---|---|---|---|"]
        L += [f"| {c['check']} | {c['value']} | {c['target']} | {'yes' if c['ok'] else 'NO'} |" for c in res["checks"]]
        L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main())
