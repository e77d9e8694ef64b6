"""ARC files (the Internet Archive's format before WARC, 1996-2009), plain or gzip (one member per record,
or the whole file as one gzip stream), read into the same `WarcRecord`s as WARC files. A record is a header
line `URL IP date content-type length` (version 1; version 2 lines have more fields and end with the
length), `length` bytes of content (an HTTP response for a crawled page), and a newline; the first record
(`filedesc://`) describes the file. FastWARC reads no ARC, and warcio's ARC reading gives random record ids
and hands a truncated member over as an empty record without a word: this reader is a few lines over the
format itself. Memory is bounded whatever a record declares: at most max_payload bytes of a body (plus its
HTTP header block) are read, the rest is skipped as a stream."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Iterator, NamedTuple

from corpus.errors import CorpusError
from corpus.formats.sources.http_body import BodyUndecodable, decode_body
from corpus.formats.sources.record import WarcRecord

GZIP_MAGIC = b"\x1f\x8b\x08"
MAX_HEADER = 64 << 10
CHUNK = 1 << 20


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


class _Stream:
    """The bytes of a file from `start` as one stream: inflated member after member for gzip, as they are
    for a plain file (memory: a chunk). `pos` counts the bytes handed out; `member_at(pos)` tells which
    gzip member (its file offset) a byte came from and where in that member it is."""

    def __init__(self, f, where: str, start: int, gz: bool):
        f.seek(start)
        self.f, self.where, self.gz, self.start = f, where, gz, start
        self.buf, self.pos, self.out = b"", 0, 0     # out: bytes inflated so far (pos + len(buf))
        self.raw, self.raw_at = b"", start            # compressed bytes not yet fed, and their file offset
        self.d = zlib.decompressobj(16 + zlib.MAX_WBITS) if gz else None
        self.members = [(0, start)]                   # (stream position, file offset) of each member start
        self.mark = 0                                 # the start of the record being read: its member is kept
        self.cut = False                              # the file ended inside a gzip member

    def _fill(self) -> bool:
        """More bytes into `buf`; False at the end of the file."""
        if not self.gz:
            data = self.f.read(CHUNK)
            self.buf += data
            self.out += len(data)
            return bool(data)
        if not self.raw:
            self.raw = self.f.read(CHUNK)
            if not self.raw:
                self.cut = not self.d.eof
                return False
        if self.d.eof:  # the next member starts here
            self.d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            keep = {self.member_start(self.mark), self.member_start(self.pos)}  # memory: a few members
            self.members = [m for m in self.members if m in keep or m[0] > self.pos] + [(self.out, self.raw_at)]
        try:
            data = self.d.decompress(self.raw, CHUNK)
        except zlib.error as e:
            raise CorpusError(f"{self.where}: corrupt gzip member at byte {self.members[-1][1]}: {e}") from None
        rest = self.d.unused_data if self.d.eof else self.d.unconsumed_tail
        self.raw_at += len(self.raw) - len(rest)
        self.raw = rest
        self.buf += data
        self.out += len(data)
        return True

    def member_at(self, pos: int) -> tuple[int, int]:
        """(file offset of the member holding stream byte `pos`, `pos`'s place in that member); for a plain
        file (pos's file offset, 0): every record is a place to start."""
        if not self.gz:
            return self.start + pos, 0
        at, offset = self.member_start(pos)
        return offset, pos - at

    def member_start(self, pos: int) -> tuple[int, int]:
        return max(m for m in self.members if m[0] <= pos)

    def peek(self) -> bool:
        """Whether a byte is left."""
        while not self.buf:
            if not self._fill():
                return False
        return True

    def readline(self, limit: int) -> bytes:
        while b"\n" not in self.buf and len(self.buf) < limit and self._fill():
            pass
        end = self.buf.find(b"\n", 0, limit)
        return self.read(end + 1 if end >= 0 else limit)

    def read(self, n: int) -> bytes:
        while len(self.buf) < n and self._fill():
            pass
        data, self.buf = self.buf[:n], self.buf[n:]
        self.pos += len(data)
        return data

    def skip(self, n: int) -> int:
        """Drop up to n bytes, a chunk at a time; how many there were."""
        done = 0
        while done < n:
            got = len(self.read(min(n - done, CHUNK)))
            if not got:
                break
            done += got
        return done


class _Raw(NamedTuple):
    offset: int           # the gzip member's file offset (a plain file: the record's)
    in_member: int        # where in the member the record starts (0: at its start, a place to cut)
    line: bytes
    content: bytes        # its HTTP header block and at most max_payload + 1 bytes of the body
    length: int           # the declared length
    missing: int          # bytes of the declared length the file does not hold


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(3) == GZIP_MAGIC


def _raw_records(path: Path, where: str, start: int, stop: int, max_payload: int) -> Iterator[_Raw]:
    """The records whose header line starts in a member (a plain file: at a byte) in [start, stop)."""
    with open(path, "rb") as f:
        s = _Stream(f, where, start, _is_gzip(path))
        while True:
            at = s.mark = s.pos
            line = s.readline(MAX_HEADER)
            if not line:
                return
            if not line.strip():
                continue
            offset, in_member = s.member_at(at)
            if offset >= stop:
                return
            length = _length(line, where, offset)
            content, read = _bounded_content(s, length, max_payload)
            missing = length - read - s.skip(length - read)
            if not missing and s.cut and not s.peek():
                missing = -1  # the content is whole, its gzip member is not
            yield _Raw(offset, in_member, line, content, length, missing)
            if missing:
                return


def _bounded_content(s: _Stream, length: int, max_payload: int) -> tuple[bytes, int]:
    """(the first bytes of a record's content: its HTTP header block, up to MAX_HEADER, and at most
    max_payload + 1 bytes of what follows, enough to tell the body is too large; the bytes read)."""
    first = s.read(min(length, MAX_HEADER))
    body_at = _head_end(first)[0] if first.startswith(b"HTTP/") else 0
    want = min(length, max(body_at, 0) + max_payload + 1)
    more = s.read(max(0, want - len(first)))
    return first[:want] + more, len(first) + len(more)


def _length(line: bytes, where: str, pos: int) -> int:
    fields = line.split()
    if len(fields) < 5 or not fields[-1].isdigit():
        raise CorpusError(f"{where}: not an ARC record header at byte {pos}: {line[:80]!r}")
    return int(fields[-1])


def arc_offsets(path: Path) -> list[int]:
    """The offsets where a fetch unit may start: each gzip member that begins with a record (a plain
    file: each record)."""
    size = path.stat().st_size
    return [r.offset for r in _raw_records(path, str(path), 0, size, 0) if r.in_member == 0]


def _head_end(content: bytes) -> tuple[int, int]:
    """(where an HTTP message's body starts, where its header block ends); (-1, -1) when not in `content`."""
    end = content.find(b"\r\n\r\n")
    if end >= 0:
        return end + 4, end
    end = content.find(b"\n\n")
    return (end + 2, end) if end >= 0 else (-1, -1)


def _http(content: bytes, max_payload: int) -> tuple[int | None, dict[str, str], bytes, str | None]:
    """(status, lower-cased headers, body with its transfer and content encodings undone, at most
    max_payload + 1 bytes of it, why it cannot be decoded or None)."""
    if not content.startswith(b"HTTP/"):
        return None, {}, content, None
    body_at, end = _head_end(content)
    if end < 0:
        return None, {}, content, None
    lines = content[:end].decode("latin-1").splitlines()
    parts = lines[0].split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    body = content[body_at:]
    if len(body) > max_payload:  # too large already: rejected unread
        return status, headers, body, None
    try:
        return status, headers, decode_body(body, headers, max_payload), None
    except BodyUndecodable as e:
        return status, headers, body, str(e)


def _truncation(r: _Raw, gz: bool) -> str | None:
    if r.missing < 0:
        return "the file ends inside the record's gzip member (cut short)"
    if r.missing:
        return (f"the file ends inside the record ({r.length - r.missing} of its {r.length} bytes"
                + (", inside its gzip member)" if gz else ")"))
    return None


def _record_id(r: _Raw) -> str:
    """Unique in the file: a record after the first of a gzip member (one gzip stream) adds its place in it."""
    return f"<arc:{r.offset}>" if r.in_member == 0 else f"<arc:{r.offset}+{r.in_member}>"


def arc_records(path: Path, where: str, start: int, stop: int, max_payload: int) -> Iterator[WarcRecord]:
    """The records that start in [start, stop), as corpus.formats.sources.warc.WarcRecord."""
    gz = _is_gzip(path)
    for r in _raw_records(path, where, start, stop, max_payload):
        fields = r.line.decode("latin-1").split()
        url, date = fields[0], fields[2] if len(fields) > 2 else ""
        iso = f"{date[0:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z" if len(date) >= 14 else None
        headers = {"WARC-Target-URI": url, "WARC-Date": iso, "WARC-Record-ID": _record_id(r),
                   "Content-Type": fields[3] if len(fields) > 3 else ""}
        if url.startswith("filedesc://"):
            yield WarcRecord(r.offset, "warcinfo", headers, None, {}, None, b"", None, in_member=r.in_member)
            continue
        status, http_headers, body, problem = _http(r.content, max_payload)
        charset = None
        ctype = http_headers.get("content-type", "")
        if "charset=" in ctype.lower():
            charset = ctype.lower().split("charset=", 1)[1].split(";")[0].strip().strip("\"'") or None
        rtype = "response" if status is not None else "resource"
        yield WarcRecord(r.offset, rtype, headers, status, http_headers, charset, body[:max_payload + 1],
                         _truncation(r, gz), problem, in_member=r.in_member)
