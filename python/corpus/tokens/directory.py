"""Published token directories: finding one, and checking it against its `_MANIFEST.json`."""

from __future__ import annotations

from pathlib import Path

from corpus.store.checksums import verify_file
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.config.layout import TOKENS_MANIFEST, TOKENS_SCHEMA, tokens_root
from corpus.config.schemas import load_json, validate


def find_tokens_dir(config: Config, tokens_dir: str | None = None) -> Path:
    """`tokens_dir` if given, else the dataset's only published token directory."""
    if tokens_dir:
        return Path(tokens_dir)
    root = tokens_root(config)
    found = sorted(p for p in root.glob("*") if (p / TOKENS_MANIFEST).is_file()) if root.is_dir() else []
    if not found:
        raise CorpusError(f"{root}: no token streams (run `corpus tokenize` first)")
    if len(found) > 1:
        raise CorpusError(f"{root}: several token streams ({', '.join(p.name for p in found)}); choose one with --tokens")
    return found[0]


def verify_tokens_dir(directory: Path, manifest: dict | None = None) -> dict:
    """Schema and every file's sha256; raises CorpusError naming the first bad file."""
    path = directory / TOKENS_MANIFEST
    if manifest is None:
        manifest = load_json(path, missing="tokens manifest not found")
    validate(manifest, TOKENS_SCHEMA, what=str(path))
    checks = [(manifest["tokenizer"]["file"], manifest["tokenizer"]["sha256"]),
              *manifest["tokenizer"].get("hf_files", {}).items()]
    for split in manifest["splits"].values():
        for f in split["files"]:
            checks += [(f["bin"], f["bin_sha256"]), (f["idx"], f["idx_sha256"])]
    for rel, sha in checks:
        verify_file(directory / rel, sha, listed_in=str(path))
    return manifest
