"""Evaluate the stage-05 PII scrub (corpus.pii) on real data.

Figures:
  * precision / recall per entity on presidio-research's generated_small.json (Faker sentences
    with labelled spans): EMAIL (label EMAIL_ADDRESS), PHONE (PHONE_NUMBER), CARD (CREDIT_CARD),
    IP (IP_ADDRESS), and KEY for any key-like label present (the file has none: it is reported as
    n/a). A predicted span is a true positive when it overlaps a gold span of the same type; a
    gold span is recalled when some predicted span of its type overlaps it.
  * false positives per 10k TinyStories documents (stories hold no PII: every span is a false
    positive), per type.
  * documents per second with and without the pre-check on TinyStories, EnterprisePII and the
    presidio sentences (single-process ``scrub``, engine warm), and whether the outputs are
    identical.

Usage:  .venv/bin/python bench/pii_eval.py [--json PATH] [--show-errors] [--mirror DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from corpus.pii.scrub import PiiParams, find_spans, scrub

GENERATED_SMALL = "ebc4d2e49907678d65e38ed7b9efc267f6e3c1b6761af9de30aef6fa7e11c1e4"
TINYSTORIES = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
ENTERPRISE_PII = "de3a638feb3285dd45d54dddbc21fb26ecf1a89ef18e63582434e6e2eda2d14a"

TYPE_OF_LABEL = {"EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "IP_ADDRESS": "IP"}
KEY_LIKE_LABEL = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API", re.IGNORECASE)
TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")


def default_mirror() -> Path:
    return Path(os.environ.get("CORPUS_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "data" / "mirror"))


def load_labelled(mirror: Path) -> list[dict]:
    return json.loads((mirror / GENERATED_SMALL).read_text())


def load_tinystories(mirror: Path) -> list[str]:
    """Stories are separated by a single newline; paragraphs inside a story by a blank line."""
    text = (mirror / TINYSTORIES).read_text()
    return [s for s in re.split(r"(?<!\n)\n(?!\n)", text) if s.strip()]


def load_enterprise_pii(mirror: Path) -> list[str]:
    return [json.loads(line)["query"] for line in (mirror / ENTERPRISE_PII).read_text().splitlines() if line]


def gold_spans(row: dict) -> list[tuple[int, int, str]]:
    spans = []
    for span in row["spans"]:
        label = span["entity_type"]
        pii_type = "KEY" if KEY_LIKE_LABEL.search(label) else TYPE_OF_LABEL.get(label)
        if pii_type:
            spans.append((span["start_position"], span["end_position"], pii_type))
    return spans


def overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return a[2] == b[2] and a[0] < b[1] and b[0] < a[1]


def precision_recall(rows: list[dict], params: PiiParams, show_errors: bool) -> dict[str, dict]:
    tp_pred, n_pred, tp_gold, n_gold = Counter(), Counter(), Counter(), Counter()
    for row in rows:
        text, gold, pred = row["full_text"], gold_spans(row), find_spans(row["full_text"], params)
        for p in pred:
            n_pred[p[2]] += 1
            hit = any(overlaps(p, g) for g in gold)
            tp_pred[p[2]] += hit
            if show_errors and not hit:
                print(f"  FP {p[2]:5} {text[p[0]:p[1]]!r} in {text!r}")
        for g in gold:
            n_gold[g[2]] += 1
            hit = any(overlaps(g, p) for p in pred)
            tp_gold[g[2]] += hit
            if show_errors and not hit:
                print(f"  FN {g[2]:5} {text[g[0]:g[1]]!r} in {text!r}")
    return {
        t: {
            "gold": n_gold[t],
            "predicted": n_pred[t],
            "precision": tp_pred[t] / n_pred[t] if n_pred[t] else None,
            "recall": tp_gold[t] / n_gold[t] if n_gold[t] else None,
        }
        for t in TYPES
    }


def false_positives(stories: list[str], params: PiiParams, show_errors: bool) -> dict:
    per_type: Counter[str] = Counter()
    for story in stories:
        for start, end, pii_type in find_spans(story, params):
            per_type[pii_type] += 1
            if show_errors:
                print(f"  TinyStories FP {pii_type}: {story[max(0, start - 40):end + 40]!r}")
    total = sum(per_type.values())
    return {"docs": len(stories), "spans": total, "per_10k_docs": total * 10_000 / len(stories),
            "per_type": dict(per_type)}


def throughput(name: str, docs: list[str], params: PiiParams) -> dict:
    """docs/s of ``scrub`` with and without the pre-check, and whether the outputs are identical."""
    outputs, rates = {}, {}
    for precheck in (True, False):
        p = replace(params, precheck=precheck)
        start = time.perf_counter()
        outputs[precheck] = [scrub(doc, p) for doc in docs]
        rates[precheck] = len(docs) / (time.perf_counter() - start)
    changed = sum(out[0] != doc for out, doc in zip(outputs[True], docs))
    return {"corpus": name, "docs": len(docs), "docs_with_pii": changed,
            "docs_per_s_precheck": rates[True], "docs_per_s_no_precheck": rates[False],
            "identical": outputs[True] == outputs[False]}


def fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def print_report(figures: dict) -> None:
    print(f"\nparams: {figures['params']}")
    print("\ngenerated_small.json (presidio-research, 100 labelled sentences)")
    print(f"  {'type':6} {'gold':>5} {'pred':>5} {'precision':>10} {'recall':>8}")
    for t, m in figures["labelled"].items():
        print(f"  {t:6} {m['gold']:5d} {m['predicted']:5d} {fmt(m['precision']):>10} {fmt(m['recall']):>8}")
    key_labels = figures["key_like_labels"]
    print(f"  key-like labels in the file: {key_labels or 'none (KEY recall not measurable here)'}")
    fp = figures["tinystories_fp"]
    print(f"\nTinyStories false positives: {fp['spans']} spans in {fp['docs']} docs = "
          f"{fp['per_10k_docs']:.1f} per 10k docs {fp['per_type'] or ''}")
    print(f"\n  {'corpus':14} {'docs':>5} {'w/ PII':>6} {'docs/s precheck':>16} "
          f"{'docs/s no precheck':>19} {'identical':>9}")
    for r in figures["throughput"]:
        print(f"  {r['corpus']:14} {r['docs']:5d} {r['docs_with_pii']:6d} {r['docs_per_s_precheck']:16.0f} "
              f"{r['docs_per_s_no_precheck']:19.0f} {str(r['identical']):>9}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--show-errors", action="store_true", help="print every FP/FN span")
    parser.add_argument("--mirror", type=Path, default=default_mirror())
    parser.add_argument("--enterprise-docs", type=int, default=1000, help="EnterprisePII docs to time (0 = all)")
    args = parser.parse_args(argv)

    params = PiiParams()
    rows = load_labelled(args.mirror)
    stories = load_tinystories(args.mirror)
    enterprise = load_enterprise_pii(args.mirror)
    if args.enterprise_docs:
        enterprise = enterprise[: args.enterprise_docs]
    scrub("warm up a@b.com 192.168.0.1", params)  # engine construction is not throughput

    labels = sorted({s["entity_type"] for row in rows for s in row["spans"]})
    figures = {
        "params": {"entities": params.entities, "phone_regions": params.phone_regions,
                   "score_threshold": params.score_threshold},
        "labelled": precision_recall(rows, params, args.show_errors),
        "key_like_labels": [label for label in labels if KEY_LIKE_LABEL.search(label)],
        "tinystories_fp": false_positives(stories, params, args.show_errors),
        "throughput": [
            throughput("TinyStories", stories, params),
            throughput("EnterprisePII", enterprise, params),
            throughput("presidio-sents", [row["full_text"] for row in rows], params),
        ],
    }
    print_report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if all(r["identical"] for r in figures["throughput"]) else 1


if __name__ == "__main__":
    sys.exit(main())
