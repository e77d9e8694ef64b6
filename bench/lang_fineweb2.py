"""Our word rules per language against FineWeb-2's (datatrove's filters in FineWeb-2's configuration for
the language), on the same documents.

    python bench/lang_fineweb2.py --configs DIR [--json bench/results/lang-fineweb2-<date>.json]

DIR holds FineWeb-2's per-language filter configs (`configs/<lang>_<Script>.yml` of a clone of
github.com/huggingface/fineweb-2; not in this repository). For each language of our derived table, the
held-out 40% of its `lingua-<code>` sentences (the part lang_derive.py does not derive from) in documents
of 12 sentences go through:

- ours: gopher + repetition with the language's settings (filters.languages), everything else default;
- FineWeb-2's: datatrove's GopherRepetitionFilter, FineWebQualityFilter and GopherQualityFilter with the
  language's config, set as fineweb-2-pipeline.py sets them (language-ID and dedup steps aside).

Reported per language: each side's keep rate, the agreement (same keep/drop decision), the rules behind
the disagreements, our word counts against datatrove's word tokenizer for the language (the segmenters:
within 5% is the target), and the overlap of the two stop-word lists.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from common import REPO, write_results

sys.path.insert(0, str(REPO / "python"))

import lang_derive  # noqa: E402
from corpus.filters.gopher import DEFAULT_PARAMS as GOPHER, gopher_quality, words_of  # noqa: E402
from corpus.filters.languages import LanguageRules, bare_word, derived_table  # noqa: E402
from corpus.filters.repetition import DEFAULT_PARAMS as REPETITION, gopher_repetition  # noqa: E402

FINEWEB2_CODE = {"ar": "arb_Arab", "de": "deu_Latn", "es": "spa_Latn", "fr": "fra_Latn", "hi": "hin_Deva",
                 "it": "ita_Latn", "ja": "jpn_Jpan", "nl": "nld_Latn", "pl": "pol_Latn", "pt": "por_Latn",
                 "ru": "rus_Cyrl", "sv": "swe_Latn", "tr": "tur_Latn", "zh": "cmn_Hani"}
DOC_SENTENCES = 12


def fineweb2_filters(config: dict, lang_script: str) -> list:
    from datatrove.pipeline.filters import FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter
    return [GopherRepetitionFilter(language=lang_script, dup_para_frac=0, dup_line_char_frac=0, dup_para_char_frac=0,
                                   dup_line_frac=config["dup_line_frac"], top_n_grams=config["top_n_grams"],
                                   dup_n_grams=config["dup_n_grams"]),
            FineWebQualityFilter(language=lang_script, short_line_thr=999, char_duplicates_ratio=0.1,
                                 line_punct_thr=config["line_punct_thr"], new_line_ratio=config["new_line_ratio"]),
            GopherQualityFilter(language=lang_script, max_avg_word_length=config["max_avg_word_length"],
                                min_avg_word_length=config["min_avg_word_length"], stop_words=config["stopwords"],
                                max_non_alpha_words_ratio=config["max_non_alpha_words_ratio"], min_stop_words=2)]


def theirs(filters: list, text: str) -> str | None:
    """None if FineWeb-2's filters keep the text, else the first failing filter and its reason."""
    from datatrove.data import Document
    doc = Document(text=text, id="x")
    for f in filters:
        result = f.filter(doc)
        if result is not True:
            reason = result[1] if isinstance(result, tuple) else ""
            return f"{type(f).__name__}:{reason}"
    return None


def ours(text: str, lang: str) -> str | None:
    g, r = LanguageRules("gopher", GOPHER, None).setting(lang), LanguageRules("repetition", REPETITION,
                                                                                None).setting(lang)
    fail = gopher_quality(text, g.params, g.segmentation)
    if fail:
        return f"gopher.{fail[0]}"
    fail = gopher_repetition(text, r.params, r.segmentation)
    return f"repetition.{fail[0]}" if fail else None


def compare(code: str, row: dict, config: dict) -> dict:
    import yaml  # noqa: F401  (datatrove's dependency; the configs are YAML)
    from datatrove.utils.word_tokenizers import load_word_tokenizer
    lang_script = FINEWEB2_CODE[code]
    lines = lang_derive.split(lang_derive.sentences(row))[1]
    docs = ["\n".join(lines[i:i + DOC_SENTENCES]) for i in range(0, len(lines) - DOC_SENTENCES + 1, DOC_SENTENCES)]
    filters = fineweb2_filters(config, lang_script)
    tokenizer = load_word_tokenizer(lang_script)
    seg = LanguageRules("gopher", GOPHER, None).setting(code).segmentation
    ours_kept = theirs_kept = agree = 0
    disagreements: Counter = Counter()
    our_words = their_words = 0
    for doc in docs:
        a, b = ours(doc, code), theirs(filters, doc)
        ours_kept += a is None
        theirs_kept += b is None
        agree += (a is None) == (b is None)
        if (a is None) != (b is None):
            disagreements[f"ours {a or 'kept'} / FineWeb-2 {b or 'kept'}"] += 1
        our_words += len(words_of(doc, seg))
        their_words += sum(1 for w in tokenizer.word_tokenize(doc) if any(c.isalnum() for c in w))
    ours_stop = set(derived_table()["languages"][code]["stop_words"])
    their_stop = {bare_word(w) for w in config["stopwords"]}
    n = len(docs)
    return {"fineweb2": lang_script, "docs": n, "kept_ours": round(ours_kept / n, 4),
            "kept_fineweb2": round(theirs_kept / n, 4), "agreement": round(agree / n, 4),
            "disagreements": dict(disagreements.most_common(5)), "segmentation": seg,
            "words_ours_over_datatrove": round(our_words / their_words, 4) if their_words else None,
            "stop_words": {"ours": len(ours_stop), "fineweb2": len(their_stop),
                           "shared": len(ours_stop & their_stop)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", type=Path, required=True, help="FineWeb-2's configs/ directory")
    ap.add_argument("--json", type=Path, help="write the results here (bench/results/...)")
    args = ap.parse_args()
    import yaml
    rows = {r["source_id"].removeprefix(lang_derive.PREFIX): r for r in lang_derive.reference_rows()}
    out = {}
    for code in sorted(FINEWEB2_CODE):
        path = args.configs / f"{FINEWEB2_CODE[code]}.yml"
        if code not in rows or not path.is_file():
            print(f"{code}: skipped ({'no ledger row' if code not in rows else f'{path} not found'})")
            continue
        try:
            out[code] = v = compare(code, rows[code], yaml.safe_load(path.read_text(encoding="utf-8")))
        except ImportError as e:  # datatrove's word tokenizer for it needs a package we do not install
            out[code] = {"skipped": str(e)}
            print(f"{code}: skipped ({e})")
            continue
        print(f"{code:>3} {v['fineweb2']:<9} docs {v['docs']:>3}  kept ours {v['kept_ours']:.3f}  FineWeb-2 "
              f"{v['kept_fineweb2']:.3f}  agreement {v['agreement']:.3f}  words ours/datatrove "
              f"{v['words_ours_over_datatrove']}  stop words shared {v['stop_words']['shared']}/"
              f"{v['stop_words']['fineweb2']}  {v['disagreements']}")
    write_results(args.json, {"doc_sentences": DOC_SENTENCES, "languages": out})


if __name__ == "__main__":
    main()
