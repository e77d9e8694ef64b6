"""How sources are read (`ReadLimits`, from the config's `[fetch]` table) and the document-size checks."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.errors import CorpusError

MiB = 1 << 20


@dataclass(frozen=True)
class ReadLimits:
    """How sources are read. The first three are `[fetch]` keys; the last two are tuning knobs that never
    change a document (tests set them tiny so that every cut falls inside lines, characters and frames).

    - `max_doc_bytes`: a document whose source text is larger (UTF-8 bytes: a line with its terminator, a
      paragraph's lines, the text between two regex/delimiter cuts, a whole file or member for split `file`,
      a Parquet row's or JSON array element's joined text), and any line of a line-oriented source (split
      `line`/`paragraph`, JSONL) that is larger, is an error naming the locator: it is refused, not skipped.
    - `max_inflate_ratio` / `max_inflate_bytes`: a compressed stream or zip member that inflates to more than
      max(16 MiB, ratio x its compressed size), or to more than the byte limit, is refused."""

    max_doc_bytes: int = 64 * MiB
    max_inflate_ratio: float = 200.0
    max_inflate_bytes: int = 256 << 30
    chunk_bytes: int = MiB        # bytes read (and decompressed) at a time
    regex_window: int = MiB       # characters a regex/delimiter match and its lookaround may examine

    @classmethod
    def from_fetch(cls, fetch: dict) -> "ReadLimits":
        """The limits of a validated `[fetch]` table (missing keys take the defaults)."""
        keys = ("max_doc_bytes", "max_inflate_ratio", "max_inflate_bytes")
        return cls(**{k: fetch[k] for k in keys if k in fetch})


DEFAULT_LIMITS = ReadLimits()


def utf8_len(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def over(s: str, limit: int) -> bool:
    """len(s in UTF-8) > limit, without encoding in the common case."""
    return len(s) > limit or (len(s) * 4 > limit and utf8_len(s) > limit)


def too_big(locator: str, what: str, limit: int) -> CorpusError:
    return CorpusError(f"{locator}: {what} larger than [fetch].max_doc_bytes ({limit} bytes); refused "
                       f"(raise the limit or split the source)")
