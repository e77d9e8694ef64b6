"""A takedown version's dedup from its base's, when no removed document had a part in another's decision.

A takedown version's dedup input is a published version's (the base's) without the documents its lists
remove. Removing a document changes no other document's decision when it was kept by the base's dedup
and was alone in every way dedup relates documents: no dropped document names it as the copy it
duplicates (an exact, URL or near group it kept), and none of its band keys is another input document's
(so no candidate pair had it, and no band bucket's window of candidates moves without it). Then each
output part is the base's: its files as they are where no removed document was in the part, and where
one was, the part's kept rows written again without it (the base's `minhash_cluster` values: row
indices count the documents taken down, as the base's do), its dropped rows the base's and its index
the base's rows without it. Otherwise (`Base.touched` names why), dedup runs over every document.

Everything is checked, not assumed: the base's dedup ran with this version's parameters, eval sets
and `against` versions, its filter output's parts are this version's, part for part, but for the
removed rows (compared whole, every column), and every file read is verified against its sha256."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus.dedup.minhash import EMPTY_BAND_KEY, MinHasher, band_keys
from corpus.dedup.published import index_bytes
from corpus.dedup.verify import ShingleSets, signatures_and_sets
from corpus.errors import CorpusError
from corpus.filters import takedown
from corpus.formats.parts import read_table, write_table
from corpus.store.atomic import sha256_bytes, sha256_file, write_bytes
from corpus.store.checksums import read_verified, verify_entry

DROPPED_DIR, INDEX_DIR = "dropped", "index"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Base:
    """The base version's dedup output this version's may be made from, and what the removal takes."""
    dedup_dir: Path
    parts: dict                    # the base dedup manifest's entries by name
    counts: dict                   # the base dedup manifest's counts
    removed: dict                  # part key -> ids of its rows the lists remove (parts without: absent)
    sources: dict                  # removed id -> its source_id


def find_bases(config, content: dict, keys: tuple[str, ...], in_parts: dict, phantoms: list[str],
               candidates: tuple[Path, ...], filter_dirname: str, input_content: Callable[[dict], list]) -> list[Base]:
    """The published dedup outputs among `candidates` (other versions of this dataset) whose input is
    this one's plus some of the documents taken down (`phantoms`: the ids the lists remove that every
    filter kept), made by this code from the same settings and other inputs (`content`: this job's
    runner.Whole content, which the base's recorded content hash must equal with its own input parts and
    taken-down ids, `input_content` naming a manifest's input parts as the content does); the fewest
    removed documents first."""
    from corpus.engine.runner import RUN_FILE

    found = []
    for d in candidates:
        if d.parent.parent == config.dataset_dir or not (d / RUN_FILE).is_file():
            continue
        try:
            base = _base(config, d, content, keys, in_parts, phantoms, filter_dirname, input_content)
        except (CorpusError, OSError) as e:  # a damaged base: dedup runs over every document, as without one
            log.warning("dedup: %s cannot be a takedown's base (%s)", d, e)
            continue
        if base is not None:
            found.append(base)
    return sorted(found, key=lambda b: len(b.sources))


def _base(config, d: Path, content: dict, keys, in_parts: dict, phantoms: list[str], filter_dirname: str,
          input_content: Callable[[dict], list]) -> Base | None:
    """The dedup output at `d` as a Base (find_bases), or None."""
    from corpus.engine.runner import read_stage_manifest

    manifest = read_stage_manifest(d)
    if manifest is None or manifest.get("stage") != "dedup":
        return None
    ref = manifest["inputs"][0]
    filter_dir = config.artifacts / Path(ref["path"]).parent
    if filter_dir.name != filter_dirname or sha256_file(filter_dir / "_STAGE.json") != ref["sha256"]:
        return None
    filtered = read_stage_manifest(filter_dir)
    if filtered is None:
        return None
    theirs = takedown.kept_by_filters(filter_dir, filtered)
    if not _same_content(d, content, input_content(filtered), theirs):
        return None
    return _matching(d, manifest, filter_dir, filtered, theirs, keys, in_parts, phantoms)


def _same_content(dedup_dir: Path, content: dict, parts: list, theirs: list[str]) -> bool:
    """Whether the base's recorded content hash is this code's for this job's content with the base's
    input parts and taken-down ids: the same settings, other inputs, code and library versions."""
    import json

    from corpus.engine.runner import CONTENT_KEY, RUN_FILE, Whole, content_sha256

    try:
        recorded = json.loads((dedup_dir / RUN_FILE).read_text()).get(CONTENT_KEY, {}).get("sha256")
    except (OSError, ValueError):
        return False
    mine = {k: v for k, v in content.items() if k != "takedown_kept"}
    mine["parts"] = parts
    if theirs:
        mine["takedown_kept"] = theirs
    return recorded == content_sha256("dedup", Whole(mine))


def _matching(dedup_dir: Path, manifest: dict, filter_dir: Path, filtered: dict, theirs: list[str], keys,
              in_parts: dict, phantoms: list[str]) -> Base | None:
    """A Base when the base's dedup input parts are this version's, but for rows whose ids are taken down
    here and not in the base (its own takedown's, `theirs`, are in neither)."""
    theirs_parts = {p["name"].removesuffix(".parquet"): p for p in filtered["parts"] if p["name"].startswith("part-")}
    if list(theirs_parts) != list(keys):
        return None
    gone = set(phantoms) - set(theirs)
    removed, sources = {}, {}
    for key in keys:
        mine, base = in_parts[key], theirs_parts[key]
        if mine["sha256"] == base["sha256"]:
            continue
        a = read_table(filter_dir / base["name"], base["sha256"])
        b = read_table(Path(mine["path"]), mine["sha256"])
        drop = pc.is_in(a.column("id"), pa.array(sorted(gone), pa.string()))
        if sorted(a.column_names) != sorted(b.column_names) or not a.filter(pc.invert(drop)).equals(b.select(a.column_names)):
            return None
        out = a.filter(drop)
        removed[key] = out.column("id").to_pylist()
        sources.update(zip(removed[key], out.column("source_id").to_pylist()))
    if sum(map(len, removed.values())) != len(gone):
        return None
    return Base(dedup_dir, {p["name"]: p for p in manifest["parts"]}, manifest["counts"], removed, sources)


def first_untouched(bases: list[Base], keys: tuple[str, ...], d: dict) -> tuple[Base | None, str]:
    """The first base whose removed documents were in no other's decision, or None and why the first
    one's were."""
    why = "no published version to start from"
    for i, base in enumerate(bases):
        reason = touched(base, keys, d)
        if reason is None:
            return base, ""
        why = reason if i == 0 else why
    return None, why


def touched(base: Base, keys: tuple[str, ...], d: dict) -> str | None:
    """Why removing the documents may change another's decision (a reason for the log), or None."""
    try:
        return _touched(base, keys, d)
    except CorpusError as e:  # a damaged base file
        return f"the base does not verify: {e}"


def _touched(base: Base, keys: tuple[str, ...], d: dict) -> str | None:
    gone = set(base.sources)
    dropped, duplicate_of, texts = [], set(), []
    for key in keys:
        t = _verified(base, f"{DROPPED_DIR}/{key}.parquet", ["id", "duplicate_of", "text"] if d["near"] else
                      ["id", "duplicate_of"])
        dropped += t.column("id").to_pylist()
        duplicate_of.update(t.column("duplicate_of").to_pylist())  # a published one's has a version prefix
        if d["near"]:
            texts += t.column("text").to_pylist()
    if gone & set(dropped):
        return "a removed document was itself dropped as a duplicate or for decontamination"
    if gone & duplicate_of:
        return "a removed document was the kept copy of a duplicate group"
    if not d["near"]:
        return None
    if d["verify"] != "exact":
        return "the base's index has no band keys (verify is not 'exact')"
    mine, others = [], [_dropped_keys(texts, d)]
    for key in keys:
        data = np.load(io.BytesIO(read_verified(base.dedup_dir / f"{INDEX_DIR}/{key}.npz",
                                                base.parts[f"{INDEX_DIR}/{key}.npz"]["sha256"])))
        ids, bands = data["ids"], data["bands"]
        is_gone = np.isin(ids, list(gone)) if key in base.removed else np.zeros(len(ids), bool)
        mine.append(bands[is_gone].ravel())
        others.append(bands[~is_gone].ravel())
    mine_keys = np.concatenate(mine)
    mine_keys = mine_keys[mine_keys != EMPTY_BAND_KEY]
    if _any_in(mine_keys, np.concatenate(others)):
        return "a removed document shares a band key with another document"
    return None


def _any_in(values: np.ndarray, pool: np.ndarray) -> bool:
    """Whether any of `values` is in `pool`: a sort and a binary search (np.isin of a few values in a
    large pool sorts both, ~30x slower here)."""
    pool = np.sort(pool)
    at = np.minimum(np.searchsorted(pool, values), max(len(pool) - 1, 0))
    return bool(len(pool)) and bool((pool[at] == values).any())


def _dropped_keys(texts: list, d: dict) -> np.ndarray:
    """The band keys of the base's dropped documents (the index holds only the kept ones')."""
    if not texts:
        return np.zeros(0, np.uint64)
    hasher = MinHasher(num_perm=d["num_perm"], seed=d["seed"], ngram=d["ngram_words"])
    sigs, _ = signatures_and_sets(hasher, texts)
    return band_keys(sigs, d["bands"]).ravel()


def _verified(base: Base, name: str, columns: list[str]) -> pa.Table:
    return read_table(base.dedup_dir / name, base.parts[name]["sha256"]).select(columns)


@dataclass(frozen=True)
class DeltaUnit:
    key: str
    in_path: Path
    in_sha256: str
    base: Base
    columns: tuple[str, ...]     # the dedup input's columns, as apply writes them
    out_dir: Path


def delta_part(u: DeltaUnit) -> dict:
    """One output part of the dedup from the base's (module docstring): the base's files linked, or
    its kept rows and index written again without the removed documents."""
    names = [f"{u.key}.parquet", f"{DROPPED_DIR}/{u.key}.parquet", f"{INDEX_DIR}/{u.key}.npz"]
    gone = u.base.removed.get(u.key)
    if not gone:
        return {"key": u.key, "parts": [link_part(u.base, n, u.out_dir) for n in names]}
    base = _verified(u.base, names[0], ["id", "minhash_cluster"])
    base = base.filter(pc.invert(pc.is_in(base.column("id"), pa.array(gone, pa.string()))))
    table = read_table(u.in_path, u.in_sha256).select(list(u.columns))
    dropped = _verified(u.base, names[1], ["id"]).column("id")
    # the mask and the column as apply (stages.dedup.apply_part) makes them: the same bytes written
    keep = ~pc.is_in(table.column("id"), dropped.combine_chunks()).to_numpy(zero_copy_only=False)
    kept = table.filter(pa.array(keep))
    if kept.column("id").to_pylist() != base.column("id").to_pylist():
        raise AssertionError(f"{u.in_path}: its rows are not the base's without the removed ones")
    kept = kept.append_column("minhash_cluster", pa.array(base.column("minhash_cluster").to_numpy(), pa.int64()))
    parts = [write_table(kept, u.out_dir / names[0]), link_part(u.base, names[1], u.out_dir),
             _index_without(u, names[2], gone)]
    return {"key": u.key, "parts": parts}


def link_part(base: Base, name: str, out_dir: Path) -> dict:
    """The base's file `name` (verified first) in `out_dir` too; its manifest entry."""
    from corpus.engine.runner import link_file

    entry = base.parts[name]
    verify_entry(base.dedup_dir, entry)
    link_file(base.dedup_dir / name, out_dir / name)
    return dict(entry)


def _index_without(u: DeltaUnit, name: str, gone: list[str]) -> dict:
    data = np.load(io.BytesIO(read_verified(u.base.dedup_dir / name, u.base.parts[name]["sha256"])))
    ids = data["ids"]
    rows = np.flatnonzero(~np.isin(ids, gone))
    bands = sets = None
    if "bands" in data:
        bands = data["bands"][rows]
        sets = ShingleSets(data["sets"], data["setoffsets"]).take(rows)
    out = index_bytes(ids[rows].tolist(), data["sha"][rows], bands, sets)
    (u.out_dir / INDEX_DIR).mkdir(exist_ok=True)
    write_bytes(u.out_dir / name, out)
    return {"name": name, "sha256": sha256_bytes(out), "rows": len(rows), "bytes": len(out)}


def counts_without(base: Base) -> dict:
    """The base's dedup counts without the removed documents (each one kept by the base's dedup)."""
    counts = {**base.counts, "by_source": {k: dict(v) for k, v in base.counts["by_source"].items()}}
    for source in base.sources.values():
        s = counts["by_source"][source]
        s["docs_in"] -= 1
        s["docs_out"] -= 1
        if s["docs_in"] == 0:
            del counts["by_source"][source]
    counts["docs_in"] -= len(base.sources)
    counts["docs_out"] -= len(base.sources)
    return counts
