"""Snippets of documents for the page: whitespace-collapsed prefixes and first lines, and the PII scrub
applied to any text written before stage 05 (rejects, dedup drops), so the page never shows a value the
corpus itself would have redacted."""

from __future__ import annotations

from corpus.config import Config

SCRUB_MARGIN = 400   # characters scrubbed beyond what is shown, so no PII span is cut by the truncation


def prefix(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def first_lines(text: str, width: int, lines: int = 3) -> str:
    """The first non-blank lines (stripped), joined by newlines, cut at `width` characters."""
    out = [ln.strip() for ln in text.splitlines() if ln.strip()][:lines]
    joined = "\n".join(out)
    return joined if len(joined) <= width else joined[: width - 1].rstrip() + "…"


class Redactor:
    """Collects pre-PII texts, scrubs them in one batch with the dataset's [pii] settings."""

    def __init__(self, config: Config):
        self.config = config
        self._texts: list[str] = []
        self._done: list[str] | None = None

    def add(self, text: str, width: int) -> int:
        self._texts.append(text[: width + SCRUB_MARGIN])
        return len(self._texts) - 1

    def run(self) -> None:
        from corpus.pii.scrub import scrub_batch
        from corpus.stages.pii import pii_params

        self._done = [t for t, _ in scrub_batch(self._texts, pii_params(self.config["pii"]))] if self._texts else []

    def __getitem__(self, key: int) -> str:
        if self._done is None:
            raise RuntimeError("Redactor.run() has not been called")
        return self._done[key]
