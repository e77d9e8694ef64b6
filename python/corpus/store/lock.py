"""One writer at a time per artifacts root: `<artifacts>/.corpus.lock`.

Every command that writes under the artifacts root (each stage, `corpus run`, `corpus export`,
`corpus ledger add`) holds an exclusive `fcntl.flock` on this file for as long as it runs. The kernel
releases a flock when its process dies, however it dies (SIGKILL, OOM kill, power loss on a local
disk), so a lock can never be left held by a dead writer. The file's body is JSON naming the holder
(pid, host, command, since) — only so that a refused writer can say who holds it:

    error: /artifacts/.corpus.lock: held by pid 4242 on host-a (`corpus shard --force`) since
    2026-12-01T12:00:00Z; another writer is running on this artifacts root (wait for it, or stop it)

A second writer fails at once (LOCK_NB: it never waits). A body left by a holder that died (its flock is
gone) is a stale lock: it is taken over with a warning naming the dead holder. The file is never
deleted (deleting it would let a third writer lock a new inode while a second holds the old one); an
empty body means free. Read-only commands (audit, report, rejects, the loader) take no lock: they read
published outputs, which are only ever replaced by renames and manifest-last publication.

Within one process the lock is re-entrant (`corpus run` holds it across its stages, and each stage
takes it again), counted per root. Pool workers never inherit the descriptor (it is close-on-exec and
the pool is a forkserver).

An s3:// root is mounted on a node-local dir (root.py): the flock is taken there, and the store's lease
object `<s3 root>/.corpus.lock` (lease.py) is taken too, so writers on different nodes exclude each
other as well."""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import logging
import os
import platform
import sys
import time
from pathlib import Path
from typing import Iterator

from corpus import faults
from corpus.errors import CorpusError, LockedError
from corpus.store import lease as s3lease
from corpus.store.proc import alive

log = logging.getLogger(__name__)
LOCK_NAME = ".corpus.lock"

_held: dict[str, list] = {}   # resolved root → [fd, depth]


def lock_path(root: str | os.PathLike) -> Path:
    return Path(root) / LOCK_NAME


def command_line() -> str:
    args = sys.argv[1:]
    return "corpus " + " ".join(args) if args else "corpus"


def _describe(holder: dict) -> str:
    return (f"pid {holder.get('pid', '?')} on {holder.get('host', '?')} (`{holder.get('command', '?')}`) "
            f"since {holder.get('since', '?')}")


def _read_body(fd: int) -> dict | None:
    os.lseek(fd, 0, os.SEEK_SET)
    data = b""
    while chunk := os.read(fd, 65536):
        data += chunk
    if not data.strip():
        return None
    try:
        body = json.loads(data)
        return body if isinstance(body, dict) else {"command": repr(body)}
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {"command": "unreadable lock body"}


def acquire(root: str | os.PathLike, command: str | None = None) -> None:
    """Take the root's lock (re-entrant in this process); LockedError at once if another process holds it."""
    root = Path(root)
    key = str(root.resolve())
    if key in _held:
        _held[key][1] += 1
        return
    path = lock_path(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise CorpusError(f"{path}: cannot open the artifacts lock: {e.strerror}") from None
    try:
        faults.lock_barrier()  # test-only
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise CorpusError(f"{path}: cannot lock: {e.strerror}") from None
            holder = _read_body(fd)
            for _ in range(20):  # the holder may be between its flock and writing its body
                if holder:
                    break
                time.sleep(0.01)
                holder = _read_body(fd)
            raise LockedError(f"{path}: held by {_describe(holder or {})}; another writer is running on this "
                              f"artifacts root (wait for it to finish, or stop it)") from None
        old = _read_body(fd)
        if old is not None:
            same_host = old.get("host") == platform.node()
            why = ("which is no longer running" if same_host and isinstance(old.get("pid"), int)
                   and not alive(old["pid"]) else "which no longer holds it")
            log.warning("%s: taking over a stale lock of %s, %s", path, _describe(old), why)
        body = {"pid": os.getpid(), "host": platform.node(), "command": command or command_line(),
                "since": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        data = (json.dumps(body, sort_keys=True) + "\n").encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        raise
    _held[key] = [fd, 1, None]
    try:  # an s3 root: the store's lease too (lease.py); a local root: nothing
        _held[key][2] = s3lease.acquire(root, body)
    except BaseException:
        release(root)
        raise


def release(root: str | os.PathLike) -> None:
    key = str(Path(root).resolve())
    entry = _held.get(key)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] > 0:
        return
    del _held[key]
    fd, lease = entry[0], entry[2]
    if lease is not None:
        lease.release()
    try:
        os.ftruncate(fd, 0)   # empty body = free; the file itself stays (see the module docstring)
    except OSError:
        pass
    finally:
        os.close(fd)          # closing the last descriptor releases the flock


@contextlib.contextmanager
def writer_lock(root: str | os.PathLike, command: str | None = None) -> Iterator[None]:
    acquire(root, command)
    try:
        yield
    finally:
        release(root)


def holder(root: str | os.PathLike) -> dict | None:
    """The body of the root's lock file (who holds or last held it), for messages and tests."""
    path = lock_path(root)
    if not path.is_file():
        return None
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return _read_body(fd)
    finally:
        os.close(fd)


def check_writer(path: str | os.PathLike) -> None:
    """Before publishing under `path`: this process must still be its root's one writer. A local root's
    flock cannot be lost while the process lives; an s3 root's lease can (a renewal failed for longer than
    its lifetime), and then this raises instead of publishing over the new holder."""
    p = Path(path).resolve()
    for key, (_fd, _depth, lease) in list(_held.items()):
        if lease is not None and (p == Path(key) or Path(key) in p.parents):
            lease.check()


def lease(root: str | os.PathLike):
    """The s3 lease this process holds for `root` (None for a local root or when not held)."""
    entry = _held.get(str(Path(root).resolve()))
    return entry[2] if entry else None
