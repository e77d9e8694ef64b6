"""Format `json`: one JSON array of objects, parsed whole (at most max_doc_bytes); each object a document."""

from __future__ import annotations

import codecs
import json
from typing import IO, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.fields import join_fields
from corpus.formats.sources.limits import ReadLimits, over, too_big
from corpus.formats.sources.part import Part


def read(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits,
         part: Part) -> Iterator[tuple[str, str]]:
    """A JSON array is parsed whole, so its file (decompressed) may be at most max_doc_bytes."""
    enc, fields, at_start = row.get("encoding", "utf-8"), row.get("text_fields", ["text"]), part.at_start
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
        if over(text, limit):
            raise too_big(f"{anchor}row{k}", "document", limit)
        yield f"{anchor}row{k}", text
