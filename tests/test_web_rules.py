"""C4's and FineWeb's quality rules and C4's bad words on real text (web pages extracted from the shared
evaluation set, Wikipedia, forum text), each rule alone, the line-removal record through the filter stage
and `corpus why`, and agreement with datatrove's blocks on the same documents."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
import zstandard

from conftest import REPO, ledger_rows, mirror_file, run_corpus, write_config, write_ledger
from corpus.filters.badwords import BadWordsFilter, BadWordsParams, kept_by_chance
from corpus.filters.c4 import C4Params, c4_clean, count_sentences
from corpus.filters.fineweb import FineWebParams, fineweb_quality
from corpus.filters.lists import write_lists
from corpus.filters.registry import Doc
from warcs import eval_pages, ledger_row, response, write_warc


@pytest.fixture(scope="module")
def web_texts() -> list[str]:
    """The shared evaluation pages as trafilatura extracts them (the text the web rules see)."""
    from corpus.config import load_config
    from corpus.web.charset import decode_page
    from corpus.web.extract import extractor

    fn = extractor("trafilatura", load_config("configs/demo.toml")["extract"]["trafilatura"])
    return [fn(decode_page(p["html"])[0], p["url"]) for p in eval_pages()]


@pytest.fixture(scope="module")
def wiki_articles() -> list[str]:
    import re

    text = mirror_file("wikitext2-test").read_text(encoding="utf-8")
    return [a for a in re.split(r"(?m)^ = [^=].* = \r?$", text) if len(a) > 2000][:20]


def test_c4_removes_lines_with_a_reason_and_keeps_the_rest(web_texts):
    page = ("Welcome to our site\nThis website uses cookies to improve your experience. Accept all.\n"
            "Please enable JavaScript in your browser to see the map below.\n"
            "The river floods every spring, and the farmers move their herds to the hills.[1]\n"
            "Ok.\n" + "Each summer the valley is green again, and the herds come back down. " * 1 + "\n"
            "The old bridge was built in 1820 and still carries the main road. It was repaired twice.\n"
            "Many visitors come to see it. They walk along the river to the village!\n")
    text, removed, failed = c4_clean(page, C4Params())
    assert failed is None
    rules = [(r, n) for r, n, _ in removed]
    assert rules == [("no_terminal_punct", 1), ("policy", 2), ("javascript", 3), ("citation", 4),
                     ("too_few_words", 5)]
    assert text.splitlines()[0] == "The river floods every spring, and the farmers move their herds to the hills."
    assert removed[3][2] == "[1]" and "cookies" not in text and "Ok." not in text
    # a real extracted page loses its menus and buttons, and what stays is whole sentences
    cleaned = [c4_clean(t, C4Params()) for t in web_texts]
    assert sum(1 for _, r, f in cleaned if r) > len(web_texts) // 2
    assert all(line.endswith((".", "?", "!", '"', "'")) for t, _, f in cleaned if f is None for line in t.splitlines())


@pytest.mark.parametrize("line,rule", [("Lorem ipsum dolor sit amet, consectetur adipiscing elit.", "lorem_ipsum"),
                                       ("The function body is { return x; } in this example.", "curly_bracket")])
def test_c4_document_rules(wiki_articles, line, rule):
    text = wiki_articles[0] + "\n" + line + "\n"
    _, _, failed = c4_clean(text.replace(" @-@ ", "-"), C4Params())
    assert failed is not None and failed[0] == rule
    short = "The first sentence is here. The second one too.\nAnd a third line follows it here."
    assert c4_clean(short, C4Params())[2] == ("too_few_sentences", 3.0)
    assert count_sentences("Dr. Smith met J. R. Tolkien in St. Andrews. They talked!") == 2


def test_fineweb_rules_on_real_text(wiki_articles, web_texts):
    p = FineWebParams()
    prose = " ".join(wiki_articles[1].split())  # one long line of real prose
    assert fineweb_quality(prose + "\n" + prose[:500] + ".", p) is None
    listing = "\n".join(w for w in prose.split()[:200])  # one word a line
    assert fineweb_quality(listing, p)[0] in ("line_punct_ratio", "short_line_ratio")
    lines = [s.strip() + "." for s in prose.split(".") if len(s.strip()) > 40][:20]
    assert fineweb_quality("\n".join(lines + lines[:5]), p)[0] == "char_dup_ratio"
    assert fineweb_quality("", p) == ("empty", 0.0)
    decisions = [fineweb_quality(t, p) for t in web_texts]
    assert any(d is None for d in decisions) and any(d is not None for d in decisions)


def _badwords(tmp_path, lists, **kw) -> BadWordsFilter:
    _, resources = write_lists(tmp_path, "badwords", lists)
    return BadWordsFilter(BadWordsParams(**kw), resources)


def test_badwords_word_boundaries_languages_and_keep_fraction(tmp_path):
    en = [x.strip().lower() for x in mirror_file("ldnoobw-en").read_text().splitlines() if x.strip()]
    zh = [x.strip() for x in mirror_file("ldnoobw-zh").read_text().splitlines() if x.strip()]
    f = _badwords(tmp_path, {"en": en, "zh": zh})
    assert f.check(Doc("He lived in Scunthorpe and studied classics.", id="a:1", lang="en")) is None
    assert f.check(Doc("Stop being such an asshole, he said.", id="a:2", lang="en")) == ("badword", 1.0, "asshole")
    assert f.check(Doc("Stop being such an asshole, he said.", id="a:2", lang="de")) is None  # no de list here
    ru = [x.strip().lower() for x in mirror_file("ldnoobw-ru").read_text().splitlines() if x.strip()]
    f_ru = _badwords(tmp_path, {"ru": ru})  # non-ASCII words: the text's \w runs give the candidates
    word = next(w for w in ru if " " not in w and w.isalpha())
    assert f_ru.check(Doc(f"Он сказал: «{word.capitalize()}!» и ушёл.", id="r:1", lang="ru")) == ("badword", 1.0, word)
    assert f_ru.check(Doc(f"Слово пре{word}ное не считается.", id="r:2", lang="ru")) is None
    hit = next(w for w in zh if len(w) > 1)
    assert f.check(Doc(f"这是一个句子{hit}在中间。", id="z:1", lang="zh")) is not None  # no spaces needed
    kept = [i for i in range(2000) if kept_by_chance(f"s:{i}", 7, 0.25)]
    assert 400 < len(kept) < 600 and kept == [i for i in range(2000) if kept_by_chance(f"s:{i}", 7, 0.25)]
    half = _badwords(tmp_path, {"en": en}, keep_fraction=0.5, seed=7)
    results = {i: half.check(Doc("you asshole", id=f"s:{i}", lang="en")) for i in range(200)}
    assert {i for i, r in results.items() if r is None} == {i for i in range(200) if kept_by_chance(f"s:{i}", 7, 0.5)}


def _first_standing_by_regex(text: str, words: list[str]) -> str | None:
    """What the filter names, found the slow way: each entry's first place in the lower-cased text with no
    word character just before or after it (datatrove's regex), the earliest (then the smallest entry);
    entries that start with a non-word character only when no other stands."""
    import re

    low = text.lower()
    found = {w: m.start() for w in words  # `w in low` first: the same answer, without a regex per absent entry
             if w in low and (m := re.search(rf"(?<!\w){re.escape(w)}(?!\w)", low))}
    first = [(at, w) for w, at in found.items() if re.match(r"\w", w)] or [(at, w) for w, at in found.items()]
    return min(first)[1] if first else None


@pytest.mark.slow  # longer than ~2 s: the full tier
def test_badwords_fast_paths_decide_as_the_regex(tmp_path, web_texts, wiki_articles):
    """The screens (ASCII runs without lower-casing, the caseless emoji) and the vectorised look-up of long
    texts (_RunTable) name exactly the word the regex finds first, on real pages and articles and on texts
    made for the edges: an entry at either end, upper case, a run sharing its first 8 bytes with an entry,
    phrases with other separators, a Kelvin sign or dotted İ that lower-case to ASCII letters."""
    from corpus.filters.badwords import _ascii_candidates, _ascii_words, _RunTable

    en = sorted({x.strip().lower() for x in mirror_file("ldnoobw-en").read_text().splitlines() if x.strip()})
    f = _badwords(tmp_path, {"en": en})
    filler = " ".join(wiki_articles[2].split()[:700])  # real prose without a listed word, > _RunTable.MIN_BYTES
    assert len(filler) > _RunTable.MIN_BYTES and _first_standing_by_regex(filler, en) is None
    made = [f"S&M {filler}", f"{filler} girl on top", f"{filler} MASTURBATING.", f"{filler} masturbate masturbat",
            f"{filler} 2-girls 1 cup", f"{filler} 2 girls, 1 cup", f"two girls one cup{filler}", f"{filler} DİNGLEBERRİES",
            f"{filler} HENTAİ here", f"{filler} \u212aINKY", "\u212aINKY", f"{filler} 🖕 and blow job", "x🖕",
            f"{filler[:3000]} ball_sack ball sack", f"“{filler}” — dick’s", "Scunthorpe classic" * 300]
    texts = web_texts + wiki_articles + made + [t[:200] for t in made]
    for text in texts:
        expected = _first_standing_by_regex(text, en)
        assert f.check(Doc(text, id="t:1", lang="en")) == (None if expected is None else ("badword", 1.0, expected)), text[-80:]
        translated = _ascii_words(text.lower())
        assert set(_ascii_candidates(translated.split(), f.ascii_lists["en"])) == \
            set(f.run_tables["en"].candidates(translated))
    long_texts = [t for t in texts if len(t.encode()) >= _RunTable.MIN_BYTES]
    assert len(long_texts) > 20 and sum(_first_standing_by_regex(t, en) is not None for t in long_texts) > 10


def test_badwords_unicode_facts_the_screens_rest_on():
    """The lower-case facts of badwords.py, against this Python's Unicode tables: only İ and the Kelvin sign
    lower-case to (something with) ASCII; no character another one lower-cases to is _caseless."""
    from corpus.filters.badwords import _LOWERS_TO_ASCII, _caseless

    chars = [chr(c) for c in range(0x110000)]
    assert {c for c in chars[128:] if any(x < "\x80" for x in c.lower())} == set(_LOWERS_TO_ASCII)
    assert not [y for c in chars for y in c.lower() if y != c and _caseless(y)]
    assert _caseless("🖕") and not _caseless("ⓐ") and not _caseless("a")


@pytest.mark.slow  # longer than ~2 s: the full tier
def test_agreement_with_datatrove(web_texts, wiki_articles):
    """Keep/drop decisions against datatrove's C4QualityFilter and FineWebQualityFilter on real pages and
    articles (make bench measures it on more; docs/web-rules.md explains each disagreement class)."""
    pytest.importorskip("datatrove")
    from datatrove.data import Document
    from datatrove.pipeline.filters import C4QualityFilter, FineWebQualityFilter

    docs = web_texts + wiki_articles
    theirs_c4, theirs_fw = C4QualityFilter(), FineWebQualityFilter()
    agree_c4 = agree_fw = 0
    for i, text in enumerate(docs):
        d = Document(text=text, id=str(i))
        t = theirs_c4.filter(d)
        ours = c4_clean(text, C4Params())
        agree_c4 += (t is True) == (ours[2] is None and bool(ours[0].strip()))
        if t is True and ours[2] is None:
            assert ours[0] == d.text.strip()  # the same lines kept
        agree_fw += (theirs_fw.filter(Document(text=text, id=str(i))) is True) == (fineweb_quality(text, FineWebParams()) is None)
    assert agree_c4 >= 0.95 * len(docs) and agree_fw >= 0.95 * len(docs), (agree_c4, agree_fw, len(docs))


@pytest.mark.slow
def test_cleaning_through_the_filter_stage_and_why(tmp_path):
    pages = eval_pages()[:8]
    warc = write_warc(tmp_path / "p.warc.gz", [response(p["url"], p["html"], "text/html") for p in pages])
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("pages", warc)])
    off = {"enabled": False}
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["pages"], artifacts=tmp_path / "art",
                       **{"filters.c4": {"enabled": True, "min_num_sentences": 2}, "filters.lang": off,
                          "filters.gopher": off, "filters.repetition": off, "filters.ppl": off,
                          "decontam": {"evals": []}})
    run_corpus("--config", cfg, "run", "--through", "filter", "-j", "2", check=True)
    d = tmp_path / "art" / "corpus" / "t" / "v1" / "stages" / "03-filter"
    kept = [r for p in sorted(d.glob("part-*.parquet")) for r in pq.read_table(p).to_pylist()]
    removed = [r for p in sorted((d / "removed").glob("*.parquet")) for r in pq.read_table(p).to_pylist()]
    manifest = json.loads((d / "_STAGE.json").read_text())
    by_rule = manifest["counts"]["cleaned_by_rule"]
    assert removed and sum(v["lines"] for v in by_rule.values()) == len(removed)
    doc = next(r for r in kept if r["cleaned"])
    summary = json.loads(doc["cleaned"])
    mine = [r for r in removed if r["id"] == doc["id"]]
    assert sum(v[0] for v in summary.values()) == len(mine)
    assert all(r["text"] not in doc["text"] for r in mine if r["rule"] != "citation")
    proc = run_corpus("--config", cfg, "why", doc["id"], check=True)
    first = mine[0]
    assert f"removed c4.{first['rule']} line {first['line']}: {first['text']}" in proc.stdout, proc.stdout


def _bench_module(name: str, monkeypatch):
    """A bench script as a module (bench/ on sys.path, as `python bench/<name>.py` has it)."""
    import importlib.util

    monkeypatch.syspath_prepend(str(REPO / "bench"))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_corpus_of_two_zstd_frames_is_read_to_its_last_line(tmp_path, monkeypatch):
    """`make bench ARGS="--corpus F.jsonl.zst"` (issue 47, item 14): web_rules reads every document of a
    .jsonl.zst of two frames, real text written as bench_corpus writes it (ensure_ascii=False), so
    webtext's U+0085 and GSM8K's U+2028 stand raw inside JSON strings and end no line."""
    from corpus.formats.sources.read import read_documents

    rows = ledger_rows()
    texts = [t for sid in ("webtext", "gsm8k-train") for _, t in read_documents(mirror_file(sid), rows[sid])]
    odd = [t for t in texts if "\x85" in t or "\u2028" in t]
    texts = texts[:100] + odd + texts[-100:]
    assert any("\x85" in t for t in odd) and any("\u2028" in t for t in odd)
    frames = [zstandard.ZstdCompressor().compress(
        "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in half).encode())
        for half in (texts[:150], texts[150:])]
    path = tmp_path / "corpus.jsonl.zst"
    path.write_bytes(b"".join(frames))
    assert _bench_module("web_rules", monkeypatch).corpus_texts(path) == texts
