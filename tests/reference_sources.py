"""A frozen copy of python/corpus/sources.py as it was before streaming reads (main bb4f3f2): the reference
the streaming reader must equal byte for byte. Test-only; never imported by the package.

Original docstring: read a source file into documents: decompress, open archive members, parse the format, split text.

`read_documents(path, row)` yields (locator, text) in a fixed order: archive members sorted by name,
then documents in file order. A locator is the URL plus `#<line>` (1-based line where the document
starts), `#<member>:<line>` inside archives, `#row<k>` for parquet and json arrays. Every failure is a
CorpusError naming the file and place. No member is ever written to disk, and member paths that would
escape their folder are refused all the same."""

from __future__ import annotations

import bz2
import codecs
import fnmatch
import gzip
import io
import json
import lzma
import posixpath
import re
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import IO, Iterable, Iterator

import zstandard

from corpus.errors import CorpusError
from corpus.store.retrieve import url_path

COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")
ARCHIVES = (".zip", ".tar", ".tgz")


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


class _ZstdReader(io.RawIOBase):
    """A zstd decompressing reader that notices a truncated last frame (zstandard's own reader does not)."""

    def __init__(self, raw: IO[bytes]):
        self._raw, self._d, self._buf, self._started = raw, zstandard.ZstdDecompressor(), b"", False
        self._obj = self._d.decompressobj()

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._buf:
            chunk = self._raw.read(1 << 20)
            if not chunk:
                if self._started and not self._obj.eof:
                    raise EOFError("zstd stream ends inside a frame (truncated)")
                return 0
            while chunk:
                if self._obj.eof:  # a new frame begins
                    self._obj = self._d.decompressobj()
                self._started = True
                self._buf += self._obj.decompress(chunk)
                chunk = self._obj.unused_data if self._obj.eof else b""
        n = min(len(b), len(self._buf))
        b[:n], self._buf = self._buf[:n], self._buf[n:]
        return n


def open_decompressed(raw: IO[bytes], compression: str | None) -> IO[bytes]:
    if compression is None:
        return raw
    if compression == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == ".bz2":
        return bz2.BZ2File(raw, "rb")
    if compression == ".xz":
        return lzma.LZMAFile(raw, "rb")
    return io.BufferedReader(_ZstdReader(raw), 1 << 20)


DECODE_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError, zipfile.BadZipFile,
                 tarfile.TarError)


def safe_member_name(name: str, archive: str) -> str:
    """Refuse absolute paths and `..` components: a member must stay inside its folder."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) or ".." in norm.split("/"):
        raise CorpusError(f"{archive}: archive member '{name}' escapes its folder")
    return posixpath.normpath(norm)


# ---------------------------------------------------------------- record-level splitting

def _lines_with_numbers(data: bytes, encoding: str, where: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, decoded line with its terminator). Decoding is strict and names the line."""
    if codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as e:
            raise CorpusError(f"{where}: invalid {encoding} at byte {e.start}: {e.reason}") from None
        yield from enumerate(text.splitlines(keepends=True), 1)
        return
    for n, line in enumerate(data.splitlines(keepends=True), 1):
        try:
            yield n, line.decode(encoding)
        except UnicodeDecodeError as e:
            raise CorpusError(f"{where}:{n}: invalid {encoding} at column {e.start + 1}: {e.reason}") from None


def _trim(text: str) -> tuple[str, int]:
    """Drop leading/trailing line breaks; return the text and how many leading characters went."""
    stripped = text.lstrip("\r\n")
    return stripped.rstrip("\r\n"), len(text) - len(stripped)


def split_text(lines: Iterable[tuple[int, str]], split: str, *, delimiter: str | None = None,
               pattern: str | None = None) -> Iterator[tuple[int, str]]:
    """Cut numbered lines into (start line, document) pairs. Line breaks around a document are dropped."""
    if split == "line":
        for n, line in lines:
            yield n, line.rstrip("\r\n")
        return
    if split == "paragraph":
        start, buf = 0, []
        for n, line in lines:
            if line.strip():
                if not buf:
                    start = n
                buf.append(line)
            elif buf:
                yield start, "".join(buf).rstrip("\r\n")
                buf = []
        if buf:
            yield start, "".join(buf).rstrip("\r\n")
        return
    text = "".join(line for _, line in lines)
    if split == "file":
        cuts = [(0, len(text))]
    elif split in ("delimiter", "regex"):
        rx = re.compile(re.escape(delimiter) if split == "delimiter" else pattern)
        cuts, pos = [], 0
        for m in rx.finditer(text):
            if m.end() == m.start() == pos:  # zero-width match where the last piece ended: nothing to cut
                continue
            cuts.append((pos, m.start()))
            pos = m.end()
        cuts.append((pos, len(text)))
    else:
        raise ValueError(f"unknown split {split!r}")
    line, counted = 1, 0
    for a, b in cuts:
        piece, lead = _trim(text[a:b])
        line += text.count("\n", counted, a + lead)
        counted = a + lead
        yield line, piece


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

def _parse(data: bytes, row: dict, where: str, anchor: str) -> Iterator[tuple[str, str]]:
    """Documents of one file's decompressed bytes. `anchor` prefixes the locator's line/row."""
    fmt, enc = row["format"], row.get("encoding", "utf-8")
    fields = row.get("text_fields", ["text"])
    if fmt == "text":
        docs = split_text(_lines_with_numbers(data, enc, where), row.get("split", "file"),
                          delimiter=row.get("delimiter"), pattern=row.get("pattern"))
        for n, text in docs:
            yield f"{anchor}{n}", text
    elif fmt == "jsonl":
        for n, line in _lines_with_numbers(data, enc, where):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorpusError(f"{where}:{n}: invalid JSON: {e.msg} (column {e.colno})") from None
            yield f"{anchor}{n}", join_fields(obj, fields, f"{where}:{n}")
    elif fmt == "json":
        try:
            arr = json.loads(data.decode(enc))
        except UnicodeDecodeError as e:
            raise CorpusError(f"{where}: invalid {enc} at byte {e.start}: {e.reason}") from None
        except json.JSONDecodeError as e:
            raise CorpusError(f"{where}:{e.lineno}: invalid JSON: {e.msg} (column {e.colno})") from None
        if not isinstance(arr, list):
            raise CorpusError(f"{where}: format json expects an array of objects, got {type(arr).__name__}")
        for k, obj in enumerate(arr):
            yield f"{anchor}row{k}", join_fields(obj, fields, f"{where}: row {k}")
    elif fmt == "parquet":
        yield from _parquet(data, fields, where, anchor)
    else:
        raise CorpusError(f"{where}: unknown format '{fmt}'")


def _parquet(data: bytes, fields: list[str], where: str, anchor: str) -> Iterator[tuple[str, str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        names = [f[:-2] if f.endswith("[]") else f for f in fields]
        missing = [n for n in names if n not in pf.schema_arrow.names]
        if missing:
            raise CorpusError(f"{where}: missing column '{missing[0]}'")
        k = 0
        for batch in pf.iter_batches(batch_size=4096, columns=sorted(set(names))):
            for obj in batch.to_pylist():
                yield f"{anchor}row{k}", join_fields(obj, fields, f"{where}: row {k}")
                k += 1
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(f"{where}: unreadable parquet: {e}") from None


def _read_all(stream: IO[bytes], where: str, compression: str | None) -> bytes:
    try:
        return stream.read()
    except DECODE_ERRORS as e:
        raise CorpusError(f"{where}: truncated or corrupt {compression or 'archive'} data: {e}") from None


def read_documents(path: Path, row: dict) -> Iterator[tuple[str, str]]:
    """Every document (locator, text) of the ledger row's file at `path` (already verified)."""
    url = row["url"]
    name = url_path(url)
    compression, archive = compression_of(name), archive_of(name)
    globs = row.get("members", "*")
    globs = [globs] if isinstance(globs, str) else globs

    def wanted(member: str) -> bool:
        return any(fnmatch.fnmatchcase(member, g) for g in globs)

    if archive == "zip":
        try:
            zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as e:
            raise CorpusError(f"{url}: not a readable zip archive: {e}") from None
        with zf:
            infos = sorted((i for i in zf.infolist() if not i.is_dir()), key=lambda i: i.filename)
            for info in infos:
                member = safe_member_name(info.filename, url)
                if not wanted(member):
                    continue
                where = f"{url}#{member}"
                try:
                    data = zf.read(info)
                except DECODE_ERRORS as e:
                    raise CorpusError(f"{where}: corrupt zip member: {e}") from None
                yield from _parse(data, row, where, f"{url}#{member}:")
    elif archive == "tar":
        with open(path, "rb") as raw:
            data = _read_all(open_decompressed(raw, compression), url, compression)
        try:
            tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
            infos = sorted(tf.getmembers(), key=lambda i: i.name)
        except tarfile.TarError as e:
            raise CorpusError(f"{url}: truncated or corrupt tar archive: {e}") from None
        for info in infos:
            member = safe_member_name(info.name, url)
            if not info.isfile() or not wanted(member):
                continue
            f = tf.extractfile(info)
            yield from _parse(f.read(), row, f"{url}#{member}", f"{url}#{member}:")
    else:
        with open(path, "rb") as raw:
            data = _read_all(open_decompressed(raw, compression), url, compression)
        yield from _parse(data, row, url, f"{url}#")
