"""Stage 05 pii: replace e-mails, phones, payment cards, IP addresses and secret keys by typed
placeholders (<EMAIL> <PHONE> <CARD> <IP> <KEY>), count them per document and per type.

Detection is presidio-analyzer's (see corpus.pii); engines are built once per worker, and a cheap
pre-check keeps presidio away from documents that cannot hold PII without changing any output."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ..config import Config
from ..parts import BASE_COLUMNS, read_table, validate_columns, write_table
from ..pii.scrub import PiiParams, scrub_batch
from ..runner import StageRun, input_manifest, require_stage, run_stage

DIRNAME = "05-pii"
INPUT_DIR = "04-dedup"
IN_COLUMNS = {**BASE_COLUMNS, "lang": pa.string(), "lang_score": pa.float32(), "minhash_cluster": pa.int64()}
TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")


def pii_params(cfg: dict) -> PiiParams:
    return PiiParams(entities=tuple(cfg["entities"]), phone_regions=tuple(cfg["phone_regions"]),
                     score_threshold=float(cfg["score_threshold"]), precheck=bool(cfg["precheck"]))


@dataclass(frozen=True)
class PiiUnit:
    key: str
    in_path: Path
    in_sha256: str
    params: PiiParams
    out_dir: Path


def scrub_part(u: PiiUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256)
    validate_columns(table, IN_COLUMNS, u.in_path)
    results = scrub_batch(table.column("text").to_pylist(), u.params)
    totals = {t: 0 for t in TYPES}
    per_doc = []
    for _, counts in results:
        for t, n in counts.items():
            totals[t] += n
        per_doc.append(sum(counts.values()))
    out = table.select(list(IN_COLUMNS))
    out = out.set_column(out.schema.get_field_index("text"), "text", pa.array([t for t, _ in results], pa.string()))
    out = out.append_column("pii_redactions", pa.array(per_doc, pa.int32()))
    part = write_table(out, u.out_dir / f"{u.key}.parquet")
    return {"key": u.key, "parts": [part],
            "counts": {"docs_in": table.num_rows, "docs_out": out.num_rows, "redactions": totals,
                       "docs_redacted": sum(1 for n in per_doc if n)}}


def run_pii(config: Config, *, workers: int, force: bool = False, resume: bool = False) -> dict:
    src = require_stage(config, INPUT_DIR, "dedup")
    manifest, ref = input_manifest(config, src)
    params = pii_params(config["pii"])

    def units(ctx: dict) -> list[PiiUnit]:
        return [PiiUnit(p["name"].removesuffix(".parquet"), src / p["name"], p["sha256"], params, ctx["out_dir"])
                for p in manifest["parts"] if p["name"].startswith("part-")]

    return run_stage(config, StageRun("pii", DIRNAME, {"pii": config["pii"]}, [ref], units, scrub_part),
                     workers=workers, force=force, resume=resume)
