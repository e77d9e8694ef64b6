"""Stage manifests (_STAGE.json) and the staging directory every stage writes into before publishing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from . import __version__
from .atomic import publish_dir, sha256_file, write_json
from .errors import CorpusError
from .schemas import load_json, validate

STAGE_FILE = "_STAGE.json"
RUN_FILE = "_RUN.json"
SCHEMA = "stage-manifest.schema.json"


def part_entry(path: Path, rows: int) -> dict:
    return {"name": path.name, "sha256": sha256_file(path), "rows": rows, "bytes": path.stat().st_size}


def new_manifest(stage: str, *, dataset=None, version=None, config_sha256=None, params=None) -> dict:
    return {"stage": stage, "corpus_version": __version__, "dataset": dataset, "version": version,
            "config_sha256": config_sha256, "params": params or {}, "inputs": [], "parts": [],
            "counts": {"docs_in": 0, "docs_out": 0}}


def write_manifest(directory: Path, manifest: dict) -> None:
    validate(manifest, SCHEMA, what=str(directory / STAGE_FILE))
    write_json(directory / STAGE_FILE, manifest)


def load_manifest(directory: Path, *, verify_parts: bool | str = True) -> dict:
    """Read and schema-check a stage manifest. verify_parts: True checks every part's size and sha256,
    "size" only that each part exists with its size (the reader then checks the sha256 as it reads)."""
    manifest = load_json(directory / STAGE_FILE, SCHEMA, missing="stage manifest not found (has the stage run?)")
    if verify_parts:
        for part in manifest["parts"]:
            verify_part(directory / part["name"], part, sha=verify_parts is True)
    return manifest


def verify_part(path: Path, part: dict, *, sha: bool = True) -> None:
    if not path.is_file():
        raise CorpusError(f"{path}: part listed in {STAGE_FILE} is missing")
    size = path.stat().st_size
    if size != part["bytes"]:
        raise CorpusError(f"{path}: size mismatch: expected {part['bytes']} bytes, got {size}")
    if not sha:
        return
    actual = sha256_file(path)
    if actual != part["sha256"]:
        raise CorpusError(f"{path}: sha256 mismatch: expected {part['sha256']}, got {actual}")


class Staging:
    """`<final>.incomplete/` while a stage works; renamed to `<final>` only when everything is written.

    Refuses to touch a published output unless `force`. A failed run leaves the staging directory
    for `--resume` (or for the next run, which starts it afresh)."""

    def __init__(self, final: Path, *, force: bool = False, resume: bool = False):
        self.final, self.force = final, force
        self.dir = final.with_name(final.name + ".incomplete")
        if final.exists() and not force:
            raise CorpusError(f"{final}: already published (use --force to rebuild it)")
        if self.dir.exists() and not resume:
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True, exist_ok=True)

    def publish(self, manifest: dict, run_info: dict | None = None) -> None:
        write_manifest(self.dir, manifest)
        if run_info is not None:
            write_json(self.dir / RUN_FILE, run_info)
        publish_dir(self.dir, self.final, replace=self.force)


def relpath(path: Path, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return str(path)
