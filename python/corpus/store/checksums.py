"""The one way to check a file against the sha256 (and size) a manifest or the ledger recorded for it.

Every error is one line naming the file: `<path>: missing (...)`, `<path>: size mismatch: ...` or
`<path>: sha256 mismatch: expected X, got Y`. `read_verified` returns the bytes it hashed, so a
reader never reads a file twice; `VerifiedReader` hashes a file as it is streamed, for readers whose
memory must not hold a whole file.

Each file is brought to local disk first by the store it belongs to (`root.store_of(path).localize`): under
an s3:// artifacts root it is downloaded on demand by the process that reads it and then checked exactly
as a local one; a size-only check asks the store for the object's size and downloads nothing."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

from corpus.errors import CorpusError
from corpus.store.digest import check_sha, check_size, missing
from corpus.store.root import store_of


def verify_file(path: str | os.PathLike, sha256: str | None, size: int | None = None, *,
                listed_in: str | None = None, what: str = "") -> None:
    """Raise CorpusError unless `path` exists with `size` bytes (if given) and `sha256` (if given).
    `what` prefixes the message (e.g. "source 'x': ")."""
    store_of(path).verify_file(path, sha256, size, listed_in=listed_in, what=what)


def read_verified(path: str | os.PathLike, sha256: str, size: int | None = None, *,
                  listed_in: str | None = None) -> bytes:
    """The file's bytes after checking them: one read, no second pass."""
    path = Path(path)
    store_of(path).localize(path, size, listed_in=listed_in)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise missing(path, listed_in) from None
    check_size(path, size, len(data))
    check_sha(path, sha256, hashlib.sha256(data).hexdigest())
    return data


def verify_entry(directory: Path, entry: dict, *, sha: bool = True, listed_in: str | None = None) -> None:
    """A manifest part entry {name, sha256, bytes} against the file it names under `directory`."""
    verify_file(directory / entry["name"], entry["sha256"] if sha else None, entry.get("bytes"),
                listed_in=listed_in)


class VerifiedReader(io.RawIOBase):
    """A file read through (sequentially or not) that hashes its bytes as they are read: bytes read for the
    first time are hashed in file order (a forward jump hashes the bytes skipped, a backward one re-reads
    without hashing them again), so memory is what the caller reads. `finish()` hashes what was never read
    and raises the one-line `<path>: sha256 mismatch` (or size mismatch) error; call it after the last read
    and before trusting what was read, and on a decoding error (a damaged file is reported as a mismatch)."""

    def __init__(self, path: str | os.PathLike, sha256: str, size: int | None = None):
        self.path, self._sha256, self._want_size = Path(path), sha256, size
        store_of(self.path).localize(self.path, size)
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except (FileNotFoundError, IsADirectoryError):
            raise missing(self.path, None) from None
        self._size = os.fstat(self._fd).st_size
        self._h = hashlib.sha256()
        self._pos = self._hashed = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def _hash_to(self, stop: int) -> None:
        while self._hashed < stop:
            data = os.pread(self._fd, min(1 << 20, stop - self._hashed), self._hashed)
            if not data:
                break
            self._h.update(data)
            self._hashed += len(data)

    def readinto(self, b) -> int:
        if self._pos > self._hashed:
            self._hash_to(self._pos)
        data = os.pread(self._fd, len(b), self._pos)
        n = len(data)
        b[:n] = data
        if self._pos + n > self._hashed:
            self._h.update(memoryview(data)[self._hashed - self._pos:])
            self._hashed = self._pos + n
        self._pos += n
        return n

    def mismatch(self) -> CorpusError | None:
        """Hash the rest of the file; the error to raise if it is not the recorded file, else None."""
        self._hash_to(self._size)
        try:
            check_size(self.path, self._want_size, self._size)
            check_sha(self.path, self._sha256, self._h.hexdigest())
        except CorpusError as e:
            return e
        return None

    def finish(self) -> None:
        err = self.mismatch()
        if err is not None:
            raise err

    def close(self) -> None:
        if not self.closed and self._fd is not None:
            os.close(self._fd)
            self._fd = None
        super().close()
