"""Encoding a long document in pieces that give exactly the ids of encoding it whole.

An Encoding costs ~50 bytes per character until its ids are taken, so one 20 MB document held ~3 GB in
tokenize (hostile inputs, case 6). A document is cut only where every tokenizer this module accepts
splits anyway: at a single space between two letters ("word word"). There, the byte-level pre-tokenizer's
regex (`'s|'t|…| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`) ends a pre-token at the first
letter and starts ` ?\\p{L}+` at the space, whatever comes before or after; a second piece starting with
a space gets no prefix space; Unicode normalisers and lowercasing never look across a space; and the model
(BPE, WordPiece, Unigram) works within one pre-token. Any other tokenizer (no pre-tokenizer, Metaspace,
Split, a normaliser that strips or prepends, an added token with a space in it) is encoded whole.

Text without spaces (Chinese, Japanese) has no such cut: one 4 MB Chinese document held ~440 MB (issue 53).
Without a prefix space it is also cut before CJK punctuation (`。，、！？；：` and their full-width kin)
that follows a CJK, kana, Hangul or full-width letter or digit: the regex ends ` ?\\p{L}+` / ` ?\\p{N}+`
there and starts ` ?[^\\s\\p{L}\\p{N}]+`; no normaliser composes or reorders across that punctuation
(a starter that never combines backwards), and the second piece gets nothing prepended. Both character sets
are fixed ranges assigned since Unicode 1.1-3.0, so the cut does not depend on which Unicode version the
tokenizer's regex engine has."""

from __future__ import annotations

import json
import re
from typing import Iterator, Literal

_LOCAL_NORMALIZERS = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase"}

Cuts = Literal["spaces", "spaces and punctuation"]
# CJK letters and digits (ideographs, Extension A, kana, Hangul syllables, full-width Latin letters and
# digits), then the punctuation a piece may start with: ideographic comma, full stop, corner brackets and
# the full-width ! ( ) , : ; ?
_CJK_LETTER = "\u3041-\u3094\u30a1-\u30fa\u3400-\u4db5\u4e00-\u9fa5\uac00-\ud7a3\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
_CJK_PUNCTUATION = "\u3001\u3002\u300c-\u300f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f"
_SPACE_CUT = re.compile(r"(?<=[^\W\d_]) (?=[^\W\d_])")  # hint only: each candidate is checked with isalpha
_ANY_CUT = re.compile(f"(?<=[^\\W\\d_]) (?=[^\\W\\d_])|(?<=[{_CJK_LETTER}])(?=[{_CJK_PUNCTUATION}])")


def _local(normalizer: dict | None) -> bool:
    if normalizer is None:
        return True
    if normalizer.get("type") == "Sequence":
        return all(_local(n) for n in normalizer.get("normalizers", []))
    return normalizer.get("type") in _LOCAL_NORMALIZERS


def cuttable(tokenizer_json: str) -> Cuts | None:
    """Where documents may be cut for this tokenizer (its JSON, to_str()): at "letter space letter", also
    before CJK punctuation when the pre-tokenizer adds no prefix space; None: nowhere."""
    spec = json.loads(tokenizer_json)
    pre = spec.get("pre_tokenizer") or {}
    if pre.get("type") != "ByteLevel" or not pre.get("use_regex", True):
        return None
    post = spec.get("post_processor")
    if post is not None and post.get("type") != "ByteLevel":
        return None
    if any(" " in t.get("content", "") for t in spec.get("added_tokens") or []):
        return None
    if not _local(spec.get("normalizer")):
        return None
    return "spaces" if pre.get("add_prefix_space", True) else "spaces and punctuation"


def pieces(text: str, size: int, cuts: Cuts = "spaces") -> Iterator[str]:
    """`text` in pieces of about `size` characters (at least), each cut before a space that has a letter
    on both sides (or, with "spaces and punctuation", before CJK punctuation after a CJK letter); a text
    with no such place after `size` characters is one piece."""
    pattern = _ANY_CUT if cuts == "spaces and punctuation" else _SPACE_CUT
    start = 0
    while len(text) - start > size:
        cut = _cut_after(text, start + size, pattern)
        if cut is None:
            break
        yield text[start:cut]
        start = cut
    yield text[start:]


def _cut_after(text: str, at: int, pattern: re.Pattern) -> int | None:
    for found in pattern.finditer(text, at):
        i = found.start()
        if text[i] != " " or (text[i - 1].isalpha() and text[i + 1].isalpha()):
            return i
    return None
