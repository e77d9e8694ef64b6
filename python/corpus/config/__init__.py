"""The corpus config: TOML, validated against schemas/corpus-config.schema.json, defaults filled in."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.store import root as store_root
from corpus.store.s3 import is_remote
from corpus.store.atomic import canonical_json
from corpus.errors import CorpusError
from corpus.config.schemas import load_schema, read_user_file, validate, with_defaults

DEFAULT_CONFIG = "configs/demo.toml"
DEFAULT_ARTIFACTS = "/artifacts"
SCHEMA = "corpus-config.schema.json"
# Tables that say where and how to run, not what to compute: they never change config_sha256.
UNHASHED_TABLES = ("paths", "run")
# Keys that only decide what is warned about (no output byte): left out of every hash of their table.
UNHASHED_KEYS = ("tokenize.min_train_bytes", "fetch.max_failed_files")  # change no output byte
# Keys left out of every hash of their table while they hold this value (keys added after outputs were
# made: a config that does not set one keeps its hashes, and its raw outputs their keys).
UNHASHED_WHEN = {"extract.retry": [], "shard.first_ids": []}


def _default_table(path: str) -> dict:
    """A table's value with only its schema defaults (what a config that does not mention it holds)."""
    props = load_schema(SCHEMA)["properties"]
    *parents, name = path.split(".")
    for part in parents:
        props = props[part]["properties"]
    return with_defaults({}, props[name])


# tables added after outputs were made, off by default: at their defaults they change no hash
UNHASHED_AT_DEFAULT = ("dedup.lines", "dedup.spans")


@functools.cache
def unhashed_when() -> dict:
    """UNHASHED_WHEN with the UNHASHED_AT_DEFAULT tables' default values (the schema is read on first use,
    not at import)."""
    return {**UNHASHED_WHEN, **{t: _default_table(t) for t in UNHASHED_AT_DEFAULT}}


@dataclass(frozen=True)
class Config:
    path: Path
    data: dict[str, Any]                      # validated, defaults filled in
    artifacts: Path                           # a local directory (for an s3 root: its node-local copy)
    overrides: dict[str, Any] = field(default_factory=dict)
    remote: str | None = None                 # the s3://bucket/prefix root `artifacts` is mounted on (store/root.py)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    @property
    def sha256(self) -> str:
        return config_sha256(self.data)

    @property
    def dataset(self) -> str:
        return self.data["dataset"]["name"]

    @property
    def version(self) -> str:
        return self.data["dataset"]["version"]

    @property
    def ledger_path(self) -> Path:
        return Path(self.data["paths"]["ledger"])

    @property
    def mirror(self) -> Path | None:
        m = os.environ.get("CORPUS_MIRROR") or self.data["paths"].get("mirror", "")
        return Path(m) if m else None

    @property
    def dataset_dir(self) -> Path:
        """corpus/<dataset>/<version> under the artifacts root."""
        return self.artifacts / "corpus" / self.dataset / self.version

    def stage_dir(self, stage: str) -> Path:
        return self.dataset_dir / "stages" / stage

    @property
    def raw_dir(self) -> Path:
        return self.artifacts / "corpus" / "raw"

    @property
    def downloads_dir(self) -> Path:
        return self.artifacts / "corpus" / "downloads"


def config_slice(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """{key: value} of `keys`: tables such as "filters", or one key of a table such as "dataset.sources"."""
    out = {}
    for key in keys:
        table, _, name = key.partition(".")
        if table not in data:  # an optional table without a default ([mix]): absent, it changes no hash
            continue
        out[key] = data[table][name] if name else _hashed_keys(table, data[table])
    return out


def hashed_table(table: str, values):
    """A table as hashes and manifests record it: without its UNHASHED_KEYS, and without the
    UNHASHED_WHEN keys that hold their unhashed value."""
    return _hashed_keys(table, values)


def _hashed_keys(table: str, values):
    """A table without its UNHASHED_KEYS."""
    if not isinstance(values, dict):
        return values
    return {k: v for k, v in values.items() if f"{table}.{k}" not in UNHASHED_KEYS
            and not (f"{table}.{k}" in unhashed_when() and v == unhashed_when()[f"{table}.{k}"])}


def config_sha256(data: dict[str, Any], keys: tuple[str, ...] | None = None) -> str:
    """The sha256 of the config's hashed tables, or of only `keys` (config_slice): a stage's identity
    hashes the keys it and its inputs read."""
    hashed = ({k: _hashed_keys(k, v) for k, v in data.items() if k not in UNHASHED_TABLES} if keys is None
              else config_slice(data, keys))
    return hashlib.sha256(canonical_json(hashed).encode("utf-8")).hexdigest()


def load_config(path: str | os.PathLike | None = None, *, artifacts: str | None = None) -> Config:
    """Read, validate and complete a config. Artifacts root: argument > CORPUS_ARTIFACTS > [paths].artifacts > /artifacts."""
    given = str(path or os.environ.get("CORPUS_CONFIG") or DEFAULT_CONFIG)
    if "\x00" in given:
        raise CorpusError(f"{given!r}: a config path cannot hold a NUL character")
    path = Path(given)
    data_bytes = read_user_file(path, "config", not_found="config file not found",
                                is_dir="a config file (pass the .toml file)")
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as e:
        bom = " (it starts with a UTF-16 byte-order mark)" if data_bytes[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise CorpusError(f"{path}: not UTF-8 at byte {e.start}{bom}; TOML files are UTF-8: save it as UTF-8") from None
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark (Windows editors write one): not TOML's to read
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CorpusError(f"{path}: invalid TOML: {e}") from None
    _refuse_non_finite(raw, path, text)
    try:
        validate(raw, SCHEMA, what=str(path))
    except CorpusError as e:  # name the line of an unknown key
        m = re.search(r"unknown key '([^']+)'", str(e))
        line = _line_of(text, m.group(1)) if m else None
        if line is None:
            raise
        raise CorpusError(str(e).replace(f"{path}: ", f"{path}:{line}: ", 1)) from None
    data = with_defaults(raw, load_schema(SCHEMA))
    root = artifacts or os.environ.get("CORPUS_ARTIFACTS") or data["paths"].get("artifacts") or DEFAULT_ARTIFACTS
    if "\x00" in root:
        raise CorpusError(f"{root!r}: an artifacts root cannot hold a NUL character (--artifacts, CORPUS_ARTIFACTS "
                          f"or [paths] artifacts in {path})")
    if is_remote(root):  # stages work in a node-local copy; store/root.py moves objects to and from it
        local = store_root.local_dir_for(root, data["paths"].get("local_dir") or None)
        store_root.mount(local, root)
        return Config(path=path, data=data, artifacts=local, remote=root.rstrip("/"))
    return Config(path=path, data=data, artifacts=Path(root))


def _non_finite(value: Any, where: str = ""):
    """(dotted key, value) of the first nan or inf float under `value`, in file order; None if none."""
    if isinstance(value, float) and not math.isfinite(value):
        return where, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, sub in items:
        found = _non_finite(sub, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else key)
        if found:
            return found
    return None


def _refuse_non_finite(raw: dict, path: Path, text: str) -> None:
    """TOML allows nan and inf, and the schema's number bounds let nan through (every comparison with it is
    false): a nan threshold turns a rule off or drops everything, an inf timeout never fires."""
    found = _non_finite(raw)
    if found is None:
        return
    key, value = found
    line = _line_of(text, re.sub(r"\[\d+\]", "", key))
    where = f"{path}:{line}" if line else str(path)
    raise CorpusError(f"{where}: {key}: {value} is not a finite number; give a number (TOML's nan and inf "
                      f"are refused in a config)")


def _line_of(text: str, dotted: str) -> int | None:
    """The line of a TOML text where key `a.b.c` is set (`c = ...` under `[a.b]`, or `b.c =` under `[a]`,
    ...), or where table `a.b` starts; None when it is not found."""
    table = ""
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("[") and not s.startswith("[["):
            table = s.strip("[] ").replace(" ", "")
            if table == dotted:
                return n
            continue
        key = s.split("=", 1)[0].strip().replace(" ", "") if "=" in s and not s.startswith("#") else None
        if key and (f"{table}.{key}" if table else key) == dotted:
            return n
    return None


def toml_value(v: Any) -> str:
    """A TOML literal for the value types a config holds (bool, number, string, list, inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):  # an inline table, keys quoted (a quoted key is valid whatever it holds)
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def dump_toml(data: dict) -> str:
    """A config as TOML text: nested dicts become [tables] (e.g. [filters.lang])."""
    lines: list[str] = []

    def table(prefix: str, d: dict) -> None:
        scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
        if scalars or not prefix:
            if prefix:
                lines.append(f"\n[{prefix}]")
            lines.extend(f"{k} = {toml_value(v)}" for k, v in scalars.items())
        for k, v in d.items():
            if isinstance(v, dict):
                table(f"{prefix}.{k}" if prefix else k, v)

    table("", data)
    return "\n".join(lines).lstrip("\n") + "\n"
