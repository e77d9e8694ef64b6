"""The pure checks of a file against the sha256 and size recorded for it, with the one-line errors every
reader raises: `<path>: missing (...)`, `<path>: size mismatch: ...`, `<path>: sha256 mismatch: expected X,
got Y`. No storage here: `checksums` brings a file to local disk first (`root.Store.localize`)."""

from __future__ import annotations

import os
from pathlib import Path

from corpus.errors import CorpusError
from corpus.store.atomic import sha256_file


def missing(path: Path, listed_in: str | None, what: str = "") -> CorpusError:
    return CorpusError(f"{what}{path}: missing" + (f" (listed in {listed_in})" if listed_in else ""))


def check_size(path: Path, size: int | None, actual: int, what: str = "") -> None:
    if size is not None and actual != size:
        raise CorpusError(f"{what}{path}: size mismatch: expected {size} bytes, got {actual}")


def check_sha(path: Path, sha256: str, actual: str, what: str = "") -> None:
    if actual != sha256:
        raise CorpusError(f"{what}{path}: sha256 mismatch: expected {sha256}, got {actual}")


def check_file(path: str | os.PathLike, sha256: str | None, size: int | None = None, *,
               listed_in: str | None = None, what: str = "") -> None:
    """A file on local disk: it exists, is a regular file, has `size` bytes and `sha256` (each if given)."""
    path = Path(path)
    try:
        actual_size = path.stat().st_size
    except FileNotFoundError:
        raise missing(path, listed_in) from None
    if not path.is_file():
        raise CorpusError(f"{what}{path}: not a regular file")
    check_size(path, size, actual_size, what)
    if sha256 is not None:
        check_sha(path, sha256, sha256_file(path), what)
