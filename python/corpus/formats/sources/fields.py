"""The document text of a JSON object or a Parquet row: its `text_fields` joined by newlines."""

from __future__ import annotations

from corpus.errors import CorpusError


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
            out.append("\n".join(value))
        elif not isinstance(value, str):
            raise CorpusError(f"{where}: field '{name}' is not a string (got {type(value).__name__})")
        else:
            out.append(value)
    return "\n".join(out)
