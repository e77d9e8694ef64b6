"""WARC/WET records to documents, or to counted rejects with a reason — never a silent drop.

A response (or resource) record whose payload is HTML or XHTML (WARC-Identified-Payload-Type, else the HTTP
Content-Type, else sniffed) with a 2xx status is decoded (corpus.web.charset), bounded (`max_html_bytes`,
`max_html_elements`, `max_html_depth`: deterministic limits, so that the sandbox's timeout never fires on real pages) and
extracted in the sandbox (corpus.web.sandbox). A conversion record (a WET file's text) is a document as
it is. Revisit, request, metadata and warcinfo records are skipped and counted by type.

Reject reasons (the fetch stage's `rejects/` parts, `corpus rejects --stage fetch`):

    not_html           the payload is not HTML/XHTML (declared type, or binary bytes under a text/html label)
    http_status        the HTTP status is not 2xx
    too_large          the payload (a page's, or a WET record's text) is larger than [extract] max_html_bytes
    too_many_elements  the page has more tags than [extract] max_html_elements
    too_deep           the page's elements nest deeper than [extract] max_html_depth (corpus.web.depth)
    undecodable        no charset fits the bytes (corpus.web.charset), or the body is not what its
                       Content-Encoding says (corpus.formats.sources.http_body)
    truncated          the file ends inside the record (bad Content-Length, or a download cut short)
    prefilter_lang     ([extract] prefilter_lang) the fast pass's text is surely not in a kept language:
                       never extracted (corpus.filters.prefilter)
    empty              the extractor found no text
    timeout            the extractor took longer than [extract] timeout_s (killed; machine-dependent)
    extractor_error    the extractor raised an exception on the page, or could not parse it (no tree)
    extractor_crash    the extractor process died on the page (a crash, or its memory limit)
    unreachable        (format warc-records) the record's bytes could not be fetched: HTTP error, missing
                       file, or a file shorter than the record's offset and length
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from corpus.formats.sources.record import WarcRecord
from corpus.formats.sources.warc import warc_records
from corpus.web.charset import Undecodable, decode_page, utf16_label
from corpus.web.depth import depth_over
from corpus.web.retry import Earlier
from corpus.web.extract import FAST_PASS
from corpus.web.sandbox import sandbox

REASONS = ("not_html", "http_status", "too_large", "too_many_elements", "too_deep", "undecodable", "truncated",
           "prefilter_lang", "empty", "timeout", "extractor_error", "extractor_crash", "unreachable")
DOCUMENT_RECORDS = ("response", "resource", "conversion")

# the first bytes of formats that are surely not HTML, whatever their label says
BINARY_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b", b"RIFF", b"\x00\x00\x01\x00",
                b"OggS", b"ID3", b"\x7fELF", b"wOFF", b"wOF2", b"%!PS", b"{\\rtf")
_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|meta|title|div|p|!--)", re.I | re.S)


@dataclass
class WebDoc:
    locator: str            # <file url>@<record offset>[+<place in its gzip member>, after the first]
    url: str                # the page's URL (WARC-Target-URI)
    text: str
    meta: dict              # record id, date, status, content type, charset and how it was found, offset


@dataclass
class WebReject:
    locator: str
    url: str | None
    record_id: str | None
    reason: str             # one of REASONS
    detail: str


@dataclass
class WebCounts:
    records: dict[str, int] = field(default_factory=dict)     # every record read, by WARC-Type
    skipped: dict[str, int] = field(default_factory=dict)     # records that are no document, by type
    rejected: dict[str, int] = field(default_factory=dict)    # document records rejected, by reason
    retried: dict[str, int] = field(default_factory=dict)     # pages extracted again ([extract] retry), by earlier reason
    recovered: int = 0                                        # of them, pages that are documents now


# the web facts of a raw manifest's counts (beside docs_in/docs_out): {kind: n} each
WEB_COUNTS = ("records", "skipped_records", "rejected")


def is_web_manifest(manifest: dict) -> bool:
    """A raw output of a web source records its [extract] table (even one of an empty WARC, no records)."""
    return manifest.get("params", {}).get("extract") is not None


def total_web_counts(counts: list[dict]) -> dict:
    """The web record counts of several raw manifests added up: records read, skipped and rejected by
    kind, and the documents kept (docs_out)."""
    total: dict = {key: {} for key in WEB_COUNTS} | {"docs_out": 0}
    for c in counts:
        for key in WEB_COUNTS:
            for kind, n in c.get(key, {}).items():
                total[key][kind] = total[key].get(kind, 0) + n
        total["docs_out"] += c["docs_out"]
    return total


def _by_kind(n_what: str, counts: dict) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return f"{sum(counts.values())} {n_what}" + (f" ({kinds})" if kinds else "")


def describe_records(counts: dict) -> str:
    """'12 read, 5 skipped (request 2, warcinfo 3), 1 rejected (not_html 1), 6 documents' of a raw
    manifest's (or total_web_counts') counts: every record read is exactly one of the last three."""
    return (f"{sum(counts['records'].values())} read, {_by_kind('skipped', counts['skipped_records'])}, "
            f"{_by_kind('rejected', counts['rejected'])}, {counts['docs_out']} documents")


def records_line(counts: list[dict]) -> str | None:
    """'WARC records of 2 web sources: 12 read, …' over the raw manifests' counts of web sources (None: none)."""
    if not counts:
        return None
    return (f"WARC records of {len(counts)} web source{'s' if len(counts) > 1 else ''}: "
            f"{describe_records(total_web_counts(counts))}")


def media_type(value: str | None) -> str | None:
    return value.split(";", 1)[0].strip().lower() or None if value else None


def looks_binary(payload: bytes, http_charset: str | None = None) -> bool:
    """A known binary format's magic, or NUL bytes near the start, unless they are UTF-16 text (a BOM, or
    the UTF-16 charset the HTTP header declares) or stray NULs in a page that starts as HTML does (they
    are removed and counted: strip_nuls)."""
    head = payload[:1024]
    if head.startswith(BINARY_MAGIC):
        return True
    if b"\x00" not in head.lstrip(b"\xff\xfe\xef\xbb\xbf")[:512] or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if utf16_label(http_charset):
        return False
    return not looks_like_html(head.replace(b"\x00", b""))


def strip_nuls(html: str) -> tuple[str, int]:
    """The page without its NUL characters, and how many there were (parsers stop at one, or refuse it)."""
    count = html.count("\x00")
    return (html.replace("\x00", ""), count) if count else (html, 0)


def looks_like_html(payload: bytes) -> bool:
    head = payload[:2048].lstrip(b"\xef\xbb\xbf")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a BOM: sniff its text
        try:
            head = head.decode("utf-16").encode("utf-8", "replace")
        except UnicodeDecodeError:
            return False
    return bool(_HTML_START.match(head))


def payload_type(rec: WarcRecord) -> tuple[str | None, str]:
    """(media type, where it came from): WARC-Identified-Payload-Type, else the HTTP Content-Type (the
    record's own Content-Type for a resource record), else sniffed."""
    identified = media_type(rec.headers.get("WARC-Identified-Payload-Type"))
    if identified:
        return identified, "identified"
    declared = media_type(rec.http_headers.get("content-type") if rec.type == "response"
                          else rec.headers.get("Content-Type"))
    if declared:
        return declared, "content-type"
    return ("text/html" if looks_like_html(rec.payload) else None), "sniffed"


def record_meta(rec: WarcRecord, source_url: str) -> dict:
    meta = {"record_id": rec.headers.get("WARC-Record-ID"), "warc_date": rec.headers.get("WARC-Date"),
            "record_type": rec.type, "record_offset": rec.offset, "source": source_url}
    if rec.in_member:
        meta["record_in_member"] = rec.in_member  # the record's place after the first of its gzip member
    if rec.type == "response":
        meta["http_status"] = rec.http_status
        meta["content_type"] = rec.http_headers.get("content-type")
    if rec.headers.get("WARC-Truncated"):
        meta["warc_truncated"] = rec.headers["WARC-Truncated"]  # the crawler cut the payload (kept: still a page)
    return meta


def too_large(rec: WarcRecord, cfg: dict) -> tuple[str, str] | None:
    """The too_large reject of a payload over max_html_bytes (warc_records reads at most one byte more,
    so a longer payload is there cut: never to be kept)."""
    if len(rec.payload) > cfg["max_html_bytes"]:
        return "too_large", f"more than {cfg['max_html_bytes']} bytes ([extract] max_html_bytes)"
    return None


def _page(rec: WarcRecord, cfg: dict) -> tuple[str, dict] | tuple[None, tuple[str, str]]:
    """An HTML record's page as text ready for extraction, and facts for the meta; or a reject."""
    if rec.type == "response" and not (rec.http_status is not None and 200 <= rec.http_status < 300):
        return None, ("http_status", f"HTTP status {rec.http_status}")
    mtype, how = payload_type(rec)
    if mtype not in cfg["html_types"]:
        return None, ("not_html", f"payload type {mtype or 'unknown'} ({how})")
    if looks_binary(rec.payload, rec.http_charset):
        return None, ("not_html", f"binary payload under the label {mtype} ({how}): {rec.payload[:8]!r}")
    if big := too_large(rec, cfg):
        return None, big
    try:
        html, codec, found = decode_page(rec.payload, rec.http_charset)
    except Undecodable as e:
        return None, ("undecodable", str(e))
    html, nuls = strip_nuls(html)
    elements = html.count("<")
    if elements > cfg["max_html_elements"]:
        return None, ("too_many_elements", f"{elements} tags > {cfg['max_html_elements']} ([extract] max_html_elements)")
    if (depth := depth_over(html, cfg["max_html_depth"])) is not None:
        return None, ("too_deep", f"elements nested {depth} deep > {cfg['max_html_depth']} ([extract] max_html_depth)")
    facts = {"charset": codec, "charset_from": found, "payload_type": mtype}
    return html, facts | ({"nul_chars_removed": nuls} if nuls else {})


def web_documents(path: Path, row: dict, start: int, stop: int, cfg: dict, counts: WebCounts,
                  earlier: Earlier | None = None, gate=None) -> Iterator[WebDoc | WebReject]:
    """The documents and rejects of the records that start in bytes [start, stop) of a WARC/WET file.
    `cfg` is the config's [extract] table; `counts` is filled in as records go by. `earlier`: an earlier
    raw output's outcomes, taken instead of extracting a page unless its reject is retried (web.retry).
    `gate(html, url, box)`: a reject (reason, detail) for a page not worth extracting, or None
    (corpus.filters.prefilter: it runs the fast pass in `box`, the sandbox that then extracts the page)."""
    url = row["url"]
    box = sandbox(cfg["engine"], cfg[cfg["engine"]], cfg["timeout_s"], cfg["memory_mb"],
                  FAST_PASS if gate is not None else None)
    for rec in warc_records(path, url, start, stop, cfg["max_html_bytes"]):
        counts.records[rec.type] = counts.records.get(rec.type, 0) + 1
        if rec.type not in DOCUMENT_RECORDS:
            counts.skipped[rec.type] = counts.skipped.get(rec.type, 0) + 1
            continue
        locator = f"{url}@{rec.offset}" + (f"+{rec.in_member}" if rec.in_member else "")
        page_url = rec.headers.get("WARC-Target-URI")
        meta = record_meta(rec, url)

        def reject(reason: str, detail: str) -> WebReject:
            counts.rejected[reason] = counts.rejected.get(reason, 0) + 1
            return WebReject(locator, page_url, meta["record_id"], reason, detail)

        if rec.truncated:
            yield reject("truncated", rec.truncated)
            continue
        if rec.undecodable:
            yield reject("undecodable", rec.undecodable)
            continue
        if rec.type == "conversion":  # a WET record: the crawler's own text extraction, UTF-8
            if big := too_large(rec, cfg):
                yield reject(*big)
                continue
            try:
                text = rec.payload.decode("utf-8")
            except UnicodeDecodeError as e:
                yield reject("undecodable", f"a conversion record that is not UTF-8 (byte {e.start})")
                continue
            meta["content_type"] = rec.headers.get("Content-Type")
        else:
            html, facts = _page(rec, cfg)
            if html is None:
                yield reject(*facts)
                continue
            meta.update(facts)
            known = earlier.outcome(rec.offset) if earlier is not None else None
            if known is not None and known[0] == "retry":
                counts.retried[known[1]] = counts.retried.get(known[1], 0) + 1
            if known is None or known[0] == "retry":
                failure = gate(html, page_url or "", box) if gate is not None else None
                text, failure = box.extract(html, page_url or "") if failure is None else (None, failure)
            elif known[0] == "kept":
                text, failure = known[1], None
            else:
                text, failure = None, known[1:]
            if failure is not None:
                yield reject(*failure)
                continue
            if known is not None and known[0] == "retry" and text.strip():
                counts.recovered += 1
        if not text.strip():
            yield reject("empty", "the extractor found no text" if rec.type != "conversion" else "an empty record")
            continue
        yield WebDoc(locator, page_url or locator, text, meta)


def index_documents(path: Path, row: dict, start: int, stop: int, cfg: dict, counts: WebCounts, scratch: Path,
                    timeout: float, gate=None) -> Iterator[WebDoc | WebReject]:
    """The documents and rejects of rows [start, stop) of a warc-records table (format warc-records): each
    record's bytes fetched alone (HTTP Range, a seek) and written at their own offset of a sparse scratch
    file, so that it is read exactly as in its whole file (same locator, offset and meta). A record that
    cannot be fetched, or is not one WARC record, is a reject with reason `unreachable` or `undecodable`."""
    from corpus.errors import CorpusError, DownloadFailed
    from corpus.formats.sources.record_index import index_records
    from corpus.store.retrieve import read_range

    for at in index_records(path, row, start, stop):
        locator = f"{at.url}@{at.offset}"
        try:
            data = read_range(at.url, at.offset, at.length, timeout=timeout)
        except DownloadFailed as e:
            counts.rejected["unreachable"] = counts.rejected.get("unreachable", 0) + 1
            yield WebReject(locator, None, None, "unreachable", str(e))
            continue
        with open(scratch, "wb") as f:  # a hole, then the record: no disk for the bytes before it
            f.seek(at.offset)
            f.write(data)
        before = dict(counts.records), dict(counts.skipped), dict(counts.rejected)
        try:
            yield from list(web_documents(scratch, {**row, "url": at.url}, at.offset, at.offset + at.length, cfg,
                                          counts, gate=gate))
        except CorpusError as e:  # not WARC data: the record's counts undone, one reject instead
            counts.records, counts.skipped, counts.rejected = (dict(d) for d in before)
            counts.rejected["undecodable"] = counts.rejected.get("undecodable", 0) + 1
            yield WebReject(locator, None, None, "undecodable", f"row {at.row}: {e}")
