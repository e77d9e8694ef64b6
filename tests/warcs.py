"""WARC files for the tests, written from real pages: one gzip member per record (as Common Crawl writes
them) or plain."""

from __future__ import annotations

import gzip
import json
import uuid
from pathlib import Path

from conftest import mirror_dir


def eval_pages() -> list[dict]:
    """The shared trafilatura evaluation pages (web_extraction_eval.jsonl beside the mirror), with their bytes."""
    m = mirror_dir()
    path = m.parent / "web_extraction_eval.jsonl" if m else None
    if path is None or not path.is_file():
        import pytest
        pytest.skip("web_extraction_eval.jsonl not available (set CORPUS_MIRROR)")
    pages = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for p in pages:
        p["html"] = (m / p["sha256"]).read_bytes()
    return pages


def response(url: str, body: bytes, content_type: str | None = "text/html; charset=utf-8", status: int = 200,
             warc_headers: dict | None = None, content_length: int | None = None) -> bytes:
    http = f"HTTP/1.1 {status} X\r\n".encode() + (f"Content-Type: {content_type}\r\n".encode() if content_type else b"")
    http += f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    headers = {"WARC-Type": "response", "WARC-Target-URI": url, "WARC-Date": "2024-05-18T01:58:10Z",
               "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>",
               "Content-Type": "application/http; msgtype=response", **(warc_headers or {})}
    headers["Content-Length"] = str(len(http) if content_length is None else content_length)
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode() + http + b"\r\n\r\n"


def other(kind: str, url: str, block: bytes = b"") -> bytes:
    head = (f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\nWARC-Date: 2024-05-18T01:58:10Z\r\n"
            f"WARC-Record-ID: <urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, kind + url)}>\r\n"
            f"Content-Length: {len(block)}\r\n\r\n")
    return head.encode() + block + b"\r\n\r\n"


def write_warc(path: Path, records: list[bytes], gz: bool = True) -> Path:
    path.write_bytes(b"".join(gzip.compress(r, 6, mtime=0) if gz else r for r in records))
    return path


def ledger_row(source_id: str, path: Path) -> dict:
    import hashlib

    data = path.read_bytes()
    return {"source_id": source_id, "role": "corpus", "url": str(path), "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data), "license_spdx": "LicenseRef-test", "format": "warc"}


def arc_file(path: Path, pages: list[tuple[str, bytes, str]], gz: bool = True, one_stream: bool = False) -> Path:
    """An ARC (version 1) file of (url, body, content type) pages, one gzip member per record (or, with
    `one_stream`, the whole file as one gzip stream)."""
    desc = b"1 0 corpus-tests\nURL IP-address Archive-date Content-type Archive-length\n"
    records = [b"filedesc://%s 0.0.0.0 20050614070144 text/plain %d\n" % (path.name.encode(), len(desc)) + desc + b"\n"]
    for url, body, ctype in pages:
        http = f"HTTP/1.0 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
        records.append(f"{url} 93.184.216.34 20050614070159 text/html {len(http)}\n".encode() + http + b"\n")
    if one_stream:
        path.write_bytes(gzip.compress(b"".join(records), 6, mtime=0))
    else:
        path.write_bytes(b"".join(gzip.compress(r, 6, mtime=0) if gz else r for r in records))
    return path
