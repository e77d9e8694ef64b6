"""`corpus ledger add` and `corpus ledger verify`: the ledger operations that touch files."""

from __future__ import annotations

from corpus.store.atomic import sha256_file
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.config.ledger import append_row, check_row, load_ledger, today
from corpus.store.retrieve import download, local_path, min_rate_of, url_kind, verify
from corpus.formats.sources.read import read_documents
from corpus.engine.raw import BINARY_FORMATS, WEB_FORMATS
from corpus.web.listing import glob_members, list_digest, listing_kind, read_listing, resolve_glob


def add_source(config: Config, url: str, *, source_id: str, license_spdx: str, role: str, fmt: str,
               split=None, delimiter=None, pattern=None, members=None, text_fields=(), encoding=None,
               sha256=None, notes=None, check=True, base_url=None) -> tuple[dict, int | None]:
    kind = url_kind(url)
    ledger_path = config.ledger_path
    if ledger_path.exists() and source_id in load_ledger(ledger_path):
        raise CorpusError(f"{ledger_path}: duplicate source_id '{source_id}'")
    crawl = listing_kind({"format": fmt, "url": url})
    mirror = config.mirror
    path = None
    if crawl == "glob":  # pinned by its file list: the files are pinned as fetch first reads them
        listed = resolve_glob({"source_id": source_id, "url": url})
        digest, size = list_digest(listed)
    elif sha256 and mirror is not None and (mirror / sha256).is_file():
        path = mirror / sha256
    elif kind in ("path", "file"):
        path = local_path(url)
        if not path.is_file():
            raise CorpusError(f"{url}: file not found")
    else:
        path, _, _ = download(url, config.downloads_dir, timeout=config["fetch"]["timeout_s"],
                              min_rate=min_rate_of(config["fetch"]))
    if path is not None:
        digest, size = sha256_file(path), path.stat().st_size
    if sha256 and digest != sha256:
        raise CorpusError(f"{url}: sha256 mismatch: expected {sha256}, got {digest}")
    row = {"source_id": source_id, "role": role, "url": url, "sha256": digest, "bytes": size,
           "license_spdx": license_spdx, "format": fmt}
    if members is not None and not isinstance(members, str):
        members = (members[0] if len(members) == 1 else list(members)) or None
    optional = {"base_url": base_url, "members": members, "text_fields": list(text_fields) or None, "split": split,
                "delimiter": delimiter, "pattern": pattern, "encoding": encoding, "notes": notes}
    row.update({k: v for k, v in optional.items() if v is not None})
    row["added"] = today()
    check_row(row, f"{ledger_path}: new row '{source_id}'")
    docs = None
    if crawl is not None:  # the files it names (each read and pinned by fetch)
        docs = len(listed) if crawl == "glob" else len(read_listing(path, row))
    elif check and fmt == "warc-records":  # every row checked (its records are fetched by fetch)
        from corpus.formats.sources.record_index import index_records

        docs = sum(1 for _ in index_records(path, row))
    elif check and fmt in WEB_FORMATS:  # every record parsed (pages are extracted by fetch, in its sandbox)
        docs = web_records(path, row, config)
    elif check and fmt not in BINARY_FORMATS:  # read it once now: a wrong format or encoding fails here, not in fetch
        docs = sum(1 for _, text in read_documents(path, row) if text.strip())
    append_row(ledger_path, row)
    return row, docs


def web_records(path, row: dict, config: Config) -> int:
    """The WARC/WET/ARC file's records that may hold a page (response, resource, conversion), each parsed."""
    from corpus.formats.sources.warc import warc_records
    from corpus.web.records import DOCUMENT_RECORDS

    size = path.stat().st_size
    records = warc_records(path, row["url"], 0, size, config["extract"]["max_html_bytes"])
    return sum(1 for rec in records if rec.type in DOCUMENT_RECORDS)


def verify_ledger(config: Config) -> list[tuple[str, str, str]]:
    """(source_id, OK|FAIL|SKIP, detail) per row. Files not on this machine are skipped, not downloaded."""
    ledger = load_ledger(config.ledger_path)  # schema, JSON and duplicate ids: raises on the first problem
    out = []
    for sid, row in ledger.items():
        if listing_kind(row) == "glob":  # its file list, resolved now (the files are checked by their pins)
            try:
                urls = glob_members(row)
                out.append((sid, "OK", f"{len(urls)} files, the list the row pins"))
            except CorpusError as e:
                out.append((sid, "FAIL", str(e)))
            continue
        candidates = []
        if config.mirror is not None:
            candidates.append(config.mirror / row["sha256"])
        candidates.append(config.downloads_dir / row["sha256"])
        if url_kind(row["url"]) in ("path", "file"):
            candidates.append(local_path(row["url"]))
        found = next((p for p in candidates if p.is_file()), None)
        if found is None:
            out.append((sid, "SKIP", "not on this machine (fetch downloads and verifies it)"))
            continue
        try:
            verify(found, row["sha256"], row["bytes"], what=f"source '{sid}'")
            out.append((sid, "OK", str(found)))
        except CorpusError as e:
            out.append((sid, "FAIL", str(e)))
    return out
