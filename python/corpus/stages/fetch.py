"""Stage 01 fetch: ledger sources → corpus/raw/<source_id>/<yyyymmdd>/part-<nnnnn>.jsonl.zst + _STAGE.json.

One job (one published directory) per source. A source whose published raw output records the same
ledger facts and part sizes, and whose parts still match their checksums, is current: nothing is read,
downloaded or rewritten. The dataset's corpus sources, its protected eval sets and the perplexity
reference are fetched (or only the `--source` ones)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path


from ..atomic import sha256_file
from ..config import Config
from ..errors import CorpusError
from ..jsonl import ZstJsonlWriter
from ..ledger import load_ledger, select
from ..raw import dated_dirs, fetch_identity
from ..retrieve import locate
from ..runner import Job, Map, PhaseContext, RunOptions, Step
from ..sources import read_documents


@dataclass(frozen=True)
class FetchUnit:
    key: str
    row: dict
    fetch: dict             # the [fetch] table
    downloads: Path
    mirror: Path | None
    fetched_at: str
    out_dir: Path


def fetch_source(u: FetchUnit) -> dict:
    """Read one source into raw parts in the staging dir."""
    row = u.row
    path, how = locate(row, mirror=u.mirror, downloads=u.downloads, timeout=u.fetch["timeout_s"])
    writer = ZstJsonlWriter(u.out_dir, u.fetch["part_docs"], u.fetch["part_bytes"])
    docs_in = empty = 0
    for locator, text in read_documents(path, row):
        docs_in += 1
        if not text.strip():
            empty += 1
            continue
        writer.write({"url": locator, "fetched_at": u.fetched_at, "license_spdx": row["license_spdx"], "text": text})
    parts = [{"name": p.name, "sha256": sha256_file(p), "rows": rows, "bytes": p.stat().st_size}
             for p, rows in writer.close()]
    return {"key": u.key, "parts": parts, "found_by": how, "source_path": str(path),
            "counts": {"docs_in": docs_in, "docs_out": docs_in - empty, "skipped_empty": empty}}


def source_rows(config: Config, only: tuple[str, ...] = ()) -> list[dict]:
    """The rows to fetch: the dataset's corpus sources, its protected eval sets and the perplexity
    reference (or just `only`)."""
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


def _record_source(ctx: PhaseContext) -> None:
    (res,) = ctx.results["read"]
    ctx.run_info.update(found_by=res["found_by"], source_path=res["source_path"])


def plan(config: Config, opts: RunOptions) -> list[Job]:
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    fetched_at = now.isoformat().replace("+00:00", "Z")
    date = fetched_at[:10].replace("-", "")
    jobs = []
    for row in source_rows(config, tuple(opts.extra.get("sources", ()))):
        sid = row["source_id"]
        unit = FetchUnit(sid, row, config["fetch"], config.downloads_dir, config.mirror, fetched_at, Path())

        def units(ctx: PhaseContext, unit=unit) -> list[FetchUnit]:
            # fetched_at from the job: a --resume keeps the interrupted run's, which its reused parts carry
            return [FetchUnit(**{**unit.__dict__, "out_dir": ctx.staging, "fetched_at": ctx.job.extra["fetched_at"]})]

        source = {"source_id": sid, "url": row["url"], "sha256": row["sha256"], "bytes": row["bytes"],
                  "license_spdx": row["license_spdx"], "role": row["role"]}
        jobs.append(Job(sid, config.raw_dir / sid / date, fetch_identity(row, config["fetch"]),
                        [Map("read", units, fetch_source, unit="sources"), Step("record", _record_source)],
                        extra={"fetched_at": fetched_at, "source": source},
                        candidates=dated_dirs(config, sid)))
    return jobs


def summary(result) -> str:
    fetched = [o for o in result.outputs if o.status != "current"]
    return f"{len(fetched)} of {len(result.outputs)} sources fetched"


def report(result) -> list[str]:
    lines = [f"{'source':<28} {'status':<10} {'found in':<10} {'docs':>8} {'MB':>7} {'s':>6}"]
    for o in result.outputs:
        fetched = o.status != "current"
        mb = o.manifest["source"]["bytes"] / 1e6 if fetched else 0.0
        lines.append(f"{o.key:<28} {'fetched' if fetched else 'current':<10} {o.run_info.get('found_by', 'none'):<10} "
                     f"{o.manifest['counts']['docs_out']:>8} {mb:>7.2f} {o.run_info.get('seconds', 0.0):>6.2f}")
    fetched = [o for o in result.outputs if o.status != "current"]
    docs = sum(o.manifest["counts"]["docs_out"] for o in fetched)
    mb = sum(o.manifest["source"]["bytes"] for o in fetched) / 1e6
    wall = result.seconds
    lines.append(f"fetched {len(fetched)} of {len(result.outputs)} sources: {docs} docs, {mb:.2f} MB in {wall:.2f}s"
                 + (f" ({docs / wall:,.0f} docs/s, {mb / wall:.2f} MB/s)" if fetched and wall > 0 else ""))
    return lines
