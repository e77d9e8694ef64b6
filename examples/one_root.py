"""Many datasets and versions on one artifacts root, as users keep them: each published version stays
auditable, and the first one's shards and token files stay byte-identical, whatever is built after it.

    CORPUS_MIRROR=../shared/data/mirror python examples/one_root.py [--root DIR] [--keep]

Steps, on one root: the demo (configs/demo.toml); the web dataset (configs/web.toml); a third dataset
reading the demo's sources with other [fetch] part sizes; web v2 with another [extract] engine; the demo
again (current); then `corpus gc` (nothing a version reads is listed) and `corpus gc --version web/v1
--delete` (the others stay auditable). After every step each version built so far is audited with the
config it was built from. Prints one line per step; exits 1 at the first failure.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def derived(base: str, out: Path, **tables) -> Path:
    """configs/<base> with some tables edited (`name={"key": value}`; "dataset" renames it)."""
    sys.path.insert(0, str(REPO / "python"))
    from corpus.config import dump_toml

    data = tomllib.loads((REPO / base).read_text())
    for table, keys in tables.items():
        data.setdefault(table, {}).update(keys)
    out.write_text(dump_toml(data))
    return out


def corpus(root: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CORPUS_ARTIFACTS=str(root), PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "corpus.commands.launch", "-q", "--config", str(config), *args],
                          cwd=REPO, env=env, capture_output=True, text=True)


def files_of(root: Path, *tops: str) -> dict[str, str]:
    """{path: sha256} of every file under the given directories of the root (_RUN.json aside)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for top in tops for p in sorted((root / top).rglob("*")) if p.is_file() and p.name != "_RUN.json"}


def manifests(root: Path) -> list[str]:
    """The text of every dataset version's stage and token manifests."""
    return [p.read_text() for top in ("corpus", "tokens") for p in sorted((root / top).rglob("_STAGE.json"))
            if "raw" not in p.relative_to(root).parts[:2]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=None, help="artifacts root (default: a new temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary root")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="one-root-"))
    root = args.root or work / "artifacts"
    configs = {
        "demo/v1": REPO / "configs/demo.toml",
        "web/v1": REPO / "configs/web.toml",
        "demo-small-parts/v1": derived("configs/demo.toml", work / "small-parts.toml",
                                       dataset={"name": "demo-small-parts"},
                                       fetch={"part_docs": 997, "part_bytes": 300_000}),
        "web/v2": derived("configs/web.toml", work / "web-v2.toml", dataset={"version": "v2"},
                          extract={"engine": "resiliparse"}),
    }
    built: list[str] = []
    first: dict[str, str] = {}

    def audit_all(step: str) -> None:
        for name in built:
            proc = corpus(root, configs[name], "audit")
            if proc.returncode != 0:
                raise SystemExit(f"FAIL after {step}: audit of {name}: {proc.stderr.strip().splitlines()[-1]}")
        if first and files_of(root, "corpus/demo/v1", "tokens/demo/v1") != first:
            raise SystemExit(f"FAIL after {step}: demo/v1's shards or token files changed")
        print(f"ok    {step}: {len(built)} version(s) audited ({', '.join(built)}); demo/v1 byte-identical")

    try:
        for name in [*configs, "demo/v1"]:
            proc = corpus(root, configs[name], "run")
            if proc.returncode != 0:
                raise SystemExit(f"FAIL: corpus run of {name}: {proc.stderr.strip().splitlines()[-1]}")
            if name in built:  # built before: nothing to do
                statuses = [line.split()[1] for line in proc.stdout.splitlines()[1:-1]]
                if set(statuses) != {"current"}:
                    raise SystemExit(f"FAIL: {name} again: {statuses} (every stage should be current)")
            built += [] if name in built else [name]
            first = first or files_of(root, "corpus/demo/v1", "tokens/demo/v1")
            audit_all(f"run {name}")
        # every raw output any version's manifests name (read here as text, not through corpus)
        read = {line.split('"corpus/raw/')[1].split("/_STAGE.json")[0] for m in manifests(root)
                for line in m.splitlines() if '"corpus/raw/' in line}
        listed = corpus(root, configs["demo/v1"], "gc").stdout.splitlines()
        wrong = [line for line in listed if any(f"/corpus/raw/{r} " in line for r in read)]
        if wrong:
            raise SystemExit(f"FAIL: gc lists a raw output a version reads: {wrong[0]}")
        corpus(root, configs["demo/v1"], "gc", "--delete")
        audit_all(f"gc --delete ({len(listed) - 1} unreferenced outputs removed)")
        proc = corpus(root, configs["web/v1"], "gc", "--version", "web/v1", "--delete")
        if proc.returncode != 0:
            raise SystemExit(f"FAIL: gc --version web/v1: {proc.stderr.strip().splitlines()[-1]}")
        built.remove("web/v1")
        audit_all("gc --version web/v1 --delete")
    finally:
        if args.root is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        elif args.root is None:
            print(f"root kept: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
