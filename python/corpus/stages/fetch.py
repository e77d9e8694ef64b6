"""Stage 01 fetch: ledger sources → corpus/raw/<source_id>/<key>/part-<nnnnn>.jsonl.zst + _STAGE.json.

One job (one published directory) per source, its key the file's sha256 and the settings that shape its
parts (engine.raw.raw_key): configs that read a file differently publish side by side. A source whose
published raw output records the same ledger facts and settings, and whose parts still match their
checksums, is current: nothing is read, downloaded or rewritten. Rebuilding one (a damaged part,
`--replace`, `--recompute`) keeps its `fetched_at`, so its bytes are those it had, and is refused
before anything is published when they would differ from what a dataset version read. The dataset's corpus sources, its protected eval sets, the perplexity
reference and the files enabled filters read (lists, a quality model) are fetched (or only the `--source`
ones). A row of format binary (role model) is not read: its verified file is copied as it is, the one
file of its raw output (engine.raw.MODEL_FILE)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path


from corpus.store.atomic import CHUNK, DiskFullError, atomic_open, sha256_file
from corpus.store.digest import check_sha, check_size
from corpus.config import Config
from corpus.config.layout import STAGE_FILE, WORK_DIR
from corpus.errors import CorpusError
from corpus.formats.jsonl import ZstJsonlWriter
from corpus.config.ledger import load_ledger, select
from corpus.engine.raw import (BINARY_FORMATS, MODEL_FILE, REJECTS, WEB_FORMATS, document_parts, earlier_raw,
                               extract_table, fetch_identity, raw_candidates, raw_dir_of, retries)
from corpus.filters.prefilter import lang_gate
from corpus.engine.references import readers_of
from corpus.store.atomic import dump_json, sha256_bytes
from corpus.store.retrieve import locate, min_rate_of
from corpus.store.root import store_of
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step
from corpus.formats.sources.limits import ReadLimits
from corpus.formats.sources.ranges import Range, plan_ranges
from corpus.formats.sources.read import read_documents
from corpus.web.retry import Earlier, document_offset, index_parts, overlapping, reject_offset
from corpus.stages import crawl
from corpus.web.listing import listing_kind
from corpus.web.records import (WebCounts, WebDoc, index_documents, describe_records, is_web_manifest, records_line,
                                total_web_counts, web_documents)

# The stage's workers start when a phase first sends them more than one unit (engine.executor.pool_session):
# a run that fetches one new source (a takedown list) reads it in the driver, without waiting for workers
# that the forkserver can only start once it has imported every stage
LAZY_POOL = True


@dataclass(frozen=True)
class LocateUnit:
    key: str
    row: dict
    fetch: dict             # the [fetch] table
    downloads: Path
    mirror: Path | None


def locate_source(u: LocateUnit) -> dict:
    """Find (download if need be) and verify the source file, and cut it into fetch units
    (corpus.formats.sources.plan_ranges: they depend on the file and `unit_bytes` only); a listing row's
    listing is read and its selected member files named instead (corpus.stages.crawl)."""
    if listing_kind(u.row):
        return {"key": u.key, "parts": [], **crawl.locate_listing(u.row, u.fetch, u.mirror, u.downloads)}
    path, how = locate(u.row, mirror=u.mirror, downloads=u.downloads, timeout=u.fetch["timeout_s"],
                       min_rate=min_rate_of(u.fetch))
    ranges = [] if u.row["format"] in BINARY_FORMATS else plan_ranges(path, u.row, u.fetch["unit_bytes"])
    return {"key": u.key, "parts": [], "found_by": how, "source_path": str(path),
            "ranges": [dataclasses.asdict(r) for r in ranges]}


@dataclass(frozen=True)
class FetchUnit:
    key: str
    row: dict
    fetch: dict             # the [fetch] table
    path: Path              # the located, verified source file
    rng: Range
    fetched_at: str
    out_dir: Path
    extract: dict | None = None   # the [extract] table, for a web source
    earlier: dict | None = None   # [extract] retry: the earlier raw output's parts for this range (_earlier_step)


def unit_prefix(index: int) -> str:
    """The raw parts of range `index` are `<prefix><n:05d>.jsonl.zst` until the `record` step renumbers
    them `part-<nnnnn>` in range order."""
    return f"range-{index:05d}-part-"


def _parts(writer: ZstJsonlWriter, staging: Path) -> list[dict]:
    return [{"name": p.relative_to(staging).as_posix(), "sha256": sha256_file(p), "rows": rows,
             "bytes": p.stat().st_size} for p, rows in writer.close()]


def fetch_web_range(u: FetchUnit) -> dict:
    """Read the records of one range of a WARC/WET file: documents into raw parts (with their record's
    facts under `meta`), rejects into `rejects/` parts (url, record id, reason, detail)."""
    (u.out_dir / REJECTS).mkdir(exist_ok=True)
    prefix = unit_prefix(u.rng.index)
    docs = ZstJsonlWriter(u.out_dir, u.fetch["part_docs"], u.fetch["part_bytes"], prefix=prefix)
    rejects = ZstJsonlWriter(u.out_dir / REJECTS, u.fetch["part_docs"], u.fetch["part_bytes"], prefix=prefix)
    counts = WebCounts()
    written = 0
    earlier = (Earlier(Path(u.earlier["dir"]), u.earlier["documents"], u.earlier["rejects"], u.extract["retry"],
                       u.rng.start) if u.earlier is not None else None)
    if u.row["format"] == "warc-records":  # each record fetched alone, into a sparse scratch file
        scratch = u.out_dir / WORK_DIR / f"range-{u.rng.index:05d}.warc"
        items = index_documents(u.path, u.row, u.rng.start, u.rng.stop, u.extract, counts, scratch,
                                u.fetch["timeout_s"], gate=lang_gate(u.extract))
    else:
        scratch, items = None, web_documents(u.path, u.row, u.rng.start, u.rng.stop, u.extract, counts, earlier,
                                             gate=lang_gate(u.extract))
    for item in items:
        if isinstance(item, WebDoc):
            written += 1
            docs.write({"url": item.url, "fetched_at": u.fetched_at, "license_spdx": u.row["license_spdx"],
                        "text": item.text, "meta": {"locator": item.locator, **item.meta}})
        else:
            rejects.write({"url": item.url, "locator": item.locator, "record_id": item.record_id,
                           "reason": item.reason, "detail": item.detail})
    if scratch is not None:
        scratch.unlink(missing_ok=True)
    rejected = sum(counts.rejected.values())
    out = {"key": u.key, "parts": _parts(docs, u.out_dir) + _parts(rejects, u.out_dir),
           "counts": {"docs_in": written + rejected, "docs_out": written, "skipped_empty": 0,
                      "rejected": counts.rejected, "records": counts.records, "skipped_records": counts.skipped}}
    if u.extract.get("retry"):  # only then: the manifests of outputs made without it keep their bytes
        out["counts"].update(retried=counts.retried, recovered=counts.recovered)
    return out


@dataclass(frozen=True)
class MemberRange:
    key: str
    file: int               # the member file's position in the listing
    url: str
    read: FetchUnit         # the range, read as any WARC file's


def fetch_member_range(u: MemberRange) -> dict:
    """One range of a listing's member file; data that is not WARC where records should be makes the
    whole file a reject (its parts here removed; the record step removes its other ranges')."""
    try:
        return {**fetch_web_range(u.read), "file": u.file}
    except CorpusError as e:
        if isinstance(e, DiskFullError):  # the machine's problem, not the file's
            raise
        for p in crawl.unit_parts_glob(u.read.out_dir, unit_prefix(u.read.rng.index)):
            p.unlink()
        return {"key": u.key, "parts": [], "file": u.file,
                "reject": {"index": u.file, "url": u.url, "reason": "undecodable", "detail": str(e)}}


def fetch_range(u: FetchUnit) -> dict:
    """Read one range of a source into its own raw parts in the staging dir."""
    if u.extract is not None:
        return fetch_web_range(u)
    row = u.row
    writer = ZstJsonlWriter(u.out_dir, u.fetch["part_docs"], u.fetch["part_bytes"], prefix=unit_prefix(u.rng.index))
    docs_in = empty = 0
    for locator, text in read_documents(u.path, row, u.rng, limits=ReadLimits.from_fetch(u.fetch)):
        docs_in += 1
        if not text.strip():
            empty += 1
            continue
        writer.write({"url": locator, "fetched_at": u.fetched_at, "license_spdx": row["license_spdx"], "text": text})
    return {"key": u.key, "parts": _parts(writer, u.out_dir),
            "counts": {"docs_in": docs_in, "docs_out": docs_in - empty, "skipped_empty": empty}}


@dataclass(frozen=True)
class CopyUnit:
    key: str
    row: dict
    path: Path              # the located, verified file
    out_dir: Path


def copy_file(u: CopyUnit) -> dict:
    """A binary row's file (a model) copied as it is into the raw output, hashed as it is written and
    checked against the ledger row again: its one part."""
    h, n = hashlib.sha256(), 0
    what = f"source '{u.row['source_id']}': "
    with open(u.path, "rb") as src, atomic_open(u.out_dir / MODEL_FILE) as out:
        while chunk := src.read(CHUNK):
            h.update(chunk)
            n += len(chunk)
            out.write(chunk)
        check_size(u.path, u.row["bytes"], n, what)  # the file changed since locate verified it: nothing kept
        check_sha(u.path, u.row["sha256"], h.hexdigest(), what)
    return {"key": u.key, "parts": [{"name": MODEL_FILE, "sha256": h.hexdigest(), "rows": 0, "bytes": n}],
            "counts": {"docs_in": 0, "docs_out": 0, "skipped_empty": 0}}


def _earlier_step(config: Config, row: dict, recorded: str | None, ctx: PhaseContext) -> None:
    """[extract] retry: find the raw output this row has without it (engine.raw.earlier_raw) and index
    its parts by record offset, so each fetch unit reads the earlier outcomes of its range only; the new
    output takes that output's fetched_at (its reused documents carry it), unless it is a rebuild of
    itself. Without retry, that output, or with --recompute (nothing reused), every page is extracted."""
    ctx.state["earlier"] = None
    found = earlier_raw(config, row) if retries(config, row) and not ctx.opts.recompute else None
    if found is None:
        return
    directory, manifest = found
    store = store_of(directory)
    for part in manifest["parts"]:  # on an s3 root: its local copy, downloaded and hashed (found: sizes only)
        store.verify_file(directory / part["name"], part["sha256"], part.get("bytes"), listed_in=str(directory))
    ctx.state["earlier"] = {
        "dir": str(directory),
        "documents": index_parts(directory, document_parts(manifest), document_offset),
        "rejects": index_parts(directory, [p for p in manifest["parts"] if p["name"].startswith(f"{REJECTS}/")],
                               reject_offset)}
    if recorded is None and isinstance(manifest.get("fetched_at"), str):
        ctx.job.extra["fetched_at"] = manifest["fetched_at"]
    ctx.run_info["retried_from"] = str(directory.relative_to(config.artifacts))


def _earlier_of(ctx: PhaseContext, rng: dict) -> dict | None:
    """The earlier raw output's parts that hold records of this range (None: extract every page)."""
    earlier = ctx.state.get("earlier")
    if earlier is None:
        return None
    return {"dir": earlier["dir"], **{kind: overlapping(earlier[kind], rng["start"], rng["stop"])
                                      for kind in ("documents", "rejects")}}


def _record_file(ctx: PhaseContext) -> None:
    (res,) = ctx.results["locate"]
    ctx.run_info.update(found_by=res["found_by"], source_path=res["source_path"], ranges=0)


def source_rows(config: Config, only: tuple[str, ...] = ()) -> list[dict]:
    """The rows to fetch: the dataset's corpus sources, its protected eval sets, its takedown lists and
    the perplexity reference (or just `only`)."""
    ledger = load_ledger(config.ledger_path)
    if only:
        missing = [s for s in only if s not in ledger]
        if missing:
            raise CorpusError(f"{config.ledger_path}: source '{missing[0]}' is not in the ledger")
        return [ledger[s] for s in only]
    rows = select(ledger, config["dataset"]["sources"], "corpus", what=f"{config.path}: dataset.sources")
    rows += select(ledger, config["decontam"]["evals"], "eval", what=f"{config.path}: decontam.evals")
    rows += select(ledger, (config.data.get("takedown") or {}).get("lists", []), "takedown",
                   what=f"{config.path}: takedown.lists")
    from corpus.filters.registry import filter_sources

    for sid, key in filter_sources(config):
        if sid not in ledger:
            raise CorpusError(f"{config.path}: {key}: source '{sid}' is not in the ledger")
        if all(r["source_id"] != sid for r in rows):
            rows.append(ledger[sid])
    return rows


def _record_source(ctx: PhaseContext) -> None:
    """A single file's parts numbered in range order (_renumber), and how the file was found."""
    (res,) = ctx.results["locate"]
    _renumber(ctx)
    ctx.run_info.update(found_by=res["found_by"], source_path=res["source_path"], ranges=len(res["ranges"]))


def _renumber(ctx: PhaseContext) -> None:
    """Name the ranges' parts `part-<nnnnn>.jsonl.zst` in range order (the order of ctx.parts): a
    document's id k is its position in the source's raw parts read in path order."""
    for folder in ("", f"{REJECTS}/"):
        mine = [p for p in ctx.parts if p["name"].rpartition("/")[0] == folder.rstrip("/")]
        for n, part in enumerate(mine):
            name = f"{folder}part-{n:05d}.jsonl.zst"
            if part["name"] != name:
                os.replace(ctx.staging / part["name"], ctx.staging / name)
                part["name"] = name
    ctx.parts.sort(key=lambda p: ("/" in p["name"], p["name"]))  # documents first, then rejects/


def _record_listing(ctx: PhaseContext, fetch: dict) -> None:
    """A listing's parts numbered over its files in listing order; the files read (url, sha256, bytes)
    and rejected (url, reason, detail) in the manifest."""
    (res,) = ctx.results["locate"]
    good, rejects = crawl.drop_unreadable(ctx, fetch, ctx.results["files"], ctx.results["read"])
    _renumber(ctx)
    ctx.counts = crawl.listing_counts(good, rejects, ctx.results["read"])
    ctx.job.extra["files"] = {"read": [{k: f[k] for k in ("url", "sha256", "bytes")} for f in good],
                              "rejected": [{k: r[k] for k in ("url", "reason", "detail")} for r in rejects]}
    crawl.drop_downloads(ctx.results["files"])
    ctx.run_info.update(found_by=res["found_by"], source_path=res["source_path"], listed=res["listed"],
                        ranges=len(ctx.results["read"]),
                        files_found_by={how: sum(1 for f in good if f["found_by"] == how)
                                        for how in sorted({f["found_by"] for f in good})})


def recorded_fetched_at(directory: Path, identity: dict) -> str | None:
    """The fetched_at of the raw output already in `directory` with this identity (even a damaged one),
    from its _STAGE.json, or when that is gone from its first document: a rebuild writes it again, so the
    rebuilt bytes are the ones dataset versions read."""
    try:
        m = json.loads((directory / STAGE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _first_fetched_at(directory)
    same = isinstance(m, dict) and {k: m.get(k) for k in ("config_sha256", "params", "inputs")} == identity
    return m.get("fetched_at") if same and isinstance(m.get("fetched_at"), str) else None


def _first_fetched_at(directory: Path) -> str | None:
    from corpus.formats.jsonl import read_zst_jsonl

    try:
        for rec in read_zst_jsonl(directory / "part-00000.jsonl.zst"):
            return rec.get("fetched_at") if isinstance(rec.get("fetched_at"), str) else None
    except (OSError, ValueError, CorpusError):
        return None
    return None


def keep_what_versions_read(config: Config, final: Path):
    """A guard for the runner (Job.before_publish): a rebuilt raw output must be the bytes every dataset
    version that read it recorded, or nothing is published."""
    def guard(manifest: dict) -> None:
        sha = sha256_bytes(dump_json(manifest))
        changed = sorted({name for name, read in readers_of(config.artifacts, final) if read != sha})
        if changed:
            raise CorpusError(f"{final}: rebuilding it gives other bytes than dataset version "
                              f"{', '.join(changed)} read (was the file, or a library, changed?); nothing published. "
                              f"Drop that version first (`corpus gc --version NAME/VERSION`), or build with "
                              f"other [fetch] settings")
    return guard


def listing_phases(config: Config, row: dict, fetch: dict, extract: dict) -> list:
    """A listing row's phases after locate (corpus.stages.crawl): its files, their pins, their ranges
    (`extract`: engine.raw.extract_table)."""
    sid = row["source_id"]

    def file_units(ctx: PhaseContext) -> list[crawl.FileUnit]:
        return crawl.file_units(ctx, row, fetch, config.downloads_dir, config.mirror)

    def read_units(ctx: PhaseContext) -> list[MemberRange]:
        units = []
        for f in (r["file"] for r in ctx.results["files"] if "file" in r):
            member = {**row, "url": f["url"]}  # its documents' locators name the member file
            for k, (start, stop) in enumerate(f["ranges"]):
                key = f"{sid}/file-{f['index']:06d}-range-{k:05d}"
                units.append(MemberRange(key, f["index"], f["url"], FetchUnit(
                    key, member, fetch, Path(f["path"]), Range(len(units), "records", start, stop),
                    ctx.job.extra["fetched_at"], ctx.staging, extract=extract)))
        return units

    return [Map("files", file_units, crawl.check_file, unit="files"),
            Step("pin", lambda ctx: crawl.pin_files(ctx, row, fetch, ctx.results["files"])),
            Map("read", read_units, fetch_member_range, unit="ranges"),
            Step("record", lambda ctx: _record_listing(ctx, fetch))]


def plan(config: Config, opts: RunOptions) -> list[Job]:
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    fetched_at = now.isoformat().replace("+00:00", "Z")
    jobs = []
    rows = source_rows(config, tuple(opts.extra.get("sources", ())))
    # how pages are read, once for every web source (prefilter_lang's model hashed once, its settings checked)
    extract = extract_table(config) if any(r["format"] in WEB_FORMATS or listing_kind(r) for r in rows) else None
    for row in rows:
        sid = row["source_id"]
        fetch = dict(config["fetch"])

        def locate_units(ctx: PhaseContext, row=row, fetch=fetch) -> list[LocateUnit]:
            return [LocateUnit(row["source_id"], row, fetch, config.downloads_dir, config.mirror)]

        def read_units(ctx: PhaseContext, row=row, fetch=fetch, extract=extract) -> list[FetchUnit]:
            (res,) = ctx.results["locate"]
            return [FetchUnit(f"{row['source_id']}/range-{r['index']:05d}", row, fetch, Path(res["source_path"]),
                              # fetched_at from the job: a --resume keeps the interrupted run's, which its
                              # reused parts carry
                              Range(**{**r, "members": tuple(r["members"])}), ctx.job.extra["fetched_at"],
                              ctx.staging, extract=extract if row["format"] in WEB_FORMATS else None,
                              earlier=_earlier_of(ctx, r))
                    for r in res["ranges"]]

        def copy_units(ctx: PhaseContext, row=row) -> list[CopyUnit]:
            (res,) = ctx.results["locate"]
            return [CopyUnit(f"{row['source_id']}/{MODEL_FILE}", row, Path(res["source_path"]), ctx.staging)]

        source = {"source_id": sid, "url": row["url"], "sha256": row["sha256"], "bytes": row["bytes"],
                  "license_spdx": row["license_spdx"], "role": row["role"]}
        # every job has the phases of a listing's (the jobs of a stage run their phases side by side): a
        # source that is one file has no member files to check or pin
        files = [Map("files", lambda ctx: [], crawl.check_file, unit="files"), Step("pin", lambda ctx: None)]
        if listing_kind(row):
            phases = listing_phases(config, row, fetch, extract)
        elif row["format"] in BINARY_FORMATS:  # a model file: verified and copied, never read as text
            phases = [*files, Map("read", copy_units, copy_file, unit="ranges"), Step("record", _record_file)]
        else:
            phases = [*files, Map("read", read_units, fetch_range, unit="ranges"), Step("record", _record_source)]
        final, identity = raw_dir_of(config, row), fetch_identity(row, config)
        recorded = recorded_fetched_at(final, identity)
        earlier = Step("earlier", partial(_earlier_step, config, row, recorded))  # every job has it: one phase list
        jobs.append(Job(sid, final, identity, [Map("locate", locate_units, locate_source, unit="sources"), earlier,
                                               *phases],
                        extra={"fetched_at": recorded or fetched_at, "source": source},
                        candidates=raw_candidates(config, row), before_publish=keep_what_versions_read(config, final)))
    return jobs


def web_records_line(result) -> str | None:
    """What became of the web sources' WARC records, added up over them (None: no web source)."""
    return records_line([o.manifest["counts"] for o in result.outputs if is_web_manifest(o.manifest)])


def retried_line(counts: dict) -> str | None:
    """'[extract] retry: 2 pages extracted again (extractor_crash 2), 1 now a document' (None: no retry)."""
    if "retried" not in counts:
        return None
    by = ", ".join(f"{k} {v}" for k, v in sorted(counts["retried"].items()))
    return (f"[extract] retry: {sum(counts['retried'].values())} pages extracted again" + (f" ({by})" if by else "")
            + f", {counts['recovered']} now a document")


def source_bytes(manifest: dict) -> int:
    """The bytes a raw output was read from: its file's, or a crawl's files'."""
    if "files" in manifest:
        return sum(f["bytes"] for f in manifest["files"]["read"])
    return manifest["source"]["bytes"]


def summary(result) -> str:
    fetched = [o for o in result.outputs if o.status != "current"]
    line = f"{len(fetched)} of {len(result.outputs)} sources fetched"
    files = [o.manifest["counts"]["files"] for o in result.outputs if "files" in o.manifest["counts"]]
    if files:
        line += f"; crawl files {crawl.describe_files(crawl.total_files(files))}"
    records = web_records_line(result)
    return f"{line}; {records}" if records else line


def report(result) -> list[str]:
    lines = [f"{'source':<28} {'status':<10} {'found in':<10} {'docs':>8} {'MB':>7} {'s':>6}"]
    for o in result.outputs:
        fetched = o.status != "current"
        mb = source_bytes(o.manifest) / 1e6 if fetched else 0.0
        lines.append(f"{o.key:<28} {'fetched' if fetched else 'current':<10} {o.run_info.get('found_by', 'none'):<10} "
                     f"{o.manifest['counts']['docs_out']:>8} {mb:>7.2f} {o.run_info.get('seconds', 0.0):>6.2f}")
    for o in result.outputs:
        if is_web_manifest(o.manifest):  # a web source: what became of its records
            lines.append(f"  {o.key}: WARC records {describe_records(total_web_counts([o.manifest['counts']]))}")
            if (line := retried_line(o.manifest["counts"])) is not None:
                lines.append(f"  {o.key}: {line}")
        if "files" in o.manifest["counts"]:  # a listing row: what became of its files
            lines.append(f"  {o.key}: files {crawl.describe_files(o.manifest['counts']['files'])}")
    fetched = [o for o in result.outputs if o.status != "current"]
    docs = sum(o.manifest["counts"]["docs_out"] for o in fetched)
    mb = sum(source_bytes(o.manifest) for o in fetched) / 1e6
    wall = result.seconds
    lines.append(f"fetched {len(fetched)} of {len(result.outputs)} sources: {docs} docs, {mb:.2f} MB in {wall:.2f}s"
                 + (f" ({docs / wall:,.0f} docs/s, {mb / wall:.2f} MB/s)" if fetched and wall > 0 else ""))
    records = web_records_line(result)
    return lines + ([records] if records else [])
