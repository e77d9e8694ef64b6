"""Find a ledger source's bytes: the mirror, the download cache, a local path, or an HTTP(S) or S3 download.

Every path handed back has been checked against the ledger's size and sha256. Only the URL schemes
of the ledger schema are accepted; redirects may not leave http(s). An `s3://bucket/key` URL is read
through pyarrow.fs with the endpoint and credentials of the AWS environment variables (store/s3.py)."""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import shutil
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from corpus import __version__
from corpus.store import s3
from corpus.store.atomic import CHUNK, temp_beside
from corpus.store.checksums import verify_file
from corpus.errors import CorpusError, DownloadFailed

log = logging.getLogger(__name__)
SCHEMES = ("https", "http", "file", "s3")
# bytes/s a download must average after its first timeout_s seconds ([fetch] min_download_bytes_per_s, which
# has no schema default so that an unset one changes no config hash): a 1 GB file has 17 hours
DEFAULT_MIN_RATE = 16384


def min_rate_of(fetch: dict) -> float:
    """The [fetch] table's minimum download rate (0: no deadline)."""
    return fetch.get("min_download_bytes_per_s", DEFAULT_MIN_RATE)


def url_kind(url: str) -> str:
    """'https', 'http', 'file', 's3' or 'path'; anything else is refused."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme == "":
        return "path"
    if scheme in SCHEMES:
        return scheme
    raise CorpusError(f"{url}: unsupported URL scheme '{scheme}' (allowed: https, http, file, s3, or a path)")


def local_path(url: str) -> Path:
    kind = url_kind(url)
    if kind == "path":
        return Path(url)
    if kind == "file":
        parts = urllib.parse.urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise CorpusError(f"{url}: file:// URLs must name a local path")
        return Path(urllib.parse.unquote(parts.path))
    raise ValueError(url)


def url_path(url: str) -> str:
    """The path part of a URL (or the path itself): what its extensions are read from."""
    kind = url_kind(url)
    return str(local_path(url)) if kind in ("path", "file") else urllib.parse.urlsplit(url).path


def verify(path: Path, sha256: str, size: int, *, what: str) -> None:
    """A source file against its ledger row (`what` names the source in the error)."""
    verify_file(path, sha256, size, what=f"{what}: ")


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urllib.parse.urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise CorpusError(f"{req.full_url}: redirect to a refused URL scheme: {newurl}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENERS: dict[tuple, urllib.request.OpenerDirector] = {}


def _opener() -> urllib.request.OpenerDirector:
    """urllib's opener with _HttpOnlyRedirects, built once per proxy setting (building one costs ~1 ms,
    as much as a small crawl file's download over loopback)."""
    key = tuple(sorted(urllib.request.getproxies().items()))
    if key not in _OPENERS:
        _OPENERS[key] = urllib.request.build_opener(_HttpOnlyRedirects)
    return _OPENERS[key]


def _too_large(url: str, limit: int, got: str) -> CorpusError:
    return CorpusError(f"{url}: download refused: {got}, more than the {limit} bytes the ledger declares "
                       f"(nothing kept; check the URL or the ledger row's bytes)")


def _check_pace(url: str, n: int, started: float, grace: float, min_rate: float) -> None:
    """A download must average `min_rate` bytes/s after its first `grace` seconds, so a file of B bytes has
    grace + B / min_rate seconds: the socket timeout only bounds the wait for the next byte, which a
    server that trickles always sends in time."""
    elapsed = time.monotonic() - started
    if min_rate and elapsed > grace and n < min_rate * (elapsed - grace):
        raise CorpusError(f"{url}: download too slow: {n:,} bytes in {elapsed:.1f} s, under the {min_rate:,} bytes/s "
                          f"a download must average after its first {grace:g} s ([fetch] min_download_bytes_per_s "
                          f"and timeout_s); nothing kept")


def download(url: str, dest_dir: Path, *, timeout: float, max_bytes: int | None = None,
             min_rate: float = DEFAULT_MIN_RATE, durable: bool = True) -> tuple[Path, str, int]:
    """Stream `url` into dest_dir/<sha256> (atomically); returns (path, sha256, bytes). `max_bytes` (the
    ledger's size, for fetch): a response that says it is larger is refused before a byte is written, and
    one that streams past it is cut there, so a server can never fill the disk; nothing is kept of either.
    A download slower than `min_rate` (_check_pace) is stopped, nothing kept. `durable=False`: not
    fsynced (a crawl's member file, deleted once read, and checked against its sha256 before any reuse)."""
    kind = url_kind(url)
    if kind == "s3":
        return _download_s3(url, dest_dir, max_bytes)
    if kind not in ("http", "https"):
        raise ValueError(url)
    dest_dir.mkdir(parents=True, exist_ok=True)
    opener = _opener()
    req = urllib.request.Request(url, headers={"User-Agent": f"corpus/{__version__}"})
    fd, tmp = temp_beside(dest_dir / "download")
    h, n, started = hashlib.sha256(), 0, time.monotonic()
    try:
        with os.fdopen(fd, "wb") as out, opener.open(req, timeout=timeout) as resp:
            declared = resp.headers.get("Content-Length")
            if max_bytes is not None and declared and declared.isdigit() and int(declared) > max_bytes:
                raise _too_large(url, max_bytes, f"the server announces {int(declared)} bytes")
            # one byte past the limit is enough to know the file is not the ledger's; read1: what one
            # receive gives, so the pace is checked as bytes come, not once a chunk is full
            while chunk := resp.read1(CHUNK if max_bytes is None else min(CHUNK, max_bytes + 1 - n)):
                h.update(chunk)
                n += len(chunk)
                out.write(chunk)
                if max_bytes is not None and n > max_bytes:
                    raise _too_large(url, max_bytes, "the server sent more")
                _check_pace(url, n, started, timeout, min_rate)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        digest = h.hexdigest()
        final = dest_dir / digest
        os.replace(tmp, final)
        return final, digest, n
    except http.client.IncompleteRead as e:  # the server closed before the length it announced
        raise DownloadFailed(f"{url}: download failed: cut short after {n:,} bytes "
                             f"({e.expected:,} more announced)", "truncated") from None
    except (urllib.error.URLError, OSError, TimeoutError, http.client.HTTPException) as e:
        reason = getattr(e, "reason", e)
        missing = isinstance(e, urllib.error.HTTPError) and e.code in (404, 410)
        raise DownloadFailed(f"{url}: download failed: {reason}", "missing" if missing else "failed") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _download_s3(url: str, dest_dir: Path, max_bytes: int | None) -> tuple[Path, str, int]:
    parts = urllib.parse.urlsplit(url)
    if not parts.netloc or not parts.path.strip("/"):
        raise CorpusError(f"{url}: an s3 URL names a bucket and a key (s3://bucket/key)")
    obj = s3.Remote(dest_dir, f"{parts.netloc}/{parts.path.lstrip('/')}", s3.env_endpoint())
    size = s3.size_of(obj)
    if size is None:
        raise DownloadFailed(f"{url}: download failed: no such object", "missing")
    if max_bytes is not None and size > max_bytes:
        raise _too_large(url, max_bytes, f"the object has {size} bytes")
    dest_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(dest_dir / "download")  # a name in the cache dir; the object streams into it
    os.close(fd)
    try:
        digest, n = s3.download(obj, Path(tmp), size)  # errors name the URL: "<url>: download failed: ..."
        final = dest_dir / digest
        os.replace(tmp, final)
        return final, digest, n
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def locate(row: dict, *, mirror: Path | None, downloads: Path, timeout: float,
           min_rate: float = DEFAULT_MIN_RATE) -> tuple[Path, str]:
    """A verified local copy of the row's file, and how it was found (mirror/cache/local/downloaded)."""
    sha, size, url = row["sha256"], row["bytes"], row["url"]
    what = f"source '{row['source_id']}' ({url})"
    kind = url_kind(url)
    if mirror is not None and (mirror / sha).is_file():
        verify(mirror / sha, sha, size, what=what)
        return mirror / sha, "mirror"
    cached = downloads / sha
    if cached.is_file():
        try:
            verify(cached, sha, size, what=what)
            return cached, "cache"
        except CorpusError as e:  # a damaged cache entry is replaced, never used
            log.warning("%s; downloading again", e)
            cached.unlink()
    if kind in ("path", "file"):
        path = local_path(url)
        if not path.is_file():
            raise CorpusError(f"{what}: file not found: {path}")
        verify(path, sha, size, what=what)
        return path, "local"
    try:
        path, digest, n = download(url, downloads, timeout=timeout, max_bytes=size, min_rate=min_rate)
    except CorpusError as e:
        if mirror is None and "download failed" in str(e):  # offline? a mirror of sha256-named files serves
            raise CorpusError(f"{e} (no mirror set: CORPUS_MIRROR=<dir of sha256-named files> finds sources "
                              f"without the network)") from None
        if mirror is not None and not mirror.is_dir() and "download failed" in str(e):  # a mistyped mirror
            raise CorpusError(f"{e} (the mirror {mirror} is not a directory: CORPUS_MIRROR or [paths] mirror; "
                              f"a relative path is read from the working directory)") from None
        raise
    if n != size or digest != sha:
        bad = path.with_name(path.name + ".rejected")
        shutil.move(path, bad)
        raise CorpusError(f"{what}: downloaded file does not match the ledger: expected sha256 {sha} "
                          f"({size} bytes), got {digest} ({n} bytes); kept as {bad}")
    return path, "downloaded"


def read_range(url: str, offset: int, length: int, *, timeout: float) -> bytes:
    """Bytes [offset, offset + length) of a file: an HTTP(S) `Range` request, a local seek, or an s3 ranged
    read. A server that ignores Range (200) is read up to the range, never kept whole. DownloadFailed
    ("missing", "truncated" or "failed") when they cannot be had."""
    kind = url_kind(url)
    if kind in ("path", "file"):
        try:
            with open(local_path(url), "rb") as f:
                f.seek(offset)
                data = f.read(length)
        except FileNotFoundError:
            raise DownloadFailed(f"{url}: file not found", "missing") from None
        except OSError as e:
            raise DownloadFailed(f"{url}: {e.strerror or e}", "failed") from None
    elif kind == "s3":
        parts = urllib.parse.urlsplit(url)
        endpoint = s3.env_endpoint()
        try:
            with s3.filesystem(endpoint["endpoint"], endpoint["region"]).open_input_file(
                    f"{parts.netloc}/{parts.path.lstrip('/')}") as f:
                data = f.read_at(length, offset)
        except FileNotFoundError:
            raise DownloadFailed(f"{url}: download failed: no such object", "missing") from None
        except OSError as e:
            raise DownloadFailed(f"{url}: download failed: {e}", "failed") from None
    else:
        data = _http_range(url, offset, length, timeout)
    if len(data) != length:
        raise DownloadFailed(f"{url}: bytes {offset}-{offset + length - 1}: the file ends after {len(data)} of "
                             f"them", "truncated")
    return data


def _http_range(url: str, offset: int, length: int, timeout: float) -> bytes:
    """One Range request: over this thread's kept-alive connection to the host (_kept_range), or through
    urllib when a proxy is set for the URL, or when the server answers with a redirect."""
    parts = urllib.parse.urlsplit(url)
    if not urllib.request.getproxies() or not _proxied(parts):
        data = _kept_range(parts, url, offset, length, timeout)
        if data is not None:
            return data
    return _urllib_range(url, offset, length, timeout)


def _proxied(parts: urllib.parse.SplitResult) -> bool:
    return parts.scheme.lower() in urllib.request.getproxies() and not urllib.request.proxy_bypass(parts.hostname or "")


_KEPT = threading.local()  # .conns: {(scheme, host, port): http.client.HTTPConnection}, one thread's


def _connection(parts: urllib.parse.SplitResult, timeout: float) -> tuple[http.client.HTTPConnection, bool]:
    """This thread's connection to the URL's host (made on first use), and whether it served a request before."""
    conns = _KEPT.__dict__.setdefault("conns", {})
    https = parts.scheme.lower() == "https"
    key = (parts.scheme.lower(), parts.hostname, parts.port or (443 if https else 80))
    conn = conns.get(key)
    if conn is not None and conn.sock is not None:
        conn.timeout = timeout
        conn.sock.settimeout(timeout)
        return conn, True
    if conn is None:
        cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
        conn = conns[key] = cls(parts.hostname, key[2], timeout=timeout)
    conn.timeout = timeout
    return conn, False


def close_connections() -> None:
    """Close this thread's kept-alive connections (tests; a worker's close at exit)."""
    for conn in _KEPT.__dict__.pop("conns", {}).values():
        conn.close()


def _kept_range(parts: urllib.parse.SplitResult, url: str, offset: int, length: int, timeout: float) -> bytes | None:
    """Bytes [offset, offset + length) over a kept-alive HTTP/1.1 connection (one per host and thread,
    so a unit of a warc-records table does not open a connection per record); None on a redirect (urllib
    follows it). A connection the server closed while idle is opened again once."""
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"User-Agent": f"corpus/{__version__}", "Range": f"bytes={offset}-{offset + length - 1}"}
    for attempt in (0, 1):
        conn, reused = _connection(parts, timeout)
        try:
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
            conn.close()
            if reused and attempt == 0:  # the server dropped the idle connection: a new one
                continue
            raise DownloadFailed(f"{url}: download failed: {e}", "failed") from None
        except (OSError, TimeoutError, http.client.HTTPException) as e:
            conn.close()
            raise DownloadFailed(f"{url}: download failed: {e}", "failed") from None
        try:
            if resp.status in (301, 302, 303, 307, 308):
                resp.read()
                return None
            if resp.status >= 400:
                resp.read()
                raise DownloadFailed(f"{url}: download failed: {resp.reason}",  # urllib's HTTPError.reason
                                     "missing" if resp.status in (404, 410) else "failed")
            if resp.status != 206:  # the whole file: skip to the range, streaming
                left = offset
                while left and (skipped := len(resp.read(min(CHUNK, left)))):
                    left -= skipped
            data = resp.read(length)
            if not resp.isclosed():  # more than the range came (a 200, a longer 206): not reusable
                conn.close()
            return data
        except http.client.IncompleteRead as e:
            conn.close()
            raise DownloadFailed(f"{url}: download failed: cut short ({e.expected:,} more bytes announced)",
                                 "truncated") from None
        except (OSError, TimeoutError, http.client.HTTPException) as e:
            conn.close()
            raise DownloadFailed(f"{url}: download failed: {e}", "failed") from None
    raise AssertionError("unreachable")


def _urllib_range(url: str, offset: int, length: int, timeout: float) -> bytes:
    opener = _opener()
    req = urllib.request.Request(url, headers={"User-Agent": f"corpus/{__version__}",
                                               "Range": f"bytes={offset}-{offset + length - 1}"})
    try:
        with opener.open(req, timeout=timeout) as resp:
            if resp.status != 206:  # the whole file: skip to the range, streaming
                left = offset
                while left and (skipped := len(resp.read(min(CHUNK, left)))):
                    left -= skipped
            return resp.read(length)
    except http.client.IncompleteRead as e:
        raise DownloadFailed(f"{url}: download failed: cut short ({e.expected:,} more bytes announced)",
                             "truncated") from None
    except (urllib.error.URLError, OSError, TimeoutError, http.client.HTTPException) as e:
        missing = isinstance(e, urllib.error.HTTPError) and e.code in (404, 410)
        raise DownloadFailed(f"{url}: download failed: {getattr(e, 'reason', e)}",
                             "missing" if missing else "failed") from None
