"""Lists a filter reads (domains, URLs, words), supplied as ledger sources of role `list`: fetched and
verified by sha256 like every source, one entry a line, `#` starting a comment. A filter's `prepare`
writes the entries it needs into one file of its output (`<name>-lists.json`), which every worker loads
once (by path and sha256). Building that file can be the costly part (250,000 phishing domains read as
browsers read hosts: ~2 s), so `cached_lists` keeps it in the cache, keyed by the lists' raw parts."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from corpus.config.ledger import load_ledger
from corpus.errors import CorpusError
from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.store.checksums import read_verified


def list_rows(config, ids, what: str) -> list[dict]:
    ledger = load_ledger(config.ledger_path)
    missing = [i for i in ids if i not in ledger]
    if missing:
        raise CorpusError(f"{config.path}: {what}: source '{missing[0]}' is not in the ledger")
    return [ledger[i] for i in ids]


def entries(config, row: dict) -> list[str]:
    """The list's entries: each line stripped, comments and blank lines left out (raw documents of the
    fetched source: a list is read with format text, split line)."""
    from corpus.engine.raw import current_raw, document_parts, not_text
    from corpus.formats.jsonl import read_zst_jsonl

    not_text(row)
    directory, manifest = current_raw(config, row)
    out = []
    for part in document_parts(manifest):
        for rec in read_zst_jsonl(directory / part["name"]):
            for line in rec["text"].splitlines():
                line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
                if line:
                    out.append(line)
    return out


def raw_parts(config, row: dict) -> list[str]:
    """The sha256 of the raw parts `entries` reads for a list row (what its entries are made of)."""
    from corpus.engine.raw import current_raw, document_parts

    return [p["sha256"] for p in document_parts(current_raw(config, row)[1])]


def cached_lists(config, staging: Path, name: str, rows: dict[str, list[dict]], build) -> tuple[dict, dict]:
    """write_lists of `build()` ({kind: entries}), or the same file from the cache when an earlier run built
    it from the same raw parts of the same list rows (`rows`: {kind: ledger rows}) with this code."""
    from corpus.engine.cache import Cache, cache_key, cache_root

    facts = {"lists": name, "kinds": {k: [[r["source_id"], raw_parts(config, r)] for r in v]
                                      for k, v in sorted(rows.items())}}
    cache, key = Cache(cache_root(config), f"{name}-lists", ".json"), cache_key(facts)
    data = cache.get(key)  # its bytes checked against the sha256 in its name
    if data is None:
        entry, resources = write_lists(staging, name, build())
        cache.put(key, (staging / entry["name"]).read_bytes())
        return entry, resources
    file = f"{name}-lists.json"
    write_bytes(staging / file, data)
    entry = {"name": file, "sha256": sha256_bytes(data), "rows": sum(map(len, json.loads(data).values())),
             "bytes": len(data)}
    return entry, {f"{name}_lists": str(staging / file), f"{name}_lists_sha256": entry["sha256"]}


def write_lists(staging: Path, name: str, lists: dict[str, list[str]]) -> tuple[dict, dict]:
    """Write {kind: sorted entries} as `<name>-lists.json`; (its part entry, the resources that load it)."""
    data = json.dumps({k: sorted(set(v)) for k, v in sorted(lists.items())}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")
    file = f"{name}-lists.json"
    write_bytes(staging / file, data)
    entry = {"name": file, "sha256": sha256_bytes(data), "rows": sum(len(v) for v in lists.values()),
             "bytes": len(data)}
    return entry, {f"{name}_lists": str(staging / file), f"{name}_lists_sha256": entry["sha256"]}


@functools.cache
def load_lists(path: str, sha256: str) -> dict[str, list[str]]:
    return json.loads(read_verified(Path(path), sha256))
