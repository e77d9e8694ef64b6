"""Zip and tar archives: their wanted members in name order, each a bounded stream that cannot escape its folder."""

from __future__ import annotations

import fnmatch
import posixpath
import re
import tarfile
import zipfile
from typing import IO, Callable, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.compression import DECODE_ERRORS, Guarded, compression_of, open_guarded
from corpus.formats.sources.limits import ReadLimits

ARCHIVES = (".zip", ".tar", ".tgz")

# (member stream, where) -> documents: how the reader parses one member
ParseMember = Callable[[IO[bytes], str], Iterator[tuple[str, str]]]


def archive_of(name: str) -> str | None:
    name = name.lower()
    c = compression_of(name)
    base = name[: -len(c)] if c and not name.endswith(".tgz") else name
    if base.endswith(".zip"):
        return "zip"
    if base.endswith(".tar") or name.endswith(".tgz"):
        return "tar"
    return None


def safe_member_name(name: str, archive: str) -> str:
    """Refuse absolute paths and `..` components: a member must stay inside its folder."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) or ".." in norm.split("/"):
        raise CorpusError(f"{archive}: archive member '{name}' escapes its folder")
    return posixpath.normpath(norm)


def wanted_members(row: dict):
    globs = row.get("members", "*")
    globs = [globs] if isinstance(globs, str) else globs
    return lambda member: any(fnmatch.fnmatchcase(member, g) for g in globs)


def open_zip(path, url: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise CorpusError(f"{url}: not a readable zip archive: {e}") from None


def zip_files(zf: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's files (no directories) in path order: the order documents are read in."""
    return sorted((i for i in zf.infolist() if not i.is_dir()), key=lambda i: i.filename)


def read_zip(path, url: str, wanted, only: set[str] | None, limits: ReadLimits,
             parse: ParseMember) -> Iterator[tuple[str, str]]:
    """`parse` over each wanted file member (of those in `only`, when given), inflation bounded; a stored
    symbolic link is refused."""
    with open_zip(path, url) as zf:
        for info in zip_files(zf):
            member = safe_member_name(info.filename, url)
            if not wanted(member) or (only is not None and member not in only):
                continue
            where = f"{url}#{member}"
            if (info.external_attr >> 16) & 0o170000 == 0o120000:  # a symlink stored in the zip
                raise CorpusError(f"{where}: archive member is a symbolic link; links are never followed "
                                  f"(leave it out with `members`)")
            try:
                f = zf.open(info)
            except (*DECODE_ERRORS, NotImplementedError, RuntimeError) as e:
                raise CorpusError(f"{where}: corrupt zip member: {e}") from None
            with f:
                stored = info.compress_type == zipfile.ZIP_STORED
                # zipfile inflates deflate with a bound, but bzip2/LZMA members wholly per read
                step = None if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) else 4096
                stream = Guarded(f, where, "corrupt zip member", limits=limits, step=step,
                                 compressed=None if stored else info.compress_size)
                yield from parse(stream, where)


def read_tar(path, url: str, compression: str | None, wanted, only: set[str] | None, limits: ReadLimits,
             parse: ParseMember) -> Iterator[tuple[str, str]]:
    """`parse` over each wanted regular member (of those in `only`, when given) of a tar, compressed or not;
    a wanted symbolic or hard link is refused."""
    with open(path, "rb") as raw:
        if compression:
            stream = open_guarded(raw, compression, url, limits)
        else:
            stream = raw
        try:
            tf = tarfile.open(fileobj=stream, mode="r:")
            infos = sorted(tf.getmembers(), key=lambda i: i.name)
        except tarfile.TarError as e:
            raise CorpusError(f"{url}: truncated or corrupt tar archive: {e}") from None
        for info in infos:
            member = safe_member_name(info.name, url)
            if (info.issym() or info.islnk()) and wanted(member) and (only is None or member in only):
                kind = "symbolic" if info.issym() else "hard"
                raise CorpusError(f"{url}#{member}: archive member is a {kind} link (to '{info.linkname}'); "
                                  f"links are never followed (leave it out with `members`)")
            if not info.isfile() or not wanted(member) or (only is not None and member not in only):
                continue
            where = f"{url}#{member}"
            try:
                f = tf.extractfile(info)
            except tarfile.TarError as e:
                raise CorpusError(f"{where}: truncated or corrupt tar archive: {e}") from None
            yield from parse(Guarded(f, where, "truncated or corrupt tar archive", limits=limits), where)
