"""What the bench scripts share: where things are, the real data, measuring memory and time, the header
every results file gets, and the corpora and configs they build.

A bench script runs as `python bench/<script>.py`, so bench/ is on sys.path and `import common` finds
this file. Nothing here imports from tests/: the benchmarks and the test suite share no code.

- paths and data: REPO, BENCH, RESULTS, LEDGER, mirror_dir(), ledger_rows(), sha256_of()
- measuring: measured() (a child's process tree: wall, peak summed RSS, CPU), best_of(), best_seconds(),
  status_bytes() and reset_peak_rss() (this process's VmRSS/VmHWM), maxrss_mb(), loadavg()
- provenance: provenance() (commit, machine, command line), write_results() (JSON and Markdown with it)
- building corpora: jsonl_line(), write_permuted(), real_records(), build_big_source(), ledger_row(),
  write_ledger(), write_config()
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import platform
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
LEDGER = REPO / "corpus" / "LEDGER.jsonl"
PY = sys.executable
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")
# The children run corpus as a user's shell does, with compiled bytecode kept: an environment that sets
# PYTHONDONTWRITEBYTECODE (this machine's does) makes every `corpus` process and pool worker compile every
# module again, ~0.45 s a process, a cost no user pays (provenance() records what was dropped).
DROPPED_ENV = sorted(v for v in ("PYTHONDONTWRITEBYTECODE",) if os.environ.pop(v, None) is not None)

# ---------------------------------------------------------------- paths and data


def mirror_dir() -> Path:
    """The real-data mirror (files named by their sha256): CORPUS_MIRROR, else ../shared/data/mirror."""
    return Path(os.environ.get("CORPUS_MIRROR") or REPO.parent / "shared" / "data" / "mirror")


def ledger_rows(path: Path = LEDGER) -> dict[str, dict]:
    """The ledger's rows by source_id (no checks: corpus.config.ledger.load_ledger validates)."""
    return {r["source_id"]: r for r in map(json.loads, path.read_text().splitlines()) if r}


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def stage_names() -> tuple[str, ...]:
    """The stages in order, from the stage table."""
    from corpus.stages import STAGES

    return tuple(s.name for s in STAGES)


# ---------------------------------------------------------------- measuring

# The child that runs one `corpus` command in-process and then writes its own resource usage to argv[1]:
# `python -c STAGE_CHILD OUT.json --config X <stage> ...` (run_bench.py, scale.py).
STAGE_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
out, argv = sys.argv[1], sys.argv[2:]
sys.argv = ["corpus", *argv]
from corpus.commands.launch import main  # what the `corpus` command runs
rc = 0
try:
    main()
except SystemExit as e:
    rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
wall = time.perf_counter() - t0
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    json.dump({"rc": rc, "child_wall_s": wall, "self_maxrss_mb": s.ru_maxrss / 1024,
               "children_maxrss_mb": c.ru_maxrss / 1024}, f)
sys.exit(rc)
"""


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, rss KiB, utime+stime ticks) for every process we can read."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # after "pid (comm) "
        # fields[0] = state (field 3); ppid = field 4; utime, stime = fields 14, 15; rss pages = field 24
        table[int(entry.name)] = (int(fields[1]), int(fields[21]) * PAGE_KB, int(fields[11]) + int(fields[12]))
    return table


def _tree(table: dict, root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in table:
            out.append(pid)
            todo.extend(children.get(pid, []))
    return out


def measured(cmd: list[str], *, log: Path, env: dict | None = None, timeout: float = 1200,
             interval: float = 0.05) -> dict:
    """Run cmd in its own session, its output appended to `log`: wall, the peak of the summed RSS of its
    whole process tree (pool workers and forkserver included; sampled every `interval` s) and approximate
    CPU seconds. A page shared by several processes counts once in each."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as logf:
        logf.write(("$ " + " ".join(map(str, cmd)) + "\n").encode())
        logf.flush()
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        peak_kb, cpu_ticks, nproc = 0, {}, set()
        timed_out = False
        while p.poll() is None:
            table = _proc_table()
            pids = _tree(table, p.pid)
            peak_kb = max(peak_kb, sum(table[q][1] for q in pids))
            for q in pids:
                cpu_ticks[q] = table[q][2]
                nproc.add(q)
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                break
            time.sleep(interval)
        wall = time.perf_counter() - t0
    return {"rc": p.returncode, "wall_s": wall, "tree_peak_rss_mb": peak_kb / 1024,
            "cpu_s_approx": sum(cpu_ticks.values()) / CLK_TCK, "processes": len(nproc), "timed_out": timed_out}


def best_of(runs: list[dict], wall: str = "wall_s") -> dict:
    """The run with the smallest wall time, with every run's wall (`walls_s`) and, for the process-tree
    and ru_maxrss peaks, the largest of all runs."""
    best = dict(min(runs, key=lambda r: r[wall]))
    best["walls_s"] = [round(r[wall], 3) for r in runs]
    for key in ("tree_peak_rss_mb", "self_maxrss_mb", "children_maxrss_mb"):
        if any(key in r for r in runs):
            best[key] = max(r.get(key, 0) for r in runs)
    return best


def best_seconds(fn, repeat: int = 1) -> float:
    """The fastest of `repeat` calls of fn(), in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def status_bytes(field: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS: now; VmHWM: the peak since start or reset_peak_rss)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak_rss() -> None:
    """Restart this process's VmHWM from its current RSS (Linux: clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def maxrss_mb() -> dict:
    """ru_maxrss of this process and of the largest of its waited-for children (Linux reports KiB)."""
    return {"self_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "children_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# ---------------------------------------------------------------- provenance


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def _first(path: str, prefix: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine() -> dict:
    """Platform, CPU model (/proc/cpuinfo), cores and RAM of this machine."""
    mem = _first("/proc/meminfo", "MemTotal:")
    return {"platform": platform.platform(), "cpu_model": _first("/proc/cpuinfo", "model name"),
            "cores": os.cpu_count(), "ram_gb": round(int(mem.split()[0]) / 2**20, 1) if mem else None,
            "python": platform.python_version()}


def provenance() -> dict:
    """What a results file must say about how it was made: the commit (and whether the tree had
    uncommitted changes to tracked files), the machine, the exact command line and where it ran."""
    return {"commit": _git("rev-parse", "--short", "HEAD") or None,
            "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
            "machine": machine(), "command": shlex.join(sys.orig_argv), "cwd": os.getcwd(),
            "finished": dt.datetime.now().isoformat(timespec="seconds"), "load_average": loadavg(),
            **({"env_dropped": DROPPED_ENV} if DROPPED_ENV else {})}


def provenance_markdown(p: dict) -> str:
    m = p["machine"]
    return (f"Commit {p['commit']}{' (with uncommitted changes)' if p['dirty'] else ''}; {m['cores']} cores "
            f"({m['cpu_model']}), {m['ram_gb']} GB RAM, {m['platform']}, Python {m['python']}; "
            f"load average at the end {', '.join(map(str, p['load_average']))}. Command (in {p['cwd']}): "
            f"`{p['command']}`" + (f"; {', '.join(p['env_dropped'])} dropped from the environment (compiled bytecode "
                                     f"kept, as a user's shell does)" if p.get("env_dropped") else ""))


def with_provenance(markdown: str, p: dict) -> str:
    """The Markdown with the provenance paragraph after its title (or first, without one)."""
    head, _, rest = markdown.partition("\n")
    if head.startswith("# "):
        return f"{head}\n\n{provenance_markdown(p)}\n\n{rest.lstrip(chr(10))}"
    return f"{provenance_markdown(p)}\n\n{markdown}"


def write_results(json_path: Path | None, data: dict, *, md_path: Path | None = None,
                  markdown: str | None = None) -> dict:
    """Write a bench's results: `json_path` gets `data` with a "provenance" key first, `md_path` (if given)
    the Markdown with the provenance paragraph after its title. A `json_path` of None (no --json given)
    writes no JSON. Returns the provenance."""
    p = provenance()
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({"provenance": p, **data}, indent=1, ensure_ascii=False, default=str) + "\n")
    if md_path is not None and markdown is not None:
        md_path.parent.mkdir(parents=True, exist_ok=True)
        md_path.write_text(with_provenance(markdown, p))
    return p


# ---------------------------------------------------------------- building corpora


# Per-document results the cache keeps (engine/cache.py): emptied before every measured stage run, so that
# a run does its stage's whole work (a second run would otherwise take them from the first one's).
MEMO_KINDS = ("filter-memo", "filter-signals", "pii-memo", "tokens-encode", "minhash-memo", "tokens-docs",
              "tokenizer-train")


def drop_caches(artifacts: Path, kinds=MEMO_KINDS) -> None:
    """Remove these kinds of cache entries (<artifacts>/cache/<kind>/) of a bench artifacts root."""
    for kind in kinds:
        shutil.rmtree(Path(artifacts) / "cache" / kind, ignore_errors=True)


def config_artifacts(config: Path) -> Path:
    """The artifacts root a bench config names."""
    import tomllib

    return Path(tomllib.loads(Path(config).read_text())["paths"]["artifacts"])


def jsonl_line(text: str) -> bytes:
    """One JSONL record {"text": ...}, as the bench corpora hold them."""
    return json.dumps({"text": text}, ensure_ascii=False).encode() + b"\n"


def write_permuted(z, recs: list[bytes], rng, target: int, written: int, n: int) -> tuple[int, int]:
    """Write `recs` to `z` in one seeded permutation, stopping once `target` bytes are written in all;
    returns (bytes written, records written) so far."""
    for i in rng.permutation(len(recs)):
        z.write(recs[i])
        written += len(recs[i])
        n += 1
        if written >= target:
            break
    return written, n


# The real records of the big source: every JSONL record of these mirror sources and these text sources'
# documents, each as {"text": ...}.
BIG_JSONL_SOURCES = ["gsm8k-train", "gsm8k-test", "boolq", "lambada", "enterprise-pii", "piqa", "arc-easy", "hellaswag"]
BIG_TEXT_SOURCES = ["tinystories-train-head", "wikitext2-test"]


def real_records(mirror: Path) -> list[bytes]:
    """Every real record of BIG_JSONL_SOURCES and BIG_TEXT_SOURCES as one JSONL line with a "text" field."""
    from corpus.formats.sources import read_documents

    rows, out = ledger_rows(), []
    for sid in BIG_JSONL_SOURCES + BIG_TEXT_SOURCES:
        row = rows[sid]
        out += [jsonl_line(text) for _, text in read_documents(mirror / row["sha256"], row) if text.strip()]
    return out


def build_big_source(path: Path, mirror: Path, gb: float, seed: int) -> dict:
    """A JSONL.zst of `gb` GB of JSON: the real records, shuffled anew for every copy (numpy PCG64 from
    `seed`), zstd level 3. Returns its records, JSON bytes and file bytes."""
    import numpy as np
    import zstandard

    recs = real_records(mirror)
    rng = np.random.Generator(np.random.PCG64(seed))
    target, written, n = int(gb * 1e9), 0, 0
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as z:
        while written < target:
            written, n = write_permuted(z, recs, rng, target, written, n)
    os.replace(tmp, path)
    return {"records": n, "json_bytes": written, "file_bytes": path.stat().st_size}


def ledger_row(path: Path, source_id: str, license_spdx: str, **extra) -> dict:
    """A ledger row for a local JSONL file the bench built (extra keys: notes, format, ...)."""
    return {"source_id": source_id, "role": "corpus", "url": str(path), "sha256": sha256_of(path),
            "bytes": path.stat().st_size, "license_spdx": license_spdx, "format": "jsonl", **extra}


def write_ledger(path: Path, rows: list[dict]) -> Path:
    """A ledger file; keys starting with "_" (the bench's own notes on a row) are left out."""
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}) + "\n" for r in rows))
    return path


def write_config(path: Path, *, ledger: Path, sources, artifacts: Path, name: str = "t", version: str = "v1",
                 mirror: str | None = None, **tables: dict) -> Path:
    """A TOML config; `tables` maps "shard" or "filters.lang" to a dict of keys."""
    from corpus.config import dump_toml

    data: dict = {"paths": {"ledger": str(ledger), "artifacts": str(artifacts)},
                  "dataset": {"name": name, "version": version, "sources": list(sources)}}
    if mirror is not None:
        data["paths"]["mirror"] = mirror
    for dotted, keys in tables.items():
        d = data
        for part in dotted.split("."):
            d = d.setdefault(part, {})
        d.update(keys)
    path.write_text(dump_toml(data))
    return path
