"""Text normalisation of stage 02 (also applied to the perplexity reference and the eval sets, so
they are compared with the corpus in the same form)."""

from __future__ import annotations

import re
import unicodedata

_NEWLINES = re.compile(r"\r\n?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # C0/C1 controls except \t (\x09) and \n (\x0a)
_TRAILING = re.compile(r"[^\S\n]+$", re.MULTILINE)        # any whitespace but \n at a line's end


def normalize_text(text: str, *, nfc: bool = True, newlines: bool = True, control_chars: bool = True,
                   strip_trailing: bool = True) -> str:
    """Newlines to \\n, control characters removed, Unicode NFC, trailing spaces stripped; each step
    switchable ([normalize]). Newlines first, so \\r never counts as a control character."""
    if newlines:
        text = _NEWLINES.sub("\n", text)
    if control_chars:
        text = _CONTROL.sub("", text)
    if nfc:
        text = unicodedata.normalize("NFC", text)
    if strip_trailing:
        text = _TRAILING.sub("", text)
    return text
