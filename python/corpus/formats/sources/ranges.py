"""Fetch units: `plan_ranges` cuts a source into ranges whose reads, concatenated in order, are the whole read."""

from __future__ import annotations

import io
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from corpus.errors import CorpusError
from corpus.formats.sources.archives import archive_of, open_zip, safe_member_name, wanted_members, zip_files
from corpus.formats.sources.compression import compression_of
from corpus.formats.sources.limits import MiB
from corpus.formats.sources.lines import is_wide
from corpus.formats.sources.warc import plan_warc_ranges
from corpus.store.retrieve import url_path


@dataclass(frozen=True)
class Range:
    """One fetch unit of a source: reading a plan's ranges in order gives exactly the whole read.

    kind "whole": the entire source. "bytes": bytes [start, stop) of an uncompressed line-oriented file,
    cut just after a document boundary, its first line being number `first_line`. "rows": Parquet row
    groups [start, stop), whose first row is number `first_row`. "members": the archive members named.
    "records": bytes [start, stop) of a WARC file, both at record (gzip member) starts."""

    index: int
    kind: str
    start: int = 0
    stop: int = 0
    first_line: int = 1
    first_row: int = 0
    members: tuple[str, ...] = ()


def _byte_rangeable(row: dict, compression: str | None, archive: str | None) -> bool:
    if compression or archive or is_wide(row.get("encoding", "utf-8")):
        return False
    return row["format"] == "jsonl" or (row["format"] == "text" and row.get("split", "file") in ("line", "paragraph"))


_PARAGRAPH_END = re.compile(rb"\n\r?\n")  # an empty line: surely blank in any byte encoding


def _count_breaks(b: bytes, cr_before: bool) -> int:
    """Line breaks (\\n, \\r\\n, lone \\r) in b; cr_before: the byte before b is \\r."""
    n = b.count(b"\n")
    if b"\r" in b:
        n += b.count(b"\r") - b.count(b"\r\n")
    return n - (1 if cr_before and b[:1] == b"\n" else 0)


def _byte_ranges(path: Path, paragraph: bool, unit: int) -> list[Range]:
    """Cut after a \\n (a line end in any byte encoding) or, for paragraphs, after an empty line, at the
    first such place at or after each multiple of `unit`; count the line breaks before each cut."""
    size = path.stat().st_size
    cuts: list[tuple[int, int]] = []  # (offset, line breaks before it)
    with open(path, "rb") as f:
        base, buf, i0 = 0, b"", 0  # buf is the file from offset `base`; buf[:i0] is counted already
        breaks, cr_before = 0, False  # line breaks before base + i0; the byte before it is \r
        target = unit
        while target < size:
            data = f.read(8 * MiB)
            buf = buf[i0:] + data
            base, i0 = base + i0, 0
            while target < size:
                t = target - base
                if paragraph:
                    m = _PARAGRAPH_END.search(buf, max(i0, t - 3))
                    while m and m.end() < t:
                        m = _PARAGRAPH_END.search(buf, m.start() + 1)
                    cut = m.end() if m else -1
                else:
                    i = buf.find(b"\n", max(i0, t - 1))
                    cut = i + 1 if i >= 0 else -1
                if cut < 0:
                    break
                if base + cut >= size:
                    target = size
                    break
                breaks += _count_breaks(buf[i0:cut], cr_before)
                cr_before, i0 = False, cut  # a cut follows a \n
                cuts.append((base + cut, breaks))
                target = ((base + cut) // unit + 1) * unit
            if not data:
                break
            if len(buf) - i0 > 2:  # no further cut in buf: keep its last two bytes, which may begin an empty line
                breaks += _count_breaks(buf[i0:-2], cr_before)
                cr_before = buf[-3:-2] == b"\r"
                i0 = len(buf) - 2
    bounds = [(0, 0)] + cuts
    return [Range(k, "bytes", start, bounds[k + 1][0] if k + 1 < len(bounds) else size, first_line=n + 1)
            for k, (start, n) in enumerate(bounds)]


def _group(sizes: list[int], unit: int) -> list[tuple[int, int]]:
    """Consecutive [a, b) groups of items, each closed once it holds `unit` bytes."""
    groups, a, acc = [], 0, 0
    for i, s in enumerate(sizes):
        acc += s
        if acc >= unit:
            groups.append((a, i + 1))
            a, acc = i + 1, 0
    if a < len(sizes) or not groups:
        groups.append((a, len(sizes)))
    return groups



def plan_ranges(path: Path, row: dict, unit_bytes: int) -> list[Range]:
    """The fetch units of a source: they depend only on the file and `unit_bytes`, never on workers.

    Uncompressed JSONL and text split by line or paragraph: byte ranges of about `unit_bytes`, cut after
    a line end (after an empty line for paragraphs). Parquet: groups of row groups of about `unit_bytes`
    compressed. Zip and uncompressed tar: groups of wanted members of about `unit_bytes`. WARC: byte ranges
    starting at records (gzip members), corpus.formats.sources.warc.plan_warc_ranges. Everything else
    — a compressed stream (it cannot be entered in the middle), a compressed tar, a JSON array, text
    split by file, regex or delimiter, UTF-16/32 text — is one range."""
    if unit_bytes < 1:
        raise ValueError("unit_bytes must be positive")
    if row["format"] == "warc-records":  # rows of the record table (corpus.formats.sources.record_index)
        from corpus.formats.sources.record_index import plan_index_ranges

        return [Range(k, "index", a, b) for k, (a, b) in enumerate(plan_index_ranges(path, row, unit_bytes))]
    if row["format"] == "warc":
        return [Range(k, "records", a, b) for k, (a, b) in enumerate(plan_warc_ranges(path, row["url"], unit_bytes))]
    name = url_path(row["url"])
    compression, archive = compression_of(name), archive_of(name)
    whole = [Range(0, "whole")]
    if archive == "zip":
        with open_zip(path, row["url"]) as zf:
            members = [(safe_member_name(i.filename, row["url"]), i.compress_size) for i in zip_files(zf)]
        return _member_ranges(members, row, unit_bytes)
    if archive == "tar":
        if compression:
            return whole
        try:
            with tarfile.open(path, mode="r:") as tf:
                infos = sorted(tf.getmembers(), key=lambda i: i.name)
        except tarfile.TarError as e:
            raise CorpusError(f"{row['url']}: truncated or corrupt tar archive: {e}") from None
        # links are planned too, so the range that holds one refuses it as a whole read does
        members = [(safe_member_name(i.name, row["url"]), i.size) for i in infos
                   if i.isfile() or i.issym() or i.islnk()]
        return _member_ranges(members, row, unit_bytes)
    if compression:
        return whole
    if row["format"] == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        try:
            meta = pq.ParquetFile(path).metadata
        except (pa.ArrowException, OSError) as e:
            raise CorpusError(f"{row['url']}: unreadable parquet: {e}") from None
        rgs = [meta.row_group(i) for i in range(meta.num_row_groups)]
        sizes = [sum(rg.column(c).total_compressed_size for c in range(rg.num_columns)) for rg in rgs]
        out, first = [], 0
        for k, (a, b) in enumerate(_group(sizes, unit_bytes)):
            out.append(Range(k, "rows", a, b, first_row=first))
            first += sum(rgs[i].num_rows for i in range(a, b))
        return out
    if _byte_rangeable(row, compression, archive):
        return _byte_ranges(path, row["format"] == "text" and row.get("split") == "paragraph", unit_bytes)
    return whole


def _member_ranges(members: list[tuple[str, int]], row: dict, unit: int) -> list[Range]:
    wanted = wanted_members(row)
    members = [(m, s) for m, s in members if wanted(m)]
    return [Range(k, "members", members=tuple(m for m, _ in members[a:b]))
            for k, (a, b) in enumerate(_group([s for _, s in members], unit))]


class Window(io.RawIOBase):
    """Bytes [start, stop) of a seekable file, as a stream."""

    def __init__(self, f: IO[bytes], start: int, stop: int):
        f.seek(start)
        self._f, self._left = f, stop - start

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self._left if n is None or n < 0 else min(n, self._left)
        data = self._f.read(n) if n else b""
        self._left -= len(data)
        return data

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)
