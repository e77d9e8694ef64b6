"""Stage 05 pii: replace e-mails, phones, payment cards, IP addresses and secret keys by typed
placeholders (<EMAIL> <PHONE> <CARD> <IP> <KEY>), count them per document and per type.

Detection is presidio-analyzer's (see corpus.pii); engines are built once per worker, and a cheap
pre-check keeps presidio away from documents that cannot hold PII without changing any output. Each
document's result is kept in the cache (PiiMemo), so a new version whose documents were scrubbed before
with the same [pii] settings (a filter threshold edit) scrubs none of them again."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from corpus.config import Config
from corpus.engine.cache import PartMemo, cache_key, cache_root, cache_use_step
from corpus.engine.executor import warm_import
from corpus.formats.parts import PartReader, PartWriter, validate_columns
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step, Whole, published_stage
from corpus.stages import STAGE, config_hash, columns, input_columns, input_content, reuse_sources

if TYPE_CHECKING:
    from corpus.pii.params import PiiParams

ME = STAGE["pii"]
IN_COLUMNS = input_columns("pii")
OUT_COLUMNS = columns("pii")
TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")


# presidio (corpus.pii.scrub, ~2.5 s to import) is imported where a document the scrub cache does not know is
# scrubbed, not with this module nor with a unit (its settings are corpus.pii.params'): a run whose pii stage
# is current, or whose documents were all scrubbed before, never loads it


def pii_params(cfg: dict) -> PiiParams:
    from corpus.pii.params import params_from_config

    return params_from_config(cfg)


@dataclass(frozen=True)
class PiiUnit:
    key: str
    in_path: Path
    in_sha256: str
    params: PiiParams
    out_dir: Path
    memo: str | None = None  # the cache root and identity of the per-document results (None: [run] cache off)
    identity: str = ""


MEMO_COLUMNS = {"digest": pa.binary(16), "text": pa.string(), **{t.lower(): pa.int32() for t in TYPES}}


class PiiMemo:
    """The scrub's result per document (its text after, null when unchanged, and its counts per type), kept
    in the cache (an engine.cache.PartMemo) under the [pii] settings' identity and the part's name: a
    document scrubbed by an earlier run with the same settings and code is not scrubbed again, whichever part
    it is in now (a filter edit changes the parts, not the documents)."""

    def __init__(self, root: Path, identity: str, part: str):
        self.memo = PartMemo(root, f"pii-memo/{identity}", {"identity": identity, "part": part}, MEMO_COLUMNS)
        self.hits = self.computed = 0

    @staticmethod
    def digest(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def scrub(self, texts: list[str], params: PiiParams) -> list[tuple[str, dict[str, int]]]:
        """scrub_batch's results, scrubbing only the documents not known."""
        digests = [self.digest(t) for t in texts]
        known = [self.memo.get(d) for d in digests]
        todo = [i for i, row in enumerate(known) if row is None]
        fresh = {}
        if todo:
            from corpus.pii.scrub import scrub_batch

            fresh = dict(zip(todo, scrub_batch([texts[i] for i in todo], params)))
        self.computed += len(todo)
        self.hits += len(texts) - len(todo)
        out = []
        for i, (text, d, row) in enumerate(zip(texts, digests, known)):
            if i in fresh:
                after, counts = fresh[i]
                self.memo.put(d, (after if after != text else None, *(counts.get(t, 0) for t in TYPES)))
            else:
                stored, *numbers = row
                after, counts = (stored if stored is not None else text), {t: n for t, n in zip(TYPES, numbers) if n}
            out.append((after, counts))
        return out

    def save(self) -> None:
        self.memo.save()


def scrub_part(u: PiiUnit) -> dict:
    """Stream the part in batches of BATCH_ROWS documents (hashing it as it is read) and write the scrubbed
    part a row group at a time: memory is a batch and a row group, not the part."""
    reader = PartReader(u.in_path, u.in_sha256)
    validate_columns(reader.schema, IN_COLUMNS, u.in_path)
    writer = None
    totals = {t: 0 for t in TYPES}
    docs_in = redacted = 0
    memo = PiiMemo(Path(u.memo), u.identity, u.key) if u.memo is not None else None
    for batch in reader.batches():
        docs_in += batch.num_rows
        texts = batch.column("text").to_pylist()
        if memo is not None:
            results = memo.scrub(texts, u.params)
        else:
            from corpus.pii.scrub import scrub_batch

            results = scrub_batch(texts, u.params)
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
    if memo is not None:
        memo.save()
    res = {"key": u.key, "parts": [part],
           "counts": {"docs_in": docs_in, "docs_out": part["rows"], "redactions": totals, "docs_redacted": redacted}}
    if memo is not None:
        res["cache"] = {"hits": memo.hits, "computed": memo.computed}
    return res


def warm(config: Config) -> tuple:
    """What each pool worker runs as it starts. With the cache on, nothing: presidio (~2.5 s) is imported
    and the engines built when a document the cache does not know comes (a run whose documents were all
    scrubbed before never loads them); else build them while the driver plans."""
    if cache_root(config) is not None:
        return warm_import(__name__)  # what unpickling a unit imports
    from corpus.pii.scrub import detectors

    return detectors, pii_params(config["pii"]).engine_key


def plan(config: Config, opts: RunOptions) -> list[Job]:
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads, upstream=config_hash(config, ME.reads))
    root = cache_root(config)
    memo = str(root) if root is not None else None
    identity = cache_key({"pii": config["pii"]})

    def units(ctx: PhaseContext) -> list[PiiUnit]:
        params = pii_params(config["pii"])
        return [PiiUnit(p["name"].removesuffix(".parquet"), src / p["name"], p["sha256"], params, ctx.staging, memo,
                        identity) for p in manifest["parts"] if p["name"].startswith("part-")]

    def fingerprint(u: PiiUnit) -> dict:  # the input part and the [pii] settings
        return {"in_sha256": u.in_sha256, "pii": config["pii"]}

    return [Job("pii", ME.path(config), {"config_sha256": config_hash(config, ME.name), "params": {"pii": config["pii"]},
                                         "inputs": [ref]},
                [Map("pii", units, scrub_part, fingerprint=fingerprint),
                 Step("cache", cache_use_step("pii", "pii_cache", "documents' scrub results"))],
                dataset=config.dataset, version=config.version,
                reuse_from=reuse_sources(config, ME.name),
                whole=Whole({"pii": config["pii"], "parts": input_content(manifest)}))]


def report(result) -> list[str]:
    red = result.manifest["counts"].get("redactions", {})
    return ["  redactions: " + ", ".join(f"{k} {v}" for k, v in red.items())]
