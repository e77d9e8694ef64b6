"""`read_documents`: a source, or one range of it, to documents, through the format table `FORMATS`."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources import json as json_array
from corpus.formats.sources import jsonl, parquet, text
from corpus.formats.sources.archives import archive_of, read_tar, read_zip, wanted_members
from corpus.formats.sources.compression import compression_of, open_guarded
from corpus.formats.sources.limits import DEFAULT_LIMITS, ReadLimits
from corpus.formats.sources.part import WHOLE, Part, Reader
from corpus.formats.sources.ranges import Range, Window
from corpus.store.retrieve import url_path

# the ledger's `format` -> its reader: a new format is one module with a `read` (see part.Reader), one row
# here and its name in the `format` enum of schemas/ledger-row.schema.json
FORMATS: dict[str, Reader] = {
    "text": text.read,
    "jsonl": jsonl.read,
    "json": json_array.read,
    "parquet": parquet.read,
}


def _parse(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits,
           part: Part = WHOLE) -> Iterator[tuple[str, str]]:
    """Documents of one file's (decompressed) byte stream. `anchor` prefixes the locator's line/row."""
    fmt = row["format"]
    if fmt not in FORMATS:
        raise CorpusError(f"{where}: unknown format '{fmt}'")
    yield from FORMATS[fmt](stream, row, where, anchor, limits, part)


def read_documents(path: Path, row: dict, rng: Range | None = None, *,
                   limits: ReadLimits | None = None) -> Iterator[tuple[str, str]]:
    """Every document (locator, text) of the ledger row's file at `path` (already verified), or of one
    range of `plan_ranges(path, row, ...)`: the ranges' documents, in plan order, are the whole read's."""
    limits = limits or DEFAULT_LIMITS
    url = row["url"]
    name = url_path(url)
    compression, archive = compression_of(name), archive_of(name)
    wanted = wanted_members(row)
    kind = rng.kind if rng is not None else "whole"
    only = set(rng.members) if kind == "members" else None
    if kind not in ("whole", "bytes", "rows", "members"):
        raise ValueError(f"unknown range kind {kind!r}")
    if (kind == "members") != (archive is not None and kind != "whole"):
        raise ValueError(f"{url}: a {kind!r} range does not fit this source (plan it with plan_ranges)")

    def parse_member(stream: IO[bytes], where: str) -> Iterator[tuple[str, str]]:
        return _parse(stream, row, where, f"{where}:", limits)

    if archive == "zip":
        yield from read_zip(path, url, wanted, only, limits, parse_member)
    elif archive == "tar":
        yield from read_tar(path, url, compression, wanted, only, limits, parse_member)
    else:
        with open(path, "rb") as raw:
            if kind == "bytes":
                if compression:
                    raise ValueError(f"{url}: a compressed stream has no byte ranges")
                stream = Window(raw, rng.start, rng.stop)
                yield from _parse(stream, row, url, f"{url}#", limits,
                                  Part(first_line=rng.first_line, at_start=rng.start == 0))
            elif compression:
                stream = open_guarded(raw, compression, url, limits)
                yield from _parse(stream, row, url, f"{url}#", limits)
            elif row["format"] == "parquet":
                groups = (rng.start, rng.stop) if kind == "rows" else None
                yield from _parse(raw, row, url, f"{url}#", limits,
                                  Part(parquet_source=path, row_groups=groups,
                                       first_row=rng.first_row if kind == "rows" else 0))
            else:
                yield from _parse(raw, row, url, f"{url}#", limits)
