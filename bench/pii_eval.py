"""Evaluate the stage-05 PII scrub (corpus.pii) on labelled and PII-free real data.

Figures:
  * precision / recall per type (EMAIL PHONE CARD IP KEY) on each labelled set of
    bench/pii_labelled.py: ``presidio`` (generated_small.json), ``dev`` and ``heldout`` (documents
    written there from real sentences and Faker values, many locales). A predicted span is a true
    positive when it overlaps a gold span of the same type; a gold span is recalled when some
    predicted span of its type overlaps it. Targets (judged on ``heldout``): recall EMAIL >= 0.99,
    CARD >= 0.97, IP >= 0.97, PHONE >= 0.90, KEY >= 0.95, every precision >= 0.95.
  * false redactions per 10k documents on PII-free text: TinyStories (target <= 1), GSM8K train
    (target <= 10), WikiText-2 paragraphs, code-like webtext lines; every one is listed with
    ``--show-errors``.
  * function-level throughput of ``scrub`` (docs/s, MB/s) on those sets, engine warm, and whether
    the direct path (no spaCy) gives the same spans as presidio's AnalyzerEngine on them.

Usage:  python bench/pii_eval.py [--json PATH] [--show-errors] [--mirror DIR] [--no-engine-check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

import pii_labelled as pl
from common import mirror_dir, write_results
from corpus.pii.scrub import PiiParams, find_spans, find_spans_with_engine, scrub

TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")
RECALL_TARGET = {"EMAIL": 0.99, "CARD": 0.97, "IP": 0.97, "PHONE": 0.90, "KEY": 0.95}
PRECISION_TARGET = 0.95
FP_TARGET_PER_10K = {"TinyStories": 1.0, "GSM8K-train": 10.0}


def overlaps(a, b) -> bool:
    return a[2] == b[2] and a[0] < b[1] and b[0] < a[1]


def _count(spans, others, doc: dict, miss: str, show_errors: bool, n: Counter, hits: Counter) -> None:
    """Count `spans` per type in `n` and those overlapping one of `others` in `hits`; print each miss."""
    text = doc["text"]
    for s in spans:
        n[s[2]] += 1
        hit = any(overlaps(s, o) for o in others)
        hits[s[2]] += hit
        if show_errors and not hit:
            print(f"  {miss} {doc['id']} {s[2]:5} {text[s[0]:s[1]]!r} in {text[max(0, s[0] - 60):s[1] + 30]!r}")


def precision_recall(docs: list[dict], params: PiiParams, show_errors: bool) -> dict[str, dict]:
    tp_pred, n_pred, tp_gold, n_gold = Counter(), Counter(), Counter(), Counter()
    for doc in docs:
        gold = [tuple(s) for s in doc["spans"]]
        pred = find_spans(doc["text"], params)
        _count(pred, gold, doc, "FP", show_errors, n_pred, tp_pred)  # a prediction no gold span overlaps
        _count(gold, pred, doc, "FN", show_errors, n_gold, tp_gold)  # a gold span no prediction overlaps
    return {t: {"gold": n_gold[t], "predicted": n_pred[t],
                "precision": tp_pred[t] / n_pred[t] if n_pred[t] else None,
                "recall": tp_gold[t] / n_gold[t] if n_gold[t] else None} for t in TYPES}


def false_redactions(name: str, docs: list[str], params: PiiParams, show_errors: bool) -> dict:
    per_type: Counter[str] = Counter()
    examples = []
    for i, doc in enumerate(docs):
        for start, end, pii_type in find_spans(doc, params):
            per_type[pii_type] += 1
            examples.append({"doc": i, "type": pii_type, "span": doc[start:end],
                             "context": doc[max(0, start - 50):end + 30]})
            if show_errors:
                print(f"  {name} FP {pii_type}: {doc[start:end]!r} in {doc[max(0, start - 50):end + 30]!r}")
    total = sum(per_type.values())
    return {"docs": len(docs), "spans": total, "per_10k_docs": total * 10_000 / max(1, len(docs)),
            "per_type": dict(per_type), "examples": examples[:50]}


def throughput(name: str, docs: list[str], params: PiiParams, check_engine: bool) -> dict:
    start = time.perf_counter()
    for doc in docs:
        scrub(doc, params)
    wall = time.perf_counter() - start
    out = {"set": name, "docs": len(docs), "mb": sum(len(d.encode()) for d in docs) / 1e6, "wall_s": wall,
           "docs_per_s": len(docs) / wall}
    out["mb_per_s"] = out["mb"] / wall
    if check_engine:
        differ = [i for i, d in enumerate(docs) if find_spans(d, params) != find_spans_with_engine(d, params)]
        out["engine_identical"] = not differ
        out["engine_differs_on"] = differ[:20]
    return out


def fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def print_report(fig: dict) -> None:
    print(f"\nparams: {fig['params']}   labelled set sha256 {fig['labelled_sha256'][:16]}")
    for split, metrics in fig["labelled"].items():
        print(f"\n{split}")
        print(f"  {'type':6} {'gold':>5} {'pred':>5} {'precision':>10} {'recall':>8}")
        for t, m in metrics.items():
            print(f"  {t:6} {m['gold']:5d} {m['predicted']:5d} {fmt(m['precision']):>10} {fmt(m['recall']):>8}")
    print("\nfalse redactions on PII-free text")
    for name, fp in fig["false_positives"].items():
        print(f"  {name:20} {fp['spans']:4d} in {fp['docs']:6d} docs = {fp['per_10k_docs']:6.1f} per 10k  {fp['per_type'] or ''}")
    print(f"\n  {'set':20} {'docs':>6} {'MB':>6} {'docs/s':>8} {'MB/s':>6} {'= engine':>8}")
    for r in fig["throughput"]:
        print(f"  {r['set']:20} {r['docs']:6d} {r['mb']:6.2f} {r['docs_per_s']:8.0f} {r['mb_per_s']:6.2f} "
              f"{str(r.get('engine_identical', '-')):>8}")
    print("\ntargets (heldout):", "PASS" if fig["targets_met"] else "NOT MET", fig["target_failures"] or "")


def check_targets(fig: dict) -> list[str]:
    failures = []
    for t, m in fig["labelled"]["heldout"].items():
        if m["recall"] is not None and m["recall"] < RECALL_TARGET[t]:
            failures.append(f"{t} recall {m['recall']:.3f} < {RECALL_TARGET[t]}")
        if m["precision"] is not None and m["precision"] < PRECISION_TARGET:
            failures.append(f"{t} precision {m['precision']:.3f} < {PRECISION_TARGET}")
    for name, limit in FP_TARGET_PER_10K.items():
        fp = fig["false_positives"][name]
        if fp["per_10k_docs"] > limit:
            failures.append(f"{name} {fp['per_10k_docs']:.1f} false redactions per 10k > {limit}")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--show-errors", action="store_true", help="print every FP/FN span")
    parser.add_argument("--mirror", type=Path, default=mirror_dir())
    parser.add_argument("--no-engine-check", action="store_true", help="skip the direct-vs-AnalyzerEngine comparison")
    args = parser.parse_args(argv)

    params = PiiParams()
    docs = pl.labelled_set(args.mirror)
    blob = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs).encode()
    scrub("warm up a@b.com 192.168.0.1 call 212-555-0187", params)  # engine construction is not throughput
    fp_sets = pl.false_positive_sets(args.mirror)
    fig = {
        "params": {"entities": params.entities, "phone_regions": params.phone_regions,
                   "score_threshold": params.score_threshold},
        "labelled_sha256": hashlib.sha256(blob).hexdigest(),
        "labelled": {split: precision_recall([d for d in docs if d["set"] == split], params, args.show_errors)
                     for split in ("presidio", "dev", "heldout")},
        "false_positives": {name: false_redactions(name, texts, params, args.show_errors)
                            for name, texts in fp_sets.items()},
    }
    fig["throughput"] = [throughput(name, texts, params, not args.no_engine_check) for name, texts in fp_sets.items()]
    fig["throughput"].append(throughput("labelled", [d["text"] for d in docs], params, not args.no_engine_check))
    fig["target_failures"] = check_targets(fig)
    fig["targets_met"] = not fig["target_failures"]
    print_report(fig)
    write_results(args.json, fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
