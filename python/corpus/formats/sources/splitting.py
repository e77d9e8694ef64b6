"""Cutting text into documents: by line, by paragraph, at delimiter or regex matches, or not at all."""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from corpus.formats.sources.limits import DEFAULT_LIMITS, ReadLimits, over, too_big, utf8_len


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
            size += utf8_len(line)
            if size > limit:
                raise too_big(f"{anchor}{start}", "document", limit)
        elif buf:
            yield start, "".join(buf).rstrip("\r\n")
            buf = []
    if buf:
        yield start, "".join(buf).rstrip("\r\n")


_LEAD = re.compile(r"[\r\n]*")


def cut_text(chunks: Iterable[str], rx: re.Pattern | None, anchor: str,
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
        if over(piece, limit):
            raise too_big(f"{anchor}{start_line(a)}", "document", limit)
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
            raise too_big(f"{anchor}{start_line(pos)}", "document", limit)
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
        yield from cut_text((line for _, line in lines), splitter(split, delimiter, pattern), anchor, limits)


def splitter(split: str, delimiter: str | None, pattern: str | None) -> re.Pattern | None:
    if split == "file":
        return None
    if split in ("delimiter", "regex"):
        return re.compile(re.escape(delimiter) if split == "delimiter" else pattern)
    raise ValueError(f"unknown split {split!r}")
