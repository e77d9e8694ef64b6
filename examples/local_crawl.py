"""A local crawl of real text, written as Common Crawl writes one: WARC files of one gzip member per record
(warcinfo, then request, response and metadata records per page) and a `warc.paths` listing of them.

    CORPUS_MIRROR=../shared/data/mirror python examples/local_crawl.py OUT [--files 12] [--copies 1] [--seed 0]

The pages are the shared data's own: the 55 real pages of trafilatura's evaluation set as they were
crawled, and HTML pages (a title, a navigation bar, the text in paragraphs, a footer) made of the
TinyStories stories and WikiText articles of the ledger, so every page is different and most pass the
quality filters. A few records are what a crawl also holds: a PDF, a 404 page and a redirect (fetch's
counted rejects). `--copies N` repeats the page set N times under other URLs (for benchmarks). The
output depends only on the data and the arguments: the same files, byte for byte, every time."""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import random
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATE = "2024-05-18T01:58:10Z"
TEXT_SOURCES = ("tinystories-train-head", "wikitext2-test")


def _record(kind: str, url: str, block: bytes, extra: dict | None = None) -> bytes:
    headers = {"WARC-Type": kind, "WARC-Target-URI": url, "WARC-Date": DATE,
               "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, kind + ':' + url)}>", **(extra or {}),
               "Content-Length": str(len(block))}
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode() + block + b"\r\n\r\n"


def capture(url: str, body: bytes, content_type: str = "text/html; charset=utf-8", status: str = "200 OK") -> list[bytes]:
    """A page's request, response and metadata records, as Common Crawl writes them."""
    host = url.split("/")[2]
    request = f"GET /{url.split('/', 3)[3] if url.count('/') > 2 else ''} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    http = (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body)
    metadata = b"fetchTimeMs: 112\r\ncharset-detected: UTF-8\r\n"
    return [_record("request", url, request, {"Content-Type": "application/http; msgtype=request"}),
            _record("response", url, http, {"Content-Type": "application/http; msgtype=response"}),
            _record("metadata", url, metadata, {"Content-Type": "application/warc-fields"})]


def page_html(title: str, text: str, site: str) -> bytes:
    paragraphs = "".join(f"<p>{html.escape(p.strip())}</p>\n" for p in text.split("\n") if p.strip())
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)} | {site}"
            f"</title></head>\n<body><nav><a href=\"/\">Home</a> | <a href=\"/about\">About</a> | <a href=\"/archive\">"
            f"Archive</a></nav>\n<main><article><h1>{html.escape(title)}</h1>\n{paragraphs}</article></main>\n"
            f"<footer>Copyright 2024 {site}. All rights reserved.</footer></body></html>\n").encode("utf-8")


def _ledger_rows() -> dict[str, dict]:
    with open(REPO / "corpus" / "LEDGER.jsonl", encoding="utf-8") as f:
        return {r["source_id"]: r for r in map(json.loads, f) if r}


def text_pages(mirror: Path) -> list[tuple[str, bytes]]:
    """(url, html) of every TinyStories story and WikiText article of the ledger's rows."""
    sys.path.insert(0, str(REPO / "python"))
    from corpus.formats.sources.read import read_documents

    rows, pages = _ledger_rows(), []
    for sid in TEXT_SOURCES:
        row = rows[sid]
        site = "tinytales.example" if sid.startswith("tiny") else "wiki.example"
        for k, (_, text) in enumerate(read_documents(mirror / row["sha256"], row)):
            if len(text.split()) < 60:  # a heading or a line: no page
                continue
            lines = [ln for ln in text.strip().split("\n") if ln.strip()]
            title = lines[0].strip(" =") if site == "wiki.example" else " ".join(text.split()[:6]).strip(",.")
            body = "\n".join(lines[1:]) if site == "wiki.example" else text
            pages.append((f"https://{site}/{sid}/{k}", page_html(title, body, site)))
    return pages


def real_pages(mirror: Path) -> list[tuple[str, bytes]]:
    """(url, html) of trafilatura's 55 evaluation pages (web_extraction_eval.jsonl beside the mirror)."""
    with open(mirror.parent / "web_extraction_eval.jsonl", encoding="utf-8") as f:
        return [(p["url"], (mirror / p["sha256"]).read_bytes()) for p in (json.loads(line) for line in f if line.strip())]


def build(out: Path, mirror: Path, files: int, copies: int = 1, seed: int = 0) -> list[Path]:
    """Write the crawl into `out`: files CC-LOCAL-<nnnnn>.warc.gz and warc.paths; the WARC paths."""
    pages = text_pages(mirror) + real_pages(mirror)
    captures = [capture(f"{url}?copy={c}" if c else url, body) for c in range(copies) for url, body in pages]
    captures += [capture("https://tinytales.example/brochure.pdf", b"%PDF-1.4\n% a brochure\n", "application/pdf"),
                 capture("https://wiki.example/missing", b"<html><body>Not found</body></html>", status="404 Not Found"),
                 capture("https://wiki.example/old", b"", status="301 Moved Permanently")]
    random.Random(seed).shuffle(captures)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        name = f"CC-LOCAL-{i:05d}.warc.gz"
        info = _record("warcinfo", f"urn:local-crawl:{name}", b"software: corpus examples/local_crawl.py\r\n",
                       {"WARC-Filename": name, "Content-Type": "application/warc-fields"})
        tmp = out / f".{name}.tmp"
        with open(tmp, "wb") as f:
            f.write(gzip.compress(info, 6, mtime=0))
            for records in captures[i::files]:
                for r in records:
                    f.write(gzip.compress(r, 6, mtime=0))
        os.replace(tmp, out / name)
        paths.append(out / name)
    listing = "".join(p.name + "\n" for p in paths)  # relative: under the listing's own directory
    (out / "warc.paths").write_text(listing, encoding="utf-8")
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=12)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    mirror = Path(os.environ.get("CORPUS_MIRROR", REPO.parent / "shared" / "data" / "mirror"))
    if not (mirror / _ledger_rows()[TEXT_SOURCES[0]]["sha256"]).is_file():
        print(f"error: {mirror}: no mirror of the shared data (set CORPUS_MIRROR)", file=sys.stderr)
        return 1
    paths = build(args.out, mirror, args.files, args.copies, args.seed)
    size = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} WARC files ({size / 1e6:.1f} MB) and {args.out / 'warc.paths'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
