"""Stage 02 normalize: raw parts → Parquet parts with stable ids and normalised text.

`id = <source_id>:<k>`, k the document's position in its source's raw parts read in path order; the
offset of each part is known from the raw manifest, so ids never depend on the worker count."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import zstandard

from ..config import Config
from ..errors import CorpusError
from ..ledger import load_ledger, select
from ..parts import BASE_COLUMNS, read_verified, write_table
from ..runner import StageRun, input_manifest, run_stage
from .fetch import latest_raw

DIRNAME = "02-normalize"
_NEWLINES = re.compile(r"\r\n?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # C0/C1 controls except \t (\x09) and \n (\x0a)
_TRAILING = re.compile(r"[^\S\n]+$", re.MULTILINE)        # any whitespace but \n at a line's end


def normalize_text(text: str, *, nfc: bool = True, newlines: bool = True, control_chars: bool = True,
                   strip_trailing: bool = True) -> str:
    """The normalisation of DESIGN §6, each step switchable. Newlines first, so \\r never counts as a
    control character when both are on."""
    if newlines:
        text = _NEWLINES.sub("\n", text)
    if control_chars:
        text = _CONTROL.sub("", text)
    if nfc:
        text = unicodedata.normalize("NFC", text)
    if strip_trailing:
        text = _TRAILING.sub("", text)
    return text


@dataclass(frozen=True)
class NormalizeUnit:
    key: str              # output part name without extension
    source_id: str
    raw_path: Path
    raw_sha256: str
    first_k: int          # the id number of the part's first document
    options: dict
    out_dir: Path


def normalize_part(u: NormalizeUnit) -> dict:
    data = read_verified(u.raw_path, u.raw_sha256)
    try:
        lines = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True).read()
    except zstandard.ZstdError as e:
        raise CorpusError(f"{u.raw_path}: corrupt zstd data: {e}") from None
    cols: dict[str, list] = {k: [] for k in BASE_COLUMNS}
    n_in = changed = 0
    for n, line in enumerate(lines.split(b"\n"), 1):
        if not line:
            continue
        try:
            rec = json.loads(line)
            raw_text = rec["text"]
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as e:
            raise CorpusError(f"{u.raw_path}:{n}: not a raw document: {e}") from None
        k = u.first_k + n_in
        n_in += 1
        text = normalize_text(raw_text, **u.options)
        changed += text != raw_text
        if not text.strip():
            continue
        for col, value in (("id", f"{u.source_id}:{k}"), ("text", text), ("source_id", u.source_id),
                           ("url", rec["url"]), ("license_spdx", rec["license_spdx"])):
            cols[col].append(value)
    table = pa.table({k: pa.array(v, type=BASE_COLUMNS[k]) for k, v in cols.items()})
    part = write_table(table, u.out_dir / f"{u.key}.parquet")
    n_out = table.num_rows
    counts = {"docs_in": n_in, "docs_out": n_out, "dropped_empty": n_in - n_out, "changed": changed,
              "by_source": {u.source_id: {"docs_in": n_in, "docs_out": n_out}}}
    return {"key": u.key, "parts": [part], "counts": counts}


def run_normalize(config: Config, *, workers: int, force: bool = False, resume: bool = False) -> dict:
    ledger = load_ledger(config.ledger_path)
    rows = select(ledger, config["dataset"]["sources"], "corpus", what=f"{config.path}: dataset.sources")
    options = dict(config["normalize"])
    plan, inputs = [], []  # (source_id, raw part path, sha256, first k)
    for row in rows:
        raw_dir = latest_raw(config, row)
        manifest, ref = input_manifest(config, raw_dir)
        inputs.append(ref)
        k = 0
        for part in manifest["parts"]:
            plan.append((row["source_id"], raw_dir / part["name"], part["sha256"], k))
            k += part["rows"]

    def units(ctx: dict) -> list[NormalizeUnit]:
        return [NormalizeUnit(f"part-{i:05d}", *p, options, ctx["out_dir"]) for i, p in enumerate(plan)]

    params = {"normalize": options, "sources": [r["source_id"] for r in rows],
              "source_sha256": {r["source_id"]: r["sha256"] for r in rows}}
    return run_stage(config, StageRun("normalize", DIRNAME, params, inputs, units, normalize_part),
                     workers=workers, force=force, resume=resume)
