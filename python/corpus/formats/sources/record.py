"""One WARC (or ARC) record as the web readers hand it over: what corpus.web.records turns into a document
or a reject."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WarcRecord:
    """One record, its payload read: `offset` is where it starts in the file (the gzip member's offset
    for .gz, as Common Crawl's index gives it)."""
    offset: int
    type: str                       # "response", "resource", "conversion", "revisit", "request", ...
    headers: dict[str, str]         # the WARC headers
    http_status: int | None
    http_headers: dict[str, str]    # lower-cased names; empty when the record holds no HTTP message
    http_charset: str | None
    payload: bytes                  # the HTTP body (transfer and content encodings decoded), or the block
    truncated: str | None           # why the record is not whole (the file ends inside it), else None
    undecodable: str | None = None  # why its body cannot be decoded (a false Content-Encoding), else None
    in_member: int = 0              # its place in its gzip member after the first record (a file gzipped as
                                    # one stream; `offset` is the member's): WARC its number, ARC the byte
                                    # where it starts in the inflated member. offset and in_member are unique
