"""Member files of a listing row pinned on first use: `<ledger>.pins.jsonl` beside the ledger.

A listing names files but not their bytes (Common Crawl publishes no sha256 per WARC file). The first
fetch that reads a member records its sha256 and size here, one JSON object a line
`{"source_id", "url", "sha256", "bytes", "pinned"}`; every later fetch (any config, any artifacts root
that uses this ledger) and `corpus audit` check the file against its pin, and a file whose bytes changed
is refused, naming it. Commit the pins file with the ledger: it is what makes a crawl reproducible."""

from __future__ import annotations

import contextlib
import fcntl
import json
from pathlib import Path
from typing import Iterator

from corpus.errors import CorpusError
from corpus.store.atomic import atomic_open


def pins_path(ledger_path: Path) -> Path:
    """corpus/LEDGER.jsonl -> corpus/LEDGER.pins.jsonl."""
    name = ledger_path.name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return ledger_path.with_name(f"{stem}.pins.jsonl")


def load_pins(path: Path, source_id: str | None = None) -> dict[tuple[str, str], dict]:
    """{(source_id, url): pin} (only `source_id`'s when given). A bad line is an error naming it."""
    pins: dict[tuple[str, str], dict] = {}
    if not path.is_file():
        return pins
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                pin = json.loads(line)
                key = (pin["source_id"], pin["url"])
                if not (isinstance(pin["sha256"], str) and len(pin["sha256"]) == 64 and isinstance(pin["bytes"], int)):
                    raise ValueError("sha256 and bytes")
            except (ValueError, KeyError, TypeError) as e:
                raise CorpusError(f"{path}:{n}: not a pin ({{source_id, url, sha256, bytes, pinned}}): {e}") from None
            if source_id is None or key[0] == source_id:
                pins[key] = pin
    return pins


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer of the pins file at a time (two fetches of two configs may pin at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def changed_line(source_id: str, pin: dict, sha256: str, size: int) -> str:
    return (f"source '{source_id}': {pin['url']} changed since it was pinned on {pin['pinned']}: sha256 "
            f"{pin['sha256']} ({pin['bytes']} bytes) pinned, {sha256} ({size} bytes) now; refusing to read it "
            f"(a crawl file never changes: check the server, or remove its line from the pins file to trust "
            f"the new bytes)")


def add_pins(path: Path, new: list[dict]) -> None:
    """Append pins for files not pinned yet (atomically: the file is rewritten whole). A file pinned in
    the meantime with other bytes is the same refusal as at fetch."""
    if not new:
        return
    with _locked(path):
        old = path.read_bytes() if path.is_file() else b""
        pinned = load_pins(path)
        lines = []
        for pin in new:
            have = pinned.get((pin["source_id"], pin["url"]))
            if have is None:
                lines.append(json.dumps(pin, ensure_ascii=False, sort_keys=True) + "\n")
                pinned[(pin["source_id"], pin["url"])] = pin
            elif (have["sha256"], have["bytes"]) != (pin["sha256"], pin["bytes"]):
                raise CorpusError(changed_line(pin["source_id"], have, pin["sha256"], pin["bytes"]))
        if not lines:
            return
        with atomic_open(path, "wb") as f:
            f.write(old if not old or old.endswith(b"\n") else old + b"\n")
            f.write("".join(lines).encode("utf-8"))
