"""Atomic file writes, checksums and publish-by-rename: nothing half-written is ever visible."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

from corpus.errors import CorpusError

CHUNK = 1 << 20


class DiskFullError(CorpusError):
    """ENOSPC (or a quota, or a file size limit), as one line naming the file and the bytes it wanted."""

    def __init__(self, message: str, reason: str = "no space left on device"):
        super().__init__(message)
        self.reason = reason


# what a write that found no room says, by errno: a full disk, a quota, a file size limit (ulimit -f; Python
# ignores SIGXFSZ, so the write fails with EFBIG instead of the process being killed)
OUT_OF_SPACE = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
                errno.EFBIG: "file too large (the file system's or the process's file size limit, ulimit -f)"}


def is_enospc(e: BaseException) -> bool:
    return isinstance(e, OSError) and (e.errno in OUT_OF_SPACE or "No space left on device" in str(e))


def space_reason(e: BaseException) -> str:
    if isinstance(e, DiskFullError):
        return e.reason
    return OUT_OF_SPACE.get(getattr(e, "errno", None), OUT_OF_SPACE[errno.ENOSPC])


def free_bytes(path: str | os.PathLike) -> int | None:
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        st = os.statvfs(p)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def disk_full(path: str | os.PathLike, wanted: int | str | None = None,
              reason: str = OUT_OF_SPACE[errno.ENOSPC]) -> DiskFullError:
    """The one-line error for a full disk: `<path>: no space left on device writing N bytes (M free there)`
    (or `disk quota exceeded`, `file too large ...`: space_reason of the error)."""
    free = free_bytes(path)
    what = f" writing {wanted:,} bytes" if isinstance(wanted, int) else f" writing {wanted}" if wanted else ""
    return DiskFullError(f"{path}: {reason}{what}"
                         + (f" ({free:,} bytes free on its filesystem)" if free is not None else ""), reason)


@contextlib.contextmanager
def naming_enospc(path: str | os.PathLike, wanted: int | str | None = None) -> Iterator[None]:
    """Turn an ENOSPC raised inside the block into DiskFullError naming `path` and the bytes wanted."""
    try:
        yield
    except OSError as e:
        if is_enospc(e) and not isinstance(e, DiskFullError):
            raise disk_full(path, wanted, space_reason(e)) from None
        raise


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode `open()` would give a new file under the process umask (0644 under umask 022)."""
    return 0o666 & ~_umask()


def temp_beside(path: Path) -> tuple[int, str]:
    """A temp file in `path`'s folder with the mode a plain `open()` would give it: mkstemp makes
    files 0600, which a trainer running as another uid could not read once published."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, new_file_mode())
    return fd, tmp


def fsync_dir(path: str | os.PathLike) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "wb", *, durable: bool = True) -> Iterator[Any]:
    """Write to a temp file beside `path`, fsync, then rename over it; on error the temp goes away.
    `durable=False`: no fsync (a kill still leaves the old file or the new one, never a torn one; after a
    power loss the file may be empty): for a file whose reader checks it and can do without it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": "\n"})) as f:
            try:
                yield f
                written = f.tell()
                f.flush()
                if durable:
                    os.fsync(f.fileno())
            except OSError as e:
                if is_enospc(e) and not isinstance(e, DiskFullError):
                    with contextlib.suppress(OSError, ValueError):
                        written = max(written, f.tell())
                    raise disk_full(path, f"more than {written:,} bytes", space_reason(e)) from None
                raise
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    try:
        with atomic_open(path, "wb", durable=durable) as f:
            f.write(data)
    except DiskFullError as e:
        raise disk_full(path, len(data), e.reason) from None


def canonical_json(obj: Any) -> str:
    """The hashing form: sorted keys, no spaces, UTF-8 (how config_sha256 is computed; see the README)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dump_json(obj: Any) -> bytes:
    """The on-disk form of every manifest: stable key order, 2-space indent, trailing newline."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_json(path: str | os.PathLike, obj: Any, *, durable: bool = True) -> None:
    write_bytes(path, dump_json(obj), durable=durable)


def remove_tree(path: str | os.PathLike) -> None:
    shutil.rmtree(path, ignore_errors=False)


def publish_dir(staging: Path, final: Path, *, replace: bool, hook=None) -> None:
    """Move a finished staging directory to its final name in one rename.

    With `replace`, an existing `final` is first renamed aside (`<final>.old`) and deleted only after
    the new one is in place. A crash between the two renames leaves the old output aside and the new
    one in `staging`: the runner's recovery finishes the publication (or puts the old one back), so
    no output is ever lost. `hook(point)` is called at "old-aside" and "renamed" (fault tests)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if final.exists():
        if not replace:
            raise FileExistsError(final)
        old = final.with_name(final.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        os.replace(final, old)
        if hook:
            hook("old-aside")
    os.replace(staging, final)
    fsync_dir(final.parent)
    if hook:
        hook("renamed")
    if old is not None:
        shutil.rmtree(old)
