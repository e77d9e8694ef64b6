"""`corpus gc`: what under this config's dataset version no current manifest references — token
directories made from other shards than the version's current `_MANIFEST.json`, and the staging
directories (`*.incomplete`) interrupted runs left, and with `--cache` the artifacts root's cache
(engine.cache) — listed with their size (a dry run), or removed with `--delete`. Raw sources are shared by every dataset and never collected here."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus.config import Config
from corpus.config.layout import CORPUS_MANIFEST, TOKENS_MANIFEST, tokens_root
from corpus.store.atomic import sha256_file
from corpus.engine.cache import CACHE_DIR


@dataclass(frozen=True)
class Garbage:
    path: Path
    why: str
    bytes: int


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def garbage(config: Config) -> list[Garbage]:
    out = []
    corpus = config.dataset_dir / CORPUS_MANIFEST
    current = sha256_file(corpus) if corpus.is_file() else None
    root = tokens_root(config)
    for d in sorted(root.glob("*")) if root.is_dir() else []:
        if not d.is_dir():
            continue
        if d.name.endswith(".incomplete"):
            out.append(Garbage(d, "an interrupted run's staging directory", _size(d)))
            continue
        manifest = d / TOKENS_MANIFEST
        if current is not None and manifest.is_file() and \
                json.loads(manifest.read_text())["corpus_manifest_sha256"] != current:
            out.append(Garbage(d, f"token directory of other shards than {corpus}", _size(d)))
    stages = config.dataset_dir / "stages"
    for d in sorted(stages.glob("*.incomplete")) if stages.is_dir() else []:
        out.append(Garbage(d, "an interrupted run's staging directory", _size(d)))
    return out


def cache_entries(config: Config) -> list[Garbage]:
    """The cache (engine.cache), one entry per kind: never needed for correctness, only for speed."""
    root = config.artifacts / CACHE_DIR
    kinds = sorted(d for d in root.glob("*") if d.is_dir()) if root.is_dir() else []
    return [Garbage(d, "cached results of earlier runs (recomputed when needed)", _size(d)) for d in kinds]


def collect(config: Config, delete: bool, cache: bool = False) -> list[Garbage]:
    found = garbage(config) + (cache_entries(config) if cache else [])
    if delete:
        for g in found:
            shutil.rmtree(g.path)
    return found
