"""A real two-node Ray cluster on this machine (`ray start --head` + `ray start --address`, each with its
own temp dir, token authentication): `corpus run` through tokenize with executor "ray" and RAY_ADDRESS
gives the same bytes as the local pool, also when the worker node is SIGKILLed in the middle of a stage
(its task is retried on the head node)."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import tempfile
import time
from pathlib import Path

import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from conftest import LEDGER, run_corpus, write_config

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # a two-node Ray cluster, `corpus run`
pytest.importorskip("ray")
RAY = str(Path(sys.executable).with_name("ray"))
SOURCES = ["tinystories-train-head", "wikitext2-test"]
TABLES = {"shard": {"shard_rows": 150, "val_permille": 50},
          "tokenize": {"vocab_size": 1024, "max_tokens_per_file": 50000}}
GLOBS = ("corpus/t/v1/stages/*/part-*.parquet", "corpus/t/v1/shard-*", "corpus/t/v1/_MANIFEST.json",
         "tokens/**/*.bin", "tokens/**/*.idx", "tokens/**/_MANIFEST.json", "tokens/**/tokenizer.json")
START_TIMEOUT = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    # --block keeps `ray start` in the foreground; its own session holds every process of the node
    # (raylet, GCS, workers), so the finalizer ends exactly those by process group, never by name.
    return subprocess.Popen([RAY, "start", "--block", "--node-ip-address=127.0.0.1", "--num-cpus=1",
                             "--disable-usage-stats", *args], env=env, start_new_session=True,
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)


def _stop(proc: subprocess.Popen) -> None:
    # a head node that has lost its worker took the whole 10 s to stop on SIGTERM (its temp dir goes anyway)
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            time.sleep(0.5)  # the node's other processes get the signal with the group
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(env for clients, head process, worker process): two nodes of one CPU each."""
    root = tmp_path_factory.mktemp("ray")
    # Ray's node sockets live under --temp-dir and a unix socket path has at most 107 bytes: pytest-xdist's
    # tmp paths (.../pytest-N/popen-gw0/ray0/...) are too long, so the nodes' dirs are short ones in /tmp
    short = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    port = _free_port()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    env.pop("RAY_ADDRESS", None)
    procs = []
    try:
        procs.append(_start(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={short / 'head'}"],
                            env, root / "head.log"))
        deadline = time.monotonic() + START_TIMEOUT
        while "Ray runtime started" not in (root / "head.log").read_text():
            assert procs[0].poll() is None and time.monotonic() < deadline, (root / "head.log").read_text()
            time.sleep(0.5)
        procs.append(_start([f"--address=127.0.0.1:{port}", f"--temp-dir={short / 'worker'}"], env, root / "worker.log"))
        probe = ("import ray, time\nray.init(address='127.0.0.1:%d', log_to_driver=False)\n"
                 "while sum(n['Alive'] for n in ray.nodes()) < 2: time.sleep(0.5)\n"
                 "print(sorted(n['NodeManagerAddress'] for n in ray.nodes() if n['Alive']))\n" % port)
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                             timeout=START_TIMEOUT)
        assert out.returncode == 0, out.stderr[-2000:] + (root / "worker.log").read_text()[-2000:]
        yield dict(env, RAY_ADDRESS=f"127.0.0.1:{port}"), procs[0], procs[1]
    finally:
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(short, ignore_errors=True)


def files(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for g in GLOBS for p in sorted(root.glob(g)) if p.is_file()}


def test_two_node_cluster_gives_local_bytes_and_survives_losing_a_node(cluster, tmp_path, mirror):
    env, head, worker = cluster
    local = load_config(write_config(tmp_path / "local.toml", ledger=LEDGER, sources=SOURCES,
                                     artifacts=tmp_path / "local", **TABLES))
    run_all(local, workers=2)
    cfg = write_config(tmp_path / "ray.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "ray",
                       run={"executor": "ray", "workers": 2, "partitions": 3}, **TABLES)

    # Kill the worker node as soon as the first of the 7 encode units is checkpointed: the units in
    # flight on it are lost with it and must be retried on the head node.
    killed = threading.Event()

    def killer() -> None:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not killed.is_set():
            if any(p.stat().st_size for p in (tmp_path / "ray" / "tokens").glob("t/v1/*.incomplete/_progress/encode.jsonl")):
                os.killpg(worker.pid, signal.SIGKILL)
                killed.set()
                return
            time.sleep(0.05)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    proc = run_corpus("--config", cfg, "run", "--workers", "2", env=env)
    was_killed = killed.is_set()
    killed.set()
    t.join(5)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert was_killed and worker.poll() is not None  # the worker node really died mid-stage
    a, b = files(tmp_path / "local"), files(tmp_path / "ray")
    assert len([k for k in a if "shard-" in k]) == 7 and len([k for k in a if k.endswith(".bin")]) >= 10
    assert a == b
