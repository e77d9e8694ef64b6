"""The document text of a JSON object or a Parquet row: its `text_fields` joined by newlines."""

from __future__ import annotations

import re

from corpus.errors import CorpusError

# JSON may escape a UTF-16 surrogate on its own ("\ud800"); such a string is no Unicode text and cannot be
# written as UTF-8, so it is refused here, where the file and line are known.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_text(value: str, name: str, where: str) -> str:
    if not value.isascii() and (m := _SURROGATE.search(value)):
        raise CorpusError(f"{where}: field '{name}' has a lone surrogate (\\u{ord(m.group()):04x}) at character "
                          f"{m.start()}: not Unicode text")
    return value


def join_fields(obj: object, fields: list[str], where: str) -> str:
    """The document text of a JSON object / parquet row: its fields joined by newlines."""
    if not isinstance(obj, dict):
        raise CorpusError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    out = []
    for spec in fields:
        name, is_list = (spec[:-2], True) if spec.endswith("[]") else (spec, False)
        if name not in obj:
            raise CorpusError(f"{where}: missing field '{name}'")
        value = obj[name]
        if is_list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise CorpusError(f"{where}: field '{name}' is not a list of strings")
            out.append(_check_text("\n".join(value), name, where))
        elif not isinstance(value, str):
            raise CorpusError(f"{where}: field '{name}' is not a string (got {type(value).__name__})")
        else:
            out.append(_check_text(value, name, where))
    return "\n".join(out)
