"""Format `text`: a text file cut into documents by its `split` (file, line, paragraph, delimiter, regex)."""

from __future__ import annotations

from typing import IO, Iterator

from corpus.formats.sources.limits import ReadLimits
from corpus.formats.sources.lines import records, text_chunks
from corpus.formats.sources.part import Part
from corpus.formats.sources.splitting import cut_text, split_text, splitter


def read(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits,
         part: Part) -> Iterator[tuple[str, str]]:
    """(locator, document) of a text stream; the locator's anchor is followed by the document's first line."""
    enc = row.get("encoding", "utf-8")
    split = row.get("split", "file")
    if split in ("line", "paragraph"):
        lines = records(stream, enc, where, anchor, limits, part.first_line, part.at_start)
        docs = split_text(lines, split, anchor=anchor, limits=limits)
    else:
        rx = splitter(split, row.get("delimiter"), row.get("pattern"))
        docs = cut_text(text_chunks(stream, enc, where, limits, part.at_start), rx, anchor, limits)
    for n, text in docs:
        yield f"{anchor}{n}", text
