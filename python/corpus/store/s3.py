"""The transport to object storage: `s3://bucket/prefix` objects through `pyarrow.fs.S3FileSystem`. It
moves bytes and answers about objects (size, listing); it decides nothing. Which local path stands for
which object, and what "published" means on a store, is `root.MountedStore`'s.

The endpoint and credentials come from the standard AWS environment variables (AWS_ENDPOINT_URL,
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION): pyarrow 26 does not read
AWS_ENDPOINT_URL itself, so it is passed as `endpoint_override`."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
import urllib.parse
from pathlib import Path

from corpus.store.progress import Progress
from corpus.errors import CorpusError
from corpus.store.environment import seconds_from_env
from corpus.store.atomic import CHUNK, temp_beside

SCHEME = "s3"
_FS: dict[tuple, object] = {}
log = logging.getLogger(__name__)


def is_remote(root: str | os.PathLike | None) -> bool:
    return root is not None and str(root).startswith(f"{SCHEME}://")


def split_uri(uri: str) -> str:
    """`s3://bucket/prefix/` -> `bucket/prefix` (the path pyarrow.fs takes); refuses a URI with no bucket."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme != SCHEME or not parts.netloc:
        raise CorpusError(f"{uri}: not an s3://bucket/prefix URI")
    return "/".join(p for p in [parts.netloc, *parts.path.split("/")] if p)


def env_endpoint() -> dict:
    return {"endpoint": os.environ.get("AWS_ENDPOINT_URL", ""),
            "region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION", "")}


CONNECT_TIMEOUT_ENV = "CORPUS_S3_CONNECT_TIMEOUT_S"   # seconds to open a connection (default 10)
REQUEST_TIMEOUT_ENV = "CORPUS_S3_REQUEST_TIMEOUT_S"   # seconds a request may wait for the next bytes (default 30)
ATTEMPTS = 3                                          # tries of a request before its error is the user's
PROGRESS_ENV = "CORPUS_S3_PROGRESS_S"                 # seconds between progress lines of one transfer (default 10)


def timeouts() -> tuple[float, float]:
    """(connect, request) timeouts in seconds: an endpoint that accepts and never answers fails each request
    after them (ATTEMPTS times), instead of the SDKs' minutes."""
    return seconds_from_env(CONNECT_TIMEOUT_ENV, 10), seconds_from_env(REQUEST_TIMEOUT_ENV, 30)


def filesystem(endpoint: str = "", region: str = ""):
    """One S3FileSystem per (endpoint, region) per process; credentials from the AWS environment."""
    key = (endpoint, region)
    if key not in _FS:
        from pyarrow import fs

        kwargs: dict = {}
        if endpoint:
            parts = urllib.parse.urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
            kwargs.update(endpoint_override=parts.netloc, scheme=parts.scheme)
        if region:
            kwargs["region"] = region
        connect, request = timeouts()
        _FS[key] = fs.S3FileSystem(connect_timeout=connect, request_timeout=request,
                                   retry_strategy=fs.AwsStandardS3RetryStrategy(max_attempts=ATTEMPTS), **kwargs)
    return _FS[key]


class Remote:
    """The object behind one local path of a mounted root."""

    def __init__(self, local: Path, key: str, m: dict):
        self.local, self.key, self.mount = local, key, m

    @property
    def fs(self):
        return filesystem(self.mount["endpoint"], self.mount["region"])

    @property
    def uri(self) -> str:
        return f"{SCHEME}://{self.key}"

    def child(self, name: str) -> "Remote":
        return Remote(self.local / name, f"{self.key}/{name}", self.mount)


def named_error(what: str, e: BaseException) -> CorpusError:
    return CorpusError(f"{what}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")


def size_of(r: Remote) -> int | None:
    """The object's size, or None when there is none."""
    from pyarrow import fs

    try:
        info = r.fs.get_file_info(r.key)
    except OSError as e:
        raise named_error(r.uri, e) from None
    return info.size if info.type == fs.FileType.File else None


def read_bytes(r: Remote) -> bytes | None:
    """A small object's bytes (a manifest), or None when there is none."""
    if size_of(r) is None:
        return None
    try:
        with r.fs.open_input_stream(r.key, compression=None) as f:
            return f.read()
    except OSError as e:
        raise named_error(r.uri, e) from None


BAR_BYTES = 8 << 20   # an object larger than this gets a progress bar while it moves (store.progress)


class Watcher:
    """While a transfer runs, a line every CORPUS_S3_PROGRESS_S seconds from a watcher thread, so a long or
    stalled transfer is never silent: what moves, how many bytes so far, for how long. Quiet transfers
    that end before the first interval print nothing. Beside a progress bar (`bar`) it speaks only when
    no byte moved in an interval: the bar shows the rest, but it is drawn only as bytes arrive."""

    def __init__(self, verb: str, uri: str, total: int | None = None, bar=None):
        self.verb, self.uri, self.total, self.done, self.bar = verb, uri, total, 0, bar
        self._stop = threading.Event()
        self._every = float(os.environ.get(PROGRESS_ENV) or 10)

    def add(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def _watch(self) -> None:
        t0, seen = time.monotonic(), -1
        while not self._stop.wait(self._every):
            stalled, seen = self.done == seen, self.done
            if self.bar is not None and not stalled:
                continue
            of = f" of {self.total / 1e6:,.1f}" if self.total is not None else ""
            secs = time.monotonic() - t0
            log.warning("s3: still %s %s: %s%s MB after %.0f s (%.2f MB/s)", self.verb, self.uri,
                        f"{self.done / 1e6:,.1f}", of, secs, self.done / 1e6 / max(secs, 1e-9))

    def __enter__(self) -> "Watcher":
        self._thread = threading.Thread(target=self._watch, name="s3-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def watched(verb: str, uri: str, total: int | None):
    """A transfer's Watcher, with a progress bar (a redrawn bar on a terminal, a line every few seconds
    and one at the end otherwise, as every other bar) when the object is larger than BAR_BYTES."""
    with contextlib.ExitStack() as stack:
        bar = (stack.enter_context(Progress(total, f"s3: {verb} {uri}", "MB", scale=1e6))
               if total is not None and total > BAR_BYTES else None)
        yield stack.enter_context(Watcher(verb, uri, total, bar))


def download(r: Remote, dest: Path, size: int | None = None) -> tuple[str, int]:
    """Stream the object into `dest` (temp beside it, then rename); returns (sha256, bytes). `size`: the
    object's, when the caller asked already (else asked here: it decides the progress bar)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if size is None:
        size = size_of(r)
    fd, tmp = temp_beside(dest)
    h, n = hashlib.sha256(), 0
    try:
        with watched("downloading", r.uri, size) as progress, os.fdopen(fd, "wb") as out, \
                r.fs.open_input_stream(r.key, compression=None) as src:
            while chunk := src.read(CHUNK):
                h.update(chunk)
                n += len(chunk)
                progress.add(len(chunk))
                out.write(chunk)
        os.replace(tmp, dest)
    except OSError as e:
        raise named_error(f"{r.uri}: download failed", e) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return h.hexdigest(), n


def upload(src: Path, r: Remote) -> None:
    try:
        with open(src, "rb") as f, watched("uploading", r.uri, os.fstat(f.fileno()).st_size) as progress, \
                r.fs.open_output_stream(r.key, compression=None) as out:
            while chunk := f.read(CHUNK):
                out.write(chunk)
                progress.add(len(chunk))
    except OSError as e:
        raise named_error(f"{r.uri}: upload failed", e) from None


def delete(r: Remote) -> None:
    try:
        r.fs.delete_file(r.key)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise named_error(f"{r.uri}: delete failed", e) from None


def listing(r: Remote, *, recursive: bool = True) -> dict[str, int]:
    """{name relative to r: size} of the objects under r (directory markers aside)."""
    from pyarrow import fs

    try:
        infos = r.fs.get_file_info(fs.FileSelector(r.key, recursive=recursive, allow_not_found=True))
    except OSError as e:
        raise named_error(r.uri, e) from None
    return {i.path[len(r.key) + 1:]: i.size for i in infos if i.type == fs.FileType.File}
