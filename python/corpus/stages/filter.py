"""Stage 03 filter: language ID, Gopher quality, Gopher repetition and n-gram perplexity, in that order.

Each document gets `lang` and `lang_score`; the first failing rule drops it to `rejects/part-<n>.parquet`
with the filter, the rule, the measured value and the text, so a user can see exactly why. Models (the
fastText lid.176 model, the n-gram LM) are loaded once per worker process."""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ..atomic import sha256_bytes, write_bytes
from ..config import Config
from ..errors import CorpusError
from ..filters import lang as lang_id
from ..filters.gopher import GopherParams, gopher_quality
from ..filters.ngram_lm import NGramLM
from ..filters.repetition import RepetitionParams, gopher_repetition
from ..ledger import load_ledger
from ..parts import BASE_COLUMNS, read_table, read_verified, validate_columns, write_table
from ..runner import StageRun, input_manifest, require_stage, run_stage
from .fetch import latest_raw
from .normalize import DIRNAME as NORMALIZE_DIR, normalize_text

log = logging.getLogger(__name__)
DIRNAME = "03-filter"
FILTER_ORDER = ("lang", "gopher", "repetition", "ppl")
REJECT_COLUMNS = {"id": pa.string(), "source_id": pa.string(), "url": pa.string(), "filter": pa.string(),
                  "rule": pa.string(), "value": pa.float64(), "text": pa.string()}
OUT_COLUMNS = {**BASE_COLUMNS, "lang": pa.string(), "lang_score": pa.float32()}
PPL_MODEL = "ppl-model.npz"


def gopher_params(cfg: dict) -> GopherParams:
    kw = {k: v for k, v in cfg.items() if k != "enabled"}
    if "stop_words" in kw:
        kw["stop_words"] = tuple(kw["stop_words"])
    return GopherParams(**kw)


def repetition_params(cfg: dict) -> RepetitionParams:
    kw = {k: v for k, v in cfg.items() if k != "enabled"}
    for key in ("top_ngram_char_frac", "dup_ngram_char_frac"):
        if key in kw:
            kw[key] = tuple((int(n), float(f)) for n, f in kw[key])
    return RepetitionParams(**kw)


@functools.cache
def _load_lm(path: str, sha256: str) -> NGramLM:
    return NGramLM.from_bytes(read_verified(Path(path), sha256))


class DocumentFilter:
    """The four filters over one text, configured once per worker. `check` returns
    (lang, lang_score, None) for a kept document or (lang, lang_score, (filter, rule, value))."""

    def __init__(self, filters: dict, lm_path: str = "", lm_sha256: str = ""):
        self.cfg = filters
        self.lang_model = lang_id.load_model(filters["lang"].get("model", "")) if filters["lang"]["enabled"] else None
        self.keep = set(filters["lang"]["keep"])
        self.gopher = gopher_params(filters["gopher"])
        self.repetition = repetition_params(filters["repetition"])
        self.lm = _load_lm(lm_path, lm_sha256) if filters["ppl"]["enabled"] else None

    def check(self, text: str) -> tuple[str, float, tuple[str, str, float] | None]:
        lang, score = lang_id.UNDETERMINED, 0.0
        if self.lang_model is not None:
            lang, score = lang_id.language_of(text, self.lang_model, self.cfg["lang"]["min_score"])
            if lang not in self.keep:
                return lang, score, ("lang", "keep" if lang != lang_id.UNDETERMINED else "min_score", score)
        if self.cfg["gopher"]["enabled"]:
            failed = gopher_quality(text, self.gopher)
            if failed:
                return lang, score, ("gopher", *failed)
        if self.cfg["repetition"]["enabled"]:
            failed = gopher_repetition(text, self.repetition)
            if failed:
                return lang, score, ("repetition", *failed)
        if self.lm is not None:
            ppl = self.lm.perplexity(text)
            if ppl > self.cfg["ppl"]["threshold"]:
                return lang, score, ("ppl", "threshold", ppl)
        return lang, score, None


@functools.cache
def _document_filter(filters_json: str, lm_path: str, lm_sha256: str) -> DocumentFilter:
    """One DocumentFilter per worker process and configuration (the models load once)."""
    return DocumentFilter(json.loads(filters_json), lm_path, lm_sha256)


@dataclass(frozen=True)
class FilterUnit:
    key: str
    in_path: Path
    in_sha256: str
    filters_json: str
    lm_path: str
    lm_sha256: str
    out_dir: Path


def filter_part(u: FilterUnit) -> dict:
    table = read_table(u.in_path, u.in_sha256)
    validate_columns(table, BASE_COLUMNS, u.in_path)
    doc_filter = _document_filter(u.filters_json, u.lm_path, u.lm_sha256)
    keep = {k: [] for k in OUT_COLUMNS}
    rej = {k: [] for k in REJECT_COLUMNS}
    dropped: dict[str, int] = {}
    by_rule: dict[str, int] = {}
    by_source: dict[str, dict[str, int]] = {}
    cols = {k: table.column(k).to_pylist() for k in BASE_COLUMNS}
    for i, text in enumerate(cols["text"]):
        sid = cols["source_id"][i]
        src = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
        src["docs_in"] += 1
        lang, score, failed = doc_filter.check(text)
        if failed is None:
            src["docs_out"] += 1
            for k in BASE_COLUMNS:
                keep[k].append(cols[k][i])
            keep["lang"].append(lang)
            keep["lang_score"].append(score)
            continue
        name, rule, value = failed
        dropped[name] = dropped.get(name, 0) + 1
        by_rule[f"{name}.{rule}"] = by_rule.get(f"{name}.{rule}", 0) + 1
        for k, v in (("id", cols["id"][i]), ("source_id", sid), ("url", cols["url"][i]), ("filter", name),
                     ("rule", rule), ("value", float(value)), ("text", text)):
            rej[k].append(v)
    (u.out_dir / "rejects").mkdir(exist_ok=True)
    kept = pa.table({k: pa.array(v, type=OUT_COLUMNS[k]) for k, v in keep.items()})
    rejects = pa.table({k: pa.array(v, type=REJECT_COLUMNS[k]) for k, v in rej.items()})
    parts = [write_table(kept, u.out_dir / f"{u.key}.parquet"),
             write_table(rejects, u.out_dir / "rejects" / f"{u.key}.parquet")]
    parts[1]["name"] = f"rejects/{u.key}.parquet"
    counts = {"docs_in": table.num_rows, "docs_out": kept.num_rows,
              "dropped": {f: dropped.get(f, 0) for f in FILTER_ORDER}, "dropped_by_rule": by_rule,
              "by_source": by_source}
    return {"key": u.key, "parts": parts, "counts": counts}


def reference_texts(config: Config, source_ids: list[str]) -> list[str]:
    """The perplexity reference: the named sources' raw documents, normalised as stage 02 does."""
    from ..jsonl import read_zst_jsonl

    ledger = load_ledger(config.ledger_path)
    texts = []
    for sid in source_ids:
        if sid not in ledger:
            raise CorpusError(f"{config.path}: filters.ppl.reference: source '{sid}' is not in the ledger")
        raw = latest_raw(config, ledger[sid])  # parts verified against their checksums
        for part in sorted(raw.glob("part-*.jsonl.zst")):
            texts += [normalize_text(r["text"], **config["normalize"]) for r in read_zst_jsonl(part)]
    return texts


def train_reference_lm(config: Config, staging_dir: Path) -> tuple[list[dict], dict]:
    """Train the perplexity model on the reference sources into the staging dir (a `prepare` step)."""
    ppl = config["filters"]["ppl"]
    texts = reference_texts(config, ppl_references(config))
    lm = NGramLM.train(texts, order=ppl["order"], discount=ppl["discount"], min_count=ppl["min_count"],
                       max_vocab=ppl["max_vocab"])
    data = lm.to_bytes()
    path = staging_dir / PPL_MODEL
    write_bytes(path, data)
    log.info("perplexity model: order %d, trained on %d reference documents (%s)", ppl["order"], len(texts),
             ", ".join(ppl_references(config)))
    entry = {"name": PPL_MODEL, "sha256": sha256_bytes(data), "rows": len(texts), "bytes": len(data)}
    return [entry], {"lm_path": str(path), "lm_sha256": entry["sha256"]}


def ppl_references(config: Config) -> list[str]:
    ref = config["filters"]["ppl"]["reference"]
    refs = ref if isinstance(ref, list) else [ref]
    if not refs or not all(refs):
        raise CorpusError(f"{config.path}: filters.ppl.reference must name ledger sources when ppl is enabled")
    return refs


def run_filter(config: Config, *, workers: int, force: bool = False, resume: bool = False) -> dict:
    src = require_stage(config, NORMALIZE_DIR, "normalize")
    manifest, ref = input_manifest(config, src)
    filters = config["filters"]
    params = {"filters": filters, "order": list(FILTER_ORDER)}
    prepare = None
    if filters["ppl"]["enabled"]:
        ledger = load_ledger(config.ledger_path)
        refs = ppl_references(config)
        missing = [r for r in refs if r not in ledger]
        if missing:
            raise CorpusError(f"{config.path}: filters.ppl.reference: source '{missing[0]}' is not in the ledger")
        params["ppl_reference_sha256"] = {r: ledger[r]["sha256"] for r in refs}
        prepare = functools.partial(train_reference_lm, config)
    filters_json = json.dumps(filters, sort_keys=True)

    def units(ctx: dict) -> list[FilterUnit]:
        return [FilterUnit(p["name"].removesuffix(".parquet"), src / p["name"], p["sha256"], filters_json,
                           ctx.get("lm_path", ""), ctx.get("lm_sha256", ""), ctx["out_dir"]) for p in manifest["parts"]]

    return run_stage(config, StageRun("filter", DIRNAME, params, [ref], units, filter_part, prepare),
                     workers=workers, force=force, resume=resume)
