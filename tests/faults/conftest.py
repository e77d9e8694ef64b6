"""Fault-injection fixtures: one uninterrupted reference run, cheap clones of it, and the kill-point tally.

The reference (tinystories-train-head + wikitext2-test, 150-document parts, 4 shards, 5 token parts) is
built once per session. Each kill test clones its artifacts (a clone's config differs only in [paths],
so its config_sha256 and every identity are the reference's), kills one stage of the clone in a
subprocess, recovers, and compares every published byte with the reference."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from conftest import LEDGER, REPO, write_config
from corpus.formats.jsonl import read_zst_jsonl

SOURCES = ["tinystories-train-head", "wikitext2-test"]
TABLES = {"fetch": {"part_docs": 150}, "decontam": {"evals": []}, "shard": {"shard_rows": 300},
          "tokenize": {"vocab_size": 600, "max_tokens_per_file": 250000}}
KILLS: collections.Counter = collections.Counter()   # stage → kill points tried (the process was SIGKILLed)


def pytest_terminal_summary(terminalreporter):
    if KILLS:
        terminalreporter.write_sep("-", "fault injection: kill points tried per stage")
        for stage, n in KILLS.items():
            terminalreporter.write_line(f"{stage:<10} {n}")
        terminalreporter.write_line(f"{'total':<10} {sum(KILLS.values())}")


def make_config(root: Path) -> Path:
    return write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "a", **TABLES)


def build_reference(tmp_path_factory) -> Path:
    """An uninterrupted `corpus run` (2 workers); returns its workspace (c.toml, a/). The `reference`
    fixture (tests/conftest.py, so faults and badinput share one build per session) calls it."""
    from corpus.config import load_config
    from corpus.commands.pipeline import run_all

    root = tmp_path_factory.mktemp("reference")
    run_all(load_config(make_config(root)), workers=2)
    return root


def clone(reference: Path, dest: Path) -> Path:
    """A copy of the reference workspace; returns its config."""
    shutil.copytree(reference / "a", dest / "a", symlinks=True)
    return make_config(dest)


def _mask_raw(path: Path) -> bytes:
    """A raw part without its fetch time: the decompressed lines with fetched_at blanked."""
    return "".join(json.dumps({**rec, "fetched_at": "<t>"}) + "\n" for rec in read_zst_jsonl(path)).encode()


def published(root: Path) -> dict[str, bytes]:
    """Every published file under an artifacts root: run records and the lock file aside, fetch times
    masked (they are the one thing a new fetch changes). A published raw output must carry one fetch
    time, in its manifest and every line of its parts."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or p.name in ("_RUN.json", ".corpus.lock"):
            continue
        if any(part.endswith((".incomplete", ".old")) for part in p.relative_to(root).parts):
            continue  # staging and renamed-aside outputs are not published
        if rel.startswith("cache/"):
            continue  # the cache (engine.cache) is node-local and never published
        if rel.startswith("corpus/raw/"):
            if p.name == "_STAGE.json":
                m = json.loads(p.read_bytes())
                stamp = m.pop("fetched_at")
                for part in p.parent.glob("part-*.jsonl.zst"):
                    assert {rec["fetched_at"] for rec in read_zst_jsonl(part)} == {stamp}, part
                for part in m["parts"]:  # a part's bytes depend on the fetch time: compare its masked lines
                    part["sha256"] = hashlib.sha256(_mask_raw(p.parent / part["name"])).hexdigest()
                    part.pop("bytes")
                out[rel] = json.dumps(m, sort_keys=True).encode()
            else:
                out[rel] = _mask_raw(p) if p.name.endswith(".jsonl.zst") else p.read_bytes()
            continue
        out[rel] = p.read_bytes()
    return out


def leftovers(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.name.endswith((".incomplete", ".old"))]


def corpus_proc(cfg: Path, *args, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "corpus.commands.cli", "-q", "--config", str(cfg), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, **(env or {})}, start_new_session=True)


def run_killed(cfg: Path, args: list[str], env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `corpus <args>` with a fault hook; it must die of SIGKILL (never finish, never fail)."""
    p = corpus_proc(cfg, *args, env=env)
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == -signal.SIGKILL, f"{args} {env}: exit {p.returncode}\n{err}"
    return subprocess.CompletedProcess(args, p.returncode, out, err)
