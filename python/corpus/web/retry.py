"""[extract] retry: re-extracting only the pages an earlier raw output rejected for a transient reason.

An extractor child killed from outside (the OOM killer, an operator) rejects its page with
`extractor_crash`, a page that timed out on a busy machine with `timeout`; the published raw output keeps
them, and a rerun is current. With `retry = ["extractor_crash", "timeout"]` fetch makes a new raw output
(the reasons are part of its key) from the output made without it ("the earlier one"): each record is
read from the WARC again and checked as always (cheap and deterministic), and where the sandbox would
extract a page, its earlier outcome is taken instead: its document's text, or its reject — unless that
reject's reason is retried, when the page is extracted again. So the new output is the bytes a whole
extraction gives, at the cost of the retried pages only.

The earlier outcomes are found by record offset (a document's meta.record_offset, a reject's
`<url>@<offset>` locator): raw parts hold records in offset order, so one cursor per kind walks the parts
that overlap a fetch unit's byte range, one record at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from corpus.formats.jsonl import read_zst_jsonl


def document_offset(rec: dict) -> int:
    return int(rec["meta"]["record_offset"])


def reject_offset(rec: dict) -> int:
    return int(rec["locator"].rpartition("@")[2])


def index_parts(directory: Path, parts: list[dict], offset_of) -> list[dict]:
    """{name, first, last}: the record offsets each (non-empty) part of `directory` starts and ends with."""
    out = []
    for part in parts:
        first = last = None
        for rec in read_zst_jsonl(directory / part["name"]):
            last = offset_of(rec)
            first = last if first is None else first
        if first is not None:
            out.append({"name": part["name"], "first": first, "last": last})
    return out


def overlapping(index: list[dict], start: int, stop: int) -> list[dict]:
    """The parts of `index` holding records that start in [start, stop)."""
    return [p for p in index if p["last"] >= start and p["first"] < stop]


class Earlier:
    """The earlier raw output's outcomes for the records of one byte range, asked in offset order."""

    def __init__(self, directory: Path, documents: list[dict], rejects: list[dict], retry: list[str], start: int):
        self.retry = set(retry)
        self._docs = self._records(directory, documents, document_offset, start)
        self._rejects = self._records(directory, rejects, reject_offset, start)
        self._doc = next(self._docs, None)
        self._reject = next(self._rejects, None)

    @staticmethod
    def _records(directory: Path, parts: list[dict], offset_of, start: int) -> Iterator[tuple[int, dict]]:
        for part in parts:
            for rec in read_zst_jsonl(directory / part["name"]):
                if (offset := offset_of(rec)) >= start:
                    yield offset, rec

    def outcome(self, offset: int) -> tuple[str, ...] | None:
        """("kept", text), ("rejected", reason, detail), ("retry", reason), or None (no earlier outcome:
        extract it) for the page of the record at `offset`."""
        while self._doc is not None and self._doc[0] < offset:
            self._doc = next(self._docs, None)
        while self._reject is not None and self._reject[0] < offset:
            self._reject = next(self._rejects, None)
        if self._doc is not None and self._doc[0] == offset:
            return "kept", self._doc[1]["text"]
        if self._reject is not None and self._reject[0] == offset:
            rec = self._reject[1]
            return ("retry", rec["reason"]) if rec["reason"] in self.retry else ("rejected", rec["reason"], rec["detail"])
        return None
