"""Stage 06 shard: the final, sorted, content-hash-split Parquet shards and `_MANIFEST.json`.

The global sort by id never holds the texts: the parent sorts only the ids (compact keys with their
part and row), which fixes every row's destination shard. Pass 1 reads each input part once and
scatters its rows to per-shard spill files; pass 2 sorts each shard's rows by id and writes it. Both
passes are units on the executor, so the work splits across workers and the bytes do not depend on
how many there are."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from .. import __version__
from ..atomic import canonical_json, dump_json, fsync_dir, sha256_file, write_bytes, write_json
from ..config import Config
from ..errors import CorpusError, StaleError
from ..executor import map_units
from ..ledger import load_ledger
from ..manifest import load_manifest
from ..parts import read_table, rows_per_group, validate_columns
from ..runner import input_manifest, require_stage
from ..schemas import validate

log = logging.getLogger(__name__)
INPUT_DIR = "05-pii"
MANIFEST = "_MANIFEST.json"
RUN_FILE = "_RUN.json"
SCHEMA = "corpus-manifest.schema.json"
SHARD_COLUMNS = [("id", pa.string()), ("text", pa.string()), ("source_id", pa.string()), ("url", pa.string()),
                 ("license_spdx", pa.string()), ("lang", pa.string()), ("n_chars", pa.int32()),
                 ("sha256", pa.binary(32)), ("minhash_cluster", pa.int64()), ("pii_redactions", pa.int32()),
                 ("split", pa.string())]
SHARD_SCHEMA = pa.schema(SHARD_COLUMNS)
INPUT_COLUMNS = {"id": pa.string(), "text": pa.string(), "source_id": pa.string(), "url": pa.string(),
                 "license_spdx": pa.string(), "lang": pa.string(), "minhash_cluster": pa.int64(),
                 "pii_redactions": pa.int32()}


def split_of(sha256: bytes, val_permille: int) -> str:
    """DESIGN §4: val when the first 8 bytes of the text's sha256, big-endian, mod 1000 < val_permille."""
    return "val" if int.from_bytes(sha256[:8], "big") % 1000 < val_permille else "train"


def shard_name(i: int, n: int) -> str:
    return f"shard-{i:05d}-of-{n:05d}.parquet"


@dataclass(frozen=True)
class ScatterUnit:
    key: str
    path: Path
    sha256: str
    dest: np.ndarray        # destination shard of each row of the part
    spill_dir: Path


def scatter_part(u: ScatterUnit) -> dict:
    table = read_table(u.path, u.sha256)
    validate_columns(table, INPUT_COLUMNS, u.path)
    table = table.select(list(INPUT_COLUMNS))
    for shard in np.unique(u.dest):
        rows = table.take(pa.array(np.flatnonzero(u.dest == shard)))
        out = u.spill_dir / f"{int(shard):05d}" / f"{u.key}.arrow"
        out.parent.mkdir(parents=True, exist_ok=True)
        with pa.OSFile(str(out), "wb") as f, ipc.new_file(f, rows.schema) as w:
            w.write_table(rows)
    return {"key": u.key, "rows": table.num_rows}


@dataclass(frozen=True)
class ShardUnit:
    key: str
    index: int
    n_shards: int
    spill_dir: Path
    out_dir: Path
    val_permille: int


def write_shard(u: ShardUnit) -> dict:
    spills = sorted((u.spill_dir / f"{u.index:05d}").glob("*.arrow"))
    table = pa.concat_tables([ipc.open_file(pa.memory_map(str(p))).read_all() for p in spills])
    table = table.take(pc.sort_indices(table.column("id")))
    texts = table.column("text").to_pylist()
    digests = [hashlib.sha256(t.encode("utf-8")).digest() for t in texts]
    out = pa.table({
        "id": table.column("id"), "text": table.column("text"), "source_id": table.column("source_id"),
        "url": table.column("url"), "license_spdx": table.column("license_spdx"), "lang": table.column("lang"),
        "n_chars": pa.array([len(t) for t in texts], pa.int32()),
        "sha256": pa.array(digests, pa.binary(32)),
        "minhash_cluster": table.column("minhash_cluster"), "pii_redactions": table.column("pii_redactions"),
        "split": pa.array([split_of(d, u.val_permille) for d in digests], pa.string()),
    }, schema=SHARD_SCHEMA)
    name = shard_name(u.index, u.n_shards)
    path = u.out_dir / name
    pq.write_table(out, path, compression="zstd", row_group_size=rows_per_group(out))
    with open(path, "rb") as f:
        os.fsync(f.fileno())
    shutil.rmtree(u.spill_dir / f"{u.index:05d}")
    stats: dict = {}
    for sid, lic, split in zip(out.column("source_id").to_pylist(), out.column("license_spdx").to_pylist(),
                               out.column("split").to_pylist()):
        s = stats.setdefault(sid, {"license_spdx": set(), "train": 0, "val": 0})
        s["license_spdx"].add(lic)
        s[split] += 1
    return {"key": u.key, "shard": {"name": name, "sha256": sha256_file(path), "rows": out.num_rows},
            "sources": stats}


def sorted_destinations(parts: list[tuple[Path, dict]], shard_rows: int) -> tuple[list[np.ndarray], int]:
    """For each input part, the destination shard of each of its rows, from a sort of all ids."""
    ids, owners = [], []
    for i, (path, part) in enumerate(parts):
        col = pq.read_table(path, columns=["id"]).column("id")
        if len(col) != part["rows"]:
            raise CorpusError(f"{path}: {len(col)} rows, manifest says {part['rows']}")
        ids.append(col.combine_chunks())
        owners.append(np.full(len(col), i, dtype=np.int32))
    all_ids = pa.concat_arrays(ids) if ids else pa.array([], pa.string())
    n = len(all_ids)
    order = pc.sort_indices(all_ids).to_numpy()
    if n and pc.any(pc.equal(all_ids.take(pa.array(order[1:])), all_ids.take(pa.array(order[:-1])))).as_py():
        raise CorpusError("shard: duplicate document ids in the input")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    dest = rank // shard_rows
    owner = np.concatenate(owners) if owners else np.zeros(0, np.int32)
    n_shards = max(1, -(-n // shard_rows))
    return [dest[owner == i] for i in range(len(parts))], n_shards


def build_manifest(config: Config, shards: list[dict], sources: dict, stage_counts: dict) -> dict:
    ledger = load_ledger(config.ledger_path)
    used = [ledger[s] for s in config["dataset"]["sources"]]
    evals = [ledger[s] for s in config["decontam"]["evals"] if s in ledger]
    f, d, p = stage_counts["filter"], stage_counts["dedup"], stage_counts["pii"]
    dedup_cfg = config["dedup"]
    red = p.get("redactions", {})
    per_source = []
    for row in used:
        s = sources.get(row["source_id"], {"license_spdx": set(), "train": 0, "val": 0})
        per_source.append({"source_id": row["source_id"], "license_spdx": row["license_spdx"], "url": row["url"],
                           "sha256": row["sha256"], "docs": s["train"] + s["val"], "train": s["train"],
                           "val": s["val"], "licenses_in_shards": sorted(s["license_spdx"])})
    splits = {"train": sum(s["train"] for s in per_source), "val": sum(s["val"] for s in per_source)}
    return {
        "dataset": config.dataset, "version": config.version,
        "n_docs": sum(s["rows"] for s in shards), "n_shards": len(shards), "shards": shards,
        "splits": splits, "val_permille": config["shard"]["val_permille"], "shard_rows": config["shard"]["shard_rows"],
        "sources": per_source, "licenses": sorted({r["license_spdx"] for r in used}),
        "filters": {name: f["dropped"].get(name, 0) for name in ("lang", "gopher", "repetition", "ppl")},
        "filters_by_rule": f.get("dropped_by_rule", {}),
        "dedup": {"exact_dropped": d["dropped"]["exact"], "near_dropped": d["dropped"]["near"],
                  "decontaminated": d["dropped"]["decontam"], "near_marked": d.get("near_marked", 0),
                  "mode": dedup_cfg["mode"], "jaccard_threshold": dedup_cfg["jaccard_threshold"],
                  "num_perm": dedup_cfg["num_perm"], "bands": dedup_cfg["bands"], "ngram": dedup_cfg["ngram_words"],
                  "decontam_ngram": config["decontam"]["ngram"],
                  "decontaminated_by_eval": d.get("decontam_by_eval", {}),
                  "evals": [{"source_id": r["source_id"], "sha256": r["sha256"]} for r in evals]},
        "pii": {"emails": red.get("EMAIL", 0), "phones": red.get("PHONE", 0), "cards": red.get("CARD", 0),
                "ips": red.get("IP", 0), "keys": red.get("KEY", 0)},
        "docs_per_stage": {stage: {"in": c["docs_in"], "out": c["docs_out"]} for stage, c in stage_counts.items()},
        "ledger_ref": {"path": str(config.ledger_path), "sha256": hashlib.sha256(
            canonical_json([r for r in used + evals]).encode()).hexdigest(), "sources": [r["source_id"] for r in used]},
        "config_sha256": config.sha256,
        "corpus_version": __version__,
    }


def stage_counts(config: Config) -> dict:
    out = {}
    for stage, dirname in (("normalize", "02-normalize"), ("filter", "03-filter"), ("dedup", "04-dedup"),
                           ("pii", "05-pii")):
        out[stage] = load_manifest(config.stage_dir(dirname), verify_parts=False)["counts"]
    return out


def shards_current(config: Config, input_ref: dict) -> bool:
    """True when the published shards were made from this config and input (their checksums are then
    verified: a damaged shard is an error naming it, not a reason to rebuild silently)."""
    d = config.dataset_dir
    if not (d / MANIFEST).is_file() or not (d / RUN_FILE).is_file():
        return False
    manifest = json.loads((d / MANIFEST).read_text())
    run = json.loads((d / RUN_FILE).read_text())
    if manifest.get("config_sha256") != config.sha256 or run.get("input") != input_ref:
        return False
    for s in manifest["shards"]:
        path = d / s["name"]
        actual = sha256_file(path) if path.is_file() else "missing"
        if actual != s["sha256"]:
            raise CorpusError(f"{path}: sha256 mismatch: expected {s['sha256']}, got {actual}")
    return True


def run_shard(config: Config, *, workers: int, force: bool = False) -> dict:
    t0 = time.monotonic()
    src = require_stage(config, INPUT_DIR, "pii")
    manifest, ref = input_manifest(config, src)
    out_dir = config.dataset_dir
    if (out_dir / MANIFEST).exists() and not force:
        if shards_current(config, ref):
            published = json.loads((out_dir / MANIFEST).read_text())
            published["_current"] = True
            return published
        raise StaleError(f"{out_dir / MANIFEST}: published shards are stale (config or inputs changed); "
                         f"use --force to rebuild them")
    staging = out_dir / ".shard.incomplete"
    if staging.exists():
        shutil.rmtree(staging)
    spill = staging / "_spill"
    spill.mkdir(parents=True)
    parts = [(src / p["name"], p) for p in manifest["parts"] if p["name"].startswith("part-")]
    dests, n_shards = sorted_destinations(parts, config["shard"]["shard_rows"])
    executor = config["run"]["executor"]
    scatter = [ScatterUnit(p["name"].removesuffix(".parquet"), path, p["sha256"], dest, spill)
               for (path, p), dest in zip(parts, dests)]
    map_units(scatter_part, scatter, workers=workers, executor=executor, desc="shard: scatter", unit="parts")
    shard_units = [ShardUnit(f"shard-{i:05d}", i, n_shards, spill, staging, config["shard"]["val_permille"])
                   for i in range(n_shards)]
    results = map_units(write_shard, shard_units, workers=workers, executor=executor, desc="shard: write",
                        unit="shards")
    sources: dict = {}
    for r in results:
        for sid, s in r["sources"].items():
            agg = sources.setdefault(sid, {"license_spdx": set(), "train": 0, "val": 0})
            agg["license_spdx"] |= s["license_spdx"]
            agg["train"] += s["train"]
            agg["val"] += s["val"]
    counts = stage_counts(config)
    result = build_manifest(config, [r["shard"] for r in results], sources, counts)
    validate(result, SCHEMA, what=str(out_dir / MANIFEST))
    shutil.rmtree(spill)
    publish_shards(staging, out_dir, result, {"input": ref, "seconds": time.monotonic() - t0, "workers": workers,
                                               "executor": executor, "host": platform.node()})
    return result


def publish_shards(staging: Path, out_dir: Path, manifest: dict, run_info: dict) -> None:
    """Swap the shards in: the old manifest goes first and the new one comes last, so a manifest on
    disk always describes the shards beside it."""
    (out_dir / MANIFEST).unlink(missing_ok=True)
    for old in out_dir.glob("shard-*-of-*.parquet"):
        old.unlink()
    for s in manifest["shards"]:
        os.replace(staging / s["name"], out_dir / s["name"])
    write_json(out_dir / RUN_FILE, run_info)
    write_bytes(out_dir / MANIFEST, dump_json(manifest))
    fsync_dir(out_dir)
    shutil.rmtree(staging)
