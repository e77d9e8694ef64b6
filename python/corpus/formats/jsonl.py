"""Raw parts: zstd-compressed JSON Lines, written deterministically and read back with line-exact errors."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Iterator

import zstandard

from corpus.store.atomic import naming_enospc
from corpus.errors import CorpusError

ZSTD_LEVEL = 3  # single-threaded zstd at a fixed level: the same input gives the same bytes


class ZstJsonlWriter:
    """Writes parts `<prefix><nnnnn>.jsonl.zst` (default `part-<nnnnn>.jsonl.zst`) into `directory`: a part
    ends after `part_docs` lines or once it holds `part_bytes` of uncompressed JSON, so parts are work units
    of comparable cost. A part is written as it fills: memory is one line and the compressor's window."""

    def __init__(self, directory: Path, part_docs: int, part_bytes: int | None = None, prefix: str = "part-"):
        self.directory, self.part_docs, self.part_bytes, self.prefix = directory, part_docs, part_bytes, prefix
        self._bytes = 0
        self.parts: list[tuple[Path, int]] = []
        self._file = self._zw = None
        self._rows = 0

    def write(self, record: dict) -> None:
        if self._zw is None or self._rows >= self.part_docs or (self.part_bytes and self._bytes >= self.part_bytes):
            self._close_part()
            path = self.directory / f"{self.prefix}{len(self.parts):05d}.jsonl.zst"
            self.parts.append((path, 0))
            self._file = open(path, "wb")
            self._zw = zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(self._file, closefd=False)
            self._rows = self._bytes = 0
        line = json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
        with naming_enospc(self.parts[-1][0], f"{len(line):,} bytes of line {self._rows + 1}"):
            self._zw.write(line)
        self._bytes += len(line)
        self._rows += 1
        self.parts[-1] = (self.parts[-1][0], self._rows)

    def _close_part(self) -> None:
        if self._zw is not None:
            with naming_enospc(self.parts[-1][0], f"the end of a part of {self._rows} lines ({self._bytes:,} bytes of JSON before compression)"):
                self._zw.close()
                self._file.flush()
                os.fsync(self._file.fileno())
                self._file.close()
            self._zw = self._file = None

    def close(self) -> list[tuple[Path, int]]:
        self._close_part()
        return self.parts


def read_zst_jsonl(path: Path) -> Iterator[dict]:
    """Records of a .jsonl.zst part; a broken line or truncated frame is an error naming file and line."""
    from corpus.formats.sources.compression import open_decompressed

    n = 0
    try:
        with open(path, "rb") as raw:
            stream = io.TextIOWrapper(open_decompressed(raw, ".zst"), encoding="utf-8", errors="strict", newline="\n")
            for n, line in enumerate(stream, 1):
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise CorpusError(f"{path}:{n}: invalid JSON: {e.msg} (column {e.colno})") from None
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}:{n + 1}: invalid UTF-8: {e.reason}") from None
    except (EOFError, zstandard.ZstdError, OSError) as e:
        raise CorpusError(f"{path}:{n + 1}: truncated or corrupt zstd data: {e}") from None
