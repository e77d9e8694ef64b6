"""Decoding a byte stream a chunk at a time: numbered lines (whole-line blocks), or plain text chunks."""

from __future__ import annotations

import codecs
from typing import IO, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.limits import ReadLimits, over, too_big


def is_wide(encoding: str) -> bool:
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


def records(stream: IO[bytes], encoding: str, where: str, anchor: str, limits: ReadLimits,
            first_line: int = 1, at_start: bool = True) -> Iterator[tuple[int, str]]:
    """(line number, decoded line with its terminator), as today's whole-file reader numbers and decodes
    them: bytes.splitlines for byte encodings, decoded one line at a time (an error names line and column);
    str.splitlines for UTF-16/32 (an error names the byte). No line may exceed max_doc_bytes."""
    limit = limits.max_doc_bytes
    strip_bom = at_start and codecs.lookup(encoding).name == "utf-8"
    n = first_line - 1
    if is_wide(encoding):
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
                if over(line, limit):
                    raise too_big(f"{anchor}{n}", "line", limit)
                yield n, line
            if held_len > limit:
                raise too_big(f"{anchor}{n + 1}", "line", limit)
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
                if len(line) * 4 > limit and over(line, limit):
                    raise too_big(f"{anchor}{n}", "line", limit)
                yield n, line
    except _LineTooLong:
        raise too_big(f"{anchor}{n + 1}", "line", limit) from None


def text_chunks(stream: IO[bytes], encoding: str, where: str, limits: ReadLimits,
                at_start: bool = True) -> Iterator[str]:
    """The stream decoded a chunk at a time (for splits that are not line by line). A bad byte is named as
    today's reader names it: by line and column (byte encodings), or by byte offset (UTF-16/32)."""
    dec = codecs.getincrementaldecoder(encoding)("strict")
    wide = is_wide(encoding)
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
