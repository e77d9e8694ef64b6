"""One writer per s3:// artifacts root: a lease object `<root>/.corpus.lock`, beside the local flock.

A flock guards only the node-local dir; two nodes writing one s3 root need the store itself to say who
writes. S3 (since 2024) and moto accept conditional writes: the lease is created with `If-None-Match: *`
(exactly one of two racing writers gets it), its JSON body names the holder (pid, host, command, local
dir, since) and an expiry, and the holder renews it every third of its lifetime with `If-Match` on the
ETag it holds. A writer that finds a lease takes it over only when it is stale — expired, or held by a
process of this host that no longer runs (a SIGKILLed run, resumed at once) — again with `If-Match` on
the stale ETag, so of two contenders exactly one wins. Before every publication the holder checks that
the lease is still its own (`check`): a writer that lost it (a renewal failed for longer than the
lifetime) stops with an error instead of publishing over the new holder. pyarrow.fs has no conditional
writes, so the lease goes through boto3 (the `s3` extra)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import platform
import threading

from corpus.errors import CorpusError, LockedError
from corpus.store import s3
from corpus.store.root import MountedStore, store_of
from corpus.store.proc import alive

log = logging.getLogger(__name__)
LEASE_NAME = ".corpus.lock"
TTL_ENV = "CORPUS_S3_LEASE_SECONDS"     # the lease's lifetime (default 300 s); renewed every third of it
DEFAULT_TTL = 300.0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _stamp(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _code(e: BaseException) -> str:
    return str(getattr(e, "response", {}).get("Error", {}).get("Code", ""))


class Lease:
    def __init__(self, root: s3.Remote, body: dict):
        try:
            import boto3
            from botocore.config import Config as BotoConfig
        except ImportError:
            raise CorpusError("an s3:// artifacts root needs boto3 for its writer lease: "
                              "pip install -e '.[s3]'") from None
        self.obj = root.child(LEASE_NAME)
        self.bucket, self.key = self.obj.key.split("/", 1)
        self.ttl = float(os.environ.get(TTL_ENV) or DEFAULT_TTL)
        self.body = body
        logging.getLogger("botocore").setLevel(max(logging.WARNING, logging.getLogger("botocore").level))
        connect, request = s3.timeouts()
        self.client = boto3.client("s3", endpoint_url=root.mount["endpoint"] or None,
                                   region_name=root.mount["region"] or None,
                                   config=BotoConfig(retries={"max_attempts": s3.ATTEMPTS, "mode": "standard"},
                                                     connect_timeout=connect, read_timeout=request))
        self.etag: str | None = None
        self.lost: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _put(self, **cond) -> str:
        body = {**self.body, "expires": _stamp(_now() + dt.timedelta(seconds=self.ttl))}
        r = self.client.put_object(Bucket=self.bucket, Key=self.key, Body=(json.dumps(body, sort_keys=True) + "\n").encode(),
                                   ContentType="application/json", **cond)
        return r["ETag"]

    def _current(self) -> tuple[dict, str] | None:
        try:
            r = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except Exception as e:
            if _code(e) in ("NoSuchKey", "404"):
                return None
            raise
        try:
            body = json.loads(r["Body"].read())
        except ValueError:
            body = {"command": "unreadable lease body"}
        return (body if isinstance(body, dict) else {}), r["ETag"]

    def acquire(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        connect, request = s3.timeouts()
        log.info("%s: taking the writer lease (endpoint %s; each request waits at most %g s to connect and %g s "
                 "for an answer, %d tries)", self.obj.uri, self.client.meta.endpoint_url, connect, request, s3.ATTEMPTS)
        try:
            for _ in range(3):
                try:
                    self.etag = self._put(IfNoneMatch="*")
                    break
                except ClientError as e:
                    if _code(e) not in ("PreconditionFailed", "ConditionalRequestConflict", "412", "409"):
                        raise
                cur = self._current()
                if cur is None:  # released between the two requests: try again
                    continue
                holder, etag = cur
                why = stale(holder)
                if why is None:
                    raise storage_locked(self.obj.uri, holder)
                try:
                    self.etag = self._put(IfMatch=etag)
                except ClientError as e:
                    if _code(e) in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "412", "409", "404"):
                        continue  # another writer took it first, or it was released: look again
                    raise
                log.warning("%s: taking over a stale writer lease of %s, %s", self.obj.uri, describe(holder), why)
                break
            else:
                raise storage_locked(self.obj.uri, (self._current() or ({}, ""))[0])
        except (ClientError, BotoCoreError) as e:
            raise CorpusError(f"{self.obj.uri}: cannot take the writer lease: {e}") from None
        self._thread = threading.Thread(target=self._renew, daemon=True, name="s3-lease")
        self._thread.start()

    def _renew(self) -> None:
        last_ok = _now()
        while not self._stop.wait(self.ttl / 3):
            try:
                self.etag = self._put(IfMatch=self.etag)
                last_ok = _now()
            except Exception as e:  # a conflict means another writer holds it now; a network error may pass
                if _code(e) in ("PreconditionFailed", "NoSuchKey", "412", "404") \
                        or (_now() - last_ok).total_seconds() > self.ttl:
                    self.lost = f"renewal failed: {str(e).splitlines()[0]}"
                    return

    def check(self) -> None:
        """Raise unless this process still holds the lease (called before every publication)."""
        if self.lost is None:
            try:
                cur = self._current()
            except Exception as e:
                raise CorpusError(f"{self.obj.uri}: cannot check the writer lease: {str(e).splitlines()[0]}") from None
            if cur is None or cur[1] != self.etag:
                self.lost = "another writer holds it" if cur else "it was deleted"
        if self.lost is not None:
            raise CorpusError(f"{self.obj.uri}: this run lost the writer lease ({self.lost}); "
                              f"nothing more is published")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            cur = self._current()
            if cur is not None and cur[1] == self.etag:
                self.client.delete_object(Bucket=self.bucket, Key=self.key)
        except Exception as e:  # an unreleased lease expires; the next writer takes it over then
            log.warning("%s: could not release the writer lease: %s", self.obj.uri, str(e).splitlines()[0])


def describe(holder: dict) -> str:
    return (f"pid {holder.get('pid', '?')} on {holder.get('host', '?')} (`{holder.get('command', '?')}`) "
            f"since {holder.get('since', '?')}, lease until {holder.get('expires', '?')}")


def storage_locked(uri: str, holder: dict) -> CorpusError:
    return LockedError(f"{uri}: held by {describe(holder)}; another writer is running on this artifacts root "
                       f"(wait for it to finish, or stop it)")


def stale(holder: dict) -> str | None:
    """Why a lease body no longer holds the root (expired, or its process is gone), or None."""
    try:
        expires = dt.datetime.strptime(str(holder.get("expires")), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return "whose body is unreadable"
    if expires < _now():
        return f"which expired at {holder['expires']}"
    pid = holder.get("pid")
    if holder.get("host") == platform.node() and isinstance(pid, int) and pid != os.getpid() and not alive(pid):
        return "which is no longer running"
    return None


def acquire(root_dir, body: dict) -> Lease | None:
    """The lease of the s3 root mounted on `root_dir`, or None for a local root."""
    store = store_of(root_dir)
    if not isinstance(store, MountedStore):
        return None
    lease = Lease(store.remote_of(root_dir), {**body, "local_dir": str(root_dir)})
    lease.acquire()
    return lease
