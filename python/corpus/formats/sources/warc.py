"""Format `warc`: WARC (and WET) files, plain or gzip, read with FastWARC (ARC files: formats.sources.arc) — measured against warcio on a
100 MB WARC of real pages (716 responses): 15.8k vs 11.1k records/s plain, 4.5k vs 1.9k gzip
(bench/web_extract.py measures it again). This module knows records, not pages: `plan_warc_ranges` cuts a
file into fetch units at record starts (for gzip, only where a gzip member begins with a WARC record, as
Common Crawl writes one member per record; a file that is one gzip stream is one unit), and
`warc_records` yields the records of one unit with their byte offset in the file. What a record becomes
(a document, or a counted reject) is corpus.web.records'."""

from __future__ import annotations

import dataclasses
import zlib
from pathlib import Path
from typing import Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.arc import arc_offsets, arc_records, is_arc
from corpus.formats.sources.http_body import BodyUndecodable, decode_body
from corpus.formats.sources.record import WarcRecord

GZIP_MAGIC = b"\x1f\x8b\x08"
SCAN_BUFFER = 1 << 20
MAX_HTTP_HEADER = 1 << 20  # bytes of a record's HTTP header block: more is an undecodable reject


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(3) == GZIP_MAGIC


def _member_starts_record(f, offset: int, probe: int = 64 << 10) -> bool:
    """A gzip member begins at `offset` and inflates to the start of a WARC record (read: `probe` bytes)."""
    f.seek(offset)
    head = f.read(probe)
    if not head.startswith(GZIP_MAGIC):
        return False
    try:
        out = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 8)
    except zlib.error:
        return False
    return out.startswith(b"WARC/")


def _fastwarc_failed(e: BaseException) -> bool:
    """An error FastWARC raises on bad data: OSError, or a Rust panic (pyo3's PanicException, a BaseException)."""
    return isinstance(e, OSError) or type(e).__name__ == "PanicException"


def record_offsets(path: Path, where: str) -> list[int]:
    """The offset of every record of the file (FastWARC's stream positions), in order."""
    from fastwarc.warc import ArchiveIterator

    offsets: list[int] = []
    try:
        with open(path, "rb") as f:
            for r in ArchiveIterator(f, parse_http=False, fsspec_args=False, stream_detect=True):
                offsets.append(r.stream_pos)
    except BaseException as e:
        if not _fastwarc_failed(e):
            raise
        after = f"after the record at byte {offsets[-1]}" if offsets else "at its start"
        raise CorpusError(f"{where}: not a readable WARC file {after}: {_first_line(e)}") from None
    return offsets


def _first_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def plan_warc_ranges(path: Path, where: str, unit_bytes: int) -> list[tuple[int, int]]:
    """[start, stop) byte ranges of about `unit_bytes`, each starting at a record (member) start; they
    depend only on the file and `unit_bytes`. Reading them in order reads every record once."""
    arc = is_arc(path)
    return cut_at_records(path, arc_offsets(path) if arc else record_offsets(path, where), unit_bytes)


def cut_at_records(path: Path, offsets: list[int], unit_bytes: int) -> list[tuple[int, int]]:
    """plan_warc_ranges given the file's record offsets (a caller that also needs them reads them once)."""
    size = path.stat().st_size
    gz = _is_gzip(path) and not is_arc(path)  # an ARC offset is a gzip member's already
    cuts, target = [0], unit_bytes
    with open(path, "rb") as f:
        for off in offsets:
            if off < target or off <= cuts[-1]:
                continue
            if gz and not _member_starts_record(f, off):
                continue
            cuts.append(off)
            target = (off // unit_bytes + 1) * unit_bytes
    return [(a, b) for a, b in zip(cuts, cuts[1:] + [size])]


class _Window:
    """Bytes [start, stop) of a file as a stream FastWARC reads; `left` tells whether it read them all."""

    def __init__(self, f, start: int, stop: int):
        f.seek(start)
        self.f, self.left, self.size = f, stop - start, stop - start

    def tell(self) -> int:
        return self.size - self.left

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left)
        data = self.f.read(n) if n else b""
        self.left -= len(data)
        return data

    def close(self) -> None:
        pass


def _block_need(head: bytes) -> tuple[int, int] | None:
    """(bytes a record needs from its first byte to the end of its block, its Content-Length), from the
    record's first bytes; None when they hold no complete WARC header."""
    end = head.find(b"\r\n\r\n")
    if end < 0:
        return None
    for line in head[:end].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            n = int(value)
            return end + 4 + n, n
    return None


def tail_problem(path: Path, offset: int, stop: int) -> str | None:
    """Why the record at `offset`, the last one before `stop`, is not whole (None when it is): the file
    ends inside its block (a bad Content-Length, or a download cut short), or inside its gzip member.
    FastWARC hands such a record over short, without a word; memory is bounded (a stream at a time)."""
    with open(path, "rb") as f:
        if not _is_gzip(path):
            f.seek(offset)
            need = _block_need(f.read(64 << 10))
            have = stop - offset
            if need is not None and have < need[0]:
                return f"the file ends {need[0] - have} bytes before the end of its {need[1]}-byte block (Content-Length)"
            return None
        at_member = _member_starts_record(f, offset)
        f.seek(offset if at_member else 0)
        left = stop - f.tell()
        d, out, head, total = zlib.decompressobj(16 + zlib.MAX_WBITS), 0, b"", 0
        while left > 0:
            chunk = f.read(min(SCAN_BUFFER, left))
            left -= len(chunk)
            while chunk:
                try:
                    data = d.decompress(chunk, SCAN_BUFFER)
                except zlib.error as e:
                    return f"its gzip data is corrupt ({e})"
                out += len(data)
                if len(head) < (64 << 10):
                    head += data[: (64 << 10) - len(head)]
                chunk = d.unconsumed_tail
                if d.eof:
                    if at_member:
                        left = 0
                        break
                    total += out
                    chunk, d, out = d.unused_data + chunk, zlib.decompressobj(16 + zlib.MAX_WBITS), 0
        if not d.eof and (out or at_member):
            return "the file ends inside its gzip member (cut short)"
        if at_member:
            need = _block_need(head)
            if need is not None and out < need[0]:
                return (f"its Content-Length ({need[1]} bytes) runs {need[0] - out} bytes past the end of its "
                        f"gzip member")
    return None


def _parse_http(rec) -> str | None:
    """Parse a record's HTTP header block (up to MAX_HTTP_HEADER bytes; FastWARC's own limit, 32 KB, refused
    real pages); why it cannot be, else None. Parsed per record: a failure in the iterator ends the file."""
    if not rec.is_http:
        return None
    try:
        rec.parse_http(auto_decode="none", max_header_len=MAX_HTTP_HEADER, quirks_mode=True)
    except BaseException as e:
        if not _fastwarc_failed(e):
            raise
        return f"its HTTP header block cannot be read ({_first_line(e)}; at most {MAX_HTTP_HEADER} bytes)"
    return None


def _payload(raw: bytes, http, max_payload: int) -> tuple[bytes, str | None]:
    """(the body decoded, bounded; why it cannot be) of a record's first max_payload + 1 bytes: decoded
    here, not by FastWARC, whose decoding error on one body ends the whole file."""
    if http is None or len(raw) > max_payload:  # too large already: rejected unread
        return raw, None
    try:
        return decode_body(raw, {k.lower(): v for k, v in http.items()}, max_payload), None
    except BodyUndecodable as e:
        return raw, str(e)


def warc_records(path: Path, where: str, start: int, stop: int, max_payload: int) -> Iterator[WarcRecord]:
    """The records that start in [start, stop) of the file. A payload larger than `max_payload` bytes is
    not read whole: its first max_payload + 1 bytes are (enough to tell it is too large). A file that is
    not WARC where a record should start is a CorpusError naming the file and offset."""
    from fastwarc.warc import ArchiveIterator

    if is_arc(path):
        yield from arc_records(path, where, start, stop, max_payload)
        return
    with open(path, "rb") as f, open(path, "rb") as probe:
        window = _Window(f, start, stop)
        last, held = start, None
        gz = _is_gzip(path)
        member, in_member = start, 0  # the gzip member the record is in, and its place there
        try:
            for rec in ArchiveIterator(window, parse_http=False, fsspec_args=False, stream_detect=True,
                                       quirks_mode=True):
                if held is not None:
                    yield held
                last = start + rec.stream_pos
                # FastWARC's position of a record inside a gzip stream is where its inflater had read to,
                # the same for several records: such a record is named by its member and its place in it
                if not gz or last == start or (last != member and _member_starts_record(probe, last, 4096)):
                    member, in_member = last, 0
                else:
                    in_member += 1
                problem = _parse_http(rec)
                is_http = rec.is_http and rec.is_http_parsed
                http = rec.http_headers if is_http else None
                if problem is None:
                    payload, problem = _payload(rec.reader.read(max_payload + 1), http, max_payload)
                else:
                    payload = b""
                held = WarcRecord(
                    offset=member, in_member=in_member, type=str(rec.record_type).rsplit(".", 1)[-1],
                    headers=dict(rec.headers.items()), http_status=http.status_code if http is not None else None,
                    http_headers={k.lower(): v for k, v in http.items()} if http is not None else {},
                    http_charset=rec.http_charset if is_http else None, payload=payload, truncated=None,
                    undecodable=problem)
        except BaseException as e:
            if not _fastwarc_failed(e):
                raise
            raise CorpusError(f"{where}: unreadable WARC data after the record at byte {last}: {_first_line(e)}") from None
    if window.left:
        raise CorpusError(f"{where}: bytes {stop - window.left}-{stop} are not WARC records (FastWARC stopped "
                          f"after the record at byte {last})")
    if held is not None:
        yield dataclasses.replace(held, truncated=tail_problem(path, held.offset, stop))
