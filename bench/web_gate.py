"""Extract only what can be kept (issue 49): an English-only web pipeline with and without
`[extract] prefilter_lang`, side by side with datatrove's WarcReader -> URLFilter -> Trafilatura ->
LanguageFilter in one run.

    python bench/web_gate.py [--mb 200] [--small-mb 10] [--english 0.45] [--seed 0] [--json bench/results/web-gate-....json]

1. A gzip WARC (one member per record) of about --mb MB: each record one of the 55 real pages of
   trafilatura's evaluation set (30 German, 17 English, 3 French, 5 unlabelled), an English page with
   probability --english (Common Crawl's English share is about 45%), each with two to four real sentences
   of its own language (lingua's) put into its body, so that no two records are alike; seeded.
2. corpus, one worker, a fresh root each: `corpus run --through filter` of an English-only config
   (`[filters.url]` with the ledger's real lists, `[filters.lang]` keep en at min_score 0.65, the other
   filters off; trafilatura with datatrove's options), once without and once with prefilter_lang:
   wall, peak RSS, pages per second per core (every record read, whatever became of it).
3. datatrove, one task: WarcReader -> URLFilter (its integrated lists, the public-suffix snapshot that
   tldextract ships: no network) -> Trafilatura(favour_precision) -> LanguageFilter(en, 0.65, the same
   lid.176 file) -> JsonlWriter.
4. Agreement: of the documents the ungated corpus run keeps (its filter output), the share the gated run
   keeps with identical text (by URL; issue 49 asks >= 99.5%), and the pages each side extracted.
5. With --small-mb, (1)-(4) again on a smaller WARC (its own seeded build): the marginal pages/s per core
   of each pipeline, (pages - pages_small) / (wall - wall_small), and the fixed seconds that leaves (both
   sides load URL lists, a model and their libraries once a run)."""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

from common import PY, ledger_rows, measured, mirror_dir, sha256_of, write_config, write_ledger
from web_extract import DATATROVE_LIKE, eval_pages, page_record

LISTS = {"block_domains": ["blocklist-phishing"], "banned_words": ["ldnoobw-en"],
         "allow_domains": ["blocklist-porn-exclusions"]}
OFF = ("gopher", "repetition", "c4", "fineweb", "badwords", "ppl", "quality")


def sentences(lang: str) -> list[str]:
    rows = ledger_rows()
    return [s for s in (mirror_dir() / rows[f"lingua-{lang}"]["sha256"]).read_text(encoding="utf-8").splitlines()
            if s.strip()]


def build_warc(path: Path, mb: float, english: float, seed: int) -> dict:
    """The WARC of (1); returns its records by the page's language."""
    import html as html_lib

    rng = random.Random(seed)
    pages = eval_pages()
    en = [p for p in pages if p.get("lang_hint") == "en"]
    other = [p for p in pages if p.get("lang_hint") != "en"]
    lines = {lang: sentences(lang) for lang in ("en", "de", "fr")}
    by_lang: dict[str, int] = {}
    n = size = 0
    with open(path, "wb") as f:
        while size < mb * 1e6:
            p = rng.choice(en if rng.random() < english else other)
            lang = p.get("lang_hint") or "none"
            by_lang[lang] = by_lang.get(lang, 0) + 1
            para = ("<p>" + html_lib.escape(" ".join(rng.sample(lines[lang], rng.randint(2, 4)))) + "</p>").encode() \
                if lang in lines else b""
            rec = page_record(p, para, n, rng)
            f.write(gzip.compress(rec, 6, mtime=0))
            size += len(rec)
            n += 1
    return {"records": n, "by_page_language": dict(sorted(by_lang.items()))}


def ours(warc: Path, work: Path, gated: bool, logs: Path, max_chars: int | None = None) -> dict:
    rows = ledger_rows()
    row = {"source_id": "bench-warc", "role": "corpus", "url": str(warc), "sha256": sha256_of(warc),
           "bytes": warc.stat().st_size, "license_spdx": "LicenseRef-bench", "format": "warc"}
    name = "gated" if gated else "plain"
    ledger = write_ledger(work / f"ledger-{name}.jsonl", [row] + [rows[s] for v in LISTS.values() for s in v])
    art = work / f"art-{name}"
    shutil.rmtree(art, ignore_errors=True)
    cfg = write_config(work / f"{name}.toml", ledger=ledger, sources=["bench-warc"], artifacts=art, name=name,
                       mirror=str(mirror_dir()),
                       fetch={"unit_bytes": 16 << 20},
                       extract={"engine": "trafilatura", "trafilatura": DATATROVE_LIKE, "prefilter_lang": gated,
                                **({"prefilter_max_chars": max_chars} if max_chars is not None else {})},
                       **{"filters.url": {"enabled": True, **LISTS}, "filters.lang": {"keep": ["en"], "min_score": 0.65}},
                       **{f"filters.{f}": {"enabled": False} for f in OFF})
    m = measured([PY, "-m", "corpus.commands.launch", "--config", str(cfg), "-q", "run", "--through", "filter",
                  "--workers", "1"], log=logs / f"ours-{name}.log")
    if m["rc"] != 0:
        raise SystemExit(f"corpus run ({name}) failed: see {logs / f'ours-{name}.log'}")
    (raw,) = (art / "corpus" / "raw" / "bench-warc").glob("*/_STAGE.json")
    counts = json.loads(raw.read_text())["counts"]
    kept = kept_documents(art / "corpus" / name)
    return {"impl": "corpus", "prefilter_lang": gated, "workers": 1, "pages": counts["docs_in"],
            "extracted": counts["docs_in"] - sum(v for k, v in counts["rejected"].items()
                                                 if k in ("prefilter_lang", "not_html", "http_status")),
            "fetch_rejected": counts["rejected"], "kept": len(kept), **m,
            "pages_per_s_per_core": counts["docs_in"] / m["wall_s"]}, kept


def kept_documents(dataset_dir: Path) -> dict[str, str]:
    from corpus.formats.parts import read_parquet

    out = {}
    for p in sorted(dataset_dir.glob("*/stages/03-filter/part-*.parquet")):
        t = read_parquet(p, columns=["url", "text"])
        out.update(zip(t.column("url").to_pylist(), t.column("text").to_pylist()))
    return out


DATATROVE_SCRIPT = """
import sys
import tldextract
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.filters import LanguageFilter, URLFilter
from datatrove.pipeline.writers import JsonlWriter
sys.path.insert(0, sys.argv[5])
import peers_datatrove as peers
src, out, logs, model = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
peers._allow_fasttext_predict()
urls = URLFilter()
urls.tldextractor = tldextract.TLDExtract(suffix_list_urls=())  # the snapshot it ships: no network
lang = LanguageFilter(languages=["en"], language_threshold=0.65, backend="ft176")
lang.model = peers._local_ft176(model)(["en"])
ex = LocalPipelineExecutor(pipeline=[WarcReader(src, glob_pattern="*.warc.gz"), urls,
                                     Trafilatura(favour_precision=True, deduplicate=False, timeout=60),
                                     lang, JsonlWriter(out)], tasks=1, workers=1, logging_dir=logs)
ex.run()
"""


def datatrove(warc: Path, work: Path, logs: Path, pages: int) -> dict:
    from corpus.filters.lang import bundled_model_path

    src = work / "dt-src"
    src.mkdir(exist_ok=True)
    if not (src / warc.name).exists():
        (src / warc.name).symlink_to(warc)
    for d in ("dt-out", "dt-logs"):
        shutil.rmtree(work / d, ignore_errors=True)
    script = work / "datatrove_gate.py"
    script.write_text(DATATROVE_SCRIPT)
    m = measured([PY, str(script), str(src), str(work / "dt-out"), str(work / "dt-logs"), str(bundled_model_path()),
                  str(Path(__file__).parent)], log=logs / "datatrove.log")
    if m["rc"] != 0:
        return {"impl": "datatrove", **m, "error": f"datatrove failed (rc={m['rc']}); log: {logs / 'datatrove.log'}"}
    docs = sum(1 for p in (work / "dt-out").glob("*.jsonl.gz") for _ in gzip.open(p, "rt"))
    return {"impl": "datatrove", "workers": 1, "pages": pages, "kept": docs, **m, "pages_per_s_per_core": pages / m["wall_s"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=200, help="size of the WARC (uncompressed MB of records)")
    ap.add_argument("--small-mb", type=float, default=10,
                    help="also run on a WARC this size, for the marginal pages/s (0: no)")
    ap.add_argument("--english", type=float, default=0.45, help="the share of records that are English pages")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prefilter-max-chars", type=int, default=None,
                    help="[extract] prefilter_max_chars of the gated run (default: the config's default)")
    ap.add_argument("--skip-datatrove", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None, help="work dir (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    from common import write_results

    work = a.work or Path(tempfile.mkdtemp(prefix="web-gate-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        res = one_size(work / "big", a.mb, a, with_datatrove=not a.skip_datatrove)
        if a.small_mb:  # the same pipelines on a smaller WARC: what a page costs, the fixed costs apart
            small = one_size(work / "small", a.small_mb, a, with_datatrove=not a.skip_datatrove)
            res["small"] = small
            res["marginal_pages_per_s_per_core"] = marginal = {}
            for big_run, small_run in zip(res["runs"], small["runs"]):
                if "error" in big_run or "error" in small_run:
                    continue
                key = big_run["impl"] + ("" if big_run["impl"] == "datatrove" else
                                         "_gated" if big_run["prefilter_lang"] else "_ungated")
                marginal[key] = ((big_run["pages"] - small_run["pages"])
                                 / (big_run["wall_s"] - small_run["wall_s"]))
                marginal[key + "_fixed_s"] = small_run["wall_s"] - small_run["pages"] / marginal[key]
            if "datatrove" in marginal:
                res["marginal_gated_vs_datatrove"] = marginal["corpus_gated"] / marginal["datatrove"]
        write_results(a.json, res)
        print(json.dumps({k: v for k, v in res.items() if k not in ("runs", "small")}, indent=1, default=str))
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def one_size(work: Path, mb: float, a, *, with_datatrove: bool) -> dict:
    """(1)-(4) on a WARC of `mb` MB in `work`."""
    work.mkdir(parents=True, exist_ok=True)
    logs = work / "logs"
    warc = work / "bench.warc.gz"
    res: dict = {"warc": {**build_warc(warc, mb, a.english, a.seed), "mb_uncompressed": mb,
                          "english": a.english, "seed": a.seed, "mb_file": round(warc.stat().st_size / 1e6, 1)},
                 "prefilter_max_chars": a.prefilter_max_chars}
    plain, plain_kept = ours(warc, work, False, logs)
    print(json.dumps(plain), file=sys.stderr)
    gated, gated_kept = ours(warc, work, True, logs, a.prefilter_max_chars)
    print(json.dumps(gated), file=sys.stderr)
    same = sum(1 for u, t in plain_kept.items() if gated_kept.get(u) == t)
    res["agreement"] = {"kept_ungated": len(plain_kept), "kept_gated": len(gated_kept),
                        "kept_by_both_identical_text": same, "share": same / max(1, len(plain_kept)),
                        "kept_only_gated": len(set(gated_kept) - set(plain_kept))}
    runs = [plain, gated]
    if with_datatrove:
        dt = datatrove(warc, work, logs, res["warc"]["records"])
        print(json.dumps(dt), file=sys.stderr)
        runs.append(dt)
        if "error" not in dt:
            res["gated_vs_datatrove"] = gated["pages_per_s_per_core"] / dt["pages_per_s_per_core"]
            res["ungated_vs_datatrove"] = plain["pages_per_s_per_core"] / dt["pages_per_s_per_core"]
    res["gated_vs_ungated"] = gated["pages_per_s_per_core"] / plain["pages_per_s_per_core"]
    res["runs"] = runs
    return res


if __name__ == "__main__":
    sys.exit(main())
