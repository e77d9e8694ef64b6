"""Language ID on a bounded prefix (`[filters.lang] max_chars`, issue 49): how much faster, how often it agrees.

    python bench/lang_prefix.py [--corpus bench/data/bench-corpus-55mb-s0.jsonl.zst] [--max-chars 500 1000 2000 5000]
        [--json bench/results/lang-prefix-<date>-<commit>.json]

Documents: every document of --corpus (a JSONL(.zst) of {"text": ...}; `python bench/bench_corpus.py` builds
the default from the shared data), normalized as stage 02 does, plus documents of 12 sentences from each
`lingua-<lang>` row of the ledger (15 languages; found in the mirror, CORPUS_MIRROR). Each is labelled with
corpus.filters.lang exactly as the filter does (same model, `detect`), once on its whole text and once per
--max-chars value. Reported per value: the share of documents with the same label, with the same keep
decision at the demo's settings (keep ["en"], min_score 0.65) and at keep = every lingua language, the same
figures among the documents longer than the prefix (the only ones it can change), and the seconds of model
calls against the whole text's. One process, one core; the model calls are timed, nothing else."""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import time
from pathlib import Path

from common import BENCH, LEDGER, mirror_dir, write_results
from corpus.config.ledger import load_ledger
from corpus.filters import lang as lang_id
from corpus.formats.jsonl import read_zst_jsonl
from corpus.formats.sources import read_documents
from corpus.formats.textnorm import normalize_text

MIN_SCORE = 0.65


def corpus_texts(path: Path) -> list[str]:
    if path.suffix == ".zst":
        records = read_zst_jsonl(path)
    else:
        import json

        records = (json.loads(line) for line in path.open(encoding="utf-8") if line.strip())
    return [t for t in (normalize_text(r["text"]) for r in records) if t.strip()]


def lingua_texts(mirror: Path) -> tuple[list[str], list[str]]:
    """Documents of 12 consecutive sentences of each lingua-* file, and the languages they are in."""
    out, langs = [], []
    for sid, row in sorted(load_ledger(LEDGER).items()):
        if not sid.startswith("lingua-") or not (mirror / row["sha256"]).is_file():
            continue
        langs.append(sid.removeprefix("lingua-"))
        sentences = [t for _, t in read_documents(mirror / row["sha256"], row) if t.strip()]
        out += [normalize_text(" ".join(sentences[i:i + 12])) for i in range(0, len(sentences) - 11, 12)]
    return out, langs


def labelled(texts: list[str], model, max_chars: int) -> tuple[list[tuple[str, float]], float]:
    t0 = time.perf_counter()
    found = [lang_id.detect(t, model, max_chars) for t in texts]
    return found, time.perf_counter() - t0


def kept(found: tuple[str, float], keep: set[str]) -> bool:
    return found[1] >= MIN_SCORE and found[0] in keep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=BENCH / "data" / "bench-corpus-55mb-s0.jsonl.zst")
    ap.add_argument("--max-chars", type=int, nargs="+", default=[500, 1000, 2000, 5000])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    ap.add_argument("--json", type=Path, default=BENCH / "results" / f"lang-prefix-{dt.date.today()}-{commit}.json")
    a = ap.parse_args(argv)
    if not a.corpus.is_file():
        raise SystemExit(f"{a.corpus}: no such corpus (python bench/bench_corpus.py builds the default)")
    mirror = mirror_dir()
    if mirror is None:
        raise SystemExit("error: set CORPUS_MIRROR to the real-data mirror (the lingua-* files)")
    texts = corpus_texts(a.corpus)
    multi, langs = lingua_texts(mirror)
    docs = texts + multi
    model = lang_id.load_model()
    whole, whole_s = labelled(docs, model, 0)
    chars = sum(map(len, docs))
    out = {"corpus": str(a.corpus), "documents": len(docs), "corpus_documents": len(texts),
           "lingua_documents": len(multi), "lingua_languages": langs, "characters": chars,
           "min_score": MIN_SCORE, "whole_text_s": round(whole_s, 2), "by_max_chars": {}}
    print(f"{len(docs):,} documents ({len(texts):,} of the corpus, {len(multi):,} lingua), {chars / 1e6:.1f} M characters; "
          f"whole text: {whole_s:.1f} s of model calls")
    for n in a.max_chars:
        found, secs = labelled(docs, model, n)
        longer = [i for i, t in enumerate(docs) if len(t) > n]

        def share(rows, same) -> float:
            return sum(1 for i in rows if same(i)) / len(rows) if rows else 1.0

        every = range(len(docs))
        row = {"seconds": round(secs, 2), "speedup": round(whole_s / secs, 2), "documents_longer": len(longer),
               "same_label": share(every, lambda i: found[i][0] == whole[i][0]),
               "same_keep_en": share(every, lambda i: kept(found[i], {"en"}) == kept(whole[i], {"en"})),
               "same_keep_all": share(every, lambda i: kept(found[i], set(langs)) == kept(whole[i], set(langs))),
               "longer_same_label": share(longer, lambda i: found[i][0] == whole[i][0]),
               "longer_same_keep_en": share(longer, lambda i: kept(found[i], {"en"}) == kept(whole[i], {"en"}))}
        out["by_max_chars"][str(n)] = row
        print(f"max_chars {n:>6}: {secs:6.1f} s ({row['speedup']:.2f}x), same label {100 * row['same_label']:.2f}%, "
              f"same keep (en) {100 * row['same_keep_en']:.2f}%, (all) {100 * row['same_keep_all']:.2f}%; "
              f"of the {len(longer):,} longer ones: label {100 * row['longer_same_label']:.2f}%, "
              f"keep (en) {100 * row['longer_same_keep_en']:.2f}%")
    write_results(a.json, out)
    print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
