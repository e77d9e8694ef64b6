"""Compressed streams: gzip, bz2, xz and zstd opened for streaming, and the guard that bounds inflation."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
import zlib
from typing import IO

import zstandard

from corpus.errors import CorpusError
from corpus.formats.sources.limits import DEFAULT_LIMITS, MiB, ReadLimits

COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")
INFLATE_FLOOR = 16 * MiB  # every stream may inflate this far, whatever its ratio (tiny files compress well)


def compression_of(name: str) -> str | None:
    name = name.lower()
    if name.endswith(".tgz"):
        return ".gz"
    return next((c for c in COMPRESSIONS if name.endswith(c)), None)


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


def read_zst(path: str | os.PathLike) -> bytes:
    """All a .zst file decompresses to: every frame, to the end (one read() of zstandard's stream reader
    may stop at a frame's end); a truncated last frame is an EOFError."""
    with open(path, "rb") as raw:
        return open_decompressed(raw, ".zst").read()


DECODE_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError, zipfile.BadZipFile,
                 tarfile.TarError)


class Guarded(io.RawIOBase):
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


def open_guarded(raw: IO[bytes], compression: str, where: str, limits: ReadLimits) -> Guarded:
    """A compressed file's decompressed stream, bounded by the inflate limits of its compressed size."""
    return Guarded(open_decompressed(raw, compression), where, f"truncated or corrupt {compression} data",
                   limits=limits, compressed=os.fstat(raw.fileno()).st_size)
