"""Samples: a seeded, deterministic sample of kept documents (from the shards, as a trainer sees them) and
of rejected documents per filter rule with the measured value, and per dedup reason with its twin."""

from __future__ import annotations

from corpus.config import Config
from corpus.filters.registry import filter_order
from corpus.report import dirname, side_prefix
from corpus.report.reading import parts_of, stage_manifest
from corpus.report.sampling import Budget, choose_parts, sample_indices
from corpus.report.scan import read_columns
from corpus.report.shards import ShardTexts
from corpus.report.text import Redactor, first_lines


FILTER_DIR, DEDUP_DIR = dirname("filter"), dirname("dedup")


def collect_samples(config: Config, corpus: dict, shards: dict, budget: Budget, redactor: Redactor,
                    rule_order: list[str], width: int = 420) -> dict:
    table = shards["table"]
    texts = ShardTexts(config, corpus)
    kept = []
    for i in sample_indices(table.num_rows, budget.kept_samples, budget, "samples:kept"):
        row = {k: table.column(k)[i].as_py() for k in ("id", "source_id", "license_spdx", "split", "n_chars",
                                                      "pii_redactions")}
        row["text"] = first_lines(texts.text(shards["shard_of"][i], shards["row_of"][i]), width, lines=6)
        kept.append(row)
    rejects = _per_group(config, FILTER_DIR, ["id", "source_id", "filter", "rule", "value", "text"],
                         lambda r: f"{r['filter']}.{r['rule']}", budget, redactor, width)
    order = {k: i for i, k in enumerate(rule_order)}
    filters = filter_order(config["filters"])
    rejects = dict(sorted(rejects.items(), key=lambda kv: (filters.index(kv[0].split(".")[0])
                                                          if kv[0].split(".")[0] in filters else 99,
                                                          order.get(kv[0], 999), kv[0])))
    dedup = _per_group(config, DEDUP_DIR, ["id", "source_id", "reason", "duplicate_of", "eval_source",
                                           "matched_ngram", "text"], lambda r: r["reason"], budget, redactor, width)
    return {"kept": kept, "rejects": rejects, "dedup": dedup, "width": width}


def _per_group(config: Config, stage_dir: str, columns: list[str], key, budget: Budget, redactor: Redactor,
               width: int) -> dict:
    m = stage_manifest(config, stage_dir)
    prefix = side_prefix("filter" if stage_dir == FILTER_DIR else "dedup")
    choice = choose_parts(parts_of(m, prefix), budget, f"samples:{stage_dir}")
    groups: dict[str, list[dict]] = {}
    for p in choice.parts:
        for row in read_columns(config, stage_dir, p, columns).to_pylist():
            groups.setdefault(key(row), []).append(row)
    out = {}
    for k, rows in groups.items():
        rows.sort(key=lambda r: r["id"].encode())
        picked = [rows[i] for i in sample_indices(len(rows), budget.samples_per_rule, budget, f"samples:{stage_dir}:{k}")]
        for r in picked:
            r["text_key"] = redactor.add(r.pop("text"), width)
        out[k] = {"count": len(rows), "rows": picked, "note": choice.note()}
    return out
