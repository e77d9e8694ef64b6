"""Stage 02 normalize: raw parts → Parquet parts with stable ids and normalised text (corpus.formats.textnorm).

`id = <source_id>:<k>`, k the document's position in its source's raw parts read in path order; the
offset of each part is known from the raw manifest, so ids never depend on the worker count."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import zstandard

from corpus.store.atomic import canonical_json
from corpus.store.checksums import VerifiedReader
from corpus.config import Config
from corpus.config.layout import STAGE_FILE
from corpus.errors import CorpusError
from corpus.config.ledger import load_ledger, select
from corpus.formats.parts import BATCH_ROWS, PartWriter, schema_of
from corpus.engine.raw import current_raw, document_parts
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, input_ref
from corpus.formats.textnorm import normalize_text
from corpus.stages import STAGE, config_hash, columns, reuse_sources

ME = STAGE["normalize"]
OUT_COLUMNS = columns("normalize")
# workers start when a phase first has units to send them: a run whose parts are all reused starts none
LAZY_POOL = True


@dataclass(frozen=True)
class NormalizeUnit:
    key: str              # output part name without extension
    source_id: str
    raw_path: Path
    raw_sha256: str
    first_k: int          # the id number of the part's first document
    rows: int             # the documents its raw manifest records (checked as the part is read)
    options: dict
    out_dir: Path


def _raw_lines(u: NormalizeUnit, reader: VerifiedReader) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of a raw part, decompressed as it is read and hashed."""
    try:
        stream = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(reader, read_across_frames=True,
                                                                               closefd=False), 1 << 20)
        yield from enumerate(stream, 1)
    except zstandard.ZstdError as e:
        raise reader.mismatch() or CorpusError(f"{u.raw_path}: corrupt zstd data: {e}") from None


def normalize_part(u: NormalizeUnit) -> dict:
    """Stream the raw part (hashing it as it is read) and write the Parquet part BATCH_ROWS documents at
    a time: memory is a batch and a row group, not the part."""
    schema = schema_of(OUT_COLUMNS)
    writer = PartWriter(u.out_dir / f"{u.key}.parquet", schema)
    cols: dict[str, list] = {k: [] for k in OUT_COLUMNS}

    def flush() -> None:
        writer.write(pa.record_batch([pa.array(cols[k], type=t) for k, t in OUT_COLUMNS.items()], schema=schema))
        for v in cols.values():
            v.clear()

    n_in = changed = 0
    with VerifiedReader(u.raw_path, u.raw_sha256) as reader:
        for n, line in _raw_lines(u, reader):
            if not line.strip(b"\n"):
                continue
            try:
                rec = json.loads(line)
                raw_text = rec["text"]
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as e:
                raise reader.mismatch() or CorpusError(f"{u.raw_path}:{n}: not a raw document: {e}") from None
            k = u.first_k + n_in
            n_in += 1
            text = normalize_text(raw_text, **u.options)
            changed += text != raw_text
            if not text.strip():
                continue
            meta = rec.get("meta")
            for col, value in (("id", f"{u.source_id}:{k}"), ("text", text), ("source_id", u.source_id),
                               ("url", rec["url"]), ("license_spdx", rec["license_spdx"]),
                               ("meta", None if meta is None else canonical_json(meta))):
                cols[col].append(value)
            if len(cols["id"]) >= BATCH_ROWS:
                flush()
        reader.finish()
    if n_in != u.rows:  # the part is the recorded file (sha256 above): its manifest's count is wrong
        raise CorpusError(f"{u.raw_path}: holds {n_in} rows, {u.raw_path.parent / STAGE_FILE} says {u.rows}")
    flush()
    part = writer.close()
    n_out = part["rows"]
    counts = {"docs_in": n_in, "docs_out": n_out, "dropped_empty": n_in - n_out, "changed": changed,
              "by_source": {u.source_id: {"docs_in": n_in, "docs_out": n_out}}}
    return {"key": u.key, "parts": [part], "counts": counts}


def plan(config: Config, opts: RunOptions) -> list[Job]:
    ledger = load_ledger(config.ledger_path)
    rows = select(ledger, config["dataset"]["sources"], "corpus", what=f"{config.path}: dataset.sources")
    options = dict(config["normalize"])
    sources, inputs = [], []  # (source_id, raw part path, sha256, first k, rows)
    for row in rows:
        raw_dir, manifest = current_raw(config, row, verify=False)  # each unit checks its part as it reads
        inputs.append(input_ref(config, raw_dir))
        k = 0
        for part in document_parts(manifest):
            sources.append((row["source_id"], raw_dir / part["name"], part["sha256"], k, part["rows"]))
            k += part["rows"]

    if not sources:  # no part: the manifest would hold no counts; say what is empty instead
        raise CorpusError(f"{config.path}: dataset.sources {', '.join(r['source_id'] for r in rows)}: their raw "
                          f"outputs hold no documents (every file, line or record was empty or rejected: "
                          f"`corpus fetch` shows the counts); nothing to normalize")

    def units(ctx: PhaseContext) -> list[NormalizeUnit]:
        return [NormalizeUnit(f"part-{i:05d}", *p, options, ctx.staging) for i, p in enumerate(sources)]

    params = {"normalize": options, "sources": [r["source_id"] for r in rows],
              "source_sha256": {r["source_id"]: r["sha256"] for r in rows}}
    def fingerprint(u: NormalizeUnit) -> dict:  # the raw part, where its ids start, the options
        return {"raw_sha256": u.raw_sha256, "source_id": u.source_id, "first_k": u.first_k, "rows": u.rows,
                "options": u.options}

    return [Job("normalize", ME.path(config), {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": inputs},
                [Map("normalize", units, normalize_part, fingerprint=fingerprint)], dataset=config.dataset,
                version=config.version, reuse_from=reuse_sources(config, ME.name))]
