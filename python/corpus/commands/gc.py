"""`corpus gc`: what on the artifacts root no dataset version refers to, listed with its size (a dry
run) or removed with `--delete` (under the writer lock).

Collected by reference (engine.references): a raw output no version's manifests read (except those the
current config reads: a fetch not yet built on), a token directory made from other shards than its
version's current `_MANIFEST.json` or of a version that is gone, a trained quality model no manifest
names, and every staging directory (`*.incomplete`) an interrupted run left; with `--cache`, the cache
(engine.cache) too. A version is every `corpus/<dataset>/<version>/` with a published stage manifest,
finished or not, so nothing a version in progress reads is collected either.

`corpus gc --version NAME/VERSION` drops one whole version: its stages, shards, token directories,
report, and the raw outputs only it reads. It is refused while another version reads any of its files
(a `[dedup] against` index) and, like every `--delete`, while another writer holds the lock."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from corpus.config import Config
from corpus.config.layout import CORPUS_MANIFEST, TOKENS_MANIFEST
from corpus.engine.cache import CACHE_DIR
from corpus.engine.references import NOT_DATASETS, RAW, Version, raw_readers, read_json, versions
from corpus.errors import CorpusError
from corpus.store.atomic import sha256_file

STAGING = (".incomplete",)  # runner.staging_dir's suffix


@dataclass(frozen=True)
class Garbage:
    path: Path
    why: str
    bytes: int


def _size(path: Path) -> int:
    if path.is_symlink():
        return 0  # the link is removed, not what it points to
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def raw_outputs(root: Path) -> list[Path]:
    """Every corpus/raw/<source>/<output>/ directory (staging ones too)."""
    raw = root.joinpath(*RAW)
    return sorted(d for src in (raw.iterdir() if raw.is_dir() else []) if src.is_dir()
                  for d in src.iterdir() if d.is_dir())


def raw_read_by(found: list[Version], root: Path) -> set[Path]:
    """The raw output directories (root-relative) the versions read: those their manifests record, and
    every raw output of a source that a manifest recording none may have read (Version.unrecorded)."""
    read = {Path(d) for d in raw_readers(found)}
    unrecorded = set().union(*(v.unrecorded for v in found)) if found else set()
    return read | {d.relative_to(root) for d in raw_outputs(root) if d.parent.name in unrecorded}


def read_by_config(config: Config) -> set[Path]:
    """The raw outputs this config reads (or would publish): kept, a fetch the next stage builds on."""
    from corpus.config.ledger import load_ledger
    from corpus.engine.raw import raw_dir_of
    from corpus.stages.fetch import source_rows

    try:
        rows = source_rows(config, ())
    except CorpusError:  # a config its ledger does not satisfy: keep what any of its rows would make
        try:
            rows = list(load_ledger(config.ledger_path).values())
        except CorpusError:
            rows = []
    return {raw_dir_of(config, r).relative_to(config.artifacts) for r in rows}


def models_used(found: list[Version]) -> set[str]:
    """What names the quality models the versions' filters used: a trained model's training key (the
    sha256 of the facts its filter manifest records, as filters.quality.train keys it) or a model's sha256."""
    import hashlib

    from corpus.store.atomic import canonical_json

    out = set()
    for model in (p.get("quality_model") for v in found for p in v.params):
        if isinstance(model, dict):
            out.add(hashlib.sha256(canonical_json(model).encode()).hexdigest())
        elif isinstance(model, str):
            out.add(model)
    return out


def _tokens_garbage(root: Path, found: list[Version]) -> list[Garbage]:
    out = []
    names = {v.name for v in found}
    tokens = root / "tokens"
    for ds in sorted(tokens.iterdir()) if tokens.is_dir() else []:
        for ver in sorted(d for d in ds.iterdir() if d.is_dir()) if ds.is_dir() else []:
            corpus = root / "corpus" / ds.name / ver.name / CORPUS_MANIFEST
            current = sha256_file(corpus) if corpus.is_file() else None
            for d in sorted(x for x in ver.iterdir() if x.is_dir()):
                if d.name.endswith(STAGING):
                    continue  # listed with every staging directory
                manifest = d / TOKENS_MANIFEST
                if f"{ds.name}/{ver.name}" not in names:
                    out.append(Garbage(d, f"token directory of {ds.name}/{ver.name}, a version that is gone", _size(d)))
                elif current is not None and read_json(manifest).get("corpus_manifest_sha256") not in (current, None):
                    out.append(Garbage(d, f"token directory of other shards than {corpus}", _size(d)))
    return out


def _staging(root: Path) -> list[Garbage]:
    out = []
    for top in ("corpus", "tokens"):
        base = root / top
        for d in sorted(base.rglob("*")) if base.is_dir() else []:
            if d.is_dir() and d.name.endswith(STAGING) and not any(p.endswith(STAGING) for p in d.parent.parts):
                out.append(Garbage(d, "an interrupted run's staging directory", _size(d)))
    return out


def garbage(config: Config) -> list[Garbage]:
    """What no dataset version on the root refers to (see the module doc), in path order."""
    from corpus.filters.quality import MODELS_DIR

    root = config.artifacts
    found = versions(root)
    read, keep = raw_read_by(found, root), read_by_config(config)
    out = _staging(root)
    for d in raw_outputs(root):
        rel = d.relative_to(root)
        if not d.name.endswith(STAGING) and rel not in read and rel not in keep:
            out.append(Garbage(d, "raw output no dataset version reads", _size(d)))
    out += _tokens_garbage(root, found)
    models, used = root / MODELS_DIR, models_used(found)
    for m in sorted(models.glob("*.bin")) if models.is_dir() else []:
        if m.stem not in used and read_json(m.with_suffix(".json")).get("key") not in used:
            out.append(Garbage(m, "quality model no dataset version's filter used", _size(m)))
            if m.with_suffix(".json").is_file():
                out.append(Garbage(m.with_suffix(".json"), "its training manifest", _size(m.with_suffix(".json"))))
    return sorted(out, key=lambda g: str(g.path))


def cache_entries(config: Config) -> list[Garbage]:
    """The cache (engine.cache), one entry per kind: never needed for correctness, only for speed."""
    root = config.artifacts / CACHE_DIR
    kinds = sorted(d for d in root.glob("*") if d.is_dir()) if root.is_dir() else []
    return [Garbage(d, "cached results of earlier runs (recomputed when needed)", _size(d)) for d in kinds]


def version_garbage(config: Config, name: str) -> list[Garbage]:
    """Everything of one dataset version `name` ("<dataset>/<version>") that no other version reads;
    refused (CorpusError) when another version reads any of its files."""
    root = config.artifacts
    ds, _, ver = name.partition("/")
    if not ds or not ver or "/" in ver or ds in NOT_DATASETS or ".." in (ds, ver):
        raise CorpusError(f"--version {name!r}: give NAME/VERSION, e.g. {config.dataset}/{config.version}")
    found = versions(root)
    mine = next((v for v in found if v.name == name), None)
    directory = root / "corpus" / ds / ver
    if mine is None:
        raise CorpusError(f"{directory}: no dataset version {name} on this root "
                          f"(versions: {', '.join(v.name for v in found) or 'none'})")
    own = (Path("corpus", ds, ver), Path("tokens", ds, ver))
    for other in found:
        if other.name == name:
            continue
        uses = sorted(p for p in other.inputs if any(Path(p).parts[:3] == o.parts for o in own))
        if uses:
            raise CorpusError(f"{root / uses[0]}: dataset version {other.name} reads it (its [dedup] against?); "
                              f"drop {other.name} first, or keep {name}")
    out = [Garbage(directory, f"dataset version {name}: stages, shards, manifests", _size(directory))]
    for extra, why in ((root / "tokens" / ds / ver, "its token directories"),
                       (root / "reports" / ds / ver, "its report")):
        if extra.is_dir():
            out.append(Garbage(extra, why, _size(extra)))
    read = raw_read_by([v for v in found if v.name != name], root)
    for path in sorted({Path(*Path(p).parts[:4]) for p in mine.inputs if Path(p).parts[:2] == RAW}):
        if path not in read and (root / path).is_dir():
            out.append(Garbage(root / path, f"raw output only {name} reads", _size(root / path)))
    return out


def collect(config: Config, delete: bool, cache: bool = False, version: str | None = None) -> list[Garbage]:
    found = version_garbage(config, version) if version else garbage(config) + (cache_entries(config) if cache else [])
    if delete:
        for g in found:
            if g.path.is_symlink() or g.path.is_file():
                g.path.unlink()  # a symlinked staging dir: the link goes, never what it points to
            elif g.path.is_dir():
                shutil.rmtree(g.path)
    return found
