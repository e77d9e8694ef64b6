"""Artifacts roots on object storage: `s3://bucket/prefix`, through `pyarrow.fs.S3FileSystem`.

An object store has no rename, no flock and no memmap, so the stages never work on it directly. An s3
root is *mounted* on a node-local directory (`local_dir`: CORPUS_LOCAL_DIR, else `[paths] local_dir`,
else ~/.cache/corpus/<sha256 of the URI, 16 hex>) that has the artifacts layout: `Config.artifacts` is
that directory, so staging, checkpoints, memmaps and the writer lock are local exactly as for a local
root, and `Config.remote` is the URI. The mount table maps local paths to objects:

- reading: a stage manifest (`_STAGE.json`) is always read from the store (`refresh_stage`); a part is
  downloaded on demand by whoever reads it (`localize`, called by `checksums`), into the local copy of
  its directory, atomically, then checked against the manifest's sha256 as every read is. A local copy
  is trusted only while its directory's local `_STAGE.json` is the remote one: a changed manifest
  deletes every local file whose entry changed;
- publishing (`publish_stage`, after the runner's local publish): the old `_STAGE.json` is deleted,
  every listed part is uploaded (the stage's `_MANIFEST.json` is its last part), then `_RUN.json`, then
  `_STAGE.json` LAST; objects under the output that the new manifest does not list are deleted only
  after it is written. A stage exists when its `_STAGE.json` does; readers and audit use only the
  objects it lists.

The endpoint and credentials come from the standard AWS environment variables (AWS_ENDPOINT_URL,
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION): pyarrow 26 does not read
AWS_ENDPOINT_URL itself, so it is passed as `endpoint_override`."""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
import urllib.parse
from pathlib import Path
from typing import Callable, Iterable

from corpus.store.atomic import CHUNK, temp_beside
from corpus.errors import CorpusError

SCHEME = "s3"
LOCAL_DIR_ENV = "CORPUS_LOCAL_DIR"
STAGE_FILE = "_STAGE.json"   # layout.STAGE_FILE (layout imports config, which imports this module)
RUN_FILE = "_RUN.json"

# local root (absolute, str) -> {"uri": s3://bucket/prefix, "endpoint": AWS_ENDPOINT_URL, "region": AWS_REGION}.
# Pool and Ray workers get the driver's table with each unit (runner._Tagged), so a worker talks to
# the endpoint the driver does whatever environment it was started with; credentials stay in the env.
_MOUNTS: dict[str, dict] = {}
_FS: dict[tuple, object] = {}


def is_remote(root: str | os.PathLike | None) -> bool:
    return root is not None and str(root).startswith(f"{SCHEME}://")


def split_uri(uri: str) -> str:
    """`s3://bucket/prefix/` -> `bucket/prefix` (the path pyarrow.fs takes); refuses a URI with no bucket."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme != SCHEME or not parts.netloc:
        raise CorpusError(f"{uri}: not an s3://bucket/prefix URI")
    return "/".join(p for p in [parts.netloc, *parts.path.split("/")] if p)


def local_dir_for(uri: str, configured: str | None = None) -> Path:
    """The node-local directory an s3 root is mounted on: CORPUS_LOCAL_DIR > [paths] local_dir > the cache."""
    chosen = os.environ.get(LOCAL_DIR_ENV) or configured
    if chosen:
        return Path(chosen).expanduser()
    digest = hashlib.sha256(uri.rstrip("/").encode("utf-8")).hexdigest()[:16]
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corpus" / digest


def _env_endpoint() -> dict:
    return {"endpoint": os.environ.get("AWS_ENDPOINT_URL", ""),
            "region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION", "")}


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
        _FS[key] = fs.S3FileSystem(**kwargs)
    return _FS[key]


def mount(local: Path, uri: str) -> None:
    """Register `local` as the node-local copy of the s3 root `uri` (config.load_config does it)."""
    split_uri(uri)
    _MOUNTS[os.path.abspath(local)] = {"uri": uri.rstrip("/"), **_env_endpoint()}


def mounts() -> dict:
    return dict(_MOUNTS)


def install(table: dict) -> None:
    """In a worker: the driver's mount table."""
    _MOUNTS.update(table)


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


# Local-only parts of a mounted root: staging and renamed-aside outputs, the download cache, reports.
LOCAL_ONLY_SUFFIXES = (".incomplete", ".old")
LOCAL_ONLY_TOP = ("reports", ".corpus.lock")


def remote_of(path: str | os.PathLike) -> Remote | None:
    """The object a local path under a mounted root stands for, or None (a local root, or a local-only
    file of a mounted one: nothing changes)."""
    if not _MOUNTS:
        return None
    p = Path(os.path.abspath(path))
    for root, m in _MOUNTS.items():
        try:
            rel = p.relative_to(root)
        except ValueError:
            continue
        if (rel.parts[:1] and rel.parts[0] in LOCAL_ONLY_TOP) or rel.parts[:2] == ("corpus", "downloads") \
                or any(part.endswith(LOCAL_ONLY_SUFFIXES) for part in rel.parts):
            return None
        key = split_uri(m["uri"])
        return Remote(p, f"{key}/{rel.as_posix()}" if rel.parts else key, m)
    return None


def _named(what: str, e: BaseException) -> CorpusError:
    return CorpusError(f"{what}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")


def size_of(r: Remote) -> int | None:
    """The object's size, or None when there is none."""
    from pyarrow import fs

    try:
        info = r.fs.get_file_info(r.key)
    except OSError as e:
        raise _named(r.uri, e) from None
    return info.size if info.type == fs.FileType.File else None


def read_bytes(r: Remote) -> bytes | None:
    """A small object's bytes (a manifest), or None when there is none."""
    if size_of(r) is None:
        return None
    try:
        with r.fs.open_input_stream(r.key, compression=None) as f:
            return f.read()
    except OSError as e:
        raise _named(r.uri, e) from None


def download(r: Remote, dest: Path) -> tuple[str, int]:
    """Stream the object into `dest` (temp beside it, then rename); returns (sha256, bytes)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(dest)
    h, n = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out, r.fs.open_input_stream(r.key, compression=None) as src:
            while chunk := src.read(CHUNK):
                h.update(chunk)
                n += len(chunk)
                out.write(chunk)
        os.replace(tmp, dest)
    except OSError as e:
        raise _named(f"{r.uri}: download failed", e) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return h.hexdigest(), n


def upload(src: Path, r: Remote) -> None:
    try:
        with open(src, "rb") as f, r.fs.open_output_stream(r.key, compression=None) as out:
            while chunk := f.read(CHUNK):
                out.write(chunk)
    except OSError as e:
        raise _named(f"{r.uri}: upload failed", e) from None


def delete(r: Remote) -> None:
    try:
        r.fs.delete_file(r.key)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise _named(f"{r.uri}: delete failed", e) from None


def listing(r: Remote, *, recursive: bool = True) -> dict[str, int]:
    """{name relative to r: size} of the objects under r (directory markers aside)."""
    from pyarrow import fs

    try:
        infos = r.fs.get_file_info(fs.FileSelector(r.key, recursive=recursive, allow_not_found=True))
    except OSError as e:
        raise _named(r.uri, e) from None
    return {i.path[len(r.key) + 1:]: i.size for i in infos if i.type == fs.FileType.File}


def subdirs(path: Path) -> list[str]:
    """Names of the 'directories' right under a mounted local path (common prefixes of its objects)."""
    from pyarrow import fs

    r = remote_of(path)
    try:
        infos = r.fs.get_file_info(fs.FileSelector(r.key, recursive=False, allow_not_found=True))
    except OSError as e:
        raise _named(r.uri, e) from None
    return [i.base_name for i in infos if i.type == fs.FileType.Directory]


# ---------------------------------------------------------------- reading

def localize(path: str | os.PathLike, size: int | None = None, *, listed_in: str | None = None) -> None:
    """Make sure a file of a mounted root is on local disk: a local copy with the recorded size is used
    (the caller checks its sha256, as for every read), otherwise the object is downloaded. A local root:
    nothing happens."""
    r = remote_of(path)
    if r is None:
        return
    p = Path(path)
    with contextlib.suppress(FileNotFoundError):
        if p.is_file() and (size is None or p.stat().st_size == size):
            return
    if size_of(r) is None:
        raise CorpusError(f"{r.uri}: missing" + (f" (listed in {listed_in})" if listed_in else ""))
    download(r, p)


def exists(path: str | os.PathLike) -> bool:
    """`Path.is_file()`, or for a file of a mounted root: a local copy or the object exists."""
    p = Path(path)
    if p.is_file():
        return True
    r = remote_of(p)
    return r is not None and size_of(r) is not None


def check_size(path: str | os.PathLike, size: int | None, *, listed_in: str | None = None, what: str = "") -> bool:
    """For a mounted path: check the object's size without downloading it (the rule for "current" and
    for a stage reading its input's manifest; every byte is hashed by whoever reads it). False for a
    local root (the caller checks the file)."""
    r = remote_of(path)
    if r is None:
        return False
    actual = size_of(r)
    if actual is None:
        raise CorpusError(f"{what}{r.uri}: missing" + (f" (listed in {listed_in})" if listed_in else ""))
    if size is not None and actual != size:
        raise CorpusError(f"{what}{r.uri}: size mismatch: expected {size} bytes, got {actual}")
    return True


def check_sizes(directory: Path, parts: list[dict], *, listed_in: str) -> bool:
    """`check_size` for every part of a mounted output directory, from one listing of its prefix (not one
    request per part). False for a local root."""
    r = remote_of(directory)
    if r is None:
        return False
    sizes = listing(r, recursive=any("/" in p["name"] for p in parts))
    for p in parts:
        actual = sizes.get(p["name"])
        if actual is None:
            raise CorpusError(f"{r.child(p['name']).uri}: missing (listed in {listed_in})")
        if p.get("bytes") is not None and actual != p["bytes"]:
            raise CorpusError(f"{r.child(p['name']).uri}: size mismatch: expected {p['bytes']} bytes, got {actual}")
    return True


def _entries(manifest_bytes: bytes | None) -> dict[str, tuple]:
    if manifest_bytes is None:
        return {}
    try:
        return {p["name"]: (p.get("sha256"), p.get("bytes")) for p in json.loads(manifest_bytes)["parts"]}
    except (ValueError, KeyError, TypeError):
        return {}


def refresh_stage(directory: Path) -> None:
    """Make the local `_STAGE.json` of a mounted output directory the remote one (or remove it when the
    store has none: then there is no such stage). Local files whose entry changed are deleted, so a
    local copy is never an older version of a listed part."""
    r = remote_of(directory)
    if r is None:
        return
    local = directory / STAGE_FILE
    new = read_bytes(r.child(STAGE_FILE))
    old = local.read_bytes() if local.is_file() else None
    if new == old:
        return
    before, after = _entries(old), _entries(new)
    for name, entry in after.items():
        if before.get(name) != entry:
            (directory / name).unlink(missing_ok=True)
    if new is None:
        local.unlink()
        return
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(local)
    with os.fdopen(fd, "wb") as f:
        f.write(new)
    os.replace(tmp, local)


def stage_exists(directory: Path) -> bool | None:
    """Whether a mounted output directory has a `_STAGE.json` on the store; None for a local root."""
    r = remote_of(directory)
    return None if r is None else size_of(r.child(STAGE_FILE)) is not None


def materialise(directory: Path) -> dict | None:
    """A verified local copy of one published output of a mounted root (the loader; `corpus audit` and the
    other whole-tree readers use `materialise_root`): its manifest and every part it lists."""
    from corpus.store.checksums import verify_file

    refresh_stage(directory)
    local = directory / STAGE_FILE
    if not local.is_file():
        return None
    manifest = json.loads(local.read_bytes())
    for part in manifest["parts"]:
        localize(directory / part["name"], part.get("bytes"), listed_in=str(remote_of(local).uri))
        verify_file(directory / part["name"], part["sha256"], part.get("bytes"), listed_in=str(local))
    return manifest


def local_copy(location: str | os.PathLike) -> Path:
    """A published output directory named by a path (returned as it is) or by an s3:// URI (the loader's
    tokens directory): then its verified local copy, in XDG_CACHE_HOME (~/.cache)/corpus/<sha256 of the
    URI, 16 hex>; only files whose manifest entry changed are downloaded again."""
    if not is_remote(location):
        return Path(location)
    uri = str(location).rstrip("/")
    digest = hashlib.sha256(uri.encode("utf-8")).hexdigest()[:16]
    local = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corpus" / digest
    mount(local, uri)
    manifest = materialise(local)
    if manifest is None:
        raise CorpusError(f"{uri}: no published output there ({uri}/{STAGE_FILE} not found)")
    _drop_unlisted(local, {STAGE_FILE, RUN_FILE} | {p["name"] for p in manifest["parts"]}, set())
    return local


def materialise_root(root: Path) -> list[str]:
    """Bring every published output of a mounted root to local disk, verified (what audit, why, report and
    export read). Returns the objects no manifest lists (ignored: a killed publication's leftovers)."""
    r = remote_of(root)
    if r is None:
        return []
    objects = listing(r)
    stage_dirs = sorted(name[: -len(STAGE_FILE)].rstrip("/") for name in objects
                        if name == STAGE_FILE or name.endswith("/" + STAGE_FILE))
    listed: set[str] = set()
    for rel in stage_dirs:
        directory = root / rel if rel else root
        manifest = materialise(directory)
        if manifest is None:
            continue
        base = f"{rel}/" if rel else ""
        names = {STAGE_FILE, RUN_FILE} | {p["name"] for p in manifest["parts"]}
        listed |= {base + n for n in names}
        with contextlib.suppress(CorpusError):  # _RUN.json is informational: what varies between runs
            localize(directory / RUN_FILE)
        nested = {d[len(base):].split("/", 1)[0] for d in stage_dirs if d.startswith(base) and d != rel}
        _drop_unlisted(directory, names, nested)
    # local outputs the store no longer has are not outputs: drop their manifests
    for local in sorted(root.rglob(STAGE_FILE)):
        rel = local.relative_to(root).as_posix()
        if rel not in objects and not any(part.endswith((".incomplete", ".old")) for part in local.parts):
            refresh_stage(local.parent)
    return sorted(set(objects) - listed - {".corpus.lock"})  # the writer lease (s3lease.py) is no output


def _drop_unlisted(directory: Path, names: set[str], nested: set[str]) -> None:
    """Delete local files of an output that its manifest does not list (an older version's leftovers), so
    the local copy is exactly the published output; staging dirs, exports and nested outputs are kept."""
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory)
        if not p.is_file() or rel.as_posix() in names or rel.parts[0] in nested \
                or any(part.endswith(LOCAL_ONLY_SUFFIXES) or part.startswith("export-") for part in rel.parts):
            continue
        p.unlink()


# ---------------------------------------------------------------- publishing

def publish_stage(final: Path, manifest: dict, *, owned: Iterable[str] | None = None,
                  hook: Callable[[str], None] | None = None) -> None:
    """Upload a locally published output (see the module doc for the order). `owned`: for a directory
    shared with other outputs (the shard stage's dataset dir), the globs of the top-level objects this
    output owns; only those are ever deleted. Idempotent: a rerun after a kill at any point redoes it."""
    r = remote_of(final)
    if r is None:
        return
    from corpus.store import lease as s3lease

    s3lease.check_for(r.key)  # still this root's one writer (the lease is ours)
    delete(r.child(STAGE_FILE))  # from here until the new one is written, there is no such stage
    names = [p["name"] for p in manifest["parts"]]
    for name in names:
        upload(final / name, r.child(name))
    if hook:
        hook("s3-parts-uploaded")
    upload(final / RUN_FILE, r.child(RUN_FILE))
    s3lease.check_for(r.key)
    upload(final / STAGE_FILE, r.child(STAGE_FILE))
    if hook:
        hook("s3-manifest-written")
    keep = set(names) | {STAGE_FILE, RUN_FILE}
    if owned is None:
        stale = [n for n in listing(r) if n not in keep]
    else:
        stale = [n for n in listing(r, recursive=False) if n not in keep
                 and any(fnmatch.fnmatchcase(n, g) for g in owned)]
    for name in stale:
        delete(r.child(name))
