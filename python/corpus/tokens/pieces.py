"""Encoding a long document in pieces that give exactly the ids of encoding it whole.

An Encoding costs ~50 bytes per character until its ids are taken, so one 20 MB document held ~3 GB in
tokenize (hostile inputs, case 6). A document is cut only where every tokenizer this module accepts
splits anyway: at a single space between two letters ("word word"). There, the byte-level pre-tokenizer's
regex (`'s|'t|…| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`) ends a pre-token at the first
letter and starts ` ?\\p{L}+` at the space, whatever comes before or after; a second piece starting with
a space gets no prefix space; Unicode normalisers and lowercasing never look across a space; and the model
(BPE, WordPiece, Unigram) works within one pre-token. Any other tokenizer (no pre-tokenizer, Metaspace,
Split, a normaliser that strips or prepends, an added token with a space in it) is encoded whole."""

from __future__ import annotations

import json
from typing import Iterator

_LOCAL_NORMALIZERS = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase"}


def _local(normalizer: dict | None) -> bool:
    if normalizer is None:
        return True
    if normalizer.get("type") == "Sequence":
        return all(_local(n) for n in normalizer.get("normalizers", []))
    return normalizer.get("type") in _LOCAL_NORMALIZERS


def cuttable(tokenizer_json: str) -> bool:
    """Whether documents may be cut at "letter space letter" for this tokenizer (its JSON, to_str())."""
    spec = json.loads(tokenizer_json)
    pre = spec.get("pre_tokenizer") or {}
    if pre.get("type") != "ByteLevel" or not pre.get("use_regex", True):
        return False
    post = spec.get("post_processor")
    if post is not None and post.get("type") != "ByteLevel":
        return False
    if any(" " in t.get("content", "") for t in spec.get("added_tokens") or []):
        return False
    return _local(spec.get("normalizer"))


def pieces(text: str, size: int) -> Iterator[str]:
    """`text` in pieces of about `size` characters (at least), each cut before a space that has a letter
    on both sides; a text with no such space after `size` characters is one piece."""
    start = 0
    while len(text) - start > size:
        cut = _cut_after(text, start + size)
        if cut is None:
            break
        yield text[start:cut]
        start = cut
    yield text[start:]


def _cut_after(text: str, at: int) -> int | None:
    i = text.find(" ", at)
    while i != -1:
        if 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            return i
        i = text.find(" ", i + 1)
    return None
