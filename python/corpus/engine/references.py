"""What the dataset versions on an artifacts root read: every input their published stage manifests
name (a raw output, another stage, another version's dedup index), so that nothing a version reads is
rewritten (fetch) or collected (gc) while that version exists.

A version is `corpus/<dataset>/<version>/` with at least one published `_STAGE.json` (its stages, its
shards); its token directories (`tokens/<dataset>/<version>/<tokenizer>/`) read its shards. References
are paths relative to the root, of the manifest read, with the sha256 it had when it was read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from corpus.config.layout import STAGE_FILE
from corpus.store.root import LOCAL_ONLY_SUFFIXES  # staging (.incomplete) and renamed-aside (.old) dirs

RAW = ("corpus", "raw")
NOT_DATASETS = {"raw", "downloads"}   # corpus/raw/ and corpus/downloads/ hold no dataset


@dataclass
class Version:
    name: str                              # "<dataset>/<version>"
    directory: Path                        # corpus/<dataset>/<version>
    manifests: list[Path] = field(default_factory=list)   # its published _STAGE.json files
    inputs: dict[str, str] = field(default_factory=dict)  # manifest path (root-relative) -> sha256 read
    # the strings of the params of a stage manifest that records no raw output although it may read some
    # (filter, dedup made before they recorded their lists, reference and eval sets): any of them may be a
    # source id whose raw outputs the version read, so all of that source's raw outputs are kept
    unrecorded: set[str] = field(default_factory=set)
    params: list[dict] = field(default_factory=list)      # the params of each of its manifests

    @property
    def published(self) -> bool:
        return bool(self.manifests)

    def raw_dirs(self) -> dict[str, str]:
        """{raw output directory (root-relative): the sha256 its _STAGE.json had when this version read it}."""
        out: dict[str, str] = {}
        for path, sha in self.inputs.items():
            parts = Path(path).parts
            if parts[:2] == RAW and len(parts) >= 4:
                out.setdefault(str(Path(*parts[:4])), sha)
        return out


def read_json(path: Path) -> dict:
    """A manifest's JSON object, or {} when it is missing or damaged (audit names it; here it refers to nothing)."""
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return m if isinstance(m, dict) else {}


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return set().union(*(_strings(v) for v in items)) if items else set()


SIDE_READERS = ("filter", "dedup")  # stages that read raw outputs beside their input


def versions(root: Path) -> list[Version]:
    """Every dataset version on the root, in name order, with what its published manifests read."""
    out = []
    corpus = root / "corpus"
    for ds in sorted(corpus.iterdir()) if corpus.is_dir() else []:
        if ds.name in NOT_DATASETS or not ds.is_dir():
            continue
        for ver in sorted(v for v in ds.iterdir() if v.is_dir() and not v.name.endswith(LOCAL_ONLY_SUFFIXES)):
            v = Version(f"{ds.name}/{ver.name}", ver)
            tokens = root / "tokens" / ds.name / ver.name
            found = [ver / STAGE_FILE, *sorted((ver / "stages").glob(f"*/{STAGE_FILE}")),
                     *sorted(tokens.glob(f"*/{STAGE_FILE}"))]
            for m in found:
                if m.is_file() and not any(p.endswith(LOCAL_ONLY_SUFFIXES) for p in m.parent.parts):
                    v.manifests.append(m)
                    manifest = read_json(m)
                    v.params.append(manifest.get("params") if isinstance(manifest.get("params"), dict) else {})
                    inputs = [i for i in manifest.get("inputs") or [] if isinstance(i, dict)
                              and isinstance(i.get("path"), str)]
                    for i in inputs:
                        v.inputs.setdefault(i["path"], i.get("sha256"))
                    if manifest.get("stage") in SIDE_READERS and not any(
                            Path(i["path"]).parts[:2] == RAW for i in inputs):
                        v.unrecorded |= _strings(manifest.get("params"))
            out.append(v)
    return out


def raw_readers(found: list[Version]) -> dict[str, list[tuple[str, str]]]:
    """{raw output directory (root-relative): [(version name, sha256 of its _STAGE.json when read)]}."""
    out: dict[str, list[tuple[str, str]]] = {}
    for v in found:
        for d, sha in v.raw_dirs().items():
            out.setdefault(d, []).append((v.name, sha))
    return out


def readers_of(root: Path, directory: Path) -> list[tuple[str, str]]:
    """The published versions that read a raw output directory, with the manifest sha256 each read."""
    try:
        rel = str(directory.relative_to(root))
    except ValueError:
        return []
    return raw_readers([v for v in versions(root) if v.published]).get(rel, [])
