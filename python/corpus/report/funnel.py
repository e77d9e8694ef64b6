"""The funnel: documents and characters in and out of every stage, per source, with each drop reason.

Documents are exact (manifests, and every part's key columns); characters are len() of the texts each
stage wrote, measured in every part or, above the byte budget, in a seeded sample of parts (estimates)."""

from __future__ import annotations

from corpus.config import Config
from corpus.formats.jsonl import read_zst_jsonl
from corpus.config.ledger import load_ledger
from corpus.engine.raw import document_parts, version_raw
from corpus.report import STAGES, side_prefix
from corpus.stages import STAGE
from corpus.report.reading import parts_of, stage_manifest
from corpus.report.sampling import Budget, choose_parts
from corpus.report.scan import scan_groups
from corpus.web.records import is_web_manifest

DROP_PARTS = {"filter": (side_prefix("filter"), ["filter", "rule"]), "dedup": (side_prefix("dedup"), ["reason"])}


def _raw(config: Config, sources: list[str], budget: Budget) -> dict:
    ledger = load_ledger(config.ledger_path)
    rows, manifests = [], []
    for sid in sources:
        d, m = version_raw(config, ledger[sid], [STAGE["normalize"].path(config)])  # verifies every raw part's sha256
        rows += [(sid, d, p, m["counts"]) for p in document_parts(m)]
        manifests.append(m)
    choice = choose_parts([p for _, _, p, _ in rows], budget, "raw")
    chosen = {id(p) for p in choice.parts}
    out, drops, seen = {}, {}, set()
    web = [m["counts"] for m in manifests if is_web_manifest(m)]
    for sid, d, p, counts in rows:
        s = out.setdefault(sid, {"docs": 0, "chars": 0, "estimated": False, "_measured": 0})
        s["docs"] += p["rows"]
        if id(p) in chosen:
            s["chars"] += sum(len(r["text"]) for r in read_zst_jsonl(d / p["name"]))
            s["_measured"] += p["rows"]
        if sid not in seen:
            seen.add(sid)
            s["docs_in"] = counts["docs_in"]
            # a document read and not kept: empty, or a web record rejected (timeout, undecodable, ...)
            for reason, n in [("empty", counts.get("skipped_empty", 0)), *counts.get("rejected", {}).items()]:
                if n:
                    drops[("fetch", reason)] = {**drops.get(("fetch", reason), {}),
                                                sid: {"docs": n, "chars": 0, "estimated": False}}
    for s in out.values():
        m = s.pop("_measured")
        if m != s["docs"]:
            s["chars"] = round(s["chars"] * s["docs"] / m) if m else None
            s["estimated"] = True
    # web: the raw counts of each web source (records read, skipped and rejected by kind), the row above raw
    return {"name": "fetch", "label": "raw (01 fetch)", "out": out, "drops": drops, "note": choice.note(),
            "docs_in": sum(s.pop("docs_in") for s in out.values()), "web": web}


def collect_funnel(config: Config, corpus: dict, shards: dict, budget: Budget) -> dict:
    """{"stages": [{name, label, docs_in, out: {source: {docs, chars, estimated}}, drops: {(filter, rule):
    {source: {...}}}, note}], "sources": [...], "web": [counts]}; `shards` is the shards' per-source table
    from collect_shards; `web` the raw manifest counts of the web sources (WARC records by kind; [] for none)."""
    sources = list(config["dataset"]["sources"])
    raw = _raw(config, sources, budget)
    web = raw.pop("web")
    stages = [raw]
    for name, dirname in STAGES:
        m = stage_manifest(config, dirname)
        parts = parts_of(m)
        choice = choose_parts(parts, budget, f"{name}:out")
        out = {k[0]: v for k, v in scan_groups(config, dirname, parts, choice, ["source_id"]).items()}
        drops: dict = {}
        notes = [choice.note()]
        if name in DROP_PARTS:
            prefix, keys = DROP_PARTS[name]
            dparts = parts_of(m, prefix)
            dchoice = choose_parts(dparts, budget, f"{name}:drops")
            notes.append(dchoice.note() and f"drops: {dchoice.note()}")
            for k, v in scan_groups(config, dirname, dparts, dchoice, ["source_id", *keys]).items():
                reason = (name, k[1]) if len(k) == 2 else (k[1], k[2])
                drops.setdefault(reason, {})[k[0]] = v
        by_source = m["counts"].get("by_source", {})
        for sid, c in by_source.items():   # documents dropped without a drop part (normalize: empty texts)
            gone = c["docs_in"] - c["docs_out"] - sum(d.get(sid, {}).get("docs", 0) for d in drops.values())
            if gone > 0:
                drops.setdefault((name, "empty"), {})[sid] = {"docs": gone, "chars": None, "estimated": False}
        stages.append({"name": name, "label": f"{dirname[:2]} {name}", "out": out, "drops": drops,
                       "docs_in": m["counts"]["docs_in"], "docs_out": m["counts"]["docs_out"],
                       "note": "; ".join(n for n in notes if n)})
    stages.append({"name": "shard", "label": "06 shards", "docs_in": corpus["docs_per_stage"]["pii"]["out"],
                   "docs_out": corpus["n_docs"], "drops": {}, "note": "",
                   "out": {sid: {"docs": s["docs"], "chars": s["chars"], "estimated": False}
                           for sid, s in shards["by_source"].items()}})
    for s in stages:
        s.setdefault("docs_out", sum(v["docs"] for v in s["out"].values()))
        s["chars_out"] = _total(s["out"].values())
    return {"stages": stages, "sources": sources, "web": web}


def _total(values) -> dict:
    vals = list(values)
    chars = [v["chars"] for v in vals]
    return {"chars": None if any(c is None for c in chars) else sum(chars),
            "estimated": any(v["estimated"] for v in vals)}
