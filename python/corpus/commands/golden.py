"""Golden hashes: the sha256 of every file a small real run publishes, kept in tests/golden/SHA256SUMS.

    python -m corpus.commands.golden            # rebuild in a fresh temporary workspace and compare (exit 1 on a change)
    python -m corpus.commands.golden --update   # rebuild and rewrite tests/golden/SHA256SUMS (`make golden`)

The run is `corpus run` on tests/golden/golden.toml (a subset of the demo: five sources, one eval set, the
perplexity reference; under a minute on 2 cores), then `corpus export` in every format. Every published file
is listed — raw parts, every stage's parts, rejects, dropped rows, models, `_STAGE.json`, shards,
`_MANIFEST.json`, tokenizer files, token parts and exports — except what legitimately varies:

- `_RUN.json` files (timings, host, worker count, where a file was found: what the design keeps out of
  every other file) are left out;
- the fetch date: every raw document carries `fetched_at` (raw outputs live in
  `corpus/raw/<source>/<key>/`, a name made of the file and the settings, the same in every run; a root
  made before that layout has `<yyyymmdd>/` there, listed as `<date>`); a raw part is listed by the sha256 of its
  decompressed JSON lines with the `fetched_at` value replaced by `<fetched_at>` (so its zstd bytes are
  not covered), and in the raw `_STAGE.json` its compressed size (`parts[].bytes`, which moves by a byte
  or two with the timestamp) reads `<bytes>`; a JSON file has the same replacements, and every sha256 it quotes of a file whose listed
  hash differs from its actual one (a raw part, the raw `_STAGE.json`, then the 02-normalize `_STAGE.json`
  that quotes it, ...) is replaced by the listed hash, repeated until nothing changes.

Everything else is compared byte for byte, so a change of any output byte — a new PII rule, another dedup
threshold, a new pyarrow or tokenizers release — shows up as a changed line in SHA256SUMS, in the same
commit as the change that made it.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from corpus.formats.sources.compression import read_zst
from corpus.store.atomic import dump_json

REPO = Path(__file__).resolve().parents[3]
CONFIG = Path("tests/golden/golden.toml")
SUMS = Path("tests/golden/SHA256SUMS")
EXPORTS = ("nanogpt", "llmc", "datatrove", "mds")
SKIP_NAMES = {"_RUN.json", ".corpus.lock"}  # the writer lock (corpus.store.lock) is no output
SKIP_DIRS = {"downloads", "cache"}  # corpus/downloads (the fetch cache) and cache/ (engine.cache): not outputs
RAW_DIR = re.compile(r"^(corpus/raw/[^/]+/)(\d{8}|[0-9a-f]{12}-[0-9a-f]{12})(/|$)")
DATE_DIR = re.compile(r"^(corpus/raw/[^/]+/)(\d{8})(/|$)")
TEXT_SUFFIXES = (".json", ".jsonl", ".toml", ".txt")
SHA_HEX = re.compile(r"\b[0-9a-f]{64}\b")


def build(workspace: Path, *, repo: Path = REPO, python: str = sys.executable, env: dict | None = None) -> Path:
    """Run the golden pipeline and every export into `workspace/artifacts`; returns that artifacts root."""
    artifacts = Path(workspace) / "artifacts"
    base = [python, "-m", "corpus.commands.cli", "-q", "--config", str(repo / CONFIG), "--artifacts", str(artifacts)]
    run_env = dict(os.environ, **(env or {}))
    run_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(repo / "python"), run_env.get("PYTHONPATH")]))
    steps = [["run"]] + [["export", "--format", fmt] for fmt in EXPORTS]
    for step in steps:
        proc = subprocess.run(base + step, cwd=repo, env=run_env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"corpus {' '.join(step)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return artifacts


def _published(root: Path) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and p.name not in SKIP_NAMES and not SKIP_DIRS & set(rel.split("/")[:-1]):
            out.append((rel, p))
    return out


def _fetch_stamps(files: list[tuple[str, Path]]) -> set[str]:
    stamps = set()
    for rel, p in files:
        if RAW_DIR.match(rel) and p.name == "_STAGE.json":
            stamps.add(json.loads(p.read_text(encoding="utf-8"))["fetched_at"])
    return stamps


def _normalise_text(text: str, stamps: set[str], substitute: dict[str, str]) -> str:
    for s in stamps:
        text = text.replace(s, "<fetched_at>")
    text = re.sub(r"(corpus/raw/[^/\"\s]+/)\d{8}(?=/|\"|$)", r"\1<date>", text)
    return SHA_HEX.sub(lambda m: substitute.get(m.group(0), m.group(0)), text)


def published_hashes(root: str | os.PathLike) -> dict[str, str]:
    """{listed path: listed sha256} of every published file under an artifacts root (see the module doc)."""
    root = Path(root)
    files = _published(root)
    stamps = _fetch_stamps(files)
    actual = {rel: hashlib.sha256(p.read_bytes()).hexdigest() for rel, p in files}
    raw_parts = {}
    for rel, p in files:
        if RAW_DIR.match(rel) and rel.endswith(".jsonl.zst"):
            text = read_zst(p).decode("utf-8")
            raw_parts[rel] = hashlib.sha256(_normalise_text(text, stamps, {}).encode("utf-8")).hexdigest()
    texts = {rel: p.read_text(encoding="utf-8") for rel, p in files if rel.endswith(TEXT_SUFFIXES)}
    for rel in texts:
        if RAW_DIR.match(rel) and rel.endswith("/_STAGE.json"):  # a part's zstd size varies with fetched_at
            doc = json.loads(texts[rel])
            for part in doc.get("parts", []):
                part["bytes"] = "<bytes>"
            texts[rel] = dump_json(doc).decode("utf-8")
    listed: dict[str, str] = {}
    for _ in range(32):  # each pass settles one more link of the _STAGE.json chain
        substitute = {actual[rel]: listed[rel] for rel in listed if listed[rel] != actual[rel]}
        new = {}
        for rel, _p in files:
            if rel in raw_parts:
                new[rel] = raw_parts[rel]
            elif rel in texts:
                new[rel] = hashlib.sha256(_normalise_text(texts[rel], stamps, substitute).encode("utf-8")).hexdigest()
            else:
                new[rel] = actual[rel]
        if new == listed:
            break
        listed = new
    else:
        raise RuntimeError("golden hashes did not settle (a cycle of files quoting each other's sha256?)")
    return {DATE_DIR.sub(r"\1<date>\3", rel): sha for rel, sha in listed.items()}


def format_sums(hashes: dict[str, str]) -> str:
    """sha256sum's format ("<hex>  <path>"), sorted by path."""
    return "".join(f"{sha}  {path}\n" for path, sha in sorted(hashes.items()))


def parse_sums(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            sha, path = line.split("  ", 1)
            out[path] = sha
    return out


def diff(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """Readable lines for every listed file that is missing, new or changed."""
    lines = []
    for path in sorted(expected.keys() | actual.keys()):
        if path not in actual:
            lines.append(f"missing  {path}")
        elif path not in expected:
            lines.append(f"new      {path}")
        elif expected[path] != actual[path]:
            lines.append(f"changed  {path}")
    return lines


HEADER = ("# sha256 of every file `corpus run` + `corpus export` (all formats) publish for tests/golden/golden.toml.\n"
          "# Regenerate after an intended output change: make golden (python -m corpus.commands.golden --update).\n"
          "# Fetch dates are normalised and _RUN.json files left out: see python/corpus/golden.py.\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus.commands.golden", description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help=f"rewrite {SUMS} from a fresh build")
    ap.add_argument("--keep", metavar="DIR", help="build into DIR (kept) instead of a temporary directory")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corpus-golden-") as tmp:
        workspace = Path(args.keep) if args.keep else Path(tmp)
        hashes = published_hashes(build(workspace))
    text = HEADER + format_sums(hashes)
    path = REPO / SUMS
    if args.update:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(text, encoding="utf-8")
        changes = diff(parse_sums(old), hashes)
        print(f"{path}: {len(hashes)} files, {len(changes)} changed")
        for line in changes:
            print("  " + line)
        return 0
    changes = diff(parse_sums(path.read_text(encoding="utf-8")), hashes)
    for line in changes:
        print(line)
    if changes:
        sys.stdout.writelines(difflib.unified_diff(path.read_text(encoding="utf-8").splitlines(True),
                                                   text.splitlines(True), str(SUMS), "this build"))
        print(f"{len(changes)} of the golden files differ; if the change is intended: make golden", file=sys.stderr)
        return 1
    print(f"{len(hashes)} files match {SUMS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
