"""The data ledger: one JSON object per source, validated row by row (schemas/ledger-row.schema.json)."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Iterable, Iterator

from corpus.errors import CorpusError
from corpus.config.schemas import open_user_file, validate

SCHEMA = "ledger-row.schema.json"
FIELD_ORDER = ("source_id", "role", "url", "sha256", "bytes", "license_spdx", "reason", "format", "members",
               "text_fields", "split", "delimiter", "pattern", "encoding", "added", "notes")


def check_row(row: object, where: str) -> dict:
    if not isinstance(row, dict):
        raise CorpusError(f"{where}: a ledger row must be a JSON object")
    if (row.get("role") == "model") != (row.get("format") == "binary") and "role" in row and "format" in row:
        raise CorpusError(f"{where}: source '{row.get('source_id')}': role model and format binary go together "
                          f"(a model file is used as it is; got role '{row['role']}', format '{row['format']}')")
    validate(row, SCHEMA, what=where)
    if row.get("split") == "regex":
        import re
        try:
            re.compile(row["pattern"])
        except re.error as e:
            raise CorpusError(f"{where}: pattern: invalid regex: {e}") from None
    if "encoding" in row:
        import codecs
        try:
            info = codecs.lookup(row["encoding"])
        except LookupError:
            raise CorpusError(f"{where}: source '{row.get('source_id')}': unknown encoding "
                              f"'{row['encoding']}'") from None
        if not getattr(info, "_is_text_encoding", True) or info.incrementaldecoder is None:  # 'rot13', 'base64'...
            raise CorpusError(f"{where}: source '{row.get('source_id')}': '{row['encoding']}' is not a "
                              f"text encoding") from None
    return row


MAX_LINE_BYTES = 1 << 20  # a row is a few hundred bytes: a longer line is no row (and is never held whole)


def ledger_lines(path: Path) -> Iterator[bytes]:
    """The ledger's lines without their ends, each read to at most MAX_LINE_BYTES (a file of any size,
    never held whole); a longer line is one error naming it."""
    with open_user_file(path, "ledger", not_found="ledger not found",
                        is_dir="a ledger file (a JSON Lines file, one row per source)") as f:
        for n, line in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
            if len(line) > MAX_LINE_BYTES:
                raise CorpusError(f"{path}:{n}: a line longer than {MAX_LINE_BYTES:,} bytes; a ledger row is "
                                  f"one JSON object on a line of its own")
            yield line.rstrip(b"\r\n")


# Lines already checked in this process (a run reads the ledger once per stage, and the schema check is
# most of a no-op run's ledger time): such a line is parsed again, never checked again.
_CHECKED_LINES: set[bytes] = set()
MAX_CHECKED_LINES = 200_000


def load_ledger(path: str | os.PathLike) -> dict[str, dict]:
    """Rows by source_id, in file order. Errors name the file and line."""
    path = Path(path)
    rows: dict[str, dict] = {}
    for n, raw in enumerate(ledger_lines(path), 1):
        where = f"{path}:{n}"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorpusError(f"{where}: not UTF-8 at column {e.start + 1}; the ledger is UTF-8 JSON Lines") from None
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(f"{where}: invalid JSON: {e.msg} (column {e.colno})") from None
        if raw not in _CHECKED_LINES:
            check_row(row, where)
            if len(_CHECKED_LINES) < MAX_CHECKED_LINES:
                _CHECKED_LINES.add(raw)
        if row["source_id"] in rows:
            raise CorpusError(f"{where}: duplicate source_id '{row['source_id']}'")
        rows[row["source_id"]] = row
    return rows


def select(ledger: dict[str, dict], source_ids: Iterable[str], role: str, *, what: str) -> list[dict]:
    """The ledger rows for `source_ids`, each checked to exist and to have `role`."""
    out = []
    for sid in source_ids:
        row = ledger.get(sid)
        if row is None:
            raise CorpusError(f"{what}: source '{sid}' is not in the ledger")
        if row["role"] != role:
            raise CorpusError(f"{what}: source '{sid}' has role '{row['role']}', expected '{role}'")
        out.append(row)
    return out


def ordered(row: dict) -> dict:
    """A row with its keys in the documented order (how `ledger add` writes it)."""
    return {k: row[k] for k in FIELD_ORDER if k in row} | {k: v for k, v in row.items() if k not in FIELD_ORDER}


def append_row(path: str | os.PathLike, row: dict) -> None:
    """Validate `row` against the ledger it joins, then append it as one line (fsynced)."""
    path = Path(path)
    ledger = load_ledger(path) if path.exists() else {}
    check_row(row, f"{path}: new row")
    if row["source_id"] in ledger:
        raise CorpusError(f"{path}: duplicate source_id '{row['source_id']}'")
    line = json.dumps(ordered(row), ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    needs_newline = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    with open(path, "a", encoding="utf-8") as f:
        f.write(("\n" if needs_newline else "") + line)
        f.flush()
        os.fsync(f.fileno())


def today() -> str:
    return dt.date.today().isoformat()
