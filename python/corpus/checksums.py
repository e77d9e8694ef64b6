"""The one way to check a file against the sha256 (and size) a manifest or the ledger recorded for it.

Every error is one line naming the file: `<path>: missing (...)`, `<path>: size mismatch: ...` or
`<path>: sha256 mismatch: expected X, got Y`. `read_verified` returns the bytes it hashed, so a
reader never reads a file twice."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .atomic import sha256_file
from .errors import CorpusError


def _missing(path: Path, listed_in: str | None) -> CorpusError:
    return CorpusError(f"{path}: missing" + (f" (listed in {listed_in})" if listed_in else ""))


def _check_size(path: Path, size: int | None, actual: int, what: str) -> None:
    if size is not None and actual != size:
        raise CorpusError(f"{what}{path}: size mismatch: expected {size} bytes, got {actual}")


def _check_sha(path: Path, sha256: str, actual: str, what: str) -> None:
    if actual != sha256:
        raise CorpusError(f"{what}{path}: sha256 mismatch: expected {sha256}, got {actual}")


def verify_file(path: str | os.PathLike, sha256: str | None, size: int | None = None, *,
                listed_in: str | None = None, what: str = "") -> None:
    """Raise CorpusError unless `path` exists with `size` bytes (if given) and `sha256` (if given).
    `what` prefixes the message (e.g. "source 'x': ")."""
    path = Path(path)
    try:
        actual_size = path.stat().st_size
    except FileNotFoundError:
        raise _missing(path, listed_in) from None
    if not path.is_file():
        raise CorpusError(f"{what}{path}: not a regular file")
    _check_size(path, size, actual_size, what)
    if sha256 is not None:
        _check_sha(path, sha256, sha256_file(path), what)


def read_verified(path: str | os.PathLike, sha256: str, size: int | None = None, *,
                  listed_in: str | None = None) -> bytes:
    """The file's bytes after checking them: one read, no second pass."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise _missing(path, listed_in) from None
    _check_size(path, size, len(data), "")
    _check_sha(path, sha256, hashlib.sha256(data).hexdigest(), "")
    return data


def verify_entry(directory: Path, entry: dict, *, sha: bool = True, listed_in: str | None = None) -> None:
    """A manifest part entry {name, sha256, bytes} against the file it names under `directory`."""
    verify_file(directory / entry["name"], entry["sha256"] if sha else None, entry.get("bytes"),
                listed_in=listed_in)
