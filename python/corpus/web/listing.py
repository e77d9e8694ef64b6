"""A crawl as one ledger row: a listing of WARC files (Common Crawl's `warc.paths.gz`), a directory or a glob.

A row of format `warc` whose `url` ends in `.paths` or `.paths.gz` is a listing: one file a line,
absolute (a URL or a path) or relative to the row's `base_url`, else to the listing's directory (Common Crawl writes
`crawl-data/CC-MAIN-…/warc/….warc.gz` under `https://data.commoncrawl.org/`); its sha256 is the listing
file's. A `url` holding a glob (`*`, `?`, `[`) or ending in `/` (a directory: every `*.warc`, `*.warc.gz`,
`*.arc.gz` in it) is resolved to a sorted file list, and its sha256 and bytes are those of that list's
text (`list_text`), so a glob that resolves to other files later is refused, not read.

`select_members` applies `[fetch] files` (a seeded sample, or a range of listing positions) without
changing the row. Pure functions here; fetch does the I/O (corpus.stages.fetch)."""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from corpus.errors import CorpusError

LISTING_SUFFIXES = (".paths", ".paths.gz")
GLOB_CHARS = "*?["
# a directory's crawl files (a directory row reads these, in name order)
CRAWL_FILES = ("*.warc", "*.warc.gz", "*.warc.wet.gz", "*.wet.gz", "*.arc", "*.arc.gz")
MAX_LISTING_LINE = 8192


@dataclass(frozen=True)
class Member:
    index: int      # its position in the listing (0-based): its documents come in this order
    url: str


def listing_kind(row: dict) -> str | None:
    """'paths' (a listing file), 'glob' (a glob or directory) or None (one WARC file) for a warc row."""
    if row.get("format") != "warc":
        return None
    url = row["url"]
    path = urllib.parse.urlsplit(url).path if "://" in url else url
    if path.endswith(LISTING_SUFFIXES):
        return "paths"
    if path.endswith("/") or any(c in path for c in GLOB_CHARS):
        return "glob"
    return None


def _is_absolute(entry: str) -> bool:
    return "://" in entry or entry.startswith("/")


def member_url(entry: str, base_url: str | None, where: str) -> str:
    """A listing line as a URL: absolute as it is, else joined to base_url."""
    if _is_absolute(entry):
        from corpus.store.retrieve import url_kind

        try:
            url_kind(entry)
        except CorpusError as e:
            raise CorpusError(f"{where}: {e}") from None
        return entry
    if not base_url:
        raise CorpusError(f"{where}: '{entry}' is a relative path and the ledger row has no base_url "
                          f"(Common Crawl's listings are relative to https://data.commoncrawl.org/)")
    return base_url.rstrip("/") + "/" + entry.lstrip("/")


def listing_base(row: dict) -> str:
    """What a listing's relative lines are under: `base_url`, else the listing's own directory (a local
    crawl's listing beside its files; Common Crawl's lines need base_url)."""
    if row.get("base_url"):
        return row["base_url"]
    url = row["url"]
    return url.rpartition("/")[0] if "/" in url else "."


def read_listing(path: Path, row: dict) -> list[str]:
    """The member URLs of a listing file (plain or gzip), in its order; blank lines are skipped. A line
    that is not UTF-8 or longer than MAX_LISTING_LINE is an error naming the file and line."""
    with open(path, "rb") as f:
        opener = gzip.open if f.read(2) == b"\x1f\x8b" else open
    urls = []
    try:
        with opener(path, "rb") as f:
            for n, raw in enumerate(iter(lambda: f.readline(MAX_LISTING_LINE + 1), b""), 1):
                where = f"{row['url']}:{n}"
                if len(raw) > MAX_LISTING_LINE:
                    raise CorpusError(f"{where}: a line longer than {MAX_LISTING_LINE} bytes; a listing holds one "
                                      f"file path a line")
                try:
                    entry = raw.decode("utf-8").strip()
                except UnicodeDecodeError as e:
                    raise CorpusError(f"{where}: not UTF-8 at column {e.start + 1}") from None
                if entry:
                    urls.append(member_url(entry, listing_base(row), where))
    except (OSError, EOFError) as e:  # a gzip listing that is corrupt or cut short
        raise CorpusError(f"{row['url']}: not a readable listing: {e}") from None
    return urls


def list_text(urls: list[str]) -> bytes:
    """What a glob row's sha256 and bytes are of: its resolved URLs, one a line, sorted."""
    return "".join(u + "\n" for u in sorted(urls)).encode("utf-8")


def list_digest(urls: list[str]) -> tuple[str, int]:
    text = list_text(urls)
    return hashlib.sha256(text).hexdigest(), len(text)


def split_glob(url: str) -> tuple[str, str]:
    """(the fixed prefix directory, the pattern below it) of a glob or directory URL or path."""
    path = url[:-1] if url.endswith("/") else url
    if url.endswith("/"):
        return path, ""
    cut = min((path.find(c) for c in GLOB_CHARS if c in path), default=len(path))
    prefix = path[:cut].rpartition("/")[0]
    return prefix, path[len(prefix) + 1:]


def matches(relative: str, pattern: str) -> bool:
    """A file (its path below the glob's prefix) matches: the pattern's `/`-separated parts each by fnmatch;
    a directory (no pattern) takes its own crawl files, not those of sub-directories."""
    if not pattern:
        return "/" not in relative and any(fnmatch.fnmatchcase(relative, p) for p in CRAWL_FILES)
    parts, pats = relative.split("/"), pattern.split("/")
    return len(parts) == len(pats) and all(fnmatch.fnmatchcase(a, p) for a, p in zip(parts, pats))


def resolve_glob(row: dict) -> list[str]:
    """The sorted URLs a glob or directory row names now: file:// or a path through the filesystem, s3://
    through pyarrow.fs (the AWS_* environment's endpoint and credentials)."""
    from corpus.store.retrieve import local_path, url_kind

    url, kind = row["url"], url_kind(row["url"])
    if kind in ("path", "file"):
        prefix, pattern = split_glob(str(local_path(url)) + ("/" if url.endswith("/") else ""))
        root = Path(prefix)
        if not root.is_dir():
            raise CorpusError(f"source '{row['source_id']}': {url}: no such directory {root}")
        found = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
        scheme = "file://" if kind == "file" else ""
        return sorted(f"{scheme}{root.as_posix()}/{rel}" for rel in found if matches(rel, pattern))
    if kind == "s3":
        from corpus.store import s3

        parts = urllib.parse.urlsplit(url)
        prefix, pattern = split_glob(parts.path.lstrip("/") + ("/" if url.endswith("/") else ""))
        remote = s3.Remote(Path("."), f"{parts.netloc}/{prefix}".rstrip("/"), s3.env_endpoint())
        names = s3.listing(remote, recursive=True)
        return sorted(f"s3://{parts.netloc}/{prefix + '/' if prefix else ''}{rel}" for rel in names
                      if matches(rel, pattern))
    raise CorpusError(f"source '{row['source_id']}': {url}: a glob is read from file://, a path or s3://; "
                      f"over HTTP a crawl is a listing file (*.paths or *.paths.gz)")


def glob_members(row: dict) -> list[str]:
    """The glob's files now, refused when they are not the list the ledger row pinned."""
    urls = resolve_glob(row)
    sha, size = list_digest(urls)
    if sha != row["sha256"]:
        raise CorpusError(f"source '{row['source_id']}': {row['url']} now resolves to {len(urls)} files whose list "
                          f"has sha256 {sha} ({size} bytes), not the list the ledger pinned ({row['sha256']}, "
                          f"{row['bytes']} bytes): add it again as a new row to read the new files")
    return urls


def _in_sample(url: str, fraction: float, seed: int) -> bool:
    """A file is in a seeded sample by its URL alone: the same files whatever the listing's length, and a
    larger fraction keeps every file of a smaller one."""
    h = hashlib.sha256(f"{seed}\x00{url}".encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") < fraction * (1 << 64)


def select_members(urls: list[str], files: dict | None) -> list[Member]:
    """The listing's files that `[fetch] files` selects (all when it is absent), in listing order:
    {sample, seed}: each file with probability `sample`, by its URL; {start, stop}: listing positions
    [start, stop)."""
    members = [Member(i, u) for i, u in enumerate(urls)]
    if not files:
        return members
    if "sample" in files:
        return [m for m in members if _in_sample(m.url, files["sample"], files.get("seed", 0))]
    return members[files.get("start", 0):files.get("stop")]
