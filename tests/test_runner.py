"""The phased runner: a kill in any map phase loses at most the units under way; published files follow
the umask; manifests do not depend on where the checkout, the config or the ledger lives."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from corpus.engine.runner import checkpoints
from conftest import LEDGER, REPO, write_config

pytestmark = pytest.mark.slow  # each test runs the pipeline on real data (tests/test_runner_toy.py: the fast one)
SOURCES = ["tinystories-train-head", "wikitext2-test"]
SMALL = ["minhash-articles-100", "lingua-en"]  # where the size does not matter: bytes per checkout, modes


def published(root: Path) -> dict[str, bytes]:
    """Every published file under root (staging dirs and run files aside)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "_RUN.json" and ".incomplete" not in str(p)}


def corpus_cli(*args, cwd: Path, env: dict | None = None, umask: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "corpus.commands.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600, env={**os.environ, **(env or {})},
                          preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def test_dedup_killed_after_signature_units_resumes_them(tmp_path, mirror):
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "a",
                       fetch={"part_docs": 150}, decontam={"evals": []})
    config = load_config(cfg)
    run_all(config, workers=2, through="dedup")
    dedup_dir = config.stage_dir("04-dedup")
    want = published(dedup_dir)
    n_units = sum(1 for k in want if k.startswith("part-"))
    assert n_units >= 5

    killed = corpus_cli("--config", cfg, "dedup", "--force", "--workers", "2", cwd=REPO,
                        env={"CORPUS_FAULT_AFTER": "signatures:2"})
    assert killed.returncode == -9, killed.stderr  # SIGKILL right after the 2nd signature checkpoint
    staging = dedup_dir.with_name(dedup_dir.name + ".incomplete")
    assert len(checkpoints(staging, "signatures")) >= 2 and not checkpoints(staging, "apply")
    assert published(dedup_dir) == want  # the published output is untouched until the new one is whole

    resumed = corpus_cli("--config", cfg, "dedup", "--force", "--resume", "--workers", "2", cwd=REPO)
    assert resumed.returncode == 0, resumed.stderr
    run = json.loads((dedup_dir / "_RUN.json").read_text())
    assert run["resumed_units"]["signatures"] >= 2 and run["resumed_units"]["apply"] == 0
    assert published(dedup_dir) == want and not staging.exists()


def _workspace(root: Path, absolute: bool) -> tuple[Path, Path]:
    """A checkout-like folder: configs/c.toml and corpus/LEDGER.jsonl; the ledger and artifacts paths
    relative to the folder, or absolute."""
    (root / "corpus").mkdir(parents=True)
    (root / "configs").mkdir()
    ledger = root / "corpus" / "LEDGER.jsonl"
    shutil.copy(LEDGER, ledger)
    cfg = write_config(root / "configs" / "c.toml", ledger=ledger if absolute else Path("corpus/LEDGER.jsonl"),
                       sources=SMALL, artifacts=root / "art" if absolute else Path("art"),
                       decontam={"evals": []}, tokenize={"vocab_size": 600})
    return root, cfg


def test_two_checkouts_in_different_folders_give_identical_bytes_with_umask_modes(tmp_path, mirror):
    a_root, a_cfg = _workspace(tmp_path / "first" / "checkout", absolute=False)
    b_root, b_cfg = _workspace(tmp_path / "second-place", absolute=True)
    for root, cfg, umask in ((a_root, a_cfg, 0o022), (b_root, b_cfg, 0o027)):
        for args in (("run", "--workers", "2"), ("export", "--format", "nanogpt")):
            proc = corpus_cli("--config", cfg.relative_to(root), *args, cwd=root, umask=umask)
            assert proc.returncode == 0, proc.stderr
    a, b = published(a_root / "art"), published(b_root / "art")
    manifests = [k for k in a if k.endswith("_MANIFEST.json")]
    assert len(manifests) == 2  # the corpus manifest and the tokens manifest
    for k in manifests + [k for k in a if "shard-" in k or k.endswith((".bin", ".idx", "tokenizer.json"))]:
        assert a[k] == b[k], k
    assert json.loads(a["corpus/t/v1/_MANIFEST.json"])["ledger_ref"]["path"] == "../corpus/LEDGER.jsonl"
    for root, mode in ((a_root, 0o644), (b_root, 0o640)):
        files = [p for p in (root / "art").rglob("*") if p.is_file() and ".incomplete" not in str(p)]
        tokens = [p for p in files if "tokens" in p.parts]
        assert any(p.suffix == ".bin" for p in tokens) and any(p.name == "train.bin" for p in tokens)
        bad = {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in files if stat.S_IMODE(p.stat().st_mode) != mode}
        assert not bad, bad
