"""Derive the per-language word-rule table (python/corpus/filters/languages.json) from reference text in
the ledger, and measure what it changes.

    python bench/lang_derive.py [--write] [--json bench/results/lang-derive-<date>.json]

Reference text: every `lingua-<code>` row of corpus/LEDGER.jsonl (clean sentences of one language each),
read from the mirror and verified against its sha256. Each file is cut in two by sentence position: the
first DERIVE_SHARE of it derives the table, the rest is held out to measure it. Reference documents are
runs of DOC_SENTENCES consecutive sentences.

Method (FineWeb-2's, documented in corpus.filters.languages and docs/quality.md):
- segmentation: for a reference written without spaces, Sudachi when it holds kana, jieba when it is Han,
  "chars" for other such scripts; else "whitespace";
- stop words: the language's most frequent bare words (punctuation stripped, case-folded; ties broken
  by the word) until they cover the share of the English reference's words that the default English stop
  words cover;
- scale: for each threshold key, median of the language's reference documents' measured value / the
  English median (word count for min_words/max_words, mean word length for the mean-word-length bounds;
  for the repetition n-gram fractions the 90th percentile, since most clean documents repeat nothing,
  and only above 1: a language never gets a stricter repetition bound than English);
- fineweb's short_line_length: by the ratio of the median sentence length in characters;
- agnostic (languages not in the table): the most lenient factor of the table's languages per key.

With --write the table is written (deterministic: the same ledger rows give the same bytes); without it
only the evaluation runs against the committed table. The evaluation: on the held-out documents of each
language, the share kept by gopher + repetition with the English settings (what a run did before) and
with the language's settings; and, leaving each language out of the table in turn, with the
language-agnostic settings (what a language the table does not know gets).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from common import LEDGER, REPO, mirror_dir, write_results

sys.path.insert(0, str(REPO / "python"))

from corpus.config.ledger import load_ledger  # noqa: E402
from corpus.filters import languages  # noqa: E402
from corpus.filters.gopher import DEFAULT_PARAMS as GOPHER, gopher_quality, words_of  # noqa: E402
from corpus.filters.languages import WHITESPACE, bare_word, segmentation_for  # noqa: E402
from corpus.filters.repetition import DEFAULT_PARAMS as REPETITION, _RepeatedNgrams, gopher_repetition  # noqa: E402
from corpus.formats.sources import read_documents  # noqa: E402
from corpus.store.retrieve import verify  # noqa: E402

PREFIX = "lingua-"
DERIVE_SHARE = 0.6
DOC_SENTENCES = 10
MAX_STOP_WORDS = 64
NGRAM_QUANTILE = 0.9


def reference_rows() -> list[dict]:
    return [row for sid, row in sorted(load_ledger(LEDGER).items()) if sid.startswith(PREFIX)]


def sentences(row: dict) -> list[str]:
    path = mirror_dir() / row["sha256"]
    if not path.is_file():
        raise SystemExit(f"{path}: not in the mirror (source '{row['source_id']}'); set CORPUS_MIRROR")
    verify(path, row["sha256"], row["bytes"], what=f"source '{row['source_id']}'")
    return [text.strip() for _, text in read_documents(path, row) if text.strip()]


def documents(lines: list[str]) -> list[str]:
    return ["\n".join(lines[i:i + DOC_SENTENCES]) for i in range(0, len(lines) - DOC_SENTENCES + 1, DOC_SENTENCES)]


def split(lines: list[str]) -> tuple[list[str], list[str]]:
    cut = int(len(lines) * DERIVE_SHARE)
    return lines[:cut], lines[cut:]


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def measures(docs: list[str], segmentation: str) -> dict:
    """Per reference document: word count, mean word length, repetition n-gram fractions."""
    out: dict[str, list[float]] = {"words": [], "mean_word_length": []}
    for doc in docs:
        words = words_of(doc, segmentation)
        out["words"].append(len(words))
        out["mean_word_length"].append(sum(map(len, words)) / len(words) if words else 0.0)
        grams = _RepeatedNgrams(words)
        for n, _ in REPETITION.top_ngram_char_frac:
            out.setdefault(f"top_{n}", []).append(grams.top_char_frac(n))
        for n, _ in REPETITION.dup_ngram_char_frac:
            out.setdefault(f"dup_{n}", []).append(grams.dup_char_frac(n))
    return out


def stop_words_for(words: list[str], share: float) -> list[str]:
    counts = Counter(w for w in map(bare_word, words) if w)
    total, covered, out = sum(counts.values()), 0, []
    for word, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if covered >= share * total or len(out) >= MAX_STOP_WORDS:
            break
        out.append(word)
        covered += n
    return out


def ratio(value: float, reference: float) -> float:
    return round(value / reference, 4) if reference > 0 and value > 0 else 1.0


def derive(rows: list[dict]) -> dict:
    text = {row["source_id"].removeprefix(PREFIX): split(sentences(row))[0] for row in rows}
    if languages.REFERENCE not in text:
        raise SystemExit(f"no {PREFIX}{languages.REFERENCE} row in {LEDGER}: the reference language is needed")
    seg = {code: segmentation_for("\n".join(lines)) for code, lines in text.items()}
    stats = {code: measures(documents(lines), seg[code]) for code, lines in text.items()}
    en_words = [w for line in text[languages.REFERENCE] for w in words_of(line, WHITESPACE)]
    wanted = {w.casefold() for w in GOPHER.stop_words}
    share = sum(1 for w in en_words if bare_word(w) in wanted) / len(en_words)
    en = stats[languages.REFERENCE]
    table: dict = {}
    for code in sorted(text):
        if code == languages.REFERENCE:
            continue
        s = stats[code]
        words_f = ratio(statistics.median(s["words"]), statistics.median(en["words"]))
        length_f = ratio(statistics.median(s["mean_word_length"]), statistics.median(en["mean_word_length"]))
        rep: dict = {}
        for key, pairs in (("top_ngram_char_frac", REPETITION.top_ngram_char_frac),
                           ("dup_ngram_char_frac", REPETITION.dup_ngram_char_frac)):
            prefix = key.split("_")[0]
            rep[key] = {str(n): max(1.0, ratio(quantile(s[f"{prefix}_{n}"], NGRAM_QUANTILE),
                                               quantile(en[f"{prefix}_{n}"], NGRAM_QUANTILE))) for n, _ in pairs}
        line_f = ratio(statistics.median(map(len, text[code])), statistics.median(map(len, text[languages.REFERENCE])))
        words = [w for line in text[code] for w in words_of(line, seg[code])]
        table[code] = {"segmentation": seg[code], "stop_words": stop_words_for(words, share),
                       "scale": {"gopher": {"min_words": words_f, "max_words": words_f,
                                            "min_mean_word_length": length_f, "max_mean_word_length": length_f},
                                 "repetition": rep, "fineweb": {"short_line_length": line_f}}}
    return {"method": {"derive_share": DERIVE_SHARE, "doc_sentences": DOC_SENTENCES,
                       "stop_word_share": round(share, 4), "max_stop_words": MAX_STOP_WORDS,
                       "ngram_quantile": NGRAM_QUANTILE, "script": "bench/lang_derive.py"},
            "inputs": [{"source_id": r["source_id"], "url": r["url"], "sha256": r["sha256"]} for r in rows],
            "languages": table, "agnostic": {"scale": agnostic(table)}}


def agnostic(table: dict) -> dict:
    """Per key, the most lenient factor over the table's languages (and English's 1.0)."""
    def pick(key: str, factors: list[float]) -> float:
        return min(factors + [1.0]) if key.startswith("min_") else max(factors + [1.0])
    gopher_keys = ("min_words", "max_words", "min_mean_word_length", "max_mean_word_length")
    out: dict = {"gopher": {k: pick(k, [e["scale"]["gopher"][k] for e in table.values()]) for k in gopher_keys},
                 "repetition": {},
                 # a shorter short line: fewer lines count as short, the lenient side
                 "fineweb": {"short_line_length": min([e["scale"]["fineweb"]["short_line_length"]
                                                       for e in table.values()] + [1.0])}}
    for key in ("top_ngram_char_frac", "dup_ngram_char_frac"):
        ns = sorted({n for e in table.values() for n in e["scale"]["repetition"][key]}, key=int)
        out["repetition"][key] = {n: max([e["scale"]["repetition"][key].get(n, 1.0) for e in table.values()] + [1.0])
                                  for n in ns}
    return out


def fragment_documents(lines: list[str], segmentation: str) -> list[str]:
    """Lists, not prose: the first two words of each sentence a line, DOC_SENTENCES lines a document."""
    sep = "" if segmentation in ("jieba", "sudachi", "chars") else " "
    return documents([sep.join(words_of(line, segmentation)[:2]) for line in lines])


def kept(docs: list[str], lang: str, rules_g, rules_r) -> float:
    ok = 0
    for doc in docs:
        g, r = rules_g.setting(lang), rules_r.setting(lang)
        ok += gopher_quality(doc, g.params, g.segmentation) is None and \
            gopher_repetition(doc, r.params, r.segmentation) is None
    return round(ok / len(docs), 4) if docs else None


def evaluate(rows: list[dict]) -> dict:
    from corpus.filters.languages import LanguageRules
    out: dict = {}
    g, r = LanguageRules("gopher", GOPHER, None), LanguageRules("repetition", REPETITION, None)
    for row in rows:
        code = row["source_id"].removeprefix(PREFIX)
        held = documents(split(sentences(row))[1])
        english = sum(gopher_quality(d) is None and gopher_repetition(d) is None for d in held) / len(held)
        own = kept(held, code, g, r)
        # left out of the table: what a language the table does not know gets
        table = languages.derived_table()
        saved = table["languages"].pop(code, None)
        try:
            out_of_table = kept(held, code, LanguageRules("gopher", GOPHER, None),
                                LanguageRules("repetition", REPETITION, None))
        finally:
            if saved is not None:
                table["languages"][code] = saved
        seg = LanguageRules("gopher", GOPHER, None).setting(code).segmentation
        fragments = fragment_documents(split(sentences(row))[1], seg)
        out[code] = {"held_out_docs": len(held), "kept_english_rules": round(english, 4), "kept_own_rules": own,
                     "kept_language_agnostic": out_of_table,
                     "fragment_docs": len(fragments), "fragments_kept_own_rules": kept(fragments, code, g, r)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write python/corpus/filters/languages.json")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless the committed table is what the derivation gives (no evaluation)")
    ap.add_argument("--json", type=Path, help="write the evaluation here (bench/results/...)")
    args = ap.parse_args()
    rows = reference_rows()
    text = json.dumps(derive(rows), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if args.check:
        same = languages.TABLE_PATH.read_text(encoding="utf-8") == text
        print(f"{languages.TABLE_PATH.relative_to(REPO)}: " + ("as derived" if same else
                                                                "differs from the derivation: rerun with --write"))
        raise SystemExit(0 if same else 1)
    if args.write:
        languages.TABLE_PATH.write_text(text, encoding="utf-8")
        languages.derived_table.cache_clear()
        languages.languages_table_sha256.cache_clear()
        print(f"wrote {languages.TABLE_PATH.relative_to(REPO)} ({len(json.loads(text)['languages'])} languages)")
    result = evaluate(rows)
    for code, v in result.items():
        print(f"{code:>4}  held-out docs {v['held_out_docs']:>4}  kept: English rules {v['kept_english_rules']:.3f}"
              f"  own {v['kept_own_rules']:.3f}  language-agnostic {v['kept_language_agnostic']:.3f}"
              f"  | fragment lists kept {v['fragments_kept_own_rules']:.3f}")
    write_results(args.json, {"method": languages.derived_table()["method"], "languages": result})


if __name__ == "__main__":
    main()
