"""Format `jsonl`: one JSON object a line (blank lines skipped), its `text_fields` the document."""

from __future__ import annotations

import json
from typing import IO, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.fields import join_fields
from corpus.formats.sources.limits import ReadLimits
from corpus.formats.sources.lines import records
from corpus.formats.sources.part import Part


def read(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits,
         part: Part) -> Iterator[tuple[str, str]]:
    """(locator, document) of a JSON Lines stream; the locator's anchor is followed by the line number."""
    enc, fields = row.get("encoding", "utf-8"), row.get("text_fields", ["text"])
    for n, line in records(stream, enc, where, anchor, limits, part.first_line, part.at_start):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(f"{where}:{n}: invalid JSON: {e.msg} (column {e.colno})") from None
        yield f"{anchor}{n}", join_fields(obj, fields, f"{where}:{n}")
