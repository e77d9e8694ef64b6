"""Stage 05 pii: replace e-mails, phones, payment cards, IP addresses and secret keys by typed
placeholders (<EMAIL> <PHONE> <CARD> <IP> <KEY>), count them per document and per type.

Detection is presidio-analyzer's (see corpus.pii); engines are built once per worker, and a cheap
pre-check keeps presidio away from documents that cannot hold PII without changing any output."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus.config import Config
from corpus.formats.parts import PartReader, PartWriter, validate_columns
from corpus.pii.scrub import PiiParams, detectors, params_from_config, scrub_batch
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, published_stage
from corpus.stages import STAGE, config_hash, columns, input_columns, reuse_sources

ME = STAGE["pii"]
IN_COLUMNS = input_columns("pii")
OUT_COLUMNS = columns("pii")
TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")


def pii_params(cfg: dict) -> PiiParams:
    return params_from_config(cfg)


@dataclass(frozen=True)
class PiiUnit:
    key: str
    in_path: Path
    in_sha256: str
    params: PiiParams
    out_dir: Path


def scrub_part(u: PiiUnit) -> dict:
    """Stream the part in batches of BATCH_ROWS documents (hashing it as it is read) and write the scrubbed
    part a row group at a time: memory is a batch and a row group, not the part."""
    reader = PartReader(u.in_path, u.in_sha256)
    validate_columns(reader.schema, IN_COLUMNS, u.in_path)
    writer = None
    totals = {t: 0 for t in TYPES}
    docs_in = redacted = 0
    for batch in reader.batches():
        docs_in += batch.num_rows
        results = scrub_batch(batch.column("text").to_pylist(), u.params)
        per_doc = []
        for _, counts in results:
            for t, n in counts.items():
                totals[t] += n
            per_doc.append(sum(counts.values()))
        redacted += sum(1 for n in per_doc if n)
        out = pa.Table.from_batches([batch]).select(list(IN_COLUMNS))
        out = out.set_column(out.schema.get_field_index("text"), "text", pa.array([t for t, _ in results], pa.string()))
        out = out.append_column("pii_redactions", pa.array(per_doc, OUT_COLUMNS["pii_redactions"]))
        if writer is None:
            writer = PartWriter(u.out_dir / f"{u.key}.parquet", out.schema)
        writer.write(out)
    if writer is None:  # an empty part: the schema the batches would have had
        schema = reader.schema
        fields = [schema.field(c) for c in IN_COLUMNS]
        writer = PartWriter(u.out_dir / f"{u.key}.parquet",
                            pa.schema(fields + [pa.field("pii_redactions", OUT_COLUMNS["pii_redactions"])],
                                      metadata=schema.metadata))
    part = writer.close()
    return {"key": u.key, "parts": [part],
            "counts": {"docs_in": docs_in, "docs_out": part["rows"], "redactions": totals,
                       "docs_redacted": redacted}}


def warm(config: Config) -> tuple:
    """What each pool worker runs as it starts: build the engines (presidio, ~1 s) while the driver plans."""
    return detectors, pii_params(config["pii"]).engine_key


def plan(config: Config, opts: RunOptions) -> list[Job]:
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads, upstream=config_hash(config, ME.reads))
    params = pii_params(config["pii"])

    def units(ctx: PhaseContext) -> list[PiiUnit]:
        return [PiiUnit(p["name"].removesuffix(".parquet"), src / p["name"], p["sha256"], params, ctx.staging)
                for p in manifest["parts"] if p["name"].startswith("part-")]

    def fingerprint(u: PiiUnit) -> dict:  # the input part and the [pii] settings
        return {"in_sha256": u.in_sha256, "pii": config["pii"]}

    return [Job("pii", ME.path(config), {"config_sha256": config_hash(config, ME.name), "params": {"pii": config["pii"]},
                                         "inputs": [ref]},
                [Map("pii", units, scrub_part, fingerprint=fingerprint)], dataset=config.dataset, version=config.version,
                reuse_from=reuse_sources(config, ME.name))]


def report(result) -> list[str]:
    red = result.manifest["counts"].get("redactions", {})
    return ["  redactions: " + ", ".join(f"{k} {v}" for k, v in red.items())]
