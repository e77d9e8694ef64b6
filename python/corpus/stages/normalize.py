"""Stage 02 normalize: raw parts → Parquet parts with stable ids and normalised text (corpus.textnorm).

`id = <source_id>:<k>`, k the document's position in its source's raw parts read in path order; the
offset of each part is known from the raw manifest, so ids never depend on the worker count."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import zstandard

from ..checksums import read_verified
from ..config import Config
from ..errors import CorpusError
from ..ledger import load_ledger, select
from ..parts import write_table
from ..raw import current_raw
from ..runner import Job, Map, PhaseContext, RunOptions, input_ref
from ..textnorm import normalize_text
from . import STAGE, columns

ME = STAGE["normalize"]
OUT_COLUMNS = columns("normalize")


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
    cols: dict[str, list] = {k: [] for k in OUT_COLUMNS}
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
    table = pa.table({k: pa.array(v, type=OUT_COLUMNS[k]) for k, v in cols.items()})
    part = write_table(table, u.out_dir / f"{u.key}.parquet")
    n_out = table.num_rows
    counts = {"docs_in": n_in, "docs_out": n_out, "dropped_empty": n_in - n_out, "changed": changed,
              "by_source": {u.source_id: {"docs_in": n_in, "docs_out": n_out}}}
    return {"key": u.key, "parts": [part], "counts": counts}


def plan(config: Config, opts: RunOptions) -> list[Job]:
    ledger = load_ledger(config.ledger_path)
    rows = select(ledger, config["dataset"]["sources"], "corpus", what=f"{config.path}: dataset.sources")
    options = dict(config["normalize"])
    sources, inputs = [], []  # (source_id, raw part path, sha256, first k)
    for row in rows:
        raw_dir, manifest = current_raw(config, row)
        inputs.append(input_ref(config, raw_dir))
        k = 0
        for part in manifest["parts"]:
            sources.append((row["source_id"], raw_dir / part["name"], part["sha256"], k))
            k += part["rows"]

    def units(ctx: PhaseContext) -> list[NormalizeUnit]:
        return [NormalizeUnit(f"part-{i:05d}", *p, options, ctx.staging) for i, p in enumerate(sources)]

    params = {"normalize": options, "sources": [r["source_id"] for r in rows],
              "source_sha256": {r["source_id"]: r["sha256"] for r in rows}}
    return [Job("normalize", ME.path(config), {"config_sha256": config.sha256, "params": params, "inputs": inputs},
                [Map("normalize", units, normalize_part)], dataset=config.dataset, version=config.version)]
