"""Load the JSON Schemas in schemas/ and turn a validation failure into one readable line."""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import jsonschema_rs

from corpus.errors import CorpusError

if TYPE_CHECKING:
    import jsonschema

PACKAGED = Path(__file__).resolve().parents[3] / "schemas"
SCHEMA_DIR = Path(os.environ.get("CORPUS_SCHEMAS", PACKAGED))


USER_FILE_MAX_BYTES = 16 << 20  # a config is a few KB: a larger file is not one (and is never read whole)
_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def open_user_file(path: str | os.PathLike, what: str, *, not_found: str, is_dir: str) -> BinaryIO:
    """A file the user names (config, ledger), open for reading: a missing file, a directory, a device, a
    FIFO (opened without waiting for a writer) or an unreadable file is one line naming it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise CorpusError(f"{path}: {not_found}") from None
    except OSError as e:
        raise CorpusError(f"{path}: cannot read the {what}: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise CorpusError(f"{path}: is a directory, not {is_dir}")
        kind = next((name for test, name in _KINDS if test(mode)), "of an unknown kind")
        raise CorpusError(f"{path}: not a regular file ({kind}); the {what} must be a file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_user_file(path: str | os.PathLike, what: str, *, not_found: str, is_dir: str,
                   max_bytes: int = USER_FILE_MAX_BYTES) -> bytes:
    """The bytes of a file the user names (open_user_file), at most `max_bytes` of them."""
    with open_user_file(path, what, not_found=not_found, is_dir=is_dir) as f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise CorpusError(f"{path}: cannot read the {what}: {e.strerror}") from None
    if len(data) > max_bytes:
        raise CorpusError(f"{path}: larger than {max_bytes:,} bytes: not a {what}")
    return data


@functools.cache
def load_schema(name: str) -> dict:
    path = SCHEMA_DIR / name
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    # the packaged schemas are checked against the metaschema by the tests (tests/test_schemas.py), not
    # on every command: that check cost 0.12 s of every run's serial start; schemas from elsewhere are
    if SCHEMA_DIR.resolve() != PACKAGED:
        import jsonschema

        jsonschema.Draft202012Validator.check_schema(schema)
    return schema


# Two validators of one schema: jsonschema-rs answers "valid" in microseconds and imports in a third of the
# time (a run checks ~100 manifests; the Python one cost 0.3 s of every takedown); python-jsonschema, the
# reference, decides and describes whatever jsonschema-rs does not find valid. The schemas' patterns keep
# to ASCII classes ([0-9], [ \t]) so that the two regex dialects cannot differ on them
# (tests/test_schemas.py checks that they agree).
@functools.cache
def _fast_validator(name: str):
    return jsonschema_rs.validator_for(load_schema(name), validate_formats=False)


@functools.cache
def _validator(name: str) -> "jsonschema.Draft202012Validator":
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema(name))


def _where(path) -> str:
    parts = []
    for p in path:
        parts.append(f"[{p}]" if isinstance(p, int) else (("." if parts else "") + str(p)))
    return "".join(parts) or "(top level)"


def describe(error: jsonschema.ValidationError) -> str:
    """`key.sub: what is wrong`, naming unknown keys by their full path."""
    where = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in allowed)
        if unknown:
            close = difflib.get_close_matches(unknown[0], sorted(allowed), n=1)
            return f"unknown key '{_where(where + [unknown[0]])}'" + (
                f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "") + (
                f"; did you mean '{close[0]}'?" if close else "")
    if error.validator == "required":
        return f"{_where(where)}: {error.message}"
    return f"{_where(where)}: {error.message}"


# CORPUS_SCHEMA_CROSSCHECK=1 (the test suite sets it, tests/conftest.py): every document is checked by both
# validators, and one that jsonschema-rs finds valid and the reference does not is an error
CROSSCHECK = "CORPUS_SCHEMA_CROSSCHECK"


def validate(instance: Any, schema_name: str, *, what: str) -> None:
    """Raise CorpusError('<what>: <first problem>') if `instance` does not match the schema."""
    try:
        fast_valid = _fast_validator(schema_name).is_valid(instance)
    except (ValueError, TypeError, OverflowError):  # a value jsonschema-rs cannot take (not JSON): the reference decides
        fast_valid = False
    if fast_valid and os.environ.get(CROSSCHECK) != "1":
        return
    import jsonschema

    errors = sorted(_validator(schema_name).iter_errors(instance), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        if fast_valid:
            raise CorpusError(f"{what}: jsonschema-rs finds it valid, python-jsonschema does not: {describe(best)} "
                              f"(schema {schema_name})")
        raise CorpusError(f"{what}: {describe(best)} (schema {schema_name})")


def with_defaults(instance: dict, schema: dict) -> dict:
    """A copy of `instance` with every missing property that has a schema default filled in, recursively."""
    out = copy.deepcopy(instance)
    _fill(out, schema)
    return out


def _fill(obj: Any, schema: dict) -> None:
    if not isinstance(obj, dict):
        return
    for key, sub in schema.get("properties", {}).items():
        if key not in obj and "default" in sub:
            obj[key] = copy.deepcopy(sub["default"])
        if key in obj:
            _fill(obj[key], sub)


# (schema, blake2b of a file's bytes) that load_json found valid: a run reads each stage's manifest, and
# every published version's, several times (planning, unit reuse, recounts); the same bytes are the same
# document, checked once a process
_VALID: set[tuple[str, bytes]] = set()


def load_json(path, schema_name: str | None = None, *, missing: str = "not found") -> Any:
    """A JSON file, optionally schema-checked; every failure is one line naming the file (and line)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"{path}: {missing}") from None
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}:{e.lineno}: invalid JSON: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: invalid UTF-8: {e.reason}") from None
    if schema_name is not None:
        seen = (schema_name, hashlib.blake2b(raw, digest_size=16).digest())
        if seen not in _VALID:
            validate(data, schema_name, what=str(path))
            _VALID.add(seen)
    return data
