"""Read a source file into documents, streaming: decompress, open archive members, parse the format, split text.

`read_documents(path, row)` yields (locator, text) in a fixed order: archive members sorted by name,
then documents in file order. A locator is the URL plus `#<line>` (1-based line where the document
starts), `#<member>:<line>` inside archives, `#row<k>` for parquet and json arrays. Every failure is a
CorpusError naming the file and place. No member is ever written to disk, and member paths that would
escape their folder are refused all the same.

Nothing is read whole (except a JSON array, under `max_doc_bytes`): input is decompressed and decoded a
chunk at a time (`ReadLimits.chunk_bytes`), so memory is a chunk plus the document being assembled, and
the documents are the same whatever the chunk size. `plan_ranges` cuts a source into ranges (byte ranges
at document boundaries, Parquet row groups, archive members) whose reads, concatenated in order, are the
whole read; `read_documents(path, row, rng)` reads one of them.

Limits (`ReadLimits`, from the config's `[fetch]` table):
- `max_doc_bytes`: a document whose source text is larger (UTF-8 bytes: a line with its terminator, a
  paragraph's lines, the text between two regex/delimiter cuts, a whole file or member for split `file`,
  a Parquet row's or JSON array element's joined text), and any line of a line-oriented source (split
  `line`/`paragraph`, JSONL) that is larger, is an error naming the locator: it is refused, not skipped.
- `max_inflate_ratio` / `max_inflate_bytes`: a compressed stream or zip member that inflates to more than
  max(16 MiB, ratio x its compressed size), or to more than the byte limit, is refused."""

from __future__ import annotations

import bz2
import codecs
import fnmatch
import gzip
import io
import json
import lzma
import os
import posixpath
import re
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator

import zstandard

from corpus.errors import CorpusError
from corpus.store.retrieve import url_path

COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")
ARCHIVES = (".zip", ".tar", ".tgz")
MiB = 1 << 20
INFLATE_FLOOR = 16 * MiB  # every stream may inflate this far, whatever its ratio (tiny files compress well)


@dataclass(frozen=True)
class ReadLimits:
    """How sources are read. The first three are `[fetch]` keys; the last two are tuning knobs that never
    change a document (tests set them tiny so that every cut falls inside lines, characters and frames)."""

    max_doc_bytes: int = 64 * MiB
    max_inflate_ratio: float = 200.0
    max_inflate_bytes: int = 256 << 30
    chunk_bytes: int = MiB        # bytes read (and decompressed) at a time
    regex_window: int = MiB       # characters a regex/delimiter match and its lookaround may examine

    @classmethod
    def from_fetch(cls, fetch: dict) -> "ReadLimits":
        """The limits of a validated `[fetch]` table (missing keys take the defaults)."""
        keys = ("max_doc_bytes", "max_inflate_ratio", "max_inflate_bytes")
        return cls(**{k: fetch[k] for k in keys if k in fetch})


DEFAULT_LIMITS = ReadLimits()


# ---------------------------------------------------------------- names and streams

def compression_of(name: str) -> str | None:
    name = name.lower()
    if name.endswith(".tgz"):
        return ".gz"
    return next((c for c in COMPRESSIONS if name.endswith(c)), None)


def archive_of(name: str) -> str | None:
    name = name.lower()
    c = compression_of(name)
    base = name[: -len(c)] if c and not name.endswith(".tgz") else name
    if base.endswith(".zip"):
        return "zip"
    if base.endswith(".tar") or name.endswith(".tgz"):
        return "tar"
    return None


_ZSTD_MAGIC = 0xFD2FB528


class _ZstdFrames:
    """Follows the frame structure of a zstd stream (RFC 8878) as its bytes go by, reading only frame and
    block headers, so that an input ending inside a frame is noticed (zstandard's reader does not)."""

    def __init__(self):
        self._state, self._need, self._hdr, self._skip = "magic", 4, b"", 0
        self._checksum = self.unknown = False

    def feed(self, data) -> None:
        i, n = 0, len(data)
        while i < n and not self.unknown:
            if self._skip:
                k = min(self._skip, n - i)
                self._skip -= k
                i += k
                continue
            k = min(self._need - len(self._hdr), n - i)
            self._hdr += bytes(data[i:i + k])
            i += k
            if len(self._hdr) == self._need:
                h, self._hdr = self._hdr, b""
                self._step(h)

    def _step(self, h: bytes) -> None:
        s = self._state
        if s == "magic":
            m = int.from_bytes(h, "little")
            if m == _ZSTD_MAGIC:
                self._state, self._need = "descriptor", 1
            elif m & 0xFFFFFFF0 == 0x184D2A50:  # skippable frame
                self._state, self._need = "skippable", 4
            else:
                self.unknown = True  # not zstd: the decompressor says what is wrong
        elif s == "skippable":
            self._skip, self._state, self._need = int.from_bytes(h, "little"), "magic", 4
        elif s == "descriptor":
            d = h[0]
            single = (d >> 5) & 1
            self._checksum = bool((d >> 2) & 1)
            rest = (0 if single else 1) + (0, 1, 2, 4)[d & 3] + (single, 2, 4, 8)[d >> 6]
            self._state, self._need = ("header", rest) if rest else ("block", 3)
        elif s == "header":
            self._state, self._need = "block", 3
        elif s == "block":
            b = int.from_bytes(h, "little")
            kind = (b >> 1) & 3
            if kind == 3:
                self.unknown = True
                return
            self._skip = 1 if kind == 1 else b >> 3  # an RLE block holds one byte
            if b & 1:  # last block of the frame
                self._state, self._need = ("checksum", 4) if self._checksum else ("magic", 4)
        else:  # checksum
            self._state, self._need = "magic", 4

    def complete(self) -> bool:
        return self.unknown or (self._state == "magic" and not self._hdr and not self._skip)


class _Tee:
    def __init__(self, raw: IO[bytes], frames: _ZstdFrames):
        self._raw, self._frames = raw, frames

    def read(self, n: int = -1) -> bytes:
        data = self._raw.read(n)
        self._frames.feed(data)
        return data


class _ZstdReader(io.RawIOBase):
    """A zstd decompressing reader over every frame, with bounded output per read, that notices a
    truncated last frame; seekable by re-reading (backwards) or skipping (forwards), as tar needs."""

    def __init__(self, raw: IO[bytes]):
        self._raw = raw
        self._origin = raw.tell() if raw.seekable() else 0
        self._open()

    def _open(self) -> None:
        self._frames = _ZstdFrames()
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            _Tee(self._raw, self._frames), read_across_frames=True, closefd=False)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._raw.seekable()

    def readinto(self, b) -> int:
        n = self._reader.readinto(b)
        if not n:
            if not self._frames.complete():
                raise EOFError("zstd stream ends inside a frame (truncated)")
            return 0
        self._pos += n
        return n

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        scratch = bytearray(MiB)
        if whence == 2:
            while self.readinto(scratch):
                pass
            target = self._pos + offset
        else:
            target = offset if whence == 0 else self._pos + offset
        if target < self._pos:
            self._raw.seek(self._origin)
            self._open()
        while self._pos < target:
            if not self.readinto(memoryview(scratch)[: min(len(scratch), target - self._pos)]):
                break
        return self._pos


def open_decompressed(raw: IO[bytes], compression: str | None) -> IO[bytes]:
    if compression is None:
        return raw
    if compression == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == ".bz2":
        return bz2.BZ2File(raw, "rb")
    if compression == ".xz":
        return lzma.LZMAFile(raw, "rb")
    return io.BufferedReader(_ZstdReader(raw), MiB)


DECODE_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError, zipfile.BadZipFile,
                 tarfile.TarError)


class _Guarded(io.RawIOBase):
    """A (decompressed) stream that turns decoding failures into one-line errors naming `where`, and that
    refuses to inflate past the limits when it knows its compressed size."""

    def __init__(self, inner: IO[bytes], where: str, what: str, *, compressed: int | None = None,
                 limits: ReadLimits = DEFAULT_LIMITS, step: int | None = None):
        self._inner, self._where, self._what, self._step = inner, where, what, step
        self._compressed, self._limits = compressed, limits
        self._cap = None
        if compressed is not None:
            self._cap = min(limits.max_inflate_bytes,
                            max(INFLATE_FLOOR, int(limits.max_inflate_ratio * compressed)))
        self._pos = self._high = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._inner.seekable()

    def _fail(self, e: Exception):
        if isinstance(e, CorpusError):
            raise e
        raise CorpusError(f"{self._where}: {self._what}: {e}") from None

    def _moved(self, pos: int) -> None:
        self._pos = pos
        if pos > self._high:
            self._high = pos
            if self._cap is not None and pos > self._cap:
                lim = self._limits
                raise CorpusError(
                    f"{self._where}: inflates past {self._cap} bytes from {self._compressed} compressed bytes "
                    f"([fetch].max_inflate_ratio = {lim.max_inflate_ratio:g}, max_inflate_bytes = "
                    f"{lim.max_inflate_bytes}): refused as a possible decompression bomb")

    def read(self, n: int = -1) -> bytes:
        if self._step is not None:  # an inner reader that inflates all it reads: read it a little at a time
            if n is None or n < 0:
                return b"".join(iter(lambda: self.read(self._step), b""))
            parts, want = [], n
            while want > 0:
                part = self._read(min(want, self._step))
                if not part:
                    break
                parts.append(part)
                want -= len(part)
            return b"".join(parts)
        return self._read(n)

    def _read(self, n: int) -> bytes:
        try:
            data = self._inner.read(n)
        except DECODE_ERRORS as e:
            self._fail(e)
        self._moved(self._pos + len(data))
        return data

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        try:
            if whence in (0, 1) and self._cap is not None:  # forward over a bomb: check as it inflates
                target = offset if whence == 0 else self._pos + offset
                while self._pos + 16 * MiB < target:
                    pos = self._inner.seek(self._pos + 16 * MiB)
                    if pos < self._pos + 16 * MiB:  # the stream ended
                        self._moved(pos)
                        return pos
                    self._moved(pos)
                offset, whence = target, 0
            pos = self._inner.seek(offset, whence)
        except DECODE_ERRORS as e:
            self._fail(e)
        self._moved(pos)
        return pos

    def tell(self) -> int:
        return self._pos


class _Window(io.RawIOBase):
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


def safe_member_name(name: str, archive: str) -> str:
    """Refuse absolute paths and `..` components: a member must stay inside its folder."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) or ".." in norm.split("/"):
        raise CorpusError(f"{archive}: archive member '{name}' escapes its folder")
    return posixpath.normpath(norm)


# ---------------------------------------------------------------- sizes and encodings

def _utf8_len(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def _over(s: str, limit: int) -> bool:
    """len(s in UTF-8) > limit, without encoding in the common case."""
    return len(s) > limit or (len(s) * 4 > limit and _utf8_len(s) > limit)


def _too_big(locator: str, what: str, limit: int) -> CorpusError:
    return CorpusError(f"{locator}: {what} larger than [fetch].max_doc_bytes ({limit} bytes); refused "
                       f"(raise the limit or split the source)")


def _wide(encoding: str) -> bool:
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def _raw_factor(encoding: str) -> int:
    """A raw line longer than factor x max_doc_bytes is surely over the limit once decoded (UTF-8 and
    single-byte encodings never shrink in UTF-8; 32 covers every multi-byte codec but unicode_escape)."""
    name = codecs.lookup(encoding).name
    if name == "utf-8" or len(bytes(range(256)).decode(name, "replace")) == 256:
        return 1
    return 32


class _LineTooLong(Exception):
    pass


def _blocks(stream: IO[bytes], chunk: int, guard: int) -> Iterator[bytes]:
    """The stream's bytes in blocks of whole lines (ending in \\n, \\r\\n or a lone \\r; only the last block
    may end without one). A \\r at the end of a read waits for the next byte, which may make it \\r\\n.
    A line longer than `guard` bytes raises _LineTooLong before it is complete."""
    held: list[bytes] = []
    held_len = 0
    while True:
        data = stream.read(chunk)
        if not data:
            if held:
                yield b"".join(held)
            return
        end = len(data) - 1 if data[-1:] == b"\r" else len(data)
        cut = max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end))
        if cut < 0:
            held.append(data)
            held_len += len(data)
            if held_len > guard:
                raise _LineTooLong()
            continue
        if held:
            held.append(data[: cut + 1])
            yield b"".join(held)
            held, held_len = [], 0
        else:
            yield data[: cut + 1]
        if cut + 1 < len(data):
            held.append(data[cut + 1:])
            held_len = len(data) - cut - 1


_STR_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def _records(stream: IO[bytes], encoding: str, where: str, anchor: str, limits: ReadLimits,
             first_line: int = 1, at_start: bool = True) -> Iterator[tuple[int, str]]:
    """(line number, decoded line with its terminator), as today's whole-file reader numbers and decodes
    them: bytes.splitlines for byte encodings, decoded one line at a time (an error names line and column);
    str.splitlines for UTF-16/32 (an error names the byte). No line may exceed max_doc_bytes."""
    limit = limits.max_doc_bytes
    strip_bom = at_start and codecs.lookup(encoding).name == "utf-8"
    n = first_line - 1
    if _wide(encoding):
        dec = codecs.getincrementaldecoder(encoding)("strict")
        fed, held, held_len = 0, [], 0
        while True:
            data = stream.read(limits.chunk_bytes)
            try:
                text = dec.decode(data, not data)
            except UnicodeDecodeError as e:
                at = fed - len(getattr(dec, "buffer", b"")) + e.start
                raise CorpusError(f"{where}: invalid {encoding} at byte {at}: {e.reason}") from None
            fed += len(data)
            if text:
                held.append(text)
                held_len += len(text)
            if not held:
                if not data:
                    return
                continue
            pending = "".join(held) if len(held) > 1 else held[0]
            lines = pending.splitlines(keepends=True)
            keep = ""
            if data and lines and (lines[-1][-1] not in _STR_BREAKS or lines[-1][-1] == "\r"):
                keep = lines.pop()
            held, held_len = ([keep], len(keep)) if keep else ([], 0)
            for line in lines:
                n += 1
                if _over(line, limit):
                    raise _too_big(f"{anchor}{n}", "line", limit)
                yield n, line
            if held_len > limit:
                raise _too_big(f"{anchor}{n + 1}", "line", limit)
            if not data:
                return
    try:
        for block in _blocks(stream, limits.chunk_bytes, limit * _raw_factor(encoding)):
            for raw in block.splitlines(keepends=True):
                n += 1
                try:
                    line = raw.decode(encoding)
                except UnicodeDecodeError as e:
                    raise CorpusError(f"{where}:{n}: invalid {encoding} at column {e.start + 1}: {e.reason}") from None
                if strip_bom:
                    strip_bom = False
                    if line.startswith("\ufeff"):
                        line = line[1:]
                if len(line) * 4 > limit and _over(line, limit):
                    raise _too_big(f"{anchor}{n}", "line", limit)
                yield n, line
    except _LineTooLong:
        raise _too_big(f"{anchor}{n + 1}", "line", limit) from None


def _text_chunks(stream: IO[bytes], encoding: str, where: str, limits: ReadLimits,
                 at_start: bool = True) -> Iterator[str]:
    """The stream decoded a chunk at a time (for splits that are not line by line). A bad byte is named as
    today's reader names it: by line and column (byte encodings), or by byte offset (UTF-16/32)."""
    dec = codecs.getincrementaldecoder(encoding)("strict")
    wide = _wide(encoding)
    strip_bom = at_start and codecs.lookup(encoding).name == "utf-8"
    fed = breaks = line_start = 0  # line terminators before `fed`; offset where the last line began
    prev_cr = False
    while True:
        data = stream.read(limits.chunk_bytes)
        try:
            text = dec.decode(data, not data)
        except UnicodeDecodeError as e:
            at = fed - len(getattr(dec, "buffer", b"")) + e.start
            if wide:
                raise CorpusError(f"{where}: invalid {encoding} at byte {at}: {e.reason}") from None
            k = max(0, at - fed)  # partial characters held by the decoder are never line breaks
            head = data[:k]
            line = 1 + breaks + head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
            if prev_cr and head[:1] == b"\n":
                line -= 1
            last = max(head.rfind(b"\n"), head.rfind(b"\r"))
            start = fed + last + 1 if last >= 0 else line_start
            raise CorpusError(f"{where}:{line}: invalid {encoding} at column {at - start + 1}: {e.reason}") from None
        if not wide and data:
            breaks += data.count(b"\n")
            if b"\r" in data:
                breaks += data.count(b"\r") - data.count(b"\r\n")
            if prev_cr and data[:1] == b"\n":
                breaks -= 1
            last = max(data.rfind(b"\n"), data.rfind(b"\r"))
            if last >= 0:
                line_start = fed + last + 1
            prev_cr = data[-1:] == b"\r"
        fed += len(data)
        if text:
            if strip_bom:
                strip_bom = False
                if text.startswith("\ufeff"):
                    text = text[1:]
            if text:
                yield text
        if not data:
            return


# ---------------------------------------------------------------- record-level splitting

def _trim(text: str) -> tuple[str, int]:
    """Drop leading/trailing line breaks; return the text and how many leading characters went."""
    stripped = text.lstrip("\r\n")
    return stripped.rstrip("\r\n"), len(text) - len(stripped)


def _paragraphs(lines: Iterable[tuple[int, str]], anchor: str, limit: int) -> Iterator[tuple[int, str]]:
    start, buf, size = 0, [], 0
    for n, line in lines:
        if line.strip():
            if not buf:
                start, size = n, 0
            buf.append(line)
            size += _utf8_len(line)
            if size > limit:
                raise _too_big(f"{anchor}{start}", "document", limit)
        elif buf:
            yield start, "".join(buf).rstrip("\r\n")
            buf = []
    if buf:
        yield start, "".join(buf).rstrip("\r\n")


_LEAD = re.compile(r"[\r\n]*")


def _cut_text(chunks: Iterable[str], rx: re.Pattern | None, anchor: str,
              limits: ReadLimits) -> Iterator[tuple[int, str]]:
    """(start line, document) of a text arriving in chunks, cut at the matches of `rx` (or not at all),
    exactly as cutting the whole text: a match is taken only once `regex_window` characters follow it
    (or the text ended), and that much text before the current document is kept for lookbehinds. The
    line is 1 + the number of \\n before the document (after its leading line breaks are dropped)."""
    window, limit = max(1, limits.regex_window), limits.max_doc_bytes
    grow = max(window, limits.chunk_bytes)
    buf, base = "", 0   # buf holds the text from absolute offset `base`
    pos = scan = 0      # end of the last cut; where the next search starts
    line, counted = 1, 0
    it = iter(chunks)
    eof = False

    def start_line(a: int) -> int:  # the line of a document starting at `a`, its leading line breaks dropped
        lead = _LEAD.match(buf, a - base).end() - (a - base)
        return line + buf.count("\n", counted - base, a + lead - base)

    def emit(a: int, b: int):
        nonlocal line, counted
        piece = buf[a - base:b - base]
        if _over(piece, limit):
            raise _too_big(f"{anchor}{start_line(a)}", "document", limit)
        text, lead = _trim(piece)
        line += buf.count("\n", counted - base, a + lead - base)
        counted = a + lead
        return line, text

    while not eof:
        pending, size = [], 0
        for c in it:
            pending.append(c)
            size += len(c)
            if size >= max(grow, len(buf) - (pos - base)):
                break
        else:
            eof = True
        keep = max(base, pos - window)
        if keep > base:
            if counted < keep:
                line += buf.count("\n", counted - base, keep - base)
                counted = keep
            buf, base = buf[keep - base:], keep
        buf += "".join(pending)
        end = base + len(buf)
        settled = end if eof else end - window
        if rx is not None:
            later = None
            for m in rx.finditer(buf, scan - base):
                s, e = m.start() + base, m.end() + base
                if not eof and e > settled:  # more text could still change this match
                    later = s
                    break
                if s == e == pos:  # zero-width match where the last piece ended: nothing to cut
                    continue
                yield emit(pos, s)
                pos = e
            scan = later if later is not None else max(pos, settled)
        else:
            scan = max(pos, settled)
        if scan - pos > limit:  # the document holds more characters than the limit allows bytes
            raise _too_big(f"{anchor}{start_line(pos)}", "document", limit)
    yield emit(pos, base + len(buf))


def split_text(lines: Iterable[tuple[int, str]], split: str, *, delimiter: str | None = None,
               pattern: str | None = None, anchor: str = "",
               limits: ReadLimits = DEFAULT_LIMITS) -> Iterator[tuple[int, str]]:
    """Cut numbered lines into (start line, document) pairs. Line breaks around a document are dropped."""
    if split == "line":
        for n, line in lines:
            yield n, line.rstrip("\r\n")
    elif split == "paragraph":
        yield from _paragraphs(lines, anchor, limits.max_doc_bytes)
    else:
        yield from _cut_text((line for _, line in lines), _splitter(split, delimiter, pattern), anchor, limits)


def _splitter(split: str, delimiter: str | None, pattern: str | None) -> re.Pattern | None:
    if split == "file":
        return None
    if split in ("delimiter", "regex"):
        return re.compile(re.escape(delimiter) if split == "delimiter" else pattern)
    raise ValueError(f"unknown split {split!r}")


def join_fields(obj: object, fields: list[str], where: str) -> str:
    """The document text of a JSON object / parquet row: its fields joined by newlines."""
    if not isinstance(obj, dict):
        raise CorpusError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    out = []
    for spec in fields:
        name, is_list = (spec[:-2], True) if spec.endswith("[]") else (spec, False)
        if name not in obj:
            raise CorpusError(f"{where}: missing field '{name}'")
        value = obj[name]
        if is_list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise CorpusError(f"{where}: field '{name}' is not a list of strings")
            out.append("\n".join(value))
        elif not isinstance(value, str):
            raise CorpusError(f"{where}: field '{name}' is not a string (got {type(value).__name__})")
        else:
            out.append(value)
    return "\n".join(out)


# ---------------------------------------------------------------- formats

def _parse(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits, *,
           first_line: int = 1, at_start: bool = True, parquet_source=None,
           row_groups: tuple[int, int] | None = None, first_row: int = 0) -> Iterator[tuple[str, str]]:
    """Documents of one file's (decompressed) byte stream. `anchor` prefixes the locator's line/row."""
    fmt, enc = row["format"], row.get("encoding", "utf-8")
    fields = row.get("text_fields", ["text"])
    if fmt == "text":
        split = row.get("split", "file")
        if split in ("line", "paragraph"):
            lines = _records(stream, enc, where, anchor, limits, first_line, at_start)
            docs = split_text(lines, split, anchor=anchor, limits=limits)
        else:
            rx = _splitter(split, row.get("delimiter"), row.get("pattern"))
            docs = _cut_text(_text_chunks(stream, enc, where, limits, at_start), rx, anchor, limits)
        for n, text in docs:
            yield f"{anchor}{n}", text
    elif fmt == "jsonl":
        for n, line in _records(stream, enc, where, anchor, limits, first_line, at_start):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorpusError(f"{where}:{n}: invalid JSON: {e.msg} (column {e.colno})") from None
            yield f"{anchor}{n}", join_fields(obj, fields, f"{where}:{n}")
    elif fmt == "json":
        yield from _json_array(stream, enc, fields, where, anchor, limits, at_start)
    elif fmt == "parquet":
        yield from _parquet(parquet_source if parquet_source is not None else stream, fields, where, anchor,
                            limits, row_groups, first_row)
    else:
        raise CorpusError(f"{where}: unknown format '{fmt}'")


def _json_array(stream: IO[bytes], enc: str, fields: list[str], where: str, anchor: str, limits: ReadLimits,
                at_start: bool) -> Iterator[tuple[str, str]]:
    """A JSON array is parsed whole, so its file (decompressed) may be at most max_doc_bytes."""
    limit = limits.max_doc_bytes
    parts, size = [], 0
    while data := stream.read(limits.chunk_bytes):
        parts.append(data)
        size += len(data)
        if size > limit:
            raise CorpusError(f"{where}: a JSON array source is parsed whole and this one is larger than "
                              f"[fetch].max_doc_bytes ({limit} bytes); convert it to JSONL or raise the limit")
    data = b"".join(parts)
    del parts
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as e:
        raise CorpusError(f"{where}: invalid {enc} at byte {e.start}: {e.reason}") from None
    if at_start and codecs.lookup(enc).name == "utf-8" and text.startswith("\ufeff"):
        text = text[1:]
    try:
        arr = json.loads(text)
    except json.JSONDecodeError as e:
        raise CorpusError(f"{where}:{e.lineno}: invalid JSON: {e.msg} (column {e.colno})") from None
    del data, text
    if not isinstance(arr, list):
        raise CorpusError(f"{where}: format json expects an array of objects, got {type(arr).__name__}")
    for k, obj in enumerate(arr):
        text = join_fields(obj, fields, f"{where}: row {k}")
        if _over(text, limit):
            raise _too_big(f"{anchor}row{k}", "document", limit)
        yield f"{anchor}row{k}", text


def _parquet(source, fields: list[str], where: str, anchor: str, limits: ReadLimits,
             row_groups: tuple[int, int] | None = None, first_row: int = 0) -> Iterator[tuple[str, str]]:
    """Rows of a Parquet file (a path, or a seekable stream), a batch at a time; row groups [a, b) only
    when given, their first row being number `first_row`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.parts import PRE_BUFFER, READ_BUFFER

    limit = limits.max_doc_bytes
    try:
        pf = pq.ParquetFile(source, buffer_size=READ_BUFFER, pre_buffer=PRE_BUFFER)  # page by page
        names = [f[:-2] if f.endswith("[]") else f for f in fields]
        missing = [n for n in names if n not in pf.schema_arrow.names]
        if missing:
            raise CorpusError(f"{where}: missing column '{missing[0]}'")
        groups = list(range(*row_groups)) if row_groups is not None else None
        k = first_row
        if groups == []:
            return
        for batch in pf.iter_batches(batch_size=4096, columns=sorted(set(names)), row_groups=groups):
            for obj in batch.to_pylist():
                text = join_fields(obj, fields, f"{where}: row {k}")
                if _over(text, limit):
                    raise _too_big(f"{anchor}row{k}", "document", limit)
                yield f"{anchor}row{k}", text
                k += 1
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(f"{where}: unreadable parquet: {e}") from None


# ---------------------------------------------------------------- ranges

@dataclass(frozen=True)
class Range:
    """One fetch unit of a source: reading a plan's ranges in order gives exactly the whole read.

    kind "whole": the entire source. "bytes": bytes [start, stop) of an uncompressed line-oriented file,
    cut just after a document boundary, its first line being number `first_line`. "rows": Parquet row
    groups [start, stop), whose first row is number `first_row`. "members": the archive members named."""

    index: int
    kind: str
    start: int = 0
    stop: int = 0
    first_line: int = 1
    first_row: int = 0
    members: tuple[str, ...] = ()


def _byte_rangeable(row: dict, compression: str | None, archive: str | None) -> bool:
    if compression or archive or _wide(row.get("encoding", "utf-8")):
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


def _open_zip(path, url: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise CorpusError(f"{url}: not a readable zip archive: {e}") from None


def _zip_files(zf: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's files (no directories) in path order: the order documents are read in."""
    return sorted((i for i in zf.infolist() if not i.is_dir()), key=lambda i: i.filename)


def plan_ranges(path: Path, row: dict, unit_bytes: int) -> list[Range]:
    """The fetch units of a source: they depend only on the file and `unit_bytes`, never on workers.

    Uncompressed JSONL and text split by line or paragraph: byte ranges of about `unit_bytes`, cut after
    a line end (after an empty line for paragraphs). Parquet: groups of row groups of about `unit_bytes`
    compressed. Zip and uncompressed tar: groups of wanted members of about `unit_bytes`. Everything else
    — a compressed stream (it cannot be entered in the middle), a compressed tar, a JSON array, text
    split by file, regex or delimiter, UTF-16/32 text — is one range."""
    if unit_bytes < 1:
        raise ValueError("unit_bytes must be positive")
    name = url_path(row["url"])
    compression, archive = compression_of(name), archive_of(name)
    whole = [Range(0, "whole")]
    if archive == "zip":
        with _open_zip(path, row["url"]) as zf:
            members = [(safe_member_name(i.filename, row["url"]), i.compress_size) for i in _zip_files(zf)]
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
    wanted = _wanted(row)
    members = [(m, s) for m, s in members if wanted(m)]
    return [Range(k, "members", members=tuple(m for m, _ in members[a:b]))
            for k, (a, b) in enumerate(_group([s for _, s in members], unit))]


# ---------------------------------------------------------------- reading

def _wanted(row: dict):
    globs = row.get("members", "*")
    globs = [globs] if isinstance(globs, str) else globs
    return lambda member: any(fnmatch.fnmatchcase(member, g) for g in globs)


def read_documents(path: Path, row: dict, rng: Range | None = None, *,
                   limits: ReadLimits | None = None) -> Iterator[tuple[str, str]]:
    """Every document (locator, text) of the ledger row's file at `path` (already verified), or of one
    range of `plan_ranges(path, row, ...)`: the ranges' documents, in plan order, are the whole read's."""
    limits = limits or DEFAULT_LIMITS
    url = row["url"]
    name = url_path(url)
    compression, archive = compression_of(name), archive_of(name)
    wanted = _wanted(row)
    kind = rng.kind if rng is not None else "whole"
    only = set(rng.members) if kind == "members" else None
    if kind not in ("whole", "bytes", "rows", "members"):
        raise ValueError(f"unknown range kind {kind!r}")
    if (kind == "members") != (archive is not None and kind != "whole"):
        raise ValueError(f"{url}: a {kind!r} range does not fit this source (plan it with plan_ranges)")

    if archive == "zip":
        with _open_zip(path, url) as zf:
            for info in _zip_files(zf):
                member = safe_member_name(info.filename, url)
                if not wanted(member) or (only is not None and member not in only):
                    continue
                where = f"{url}#{member}"
                if (info.external_attr >> 16) & 0o170000 == 0o120000:  # a symlink stored in the zip
                    raise CorpusError(f"{where}: archive member is a symbolic link; links are never followed "
                                      f"(leave it out with `members`)")
                try:
                    f = zf.open(info)
                except (*DECODE_ERRORS, NotImplementedError, RuntimeError) as e:
                    raise CorpusError(f"{where}: corrupt zip member: {e}") from None
                with f:
                    stored = info.compress_type == zipfile.ZIP_STORED
                    # zipfile inflates deflate with a bound, but bzip2/LZMA members wholly per read
                    step = None if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) else 4096
                    stream = _Guarded(f, where, "corrupt zip member", limits=limits, step=step,
                                      compressed=None if stored else info.compress_size)
                    yield from _parse(stream, row, where, f"{url}#{member}:", limits)
    elif archive == "tar":
        with open(path, "rb") as raw:
            if compression:
                stream = _Guarded(open_decompressed(raw, compression), url,
                                  f"truncated or corrupt {compression} data", limits=limits,
                                  compressed=os.fstat(raw.fileno()).st_size)
            else:
                stream = raw
            try:
                tf = tarfile.open(fileobj=stream, mode="r:")
                infos = sorted(tf.getmembers(), key=lambda i: i.name)
            except tarfile.TarError as e:
                raise CorpusError(f"{url}: truncated or corrupt tar archive: {e}") from None
            for info in infos:
                member = safe_member_name(info.name, url)
                if (info.issym() or info.islnk()) and wanted(member) and (only is None or member in only):
                    kind = "symbolic" if info.issym() else "hard"
                    raise CorpusError(f"{url}#{member}: archive member is a {kind} link (to '{info.linkname}'); "
                                      f"links are never followed (leave it out with `members`)")
                if not info.isfile() or not wanted(member) or (only is not None and member not in only):
                    continue
                where = f"{url}#{member}"
                try:
                    f = tf.extractfile(info)
                except tarfile.TarError as e:
                    raise CorpusError(f"{where}: truncated or corrupt tar archive: {e}") from None
                yield from _parse(_Guarded(f, where, "truncated or corrupt tar archive", limits=limits),
                                  row, where, f"{url}#{member}:", limits)
    else:
        with open(path, "rb") as raw:
            if kind == "bytes":
                if compression:
                    raise ValueError(f"{url}: a compressed stream has no byte ranges")
                stream = _Window(raw, rng.start, rng.stop)
                yield from _parse(stream, row, url, f"{url}#", limits, first_line=rng.first_line,
                                  at_start=rng.start == 0)
            elif compression:
                stream = _Guarded(open_decompressed(raw, compression), url,
                                  f"truncated or corrupt {compression} data", limits=limits,
                                  compressed=os.fstat(raw.fileno()).st_size)
                yield from _parse(stream, row, url, f"{url}#", limits)
            elif row["format"] == "parquet":
                groups = (rng.start, rng.stop) if kind == "rows" else None
                yield from _parse(raw, row, url, f"{url}#", limits, parquet_source=path, row_groups=groups,
                                  first_row=rng.first_row if kind == "rows" else 0)
            else:
                yield from _parse(raw, row, url, f"{url}#", limits)
