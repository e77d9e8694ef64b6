"""The cache: results a run derives from inputs named by content, kept so that a later run with the same
inputs and settings reads them instead of computing them again (an edited threshold reruns only what it
changes). A cache entry is never published and never decides a byte on its own: it holds exactly what
the computation would give, keyed by everything that computation reads.

    <artifacts>/cache/<kind>/<key>-<sha256 of the entry's bytes><suffix>

`key` is the sha256 of the facts the result depends on plus the code and library versions
(versions.output_packages). An entry is read only after its bytes match the sha256 in its name; one that
does not is deleted, logged and rebuilt. Writes are atomic, so concurrent workers at worst write the
same entry twice. `[run] cache = false` turns the cache off; `corpus gc --cache` lists (and with
`--delete` removes) it."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shutil
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from corpus.store.atomic import canonical_json, sha256_bytes, sha256_file, write_bytes

log = logging.getLogger(__name__)
CACHE_DIR = "cache"


def cache_key(facts: Any) -> str:
    """The sha256 of the facts (JSON-able) and of the code and library versions that decide output bytes."""
    from corpus.engine.versions import output_packages

    return hashlib.sha256(canonical_json({"facts": facts, "packages": output_packages()}).encode()).hexdigest()


class Cache:
    """The entries of one kind ("ppl-model", "eval-index", "filter-memo/<identity>") under a root;
    `Cache(None, kind)` is the switched-off cache: nothing is found, nothing is kept."""

    def __init__(self, root: Path | None, kind: str, suffix: str = ".bin"):
        self.dir = root / CACHE_DIR / kind if root is not None else None
        self.suffix = suffix

    def get(self, key: str) -> bytes | None:
        if self.dir is None or not self.dir.is_dir():
            return None
        for path in sorted(self.dir.glob(f"{key}-*{self.suffix}")):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if f"{key}-{sha256_bytes(data)}{self.suffix}" == path.name:
                return data
            log.warning("cache: %s does not match the checksum in its name; removed (it is rebuilt)", path)
            path.unlink(missing_ok=True)
        return None

    def put(self, key: str, data: bytes) -> None:
        """Keep `data` as the entry of `key` (an older entry of the key is replaced)."""
        if self.dir is None:
            return
        name = f"{key}-{sha256_bytes(data)}{self.suffix}"
        if not (self.dir / name).is_file():
            self.dir.mkdir(parents=True, exist_ok=True)
            write_bytes(self.dir / name, data)
        self._drop_others(key, name)

    def get_file(self, key: str, dest: Path) -> str | None:
        """Put the entry of `key` at `dest` (a hard link, else a copy) after its bytes, hashed as they are
        read, match the sha256 in its name; that sha256, or None (no entry, or a damaged one: removed).
        For entries too large to hold in memory (the tokenize stage's encoded shards)."""
        if self.dir is None or not self.dir.is_dir():
            return None
        for path in sorted(self.dir.glob(f"{key}-*{self.suffix}")):
            want = path.name[len(key) + 1: len(path.name) - len(self.suffix)]
            try:
                got = sha256_file(path)
            except OSError:
                continue
            if got != want:
                log.warning("cache: %s does not match the checksum in its name; removed (it is rebuilt)", path)
                path.unlink(missing_ok=True)
                continue
            dest.unlink(missing_ok=True)
            try:
                os.link(path, dest)
            except FileNotFoundError:  # replaced by a newer entry of the key since the glob: none here
                continue
            except OSError:
                try:
                    shutil.copyfile(path, dest)
                except FileNotFoundError:
                    continue
            return want
        return None

    def put_file(self, key: str, src: Path, sha256: str) -> None:
        """Keep the file `src`, whose sha256 the caller computed as it wrote it, as the entry of `key` (a
        hard link when the cache is on the same file system, else a copy)."""
        if self.dir is None:
            return
        name = f"{key}-{sha256}{self.suffix}"
        if not (self.dir / name).is_file():
            self.dir.mkdir(parents=True, exist_ok=True)
            try:  # a link appears whole or not at all: a kill leaves no partial entry behind
                os.link(src, self.dir / name)
            except FileExistsError:
                pass
            except OSError:  # another file system: a copy, renamed into place
                tmp = self.dir / f".{name}.{os.getpid()}.tmp"
                shutil.copyfile(src, tmp)
                os.replace(tmp, self.dir / name)
        self._drop_others(key, name)

    def _drop_others(self, key: str, name: str) -> None:
        """Remove the key's older entries: a key has one entry, the one just kept."""
        for old in self.dir.glob(f"{key}-*{self.suffix}"):
            if old.name != name:
                old.unlink(missing_ok=True)

    def get_or_build(self, key: str, build: Callable[[], bytes]) -> tuple[bytes, bool]:
        """(the entry's bytes, True when they came from the cache)."""
        data = self.get(key)
        if data is not None:
            return data, True
        data = build()
        self.put(key, data)
        return data, False


def cache_root(config) -> Path | None:
    """Where a config's cache lives (its artifacts root: a node-local copy for an s3:// root), or None
    when `[run] cache = false`."""
    return config.artifacts if config["run"].get("cache", True) else None


def cache_use_step(phase: str, record: str, what: str) -> Callable[[Any], None]:
    """A runner Step: the `cache` {hits, computed} of the units of `phase` computed in this run (a unit
    reused from a published output says nothing of this run) summed, logged and kept in _RUN.json under
    `record`."""
    def step(ctx) -> None:
        ran = [r.get("cache", {}) for r in ctx.results[phase] if not r.get("reused")]
        hits, computed = sum(c.get("hits", 0) for c in ran), sum(c.get("computed", 0) for c in ran)
        if hits:
            log.info("%s: %d of %d %s from the cache", phase, hits, hits + computed, what)
        ctx.run_info[record] = {"hits": hits, "computed": computed}
    return step


# A part's memo keeps this run's documents and, up to this many times as many rows, those earlier runs
# kept: versions of a dataset that keep different documents of a part (a threshold edited up, then down;
# datasets on one root whose parts have the same names) find each other's, and an entry stays bounded.
MEMO_KEEP = 4


class PartMemo:
    """Results per document of one part, kept in the cache as one Parquet table of `columns` (the first
    the document's digest, the others its result): `known` is what earlier runs kept for the part,
    `used` what this run read or computed, which `save` keeps with as many of the others as MEMO_KEEP
    allows (at least 4,096 rows)."""

    def __init__(self, root: Path | None, kind: str, facts: Any, columns: dict[str, pa.DataType]):
        from corpus.formats.parts import read_parquet

        self.cache, self.key, self.columns = Cache(root, kind, ".parquet"), cache_key(facts), columns
        self.known: dict[bytes, tuple] = {}
        self.used: dict[bytes, tuple] = {}
        data = self.cache.get(self.key)
        if data is not None:
            t = read_parquet(pa.BufferReader(data))
            digests, *rows = (t.column(c).to_pylist() for c in columns)
            # a memo of a filter with no signals holds digests alone: each one's row is ()
            self.known = dict(zip(digests, zip(*rows))) if rows else dict.fromkeys(digests, ())

    def get(self, digest: bytes) -> tuple | None:
        """The document's result row, or None when not known."""
        row = self.known.get(digest)
        if row is not None:
            self.used[digest] = row
        return row

    def put(self, digest: bytes, row: tuple) -> None:
        self.used[digest] = row

    def save(self) -> None:
        """Keep this run's rows and, up to the cap, the earlier ones (in digest order); an entry that already
        holds every row this run used, within the cap, is not rewritten."""
        cap = max(MEMO_KEEP * len(self.used), 4096)
        if self.used.keys() <= self.known.keys() and len(self.known) <= cap:
            return
        rows = dict(self.used)
        for digest in sorted(self.known.keys() - self.used.keys()):
            if len(rows) >= cap:
                break
            rows[digest] = self.known[digest]
        rows = sorted(rows.items())
        names = list(self.columns)
        arrays = [pa.array([d for d, _ in rows], self.columns[names[0]])]
        arrays += [pa.array([r[i] for _, r in rows], self.columns[c]) for i, c in enumerate(names[1:])]
        buf = io.BytesIO()
        pq.write_table(pa.table(arrays, schema=pa.schema(list(self.columns.items()))), buf, compression="zstd")
        self.cache.put(self.key, buf.getvalue())
