"""An HTTP body's transfer and content encodings undone, bounded, one record at a time: what cannot be
decoded is that record's problem (a counted reject), never the file's. Labels are read as browsers read
them: `x-gzip` is gzip, `none`/`identity` leave the body as it is, `deflate` is zlib-wrapped or raw."""

from __future__ import annotations

import zlib


class BodyUndecodable(ValueError):
    """The body is not what its Content-Encoding says."""


def unchunk(body: bytes) -> bytes | None:
    """The body of a chunked transfer, or None when it is not chunked (a false Transfer-Encoding header)."""
    out, i = [], 0
    try:
        while True:
            j = body.index(b"\r\n", i)
            n = int(body[i:j].split(b";")[0], 16)
            if n == 0:
                return b"".join(out)
            out.append(body[j + 2:j + 2 + n])
            i = j + 2 + n + 2
    except ValueError:
        return None


def _inflate(body: bytes, wbits: int, limit: int) -> bytes:
    d = zlib.decompressobj(wbits)
    out = d.decompress(body, limit + 1)
    if not out and body:
        raise zlib.error("no data")
    return out


def _deflate(body: bytes, limit: int) -> bytes:
    try:
        return _inflate(body, zlib.MAX_WBITS, limit)
    except zlib.error:
        return _inflate(body, -zlib.MAX_WBITS, limit)  # raw deflate, as some servers send it


def _brotli(body: bytes, limit: int) -> bytes:
    try:
        import brotli
    except ImportError:  # brotli comes with the test and mds extras: without it, a br body is one reject
        raise zlib.error("brotli is not installed (pip install brotli)") from None
    try:  # output_buffer_limit: a brotli bomb inflates to limit + 1 bytes at most, never more
        return brotli.Decompressor().process(body, output_buffer_limit=limit + 1)[:limit + 1]
    except brotli.error as e:
        raise zlib.error(str(e)) from None


def decode_body(body: bytes, headers: dict[str, str], limit: int) -> bytes:
    """At most limit + 1 bytes of the body with its transfer and content encodings undone (`headers`:
    lower-cased names); BodyUndecodable when its Content-Encoding does not fit it."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        unchunked = unchunk(body)
        body = body if unchunked is None else unchunked
    for enc in reversed([e.strip().lower() for e in headers.get("content-encoding", "").split(",") if e.strip()]):
        try:
            if enc in ("gzip", "x-gzip"):
                body = _inflate(body, 16 + zlib.MAX_WBITS, limit)
            elif enc in ("deflate", "x-deflate"):
                body = _deflate(body, limit)
            elif enc == "br":
                body = _brotli(body, limit)
            elif enc not in ("none", "identity"):
                raise BodyUndecodable(f"unknown Content-Encoding {enc!r}")
        except zlib.error as e:
            raise BodyUndecodable(f"a body that is not {enc} under Content-Encoding: {enc} ({e})") from None
    return body[:limit + 1]
