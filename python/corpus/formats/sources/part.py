"""What a format reader is given besides its stream (`Part`: where that stream begins), and its type."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Iterator

from corpus.formats.sources.limits import ReadLimits


@dataclass(frozen=True)
class Part:
    """Where the stream a format reader is given begins in its source: the number of its first line, and
    whether it is the file's start (only there is a UTF-8 BOM dropped); for a Parquet file read in place,
    the file itself (`parquet_source`) and the row groups [a, b) to read, whose first row is `first_row`."""

    first_line: int = 1
    at_start: bool = True
    parquet_source: Path | None = None
    row_groups: tuple[int, int] | None = None
    first_row: int = 0


WHOLE = Part()  # a whole file or archive member

# (stream, ledger row, where, locator anchor, limits, part) -> (locator, text) pairs; `where` names the
# stream in errors, `anchor` prefixes each locator's line or row
Reader = Callable[[IO[bytes], dict, str, str, ReadLimits, Part], Iterator[tuple[str, str]]]
