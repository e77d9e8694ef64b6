"""[extract] prefilter_lang (corpus.filters.prefilter): the pages the language filter would drop are rejected
before extraction, on real pages (the 55 of trafilatura's evaluation set: German, English, French), two
datasets on one artifacts root: the gated one keeps exactly the documents, text for text, that the
ungated one keeps, and the ungated one's raw output is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import error_line, mirror_file, run_corpus, write_config, write_ledger
from warcs import eval_pages, ledger_row, response, write_warc


def _read(raw: Path, sub: str = "") -> list[dict]:
    from corpus.formats.jsonl import read_zst_jsonl

    return [r for p in sorted((raw / sub).glob("part-*.jsonl.zst")) for r in read_zst_jsonl(p)]


def _kept(artifacts: Path, dataset: str) -> dict[str, str]:
    from corpus.formats.parts import read_parquet

    out = {}
    for p in sorted((artifacts / "corpus" / dataset).glob("v1/stages/03-filter/part-*.parquet")):
        t = read_parquet(p, columns=["url", "text"])
        out.update(zip(t.column("url").to_pylist(), t.column("text").to_pylist()))
    return out


def _configs(tmp_path: Path) -> tuple[Path, Path, Path]:
    pages = eval_pages()
    warc = write_warc(tmp_path / "eval.warc.gz", [response(p["url"], p["html"], "text/html") for p in pages])
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("pages", warc)])
    art = tmp_path / "art"
    plain = write_config(tmp_path / "plain.toml", ledger=ledger, sources=["pages"], artifacts=art,
                         **{"filters.lang": {"keep": ["en"]}})
    gated = write_config(tmp_path / "gated.toml", ledger=ledger, sources=["pages"], artifacts=art,
                         extract={"prefilter_lang": True}, **{"filters.lang": {"keep": ["en"]}})
    for cfg, name in ((plain, "plain"), (gated, "gated")):  # two datasets on one root
        cfg.write_text(cfg.read_text().replace('name = "t"', f'name = "{name}"'))
    return plain, gated, art


@pytest.mark.slow  # two runs through the filter stage (~8 s): make test, not test-fast
def test_the_gate_rejects_unextracted_only_pages_the_language_filter_drops(tmp_path):
    plain, gated, art = _configs(tmp_path)
    run_corpus("--config", plain, "-q", "run", "--through", "filter", check=True)
    raw = art / "corpus" / "raw" / "pages"
    (plain_raw,) = raw.iterdir()
    before = {p: p.read_bytes() for p in sorted(plain_raw.rglob("*")) if p.is_file()}
    run_corpus("--config", gated, "-q", "run", "--through", "filter", check=True)
    gated_raw = next(d for d in raw.iterdir() if d != plain_raw)  # a raw output of its own
    assert {p: p.read_bytes() for p in sorted(plain_raw.rglob("*")) if p.is_file()} == before

    m = json.loads((gated_raw / "_STAGE.json").read_text())
    assert m["params"]["extract"]["prefilter"]["lang"]["keep"] == ["en"]
    assert "prefilter" not in json.loads((plain_raw / "_STAGE.json").read_text())["params"]["extract"]
    rejects = _read(gated_raw, "rejects")
    gated_out = [r for r in rejects if r["reason"] == "prefilter_lang"]
    assert m["counts"]["rejected"]["prefilter_lang"] == len(gated_out) >= 25  # 33 of the 55 are German or French
    assert all(r["detail"].startswith("fast pass: kept languages") for r in gated_out)
    assert m["counts"]["docs_in"] == 55 == len(_read(gated_raw)) + sum(m["counts"]["rejected"].values())
    # every page the gate let through is extracted as without it
    plain_docs = {d["url"]: d["text"] for d in _read(plain_raw)}
    assert all(plain_docs[d["url"]] == d["text"] for d in _read(gated_raw))

    kept_plain, kept_gated = _kept(art, "plain"), _kept(art, "gated")
    assert kept_plain and kept_gated == kept_plain  # the same documents, text for text
    assert not {r["url"] for r in gated_out} & set(kept_plain)


def _gate(max_chars: int = 2000, **lang):
    from corpus.filters.prefilter import LangGate

    p = {"margin": 0.3, "min_chars": 200, "max_chars": max_chars, "lang": {"keep": ["en"], "min_score": 0.65, "max_chars": 0, "labels": {},
                                                    **lang}, "model_path": ""}
    return LangGate(p)


def _sentences(lang: str, n: int = 8) -> str:
    return " ".join(mirror_file(f"lingua-{lang}").read_text(encoding="utf-8").splitlines()[-n:])


@pytest.mark.parametrize("lang", ["de", "fr", "ru", "zh", "ar"])
def test_a_page_in_another_language_is_rejected_and_english_or_too_short_text_is_not(lang):
    gate = _gate()
    assert gate.verdict(_sentences("en")) is None
    assert gate.verdict(_sentences(lang)) is not None
    assert gate.verdict(_sentences(lang)[:150]) is None  # fewer than min_chars: too little to be sure


def test_on_the_same_text_the_gate_rejects_only_what_the_language_filter_drops():
    """Mixes of English and another language's real sentences, in every proportion: a text the gate reads
    whole and rejects is one the filter drops (the margin is for the difference between the fast pass's
    text and the extractor's; on one text there is none). With prefilter_max_chars the gate reads a
    prefix: a page that changes language after it is the risk bench/web_gate.py measures."""
    from corpus.filters.lang import LangParams, LanguageFilter

    gate, lang = _gate(max_chars=0), LanguageFilter(LangParams(keep=("en",), min_score=0.65), {})
    rejected = 0
    for other in ("de", "fr", "es", "ru"):
        for k in range(9):
            text = _sentences(other, 8 - k) + " " + _sentences("en", k)
            if gate.verdict(text) is not None:
                rejected += 1
                assert lang.annotate(text)[1] is not None, (other, k)
    assert 8 <= rejected < 36  # the gate decides many, and lets the close ones through


def test_with_und_kept_only_a_sure_other_language_is_rejected():
    und = _gate(keep=["en", "und"])
    assert und.verdict(_sentences("en")) is None
    why = und.verdict(_sentences("de"))
    assert why is not None and "a language not kept" in why  # German wins surely
    assert und.verdict(_sentences("de", 4) + " " + _sentences("en", 4)) is None  # no language sure
    assert _gate(keep=["de"]).verdict(_sentences("de")) is None  # the kept language, by its code


def test_an_html_page_goes_through_the_fast_pass_in_the_sandbox(tmp_path):
    page = next(p for p in eval_pages() if p.get("lang_hint") == "de")
    from corpus.web.charset import decode_page

    from corpus.web.extract import FAST_PASS
    from corpus.web.sandbox import Sandbox

    from test_web import extract_cfg

    cfg = extract_cfg(tmp_path)
    box = Sandbox("trafilatura", cfg["trafilatura"], 30, 2048, FAST_PASS)
    plain = Sandbox("trafilatura", cfg["trafilatura"], 30, 2048)
    gate = _gate()
    try:
        assert gate(decode_page(page["html"])[0], page["url"], box)[0] == "prefilter_lang"
        page_en = next(p for p in eval_pages() if p.get("lang_hint") == "en" and len(p["html"]) > 20000)
        html = decode_page(page_en["html"])[0]
        assert gate(html, page_en["url"], box) is None
        # the page the gate let through is extracted where the fast pass left it: the same text
        assert box.extract(html, page_en["url"]) == plain.extract(html, page_en["url"])
        assert box.extract(html, page_en["url"]) == plain.extract(html, page_en["url"])  # and sent again
        assert box.started == 1
    finally:
        box.close()
        plain.close()


def test_prefilter_lang_without_the_language_filter_is_one_line_naming_the_config(tmp_path):
    pages = eval_pages()[:2]
    warc = write_warc(tmp_path / "p.warc.gz", [response(p["url"], p["html"]) for p in pages])
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("pages", warc)])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["pages"], artifacts=tmp_path / "art",
                       extract={"prefilter_lang": True}, **{"filters.lang": {"enabled": False}})
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert str(cfg) in line and "prefilter_lang needs the language filter" in line
    assert not (tmp_path / "art" / "corpus" / "raw" / "pages").exists()


def test_without_prefilter_lang_the_raw_key_is_what_it_was():
    from corpus.config import load_config
    from corpus.engine.raw import extract_params, prefilter_params

    from conftest import REPO

    config = load_config(REPO / "configs" / "web.toml")
    assert prefilter_params(config) is None
    params = extract_params(config["extract"])
    assert not {"prefilter", "prefilter_lang", "prefilter_margin", "prefilter_min_chars"} & set(params)
