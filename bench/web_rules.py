"""C4 quality, FineWeb quality and C4 bad words: our rules against datatrove's blocks on the same
documents — keep/drop agreement (with the disagreements sorted into classes) and documents per second,
one process each, side by side in one run; the fastest of a few alternating passes of each side.

    python bench/web_rules.py                       # real text of the demo ledger + extracted web pages
    python bench/web_rules.py --corpus data.jsonl.zst --json out.json

Documents: every document of the demo's text sources (TinyStories, WikiText-2, webtext, State of the Union,
news, ABC, GSM8K...), read and normalised as fetch and normalize do, the 55 shared web pages as
trafilatura extracts them, and --corpus (one JSON object with "text" a line). datatrove's bad-words lists
are the mirror's LDNOOBW files (its download is redirected there; nothing reaches the network)."""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

from common import REPO, ledger_rows, mirror_dir, write_results

SOURCES = ["tinystories-train-head", "wikitext2-test", "webtext", "state-union", "minhash-articles-1000",
           "lee-background", "abc-news", "gsm8k-train", "genesis", "udhr"]


def documents(corpus: Path | None, limit: int) -> dict[str, list[str]]:
    from corpus.config import load_config
    from corpus.formats.sources.read import read_documents
    from corpus.formats.textnorm import normalize_text
    from corpus.web.charset import decode_page
    from corpus.web.extract import extractor

    norm = load_config(REPO / "configs" / "demo.toml")["normalize"]
    rows, m = ledger_rows(), mirror_dir()
    out: dict[str, list[str]] = {"ledger": [], "web": []}
    for sid in SOURCES:
        texts = [normalize_text(t, **norm) for _, t in read_documents(m / rows[sid]["sha256"], rows[sid])]
        out["ledger"] += [t for t in texts if t.strip()][:limit]
    fn = extractor("trafilatura", load_config(REPO / "configs" / "demo.toml")["extract"]["trafilatura"])
    for p in (json.loads(x) for x in (m.parent / "web_extraction_eval.jsonl").read_text().splitlines() if x.strip()):
        out["web"].append(fn(decode_page((m / p["sha256"]).read_bytes())[0], p["url"]))
    if corpus is not None:
        out["corpus"] = [normalize_text(t, **norm) for t in corpus_texts(corpus)]
    return out


def corpus_texts(corpus: Path) -> list[str]:
    """The "text" of every line of a --corpus file (.jsonl, or compressed: every zstd frame read). Lines
    end at "\n" only: str.splitlines() also splits at U+0085 and U+2028, which JSON strings hold as they are."""
    from corpus.formats.sources.compression import compression_of, open_decompressed

    with open(corpus, "rb") as raw:
        lines = io.TextIOWrapper(open_decompressed(raw, compression_of(corpus.name)), encoding="utf-8", newline="\n")
        return [json.loads(x)["text"] for x in lines if x.strip()]


def redirect_badwords_download() -> None:
    """datatrove fetches the LDNOOBW lists from GitHub: hand it the mirror's copies instead."""
    import datatrove.pipeline.filters.c4_filters as c4

    by_lang = {r["url"].rsplit("/", 1)[-1]: mirror_dir() / r["sha256"] for r in ledger_rows().values()
               if r["source_id"].startswith("ldnoobw-")}

    def local(url, namespace=None, subfolder=None):
        return str(by_lang[url.rsplit("/", 1)[-1]])
    c4.cached_asset_path_or_download = local


def classify_c4(text: str, theirs: bool, ours: tuple) -> str:
    """Why our C4 decision differs from datatrove's."""
    from datatrove.utils.text import split_into_sentences

    from corpus.filters.c4 import C4Params, c4_clean, count_sentences

    kept, _, failed = ours
    if failed is not None and failed[0] == "too_few_sentences" or theirs is False:
        kept_lines = c4_clean(text, C4Params(min_num_sentences=-1))[0].splitlines()
        mine = sum(count_sentences(x) for x in kept_lines)
        nltk = sum(len(split_into_sentences(x)) for x in kept_lines)
        if mine != nltk and (mine < 5) != (nltk < 5):
            return "sentence splitting (punkt vs ours) across the 5-sentence threshold"
    return "other"


def classify_fineweb(text: str) -> str:
    from datatrove.utils.text import TERMINAL_PUNCTUATION, split_into_words

    from corpus.filters.fineweb import TERMINAL, WORDS

    lines = [x for x in text.split("\n") if x.strip()]
    if sum(1 for x in lines if x.endswith(tuple(TERMINAL_PUNCTUATION))) != sum(1 for x in lines if TERMINAL.search(x)):
        return "terminal punctuation set (Sentence_Terminal vs datatrove's list)"
    if len(split_into_words(text)) != len(WORDS.findall(text)):
        return "word splitting (NLTK vs \\w+|[^\\w\\s]) in list_ratio"
    return "other"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=3000, help="documents per ledger source (default 3000)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5, help="timed passes per block and set, at most (default 5)")
    ap.add_argument("--budget-s", type=float, default=10.0,
                    help="no further pass once datatrove's passes of a block and set add up to this (default 10)")
    a = ap.parse_args(argv)
    from datatrove.data import Document
    from datatrove.pipeline.filters import C4BadWordsFilter, C4QualityFilter, FineWebQualityFilter

    from corpus.filters.badwords import BadWordsFilter, BadWordsParams
    from corpus.filters.c4 import C4Params, c4_clean
    from corpus.filters.fineweb import FineWebParams, fineweb_quality
    from corpus.filters.lists import write_lists
    from corpus.filters.registry import Doc

    redirect_badwords_download()
    sets = documents(a.corpus, a.limit)
    en = [x.strip().lower() for x in (mirror_dir() / ledger_rows()["ldnoobw-en"]["sha256"]).read_text().splitlines()
          if x.strip()]
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        _, resources = write_lists(Path(tmp), "badwords", {"en": en})
        ours_bw = BadWordsFilter(BadWordsParams(), resources)
    c4_theirs, fw_theirs, bw_theirs = C4QualityFilter(), FineWebQualityFilter(), C4BadWordsFilter()
    blocks = {  # name: (datatrove keeps it, we keep it)
        "c4": (lambda t: c4_theirs.filter(Document(text=t, id="x")) is True,
               lambda t: (lambda r: r[2] is None and bool(r[0].strip()))(c4_clean(t, C4Params()))),
        "fineweb": (lambda t: fw_theirs.filter(Document(text=t, id="x")) is True,
                    lambda t: fineweb_quality(t, FineWebParams()) is None),
        "badwords": (lambda t: bw_theirs.filter(Document(text=t, id="x", metadata={"language": "en"})) is True,
                     lambda t: ours_bw.check(Doc(t, id="x", lang="en")) is None),
    }
    res: dict = {"documents": {k: len(v) for k, v in sets.items()}, "blocks": {}}
    for name, (theirs, ours) in blocks.items():
        r: dict = {}
        for set_name, docs in sets.items():
            theirs(docs[0]), ours(docs[0])  # first-call set-up (regexes, NLTK) outside the timing
            # alternate passes, the fastest of each side: one pass of a few ms (ours on the 55 pages) is at the
            # mercy of one preemption on a shared machine; passes stop when datatrove's add up to --budget-s
            times_theirs, times_ours = [], []
            while len(times_theirs) < a.repeat and sum(times_theirs) < a.budget_s:
                t0 = time.perf_counter()
                dt = [theirs(t) for t in docs]
                times_theirs.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                us = [ours(t) for t in docs]
                times_ours.append(time.perf_counter() - t0)
            t_theirs, t_ours = min(times_theirs), min(times_ours)
            classes: dict[str, int] = {}
            for t, a_, b_ in zip(docs, dt, us):
                if a_ != b_:
                    c = (classify_c4(t, a_, c4_clean(t, C4Params())) if name == "c4" else
                         classify_fineweb(t) if name == "fineweb" else "other")
                    classes[c] = classes.get(c, 0) + 1
            r[set_name] = {"docs": len(docs), "agreement": sum(x == y for x, y in zip(dt, us)) / len(docs),
                           "kept_datatrove": sum(dt), "kept_ours": sum(us), "disagreements": classes,
                           "docs_per_s_datatrove": len(docs) / t_theirs, "docs_per_s_ours": len(docs) / t_ours,
                           "speedup": t_theirs / t_ours, "passes": len(times_theirs)}
        res["blocks"][name] = r
        print(name, json.dumps(r), file=sys.stderr)
    write_results(a.json, res)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
