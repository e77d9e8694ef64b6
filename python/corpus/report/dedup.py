"""Dedup: near-duplicate cluster sizes from `minhash_cluster`, the largest clusters (two members' first
lines side by side), and decontamination hits per eval set with the matched n-gram.

A cluster is the kept documents sharing a `minhash_cluster` plus the documents dropped as exact or near
duplicates of one of them (`duplicate_of`); documents dropped for decontamination are not counted."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from corpus.config import Config
from corpus.report import dirname, side_prefix
from corpus.report.reading import parts_of, stage_manifest, within
from corpus.report.sampling import Budget
from corpus.report.scan import read_columns
from corpus.report.text import Redactor

DIRNAME = dirname("dedup")
TOP_CLUSTERS = 6
DECONTAM_SHOWN = 12


def collect_dedup(config: Config, redactor: Redactor, budget: Budget, width: int = 240) -> dict:
    m = stage_manifest(config, DIRNAME)
    kept_parts, drop_parts = parts_of(m), parts_of(m, side_prefix("dedup"))
    verify = within(kept_parts + drop_parts, budget)  # above the budget: the small columns alone, unchecked
    cluster_of: dict[str, int] = {}
    members: dict[object, list[tuple[str, str]]] = {}   # cluster -> [(id, "kept" | reason)]
    for p in kept_parts:
        t = read_columns(config, DIRNAME, p, ["id", "minhash_cluster"], verify=verify)
        for i, c in zip(t.column("id").to_pylist(), t.column("minhash_cluster").to_pylist()):
            cluster_of[i] = c
            members.setdefault(c, []).append((i, "kept"))
    dropped = pa.concat_tables([read_columns(config, DIRNAME, p, ["id", "source_id", "reason", "duplicate_of",
                                                                  "eval_source", "matched_ngram"], verify=verify)
                                for p in drop_parts]) if drop_parts else None
    decontam = []
    for row in (dropped.to_pylist() if dropped is not None else []):
        if row["reason"] == "decontam":
            decontam.append(row)
        elif row["duplicate_of"] is not None:
            c = cluster_of.get(row["duplicate_of"], ("of", row["duplicate_of"]))
            members.setdefault(c, []).append((row["id"], row["reason"]))
    sizes: dict[int, int] = {}
    for ms in members.values():
        sizes[len(ms)] = sizes.get(len(ms), 0) + 1
    order = sorted((c for c, ms in members.items() if len(ms) > 1),
                   key=lambda c: (-len(members[c]), min(i.encode() for i, _ in members[c])))
    top = []
    for c in order[:TOP_CLUSTERS]:
        ms = sorted(members[c], key=lambda x: x[0].encode())
        first = next((x for x in ms if x[1] == "kept"), ms[0])
        second = next(x for x in ms if x is not first)
        top.append({"size": len(ms), "reasons": sorted({r for _, r in ms if r != "kept"}), "a": first, "b": second})
    by_eval: dict[str, int] = {}
    for row in decontam:
        by_eval[row["eval_source"]] = by_eval.get(row["eval_source"], 0) + 1
    decontam.sort(key=lambda r: (r["eval_source"], r["id"].encode()))
    shown = decontam[:DECONTAM_SHOWN]
    texts = _texts(config, kept_parts, drop_parts, {x[0] for t in top for x in (t["a"], t["b"])} |
                   {r["id"] for r in shown}, verify)
    keys = {i: redactor.add(t, width) for i, t in texts.items()}
    return {"sizes": dict(sorted(sizes.items())), "top": top, "keys": keys, "width": width,
            "decontam": shown, "decontam_total": len(decontam), "by_eval": dict(sorted(by_eval.items())),
            "evals": list(config["decontam"]["evals"]), "counts": m["counts"]["dropped"],
            "units_removed": m["counts"].get("units_removed", {}),  # [dedup.lines]/[dedup.spans], per source
            "params": {k: config["dedup"][k] for k in ("mode", "jaccard_threshold", "num_perm", "bands", "ngram_words")},
            "decontam_ngram": config["decontam"]["ngram"], "multi": sum(n for s, n in sizes.items() if s > 1)}


def _texts(config: Config, kept_parts, drop_parts, ids: set[str], verify: bool) -> dict[str, str]:
    """Texts of these ids; above the budget, row groups are pruned by the id statistics (no full pass)."""
    out: dict[str, str] = {}
    if not ids:
        return out
    wanted = pa.array(sorted(ids))
    for p in [*kept_parts, *drop_parts]:
        t = read_columns(config, DIRNAME, p, ["id", "text"], verify=verify,
                         filters=None if verify else [("id", "in", sorted(ids))])
        t = t.filter(pc.is_in(t.column("id"), value_set=wanted))
        out.update(zip(t.column("id").to_pylist(), t.column("text").to_pylist()))
    return out
