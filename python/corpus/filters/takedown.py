"""Takedown lists ([takedown] lists): ledger sources of role `takedown`, one entry a line, `#` starting a
comment. An entry is `url:<exact url>`, `domain:<host>` (the host and its subdomains, case-insensitive),
`id:<document id>`, `sha256:<hex sha256 of the normalized text>` or `source:<source_id>`; a `#` after
a blank starts a comment (a URL's own `#fragment` does not).

Not a filter of the registry (no FILTER): the filter stage decides it before every filter (a removed
document is a reject of filter `takedown` whatever the filters say; they still measure it, from the memo
in a takedown of a published version, so its reject says whether they would have kept it, and dedup
numbers rows as the version without the list did), and dedup, seeing it gone, keeps the next copy of its
group. Its signals are not in the signals table. The entries are
written once into the filter output (`takedown-lists.json`), which every worker loads by path and sha256."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus.config.ledger import load_ledger, select
from corpus.engine.cache import Cache, cache_key
from corpus.errors import CorpusError
from corpus.formats.parts import read_parquet, utf8_digests
from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.store.checksums import read_verified, verify_file

KINDS = ("url", "domain", "id", "sha256", "source")
FILE = "takedown-lists.json"
FILTER_NAME = "takedown"  # the rejects' filter


def list_ids(config) -> list[str]:
    return list((config.data.get("takedown") or {}).get("lists", []))


def list_rows(config) -> list[dict]:
    return select(load_ledger(config.ledger_path), list_ids(config), "takedown",
                  what=f"{config.path}: takedown.lists")


def parse_entry(line: str, where: str) -> tuple[str, str]:
    """(kind, value) of one entry; a malformed one is an error naming where it is."""
    kind, sep, value = line.partition(":")
    kind, value = kind.strip().lower(), value.strip()
    if not sep or kind not in KINDS or not value:
        raise CorpusError(f"{where}: takedown entry {line!r}: expected <kind>:<value>, kind one of "
                          f"{', '.join(KINDS)}")
    if kind == "domain":
        value = value.lower().rstrip(".")
    if kind == "sha256":
        value = value.lower()
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise CorpusError(f"{where}: takedown entry {line!r}: a sha256 is 64 hex digits")
    return kind, value


def read_entries(config, row: dict) -> list[tuple[str, str, str]]:
    """(kind, value, where) of every entry of a fetched list, in file order: `where` names the list's
    file and line (the raw record's locator, plus the line inside a multi-line record)."""
    from corpus.engine.raw import current_raw, document_parts, not_text
    from corpus.formats.jsonl import read_zst_jsonl

    not_text(row)
    directory, manifest = current_raw(config, row)
    out = []
    for part in document_parts(manifest):
        for rec in read_zst_jsonl(directory / part["name"]):
            for k, line in enumerate(rec["text"].splitlines()):
                line = strip_comment(line)
                if line:
                    where = f"list '{row['source_id']}' {rec['url']}" + (f" (+{k} lines)" if k else "")
                    out.append((*parse_entry(line, where), where))
    return out


def strip_comment(line: str) -> str:
    """A line without its comment: a line whose first character (blanks aside) is `#`, or the rest of
    a line from a blank followed by `#` (a URL's fragment `#...` is part of the URL)."""
    line = line.strip()
    if line.startswith("#"):
        return ""
    return re.split(r"\s#", line, maxsplit=1)[0].strip()


def write_resource(config, staging: Path) -> tuple[dict, dict]:
    """Write every list's entries as FILE into the filter output: (its part entry, the resources)."""
    lists, entries = [], []
    for row in list_rows(config):
        lists.append({"source_id": row["source_id"], "sha256": row["sha256"], "reason": row.get("reason", "")})
        entries += [[kind, value, row["source_id"], row["sha256"]] for kind, value, _ in read_entries(config, row)]
    data = json.dumps({"lists": lists, "entries": entries}, ensure_ascii=False, separators=(",", ":")).encode()
    write_bytes(staging / FILE, data)
    entry = {"name": FILE, "sha256": sha256_bytes(data), "rows": len(entries), "bytes": len(data)}
    return entry, {"takedown_lists": str(staging / FILE), "takedown_lists_sha256": entry["sha256"]}


@dataclass(frozen=True)
class Match:
    kind: str
    value: str
    list_id: str
    list_sha256: str
    line: int           # the entry's position, from 1, among every list's entries (the rejects' value)

    @property
    def detail(self) -> str:
        return f"{self.list_id} sha256:{self.list_sha256} {self.kind}:{self.value}"


class Matcher:
    """Which entry removes a document: the first in list order, then file order, that matches it."""

    def __init__(self, entries: list):
        self.by_kind: dict[str, dict[str, int]] = {k: {} for k in KINDS}
        self.entries = entries
        for n, (kind, value, _, _) in enumerate(entries):
            self.by_kind[kind].setdefault(value, n)
        self.need_text = bool(self.by_kind["sha256"])

    def match(self, doc_id: str, url: str | None, source_id: str, text: str, sha256: str | None = None) -> Match | None:
        """The entry that removes the document, or None; `sha256`: its text's, in hex, when known."""
        hits = [self.by_kind["id"].get(doc_id), self.by_kind["source"].get(source_id)]
        if url:
            hits.append(self.by_kind["url"].get(url))
            if self.by_kind["domain"]:
                hits += [self.by_kind["domain"].get(h) for h in host_suffixes(url)]
        if self.need_text:
            hits.append(self.by_kind["sha256"].get(sha256 or text_sha256(text)))
        found = [n for n in hits if n is not None]
        if not found:
            return None
        kind, value, list_id, sha = self.entries[min(found)]
        return Match(kind, value, list_id, sha, min(found) + 1)

    def matched(self, batch, digests: np.ndarray | None = None) -> np.ndarray:
        """Per row of a record batch (id, url, source_id, and text when need_text and no `digests`, the
        rows' text sha256 as (n, 32) uint8): whether any entry matches it, as match() says, without a
        Python call per row where Arrow can compare a column."""
        hit = np.zeros(batch.num_rows, dtype=bool)
        for kind, column in (("id", "id"), ("source", "source_id"), ("url", "url")):
            if self.by_kind[kind]:
                found = pc.is_in(batch.column(column), value_set=pa.array(list(self.by_kind[kind]), pa.string()))
                hit |= found.fill_null(False).to_numpy(zero_copy_only=False)
        if self.by_kind["domain"]:
            domains = self.by_kind["domain"]
            hit |= [bool(url) and any(h in domains for h in host_suffixes(url))
                    for url in batch.column("url").to_pylist()]
        if self.need_text:
            listed = self.by_kind["sha256"]
            if digests is None:
                digests = utf8_digests(pa.chunked_array([batch.column("text")]))
            hit |= [d.tobytes().hex() in listed for d in digests]
        return hit


# Each normalize part's text sha256s, row by row, kept in the cache by the filter stage as it reads the texts:
# a takedown's `sha256:` entries are then matched without reading any text again (the demo's 40 parts:
# ~25 MB to decompress and hash). 32 bytes a document; a part without its entry is read and hashed.
DIGESTS_KIND = "text-sha256"


def _digests_key(part_sha256: str) -> str:
    return cache_key({"kind": DIGESTS_KIND, "part_sha256": part_sha256})


def cached_digests(root: str | Path | None, part_sha256: str, rows: int) -> np.ndarray | None:
    """The part's text sha256s, (rows, 32) uint8, when the cache holds them for its bytes; else None."""
    if root is None:
        return None
    data = Cache(Path(root), DIGESTS_KIND).get(_digests_key(part_sha256))
    if data is None or len(data) != rows * 32:
        return None
    return np.frombuffer(data, np.uint8).reshape(rows, 32)


def keep_digests(root: str | Path | None, part_sha256: str, digests: list[np.ndarray]) -> None:
    """Keep a part's text sha256s (its batches' (n, 32) arrays, in row order) in the cache."""
    if root is not None:
        Cache(Path(root), DIGESTS_KIND).put(_digests_key(part_sha256), b"".join(d.tobytes() for d in digests))


def host_suffixes(url: str) -> list[str]:
    """The URL's host and every parent domain of it, lowercased: `a.b.com` -> a.b.com, b.com, com."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return []
    parts = host.split(".") if host else []
    return [".".join(parts[i:]) for i in range(len(parts))]


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def load_matcher(path: str, sha256: str) -> Matcher:
    return Matcher(json.loads(read_verified(Path(path), sha256))["entries"])


KEPT = " (filters: kept)"  # the end of a takedown reject's detail when every filter kept the document


def removed_rows(directory: Path, manifest: dict, columns=("id", "rule", "detail")) -> list[dict]:
    """The filter stage's takedown rejects (every part verified first), in part order."""
    if not manifest["counts"].get("dropped", {}).get(FILTER_NAME):
        return []
    parts = []
    for p in manifest["parts"]:
        if p["name"].startswith("rejects/"):
            st = (directory / p["name"]).stat()
            parts.append((str(directory / p["name"]), p["sha256"], p.get("bytes"), st.st_size, st.st_mtime_ns))
    return [{c: r[c] for c in columns} for r in _removed_rows(tuple(parts))]


@functools.lru_cache(maxsize=8)  # a run reads them in dedup's planning, the shard manifest and the audit
def _removed_rows(parts: tuple) -> tuple[dict, ...]:
    """The takedown rows of the rejects parts (path, sha256, bytes, and the size and mtime that key the
    cache: a file changed on disk is read and verified again)."""
    out = []
    for path, sha256, size, _, _ in parts:
        verify_file(Path(path), sha256, size)
        mine = pc.equal(read_parquet(Path(path), columns=["filter"]).column("filter"), FILTER_NAME)
        if pc.any(mine).as_py():  # most parts hold none: their texts are not read
            t = read_parquet(Path(path), columns=list(ROW_COLUMNS))
            out += t.filter(mine).to_pylist()
    return tuple(out)


ROW_COLUMNS = ("id", "rule", "detail", "text")  # what removed_rows may be asked for


def kept_by_filters(directory: Path, manifest: dict) -> list[str]:
    """The ids, in byte order, of the documents taken down that every filter would have kept."""
    return sorted((r["id"] for r in removed_rows(directory, manifest) if r["detail"].endswith(KEPT)),
                  key=lambda s: s.encode("utf-8"))


def manifest_record(config, directory: Path, manifest: dict) -> dict | None:
    """The corpus manifest's `takedown`: the lists, the ids removed per entry kind and the sha256 of
    each removed document's normalized text, from the filter stage's output at `directory`; None
    without [takedown] lists."""
    if not list_ids(config):
        return None
    removed: dict[str, list[str]] = {}
    digests = set()
    for r in removed_rows(directory, manifest, ("id", "rule", "text")):
        removed.setdefault(r["rule"], []).append(r["id"])
        digests.add(text_sha256(r["text"]))
    return {"lists": [{"source_id": r["source_id"], "sha256": r["sha256"], "reason": r.get("reason", "")}
                      for r in list_rows(config)],
            "removed": {k: sorted(v, key=lambda s: s.encode("utf-8")) for k, v in sorted(removed.items())},
            "removed_text_sha256": sorted(digests)}
