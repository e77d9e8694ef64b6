"""ARC files (the Internet Archive's format before WARC, 1996-2009), plain or gzip (one member per record),
read into the same `WarcRecord`s as WARC files. A record is a header line `URL IP date content-type
length` (version 1; version 2 lines have more fields and end with the length), `length` bytes of content
(an HTTP response for a crawled page), and a newline; the first record (`filedesc://`) describes the file.
FastWARC reads no ARC, and warcio's ARC reading gives random record ids and hands a truncated member
over as an empty record without a word: this reader is a few lines over the format itself."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.record import WarcRecord

GZIP_MAGIC = b"\x1f\x8b\x08"
MAX_HEADER = 64 << 10


def is_arc(path: Path) -> bool:
    """The file starts with an ARC version block (`filedesc://`), plain or in a gzip member."""
    with open(path, "rb") as f:
        head = f.read(64 << 10)
    if head.startswith(GZIP_MAGIC):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 64)
        except zlib.error:
            return False
    return head.startswith(b"filedesc://")


def _members(path: Path, start: int, stop: int) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, decompressed bytes, whole) of each gzip member starting in [start, stop) (memory: one
    member; ARC records are one member each)."""
    with open(path, "rb") as f:
        f.seek(start)
        pos, buf = start, b""
        while pos < stop:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out, used = [], 0
            while not d.eof:
                if not buf:
                    buf = f.read(1 << 20)
                    if not buf:
                        break
                try:
                    out.append(d.decompress(buf))
                except zlib.error as e:
                    raise CorpusError(f"{path}: corrupt gzip member at byte {pos}: {e}") from None
                used += len(buf) - len(d.unused_data)
                buf = d.unused_data
            yield pos, b"".join(out), d.eof
            if not d.eof:
                return
            pos += used


def _plain(path: Path, start: int, stop: int) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, bytes, whole) of each record of a plain ARC file starting in [start, stop)."""
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        while pos < stop:
            line = f.readline(MAX_HEADER)
            if not line:
                return
            if not line.strip():
                pos += len(line)
                continue
            length = _length(line, path, pos)
            content = f.read(length)
            f.readline(2)  # the newline after the record
            yield pos, line + content, len(content) == length
            pos = f.tell()


def _length(line: bytes, path: Path, pos: int) -> int:
    fields = line.split()
    if len(fields) < 5 or not fields[-1].isdigit():
        raise CorpusError(f"{path}: not an ARC record header at byte {pos}: {line[:80]!r}")
    return int(fields[-1])


def arc_offsets(path: Path) -> list[int]:
    """The offset of every record (a gzip member, or a plain record): each may start a fetch unit."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        gz = f.read(3) == GZIP_MAGIC
    return [off for off, _, _ in (_members(path, 0, size) if gz else _plain(path, 0, size))]


def _http(content: bytes) -> tuple[int | None, dict[str, str], bytes]:
    """(status, lower-cased headers, body with chunked transfer and gzip/deflate content encodings undone)."""
    if not content.startswith(b"HTTP/"):
        return None, {}, content
    end = content.find(b"\r\n\r\n")
    sep = 4
    if end < 0:
        end, sep = content.find(b"\n\n"), 2
    if end < 0:
        return None, {}, content
    lines = content[:end].decode("latin-1").splitlines()
    parts = lines[0].split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    body = content[end + sep:]
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = _unchunk(body)
        enc = headers.get("content-encoding", "").lower()
        if enc in ("gzip", "x-gzip"):
            body = gzip.decompress(body)
        elif enc == "deflate":
            body = zlib.decompress(body)
    except (OSError, EOFError, zlib.error, ValueError):
        pass  # kept as stored: the charset and HTML checks reject what cannot be read
    return status, headers, body


def _unchunk(body: bytes) -> bytes:
    out, i = [], 0
    while True:
        j = body.index(b"\r\n", i)
        n = int(body[i:j].split(b";")[0], 16)
        if n == 0:
            return b"".join(out)
        out.append(body[j + 2:j + 2 + n])
        i = j + 2 + n + 2


def arc_records(path: Path, where: str, start: int, stop: int, max_payload: int):
    """The records that start in [start, stop), as corpus.formats.sources.warc.WarcRecord."""
    with open(path, "rb") as f:
        gz = f.read(3) == GZIP_MAGIC
    for offset, data, whole in (_members(path, start, stop) if gz else _plain(path, start, stop)):
        nl = data.find(b"\n")
        line = data[:nl if nl >= 0 else len(data)]
        if not line.strip():
            continue
        length = _length(line + b"\n", Path(where), offset)
        fields = line.decode("latin-1").split()
        url, date = fields[0], fields[2] if len(fields) > 2 else ""
        content = data[nl + 1:nl + 1 + length] if nl >= 0 else b""
        truncated = None
        if not whole or len(content) < length:
            truncated = (f"the file ends inside the record ({len(content)} of its {length} bytes"
                         + (", inside its gzip member)" if gz else ")"))
        iso = f"{date[0:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z" if len(date) >= 14 else None
        headers = {"WARC-Target-URI": url, "WARC-Date": iso, "WARC-Record-ID": f"<arc:{offset}>",
                   "Content-Type": fields[3] if len(fields) > 3 else ""}
        if url.startswith("filedesc://"):
            yield WarcRecord(offset, "warcinfo", headers, None, {}, None, b"", None)
            continue
        status, http_headers, body = _http(content)
        charset = None
        ctype = http_headers.get("content-type", "")
        if "charset=" in ctype.lower():
            charset = ctype.lower().split("charset=", 1)[1].split(";")[0].strip().strip("\"'") or None
        rtype = "response" if status is not None else "resource"
        yield WarcRecord(offset, rtype, headers, status, http_headers, charset, body[:max_payload + 1], truncated)
