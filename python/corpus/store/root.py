"""The artifacts root as one `Store` interface: a local directory (`Store`) or an `s3://bucket/prefix` root
mounted on a node-local directory (`MountedStore`). The runner, checksums, readers and audit call
`store_of(path)` and its methods; none of them asks which kind it is.

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
- publishing (`push`, after the runner's local publish; the writer check is the publisher's, see
  `publish.py`): the old `_STAGE.json` is deleted, every listed part is uploaded (the stage's
  `_MANIFEST.json` is its last part), then `_RUN.json`, then `_STAGE.json` LAST; objects under the output
  that the new manifest does not list are deleted only after it is written. A stage exists when its
  `_STAGE.json` does; readers and audit use only the objects it lists."""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import os
from pathlib import Path
from typing import Callable, Iterable

from corpus.errors import CorpusError
from corpus.store import s3
from corpus.store.atomic import temp_beside
from corpus.store.digest import check_file, check_sha, check_size, missing

LOCAL_DIR_ENV = "CORPUS_LOCAL_DIR"
STAGE_FILE = "_STAGE.json"   # config.layout re-exports these names
RUN_FILE = "_RUN.json"
# Local-only parts of a mounted root: staging and renamed-aside outputs, the download cache, reports, the lock.
LOCAL_ONLY_SUFFIXES = (".incomplete", ".old")
LOCAL_ONLY_TOP = ("reports", ".corpus.lock")

Hook = Callable[[str], None] | None


def verify_entries(directory: Path, parts: list[dict], *, sha: bool, listed_in: str = STAGE_FILE) -> None:
    """Manifest part entries {name, sha256, bytes} against the local files they name."""
    for p in parts:
        check_file(directory / p["name"], p["sha256"] if sha else None, p.get("bytes"), listed_in=listed_in)


class Store:
    """A local artifacts root: files are where their paths say, and a published output is its directory."""

    def localize(self, path: str | os.PathLike, size: int | None = None, *, listed_in: str | None = None) -> None:
        """Make sure the file is on local disk (here it is, or it is missing: the reader says so)."""

    def exists(self, path: str | os.PathLike) -> bool:
        return Path(path).is_file()

    def verify_file(self, path: str | os.PathLike, sha256: str | None, size: int | None = None, *,
                    listed_in: str | None = None, what: str = "") -> None:
        check_file(path, sha256, size, listed_in=listed_in, what=what)

    def refresh_stage(self, directory: Path) -> None:
        """Make the local `_STAGE.json` the published one (here it is)."""

    def stage_exists(self, directory: Path) -> bool:
        return (directory / STAGE_FILE).is_file()

    def has_output(self, final: Path, owned: Iterable[str] | None = None) -> bool:
        """Whether anything is published at `final`: its stage manifest, or files written before stage
        manifests existed (the owned globs of a shared directory, or the directory itself)."""
        if self.stage_exists(final):
            return True
        if owned is not None:
            return any(any(final.glob(g)) for g in owned)
        return final.exists()

    def check_current(self, directory: Path, manifest: dict, recount: Callable[[Path, dict], None]) -> None:
        """Verify a published output before calling it current: every part's sha256, and the counts."""
        verify_entries(directory, manifest["parts"], sha=True)
        recount(directory, manifest)

    def check_input(self, directory: Path, manifest: dict, *, sha: bool,
                    recount: Callable[[Path, dict], None]) -> None:
        """Verify an earlier stage's output a stage is about to read: sizes (or sha256), and the counts, so
        an edited count never flows into a later manifest."""
        verify_entries(directory, manifest["parts"], sha=sha)
        recount(directory, manifest)

    def check_sizes(self, directory: Path, parts: list[dict]) -> None:
        """Every listed part is there with its recorded size (its sha256 is checked by whoever reads it)."""
        verify_entries(directory, parts, sha=False)

    def subdirs(self, directory: Path) -> list[str]:
        return sorted(p.name for p in directory.iterdir() if p.is_dir()) if directory.is_dir() else []

    def upload_pending(self, final: Path) -> bool:
        """Whether a local output was published here but never reached the store (never, for a local root)."""
        return False

    def push(self, final: Path, manifest: dict, *, owned: Iterable[str] | None = None, hook: Hook = None,
             still_writer: Callable[[], None] = lambda: None) -> None:
        """Copy a locally published output to where it is published (it already is, here)."""

    def published_view(self, root: Path, *, fresh: bool = False) -> list[str]:
        """Bring every published output to local disk, verified, before a command that reads the whole tree
        (`fresh`: audit, which must check the published bytes themselves, never a copy of them); returns the
        objects no manifest lists (none, here: audit finds unlisted local files itself)."""
        return []


class MountedStore(Store):
    """An s3:// root mounted on a local directory (see the module doc)."""

    def __init__(self, local: Path, uri: str, endpoint: str = "", region: str = ""):
        self.local, self.uri = local, uri.rstrip("/")
        self.endpoint, self.region = endpoint, region

    def table_row(self) -> dict:
        return {"uri": self.uri, "endpoint": self.endpoint, "region": self.region}

    def remote_of(self, path: str | os.PathLike) -> s3.Remote | None:
        """The object a local path stands for; None for a local-only file (staging, the download cache...)."""
        rel = Path(os.path.abspath(path)).relative_to(self.local)
        if (rel.parts[:1] and rel.parts[0] in LOCAL_ONLY_TOP) or rel.parts[:2] == ("corpus", "downloads") \
                or any(part.endswith(LOCAL_ONLY_SUFFIXES) for part in rel.parts):
            return None
        key = s3.split_uri(self.uri)
        return s3.Remote(Path(path), f"{key}/{rel.as_posix()}" if rel.parts else key,
                         {"endpoint": self.endpoint, "region": self.region})

    def localize(self, path, size=None, *, listed_in=None) -> None:
        """A local copy with the recorded size is used (the caller checks its sha256, as for every read),
        otherwise the object is downloaded."""
        r = self.remote_of(path)
        if r is None:
            return
        p = Path(path)
        with contextlib.suppress(FileNotFoundError):
            if p.is_file() and (size is None or p.stat().st_size == size):
                return
        size = s3.size_of(r)
        if size is None:
            raise CorpusError(f"{r.uri}: missing" + (f" (listed in {listed_in})" if listed_in else ""))
        s3.download(r, p, size)

    def exists(self, path) -> bool:
        if Path(path).is_file():
            return True
        r = self.remote_of(path)
        return r is not None and s3.size_of(r) is not None

    def verify_file(self, path, sha256, size=None, *, listed_in=None, what="") -> None:
        """A size-only check asks the store and downloads nothing; a sha256 check reads a local copy."""
        r = self.remote_of(path)
        if sha256 is None and r is not None:
            actual = s3.size_of(r)
            if actual is None:
                raise missing(r.uri, listed_in, what)
            if size is not None and actual != size:
                raise CorpusError(f"{what}{r.uri}: size mismatch: expected {size} bytes, got {actual}")
            return
        self.localize(path, size, listed_in=listed_in)
        check_file(path, sha256, size, listed_in=listed_in, what=what)

    def check_sizes(self, directory: Path, parts: list[dict], listed_in: str = STAGE_FILE) -> None:
        """Every part's size from one listing of the output's prefix (not one request per part)."""
        r = self.remote_of(directory)
        sizes = s3.listing(r, recursive=any("/" in p["name"] for p in parts))
        for p in parts:
            actual = sizes.get(p["name"])
            if actual is None:
                raise CorpusError(f"{r.child(p['name']).uri}: missing (listed in {listed_in})")
            if p.get("bytes") is not None and actual != p["bytes"]:
                raise CorpusError(f"{r.child(p['name']).uri}: size mismatch: expected {p['bytes']} bytes, "
                                  f"got {actual}")

    def check_current(self, directory, manifest, recount) -> None:
        """Sizes only, from the store: every reader hashes what it reads, and hashing or counting here
        would download every part."""
        self.check_sizes(directory, manifest["parts"])

    def check_input(self, directory, manifest, *, sha, recount) -> None:
        if sha:
            for p in manifest["parts"]:
                self.verify_file(directory / p["name"], p["sha256"], p.get("bytes"), listed_in=STAGE_FILE)
        else:
            self.check_sizes(directory, manifest["parts"])

    def refresh_stage(self, directory: Path) -> None:
        """Make the local `_STAGE.json` the remote one (or remove it when the store has none: then there is
        no such stage). Local files whose entry changed are deleted, so a local copy is never an older
        version of a listed part."""
        r = self.remote_of(directory)
        if r is None:
            return
        local = directory / STAGE_FILE
        new = s3.read_bytes(r.child(STAGE_FILE))
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

    def stage_exists(self, directory: Path) -> bool:
        r = self.remote_of(directory)
        return r is not None and s3.size_of(r.child(STAGE_FILE)) is not None

    def has_output(self, final, owned=None) -> bool:
        return self.stage_exists(final)  # on a store a stage exists when its _STAGE.json does, nothing else

    def subdirs(self, directory: Path) -> list[str]:
        """The store's "directories" right under a path (common prefixes of its objects), not the local copy's."""
        from pyarrow import fs

        r = self.remote_of(directory)
        try:
            infos = r.fs.get_file_info(fs.FileSelector(r.key, recursive=False, allow_not_found=True))
        except OSError as e:
            raise s3.named_error(r.uri, e) from None
        return sorted(i.base_name for i in infos if i.type == fs.FileType.Directory)

    def upload_pending(self, final: Path) -> bool:
        return not self.stage_exists(final)

    def push(self, final, manifest, *, owned=None, hook=None, still_writer=lambda: None) -> None:
        """Upload a locally published output (see the module doc for the order). `owned`: for a directory
        shared with other outputs (the shard stage's dataset dir), the globs of the top-level objects this
        output owns; only those are ever deleted. Idempotent: a rerun after a kill at any point redoes it."""
        r = self.remote_of(final)
        still_writer()
        s3.delete(r.child(STAGE_FILE))  # from here until the new one is written, there is no such stage
        names = [p["name"] for p in manifest["parts"]]
        for name in names:
            s3.upload(final / name, r.child(name))
        if hook:
            hook("s3-parts-uploaded")
        s3.upload(final / RUN_FILE, r.child(RUN_FILE))
        still_writer()
        s3.upload(final / STAGE_FILE, r.child(STAGE_FILE))
        if hook:
            hook("s3-manifest-written")
        keep = set(names) | {STAGE_FILE, RUN_FILE}
        if owned is None:
            stale = [n for n in s3.listing(r) if n not in keep]
        else:
            stale = [n for n in s3.listing(r, recursive=False) if n not in keep
                     and any(fnmatch.fnmatchcase(n, g) for g in owned)]
        for name in stale:
            s3.delete(r.child(name))

    def materialise(self, directory: Path, *, fresh: bool = False) -> dict | None:
        """A verified local copy of one published output: its manifest and every part it lists. `fresh`:
        every part is downloaded again and hashed as it arrives, whatever local copy there is (an object
        overwritten on the store with the same size is found, not hidden by an older local copy)."""
        self.refresh_stage(directory)
        local = directory / STAGE_FILE
        if not local.is_file():
            return None
        manifest = json.loads(local.read_bytes())
        for part in manifest["parts"]:
            path = directory / part["name"]
            if fresh:
                r = self.remote_of(path)
                size = s3.size_of(r)
                if size is None:
                    raise CorpusError(f"{r.uri}: missing (listed in {self.remote_of(local).uri})")
                digest, n = s3.download(r, path, size)
                check_size(r.uri, part.get("bytes"), n)
                check_sha(r.uri, part["sha256"], digest)
            else:
                self.verify_file(path, part["sha256"], part.get("bytes"), listed_in=str(local))
        return manifest

    def published_view(self, root: Path, *, fresh: bool = False) -> list[str]:
        """Every published output of the root on local disk, verified (what audit, why, report and export
        read). Returns the objects no manifest lists (ignored: a killed publication's leftovers)."""
        objects = s3.listing(self.remote_of(root))
        stage_dirs = sorted(name[: -len(STAGE_FILE)].rstrip("/") for name in objects
                            if name == STAGE_FILE or name.endswith("/" + STAGE_FILE))
        listed: set[str] = set()
        for rel in stage_dirs:
            directory = root / rel if rel else root
            manifest = self.materialise(directory, fresh=fresh)
            if manifest is None:
                continue
            base = f"{rel}/" if rel else ""
            names = {STAGE_FILE, RUN_FILE} | {p["name"] for p in manifest["parts"]}
            listed |= {base + n for n in names}
            with contextlib.suppress(CorpusError):  # _RUN.json is informational: what varies between runs
                self.localize(directory / RUN_FILE)
            nested = {d[len(base):].split("/", 1)[0] for d in stage_dirs if d.startswith(base) and d != rel}
            _drop_unlisted(directory, names, nested)
        # local outputs the store no longer has are not outputs: drop their manifests
        for local in sorted(root.rglob(STAGE_FILE)):
            rel = local.relative_to(root).as_posix()
            if rel not in objects and not any(part.endswith(LOCAL_ONLY_SUFFIXES) for part in local.parts):
                self.refresh_stage(local.parent)
        return sorted(set(objects) - listed - {".corpus.lock"})  # the writer lease (lease.py) is no output


def _entries(manifest_bytes: bytes | None) -> dict[str, tuple]:
    if manifest_bytes is None:
        return {}
    try:
        return {p["name"]: (p.get("sha256"), p.get("bytes")) for p in json.loads(manifest_bytes)["parts"]}
    except (ValueError, KeyError, TypeError):
        return {}


def _drop_unlisted(directory: Path, names: set[str], nested: set[str]) -> None:
    """Delete local files of an output that its manifest does not list (an older version's leftovers), so
    the local copy is exactly the published output; staging dirs, exports and nested outputs are kept."""
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory)
        if not p.is_file() or rel.as_posix() in names or rel.parts[0] in nested \
                or any(part.endswith(LOCAL_ONLY_SUFFIXES) or part.startswith("export-") for part in rel.parts):
            continue
        p.unlink()


# ---------------------------------------------------------------- the mount table

LOCAL = Store()
# local root (absolute, str) -> MountedStore. Pool and Ray workers get the driver's table with each unit
# (runner._Tagged), so a worker talks to the endpoint the driver does whatever environment it was started
# with; credentials stay in the environment.
_MOUNTS: dict[str, MountedStore] = {}


def local_dir_for(uri: str, configured: str | None = None) -> Path:
    """The node-local directory an s3 root is mounted on: CORPUS_LOCAL_DIR > [paths] local_dir > the cache."""
    chosen = os.environ.get(LOCAL_DIR_ENV) or configured
    if chosen:
        return Path(chosen).expanduser()
    return _cache_dir(uri)


def _cache_dir(uri: str) -> Path:
    digest = hashlib.sha256(uri.rstrip("/").encode("utf-8")).hexdigest()[:16]
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corpus" / digest


def mount(local: Path, uri: str) -> MountedStore:
    """Register `local` as the node-local copy of the s3 root `uri` (config.load_config does it)."""
    s3.split_uri(uri)
    store = MountedStore(Path(os.path.abspath(local)), uri, **s3.env_endpoint())
    _MOUNTS[str(store.local)] = store
    return store


def mounts() -> dict[str, dict]:
    """The mount table as plain data, for a worker."""
    return {local: m.table_row() for local, m in _MOUNTS.items()}


def install(table: dict[str, dict]) -> None:
    """In a worker: the driver's mount table."""
    for local, row in table.items():
        _MOUNTS[local] = MountedStore(Path(local), row["uri"], row["endpoint"], row["region"])


def store_of(path: str | os.PathLike) -> Store:
    """The store a local path belongs to."""
    if _MOUNTS:
        p = Path(os.path.abspath(path))
        for local, store in _MOUNTS.items():
            if p == store.local or store.local in p.parents:
                return store
    return LOCAL


def localize(path: str | os.PathLike, size: int | None = None, *, listed_in: str | None = None) -> None:
    store_of(path).localize(path, size, listed_in=listed_in)


def exists(path: str | os.PathLike) -> bool:
    return store_of(path).exists(path)


def local_copy(location: str | os.PathLike) -> Path:
    """A published output directory named by a path (returned as it is) or by an s3:// URI (the loader's
    tokens directory): then its verified local copy, in XDG_CACHE_HOME (~/.cache)/corpus/<sha256 of the
    URI, 16 hex>; only files whose manifest entry changed are downloaded again."""
    if not s3.is_remote(location):
        return Path(location)
    uri = str(location).rstrip("/")
    local = _cache_dir(uri)
    store = mount(local, uri)
    manifest = store.materialise(store.local)
    if manifest is None:
        raise CorpusError(f"{uri}: no published output there ({uri}/{STAGE_FILE} not found)")
    _drop_unlisted(store.local, {STAGE_FILE, RUN_FILE} | {p["name"] for p in manifest["parts"]}, set())
    return local
