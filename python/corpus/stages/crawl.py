"""Fetch of a listing row (corpus.web.listing): a crawl of many WARC files as one source.

Its phases, in corpus.stages.fetch's job: `locate` reads the listing (or resolves the glob) and applies
`[fetch] files`; `files` is one unit per member file: found by its pin in the mirror or download cache,
else downloaded (or read in place), hashed, checked against its pin (corpus.web.pins), its records
located and cut into ranges; `pin` (a step) refuses a changed file, pins the new ones and fails the run
when more files could not be read than `[fetch] max_failed_files` allows; `read` is fetch's per-range
unit over every good file; `record` drops a file whose range turned out unreadable, numbers the parts
and records the files read and rejected in the manifest.

A file that cannot be read is a reject of that file with a reason: `missing` (HTTP 404/410, no such
object or path), `truncated` (the download ended early, or the file ends inside its last record),
`undecodable` (no WARC records where they should be), `failed` (any other download failure)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from corpus.config.ledger import today
from corpus.engine.raw import REJECTS
from corpus.engine.runner import PhaseContext, add_counts
from corpus.errors import CorpusError, DownloadFailed
from corpus.formats.sources.arc import is_arc
from corpus.formats.sources.warc import cut_at_records, plan_warc_ranges, record_offsets, tail_problem
from corpus.store.atomic import sha256_file
from corpus.store.checksums import verify_file
from corpus.store.retrieve import download, local_path, locate, min_rate_of, url_kind
from corpus.web.listing import glob_members, listing_kind, read_listing, select_members
from corpus.web.pins import add_pins, changed_line, load_pins, pins_path

log = logging.getLogger(__name__)
FILE_REASONS = ("missing", "truncated", "undecodable", "failed")
SHOWN_FAILURES = 5   # files named in the error of a run with too many unreadable files


def locate_listing(row: dict, fetch: dict, mirror: Path | None, downloads: Path) -> dict:
    """The listing's selected members [[index, url], ...], and how the listing was found."""
    if listing_kind(row) == "glob":
        urls, how, where = glob_members(row), "resolved", row["url"]
    else:
        path, how = locate(row, mirror=mirror, downloads=downloads, timeout=fetch["timeout_s"],
                           min_rate=min_rate_of(fetch))
        urls, where = read_listing(path, row), str(path)
    members = select_members(urls, fetch.get("files"))
    return {"found_by": how, "source_path": where, "listed": len(urls),
            "members": [[m.index, m.url] for m in members], "ranges": []}


@dataclass(frozen=True)
class FileUnit:
    key: str
    source_id: str
    index: int              # the file's position in the listing
    url: str
    pin: dict | None        # its pin, if a fetch read it before
    fetch: dict             # the [fetch] table
    downloads: Path
    mirror: Path | None


def _pinned_copy(u: FileUnit) -> tuple[Path, str] | None:
    """The pinned bytes in the mirror or the download cache (a damaged copy is not used)."""
    for how, folder in (("mirror", u.mirror), ("cache", u.downloads)):
        if folder is not None and (folder / u.pin["sha256"]).is_file():
            try:
                verify_file(folder / u.pin["sha256"], u.pin["sha256"], u.pin["bytes"], what="")
                return folder / u.pin["sha256"], how
            except CorpusError:
                continue
    return None


def obtain(u: FileUnit) -> tuple[Path, str, int, str]:
    """(local path, sha256, size, how found) of a member file; DownloadFailed when it cannot be had."""
    if u.pin is not None and (copy := _pinned_copy(u)) is not None:
        return copy[0], u.pin["sha256"], u.pin["bytes"], copy[1]
    if url_kind(u.url) in ("path", "file"):
        path = local_path(u.url)
        if not path.is_file():
            raise DownloadFailed(f"{u.url}: file not found", "missing")
        return path, sha256_file(path), path.stat().st_size, "local"
    # a pinned file may not grow: past its pinned size the download stops (a changed file, refused below)
    # not fsynced: it is deleted once read (drop_downloads), a later run checks it against its pin, and a
    # --resume against the unit's record (check_file's "work" entry) before its ranges are read
    path, sha, n = download(u.url, u.downloads, timeout=u.fetch["timeout_s"], min_rate=min_rate_of(u.fetch),
                            max_bytes=u.pin["bytes"] if u.pin is not None else None, durable=False)
    return path, sha, n, "downloaded"


def _reject(u: FileUnit, reason: str, detail: str) -> dict:
    return {"key": u.key, "parts": [], "reject": {"index": u.index, "url": u.url, "reason": reason, "detail": detail},
            "counts": {"files": {"rejected": {reason: 1}}}}


def file_ranges(path: Path, url: str, unit_bytes: int) -> list[tuple[int, int]]:
    """The file's fetch ranges; CorpusError("undecodable: …" / "truncated: …") when it is not a whole WARC."""
    if is_arc(path):
        return plan_warc_ranges(path, url, unit_bytes)
    offsets = record_offsets(path, url)
    size = path.stat().st_size
    if not offsets and size:
        raise CorpusError(f"undecodable: {url}: no WARC record in its {size:,} bytes")
    if offsets and (problem := tail_problem(path, offsets[-1], size)):
        raise CorpusError(f"truncated: {url}: its last record (at byte {offsets[-1]}): {problem}")
    return cut_at_records(path, offsets, unit_bytes)


def check_file(u: FileUnit) -> dict:
    """One member file found, verified against its pin and cut into ranges, or its reject."""
    try:
        path, sha, size, how = obtain(u)
    except DownloadFailed as e:
        return _reject(u, e.kind, str(e))
    except CorpusError as e:  # the server sent more than the pinned size
        if u.pin is None:
            return _reject(u, "failed", str(e))
        return {"key": u.key, "parts": [], "changed": f"source '{u.source_id}': {u.url} changed since it was pinned "
                                                      f"on {u.pin['pinned']}: {e}"}
    if u.pin is not None and (sha, size) != (u.pin["sha256"], u.pin["bytes"]):
        return {"key": u.key, "parts": [], "changed": changed_line(u.source_id, u.pin, sha, size)}
    try:
        ranges = file_ranges(path, u.url, u.fetch["unit_bytes"])
    except CorpusError as e:
        reason, _, detail = str(e).partition(": ")
        return _reject(u, reason, detail) if reason in FILE_REASONS else _reject(u, "undecodable", str(e))
    # a downloaded copy is the unit's scratch file: a --resume reuses the unit only if it still has its sha256
    work = [{"name": os.path.abspath(path), "sha256": sha, "bytes": size}] if how == "downloaded" else []
    return {"key": u.key, "parts": [], "counts": {"files": {"read": 1}}, **({"work": work} if work else {}),
            "file": {"index": u.index, "url": u.url, "sha256": sha, "bytes": size, "found_by": how,
                     "path": str(path), "pinned": u.pin is not None, "ranges": ranges}}


def file_units(ctx: PhaseContext, row: dict, fetch: dict, downloads: Path, mirror: Path | None) -> list[FileUnit]:
    (res,) = ctx.results["locate"]
    pins = load_pins(pins_path(ctx.config.ledger_path), row["source_id"])
    sid = row["source_id"]
    return [FileUnit(f"{sid}/file-{i:06d}", sid, i, url, pins.get((sid, url)), fetch, downloads, mirror)
            for i, url in res["members"]]


def _failures_line(sid: str, rejects: list[dict], total: int, limit: int) -> str:
    shown = "; ".join(f"{r['url']} ({r['reason']}: {r['detail']})" for r in rejects[:SHOWN_FAILURES])
    more = f"; and {len(rejects) - SHOWN_FAILURES} more" if len(rejects) > SHOWN_FAILURES else ""
    return (f"source '{sid}': {len(rejects)} of {total} files could not be read, more than [fetch] "
            f"max_failed_files = {limit}: {shown}{more}")


def pin_files(ctx: PhaseContext, row: dict, fetch: dict, results: list[dict]) -> None:
    """Refuse a changed file; pin every file read for the first time (before anything else can fail, so
    a later run checks them); fail when more files were rejected than max_failed_files allows."""
    sid = row["source_id"]
    changed = [r["changed"] for r in results if "changed" in r]
    if changed:
        raise CorpusError(changed[0] + (f" (and {len(changed) - 1} more changed files)" if len(changed) > 1 else ""))
    pinned = today()
    add_pins(pins_path(ctx.config.ledger_path),
             [{"source_id": sid, "url": f["url"], "sha256": f["sha256"], "bytes": f["bytes"], "pinned": pinned}
              for r in results if (f := r.get("file")) and not f["pinned"]])
    rejects = [r["reject"] for r in results if "reject" in r]
    for r in rejects:
        log.warning("source '%s': file rejected (%s): %s", sid, r["reason"], r["detail"])
    limit = fetch.get("max_failed_files", 0)
    if len(rejects) > limit:
        raise CorpusError(_failures_line(sid, rejects, len(results), limit))


def drop_unreadable(ctx: PhaseContext, fetch: dict, files: list[dict], read: list[dict]) -> tuple[list, list]:
    """(files read, file rejects) once the read phase ran: a file one of whose ranges could not be read
    is rejected whole (its other ranges' parts removed), within max_failed_files."""
    bad = {r["reject"]["index"]: r["reject"] for r in read if "reject" in r}
    rejects = [r["reject"] for r in files if "reject" in r] + sorted(bad.values(), key=lambda r: r["index"])
    if bad:
        gone = {p["name"] for r in read if r["file"] in bad for p in r.get("parts", [])}
        for name in gone:
            os.unlink(ctx.staging / name)
        ctx.parts = [p for p in ctx.parts if p["name"] not in gone]
        limit = fetch.get("max_failed_files", 0)
        if len(rejects) > limit:
            raise CorpusError(_failures_line(ctx.job.key, rejects, len(files), limit))
    good = [r["file"] for r in files if "file" in r and r["file"]["index"] not in bad]
    return good, sorted(rejects, key=lambda r: r["index"])


def drop_downloads(files: list[dict]) -> None:
    """Remove the member files this fetch downloaded once every range of them is read: a crawl would fill
    the disk (a Common Crawl dump is ~90 TB), and a rebuild downloads them again, checked by their pins."""
    for r in files:
        if (f := r.get("file")) is not None and f["found_by"] == "downloaded":
            Path(f["path"]).unlink(missing_ok=True)


def listing_counts(good: list[dict], rejects: list[dict], read: list[dict]) -> dict:
    """The manifest's counts: the documents and records of the files kept, and the files read and rejected."""
    kept = {f["index"] for f in good}
    counts: dict = {"docs_in": 0, "docs_out": 0, "skipped_empty": 0, "rejected": {}, "records": {},
                    "skipped_records": {}}
    for r in read:
        if r["file"] in kept:
            add_counts(counts, r.get("counts", {}))
    rejected: dict[str, int] = {}
    for r in rejects:
        rejected[r["reason"]] = rejected.get(r["reason"], 0) + 1
    counts["files"] = {"read": len(good), "rejected": rejected}
    return counts


def unit_parts_glob(out_dir: Path, prefix: str) -> list[Path]:
    """The parts a read unit wrote (documents and rejects/) under its prefix."""
    return sorted(out_dir.glob(f"{prefix}*")) + sorted((out_dir / REJECTS).glob(f"{prefix}*"))


def total_files(counts: list[dict]) -> dict:
    total: dict = {"read": 0, "rejected": {}}
    for c in counts:
        add_counts(total, c)
    return total


def describe_files(counts: dict) -> str:
    """'47 read, 3 rejected (missing 2, truncated 1)' of a listing's counts.files."""
    rejected = counts.get("rejected", {})
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(rejected.items()))
    return f"{counts.get('read', 0)} read, {sum(rejected.values())} rejected" + (f" ({kinds})" if kinds else "")
