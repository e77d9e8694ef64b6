"""Stage 01 fetch: ledger sources → corpus/raw/<source_id>/<yyyymmdd>/part-<nnnnn>.jsonl.zst + _STAGE.json.

One work unit per source. A source whose published raw output was made from the same ledger facts and
parameters, and whose parts still match their checksums, is left alone: nothing is read, downloaded or
rewritten."""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..errors import CorpusError, StaleError
from ..executor import map_units
from ..jsonl import ZstJsonlWriter
from ..ledger import load_ledger, select
from ..manifest import STAGE_FILE, Staging, load_manifest, new_manifest, part_entry, verify_part
from ..retrieve import locate
from ..sources import read_documents

log = logging.getLogger(__name__)
# Ledger fields that decide what the raw documents are; a change to any of them means fetching again.
READ_FIELDS = ("url", "sha256", "bytes", "license_spdx", "format", "members", "text_fields", "split",
               "delimiter", "pattern", "encoding")


def fetch_params(row: dict, fetch: dict) -> dict:
    return {"source_id": row["source_id"], "part_docs": fetch["part_docs"], "part_bytes": fetch["part_bytes"],
            "ledger_row": {k: row[k] for k in READ_FIELDS if k in row}}


def find_published(source_dir: Path, params: dict) -> tuple[Path, dict] | None:
    """The newest published raw output of a source made with `params` and its manifest, parts verified."""
    if not source_dir.is_dir():
        return None
    for d in sorted((p for p in source_dir.iterdir() if p.is_dir() and p.name.isdigit()), reverse=True):
        if not (d / STAGE_FILE).is_file():
            continue
        manifest = load_manifest(d, verify_parts=False)
        if manifest["params"] == params:
            try:
                for part in manifest["parts"]:
                    verify_part(d / part["name"], part)
            except CorpusError as e:
                raise CorpusError(f"{e} (run fetch with --force to fetch this source again)") from None
            return d, manifest
    return None


@dataclass(frozen=True)
class FetchTask:
    row: dict
    fetch: dict             # the [fetch] table
    raw_root: Path
    downloads: Path
    mirror: Path | None
    timeout_s: float
    fetched_at: str
    force: bool
    replace_stale: bool = False  # `corpus run`: a same-day output made from other ledger facts is replaced


def fetch_source(task: FetchTask) -> dict:
    """Fetch one source (a work unit). Returns a summary for the log and the run file."""
    row, sid = task.row, task.row["source_id"]
    params = fetch_params(row, task.fetch)
    t0 = time.monotonic()
    if not task.force:
        published = find_published(task.raw_root / sid, params)
        if published is not None:
            published, m = published
            return {"source_id": sid, "status": "current", "dir": str(published), "how": "none",
                    "docs": m["counts"]["docs_out"], "bytes": 0, "seconds": time.monotonic() - t0}
    path, how = locate(row, mirror=task.mirror, downloads=task.downloads, timeout=task.timeout_s)
    date = task.fetched_at[:10].replace("-", "")
    final = task.raw_root / sid / date
    if (final / STAGE_FILE).is_file() and not (task.force or task.replace_stale):
        raise StaleError(f"{final}: published raw output is stale (its ledger row or [fetch] part sizes changed); "
                          f"use --force to fetch it again")
    staging = Staging(final, force=task.force or task.replace_stale)
    writer = ZstJsonlWriter(staging.dir, task.fetch["part_docs"], task.fetch["part_bytes"])
    docs_in = empty = 0
    for locator, text in read_documents(path, row):
        docs_in += 1
        if not text.strip():
            empty += 1
            continue
        writer.write({"url": locator, "fetched_at": task.fetched_at, "license_spdx": row["license_spdx"],
                      "text": text})
    parts = writer.close()
    manifest = new_manifest("fetch", params=params)
    manifest.update({
        "fetched_at": task.fetched_at,
        "source": {"source_id": sid, "url": row["url"], "sha256": row["sha256"], "bytes": row["bytes"],
                   "license_spdx": row["license_spdx"], "role": row["role"]},
        "inputs": [{"path": row["url"], "sha256": row["sha256"]}],
        "parts": [part_entry(p, rows) for p, rows in parts],
        "counts": {"docs_in": docs_in, "docs_out": docs_in - empty, "skipped_empty": empty},
    })
    seconds = time.monotonic() - t0
    staging.publish(manifest, {"seconds": seconds, "found_by": how, "source_path": str(path)})
    return {"source_id": sid, "status": "fetched", "dir": str(staging.final), "how": how,
            "docs": docs_in - empty, "bytes": row["bytes"], "seconds": seconds}


def source_rows(config: Config, only: tuple[str, ...] = ()) -> list[dict]:
    """The rows to fetch: the dataset's corpus sources, then its protected eval sets (or just `only`)."""
    ledger = load_ledger(config.ledger_path)
    if only:
        missing = [s for s in only if s not in ledger]
        if missing:
            raise CorpusError(f"{config.ledger_path}: source '{missing[0]}' is not in the ledger")
        return [ledger[s] for s in only]
    rows = select(ledger, config["dataset"]["sources"], "corpus", what=f"{config.path}: dataset.sources")
    rows += select(ledger, config["decontam"]["evals"], "eval", what=f"{config.path}: decontam.evals")
    ppl = config["filters"]["ppl"]
    if ppl["enabled"]:  # the perplexity reference may be any ledger source
        refs = ppl["reference"] if isinstance(ppl["reference"], list) else [ppl["reference"]]
        for sid in refs:
            if sid not in ledger:
                raise CorpusError(f"{config.path}: filters.ppl.reference: source '{sid}' is not in the ledger")
            if all(r["source_id"] != sid for r in rows):
                rows.append(ledger[sid])
    return rows


def run_fetch(config: Config, *, workers: int, executor: str, force: bool = False,
              only: tuple[str, ...] = (), replace_stale: bool = False) -> list[dict]:
    rows = source_rows(config, only)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    fetched_at = now.isoformat().replace("+00:00", "Z")
    tasks = [FetchTask(row, config["fetch"], config.raw_dir, config.downloads_dir, config.mirror,
                       config["fetch"]["timeout_s"], fetched_at, force, replace_stale) for row in rows]
    return map_units(fetch_source, tasks, workers=workers, executor=executor, desc="fetch", unit="sources")


def latest_raw(config: Config, row: dict) -> Path:
    """The published raw directory that matches the ledger row now (what normalize reads)."""
    found = find_published(config.raw_dir / row["source_id"], fetch_params(row, config["fetch"]))
    if found is None:
        raise CorpusError(f"source '{row['source_id']}': no current raw output under "
                          f"{config.raw_dir / row['source_id']} (run `corpus fetch`)")
    return found[0]
