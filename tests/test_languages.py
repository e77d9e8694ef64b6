"""Word rules per language (corpus.filters.languages): segmentation, derived stop words and thresholds, the
language-agnostic fallback for languages the table does not know, and the run table's warning."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from conftest import REPO, mirror_file
from corpus.filters import languages
from corpus.filters.gopher import DEFAULT_PARAMS as GOPHER, gopher_quality, words_of
from corpus.filters.languages import LanguageRules, split_words_chars
from corpus.filters.registry import FilterChain
from corpus.filters.repetition import DEFAULT_PARAMS as REPETITION, gopher_repetition
from corpus.stages.filter import language_warnings


def documents(source_id: str, n_sentences: int = 12, skip: float = 0.6) -> list[str]:
    """Documents of consecutive sentences from the held-out end of a lingua file (the table is derived
    from its first 60%)."""
    lines = [s.strip() for s in mirror_file(source_id).read_text(encoding="utf-8").splitlines() if s.strip()]
    lines = lines[int(len(lines) * skip):]
    return ["\n".join(lines[i:i + n_sentences]) for i in range(0, len(lines) - n_sentences + 1, n_sentences)]


def kept_share(docs: list[str], lang: str, overrides: dict | None = None) -> float:
    g, r = LanguageRules("gopher", GOPHER, overrides).setting(lang), LanguageRules("repetition", REPETITION,
                                                                                     None).setting(lang)
    return sum(gopher_quality(d, g.params, g.segmentation) is None
               and gopher_repetition(d, r.params, r.segmentation) is None for d in docs) / len(docs)


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_chars_segmentation_splits_scripts_written_without_spaces():
    assert split_words_chars("我们 都是 学生 in 2024.") == ["我", "们", "都", "是", "学", "生", "in", "2024."]
    assert split_words_chars("カタカナとひらがな") == list("カタカナとひらがな")
    assert words_of("plain English words", "auto") == ["plain", "English", "words"]
    assert words_of("这是中文文本", "chars") == list("这是中文文本")
    assert words_of("我们都是学生。", "auto") == words_of("我们都是学生。", "jieba") == ["我们", "都", "是", "学生"]
    assert words_of("私は学生です。", "auto") == words_of("私は学生です。", "sudachi")
    assert "".join(words_of("私は学生です。", "sudachi")) == "私は学生です"


def test_sudachi_gets_a_long_text_in_pieces_under_its_input_limit():
    from corpus.filters.languages import SUDACHI_MAX_BYTES, _sudachi_pieces
    text = ("日本語の文です。" * 3000 + "\n") * 3
    pieces = list(_sudachi_pieces(text))
    assert "".join(pieces) == text and all(len(p.encode()) <= SUDACHI_MAX_BYTES + 4 for p in pieces)
    assert len(words_of(text, "sudachi")) > 3 * 3000


def test_english_and_unknown_language_of_the_document_keep_the_configured_rules():
    for lang in ("en", ""):  # "": the lang filter is off or comes later
        setting = LanguageRules("gopher", GOPHER, None).setting(lang)
        assert setting.params == GOPHER and setting.segmentation == "whitespace" and setting.known


def test_derived_table_gives_each_language_its_own_stop_words_and_scaled_thresholds():
    edited = dataclasses.replace(GOPHER, min_words=80)
    de = LanguageRules("gopher", edited, None).setting("de")
    assert "der" in de.params.stop_words and "the" not in de.params.stop_words
    factor = languages.derived_table()["languages"]["de"]["scale"]["gopher"]["min_words"]
    assert de.params.min_words == round(80 * factor)  # a top-level edit moves every language's threshold
    zh = LanguageRules("gopher", GOPHER, None).setting("zh")
    assert zh.segmentation == "jieba" and "的" in zh.params.stop_words
    assert LanguageRules("gopher", GOPHER, None).setting("ja").segmentation == "sudachi"


def test_language_overrides_win_over_the_derived_table():
    rules = LanguageRules("gopher", GOPHER, {"de": {"min_stop_words": 7, "stop_words": ["und"]},
                                             "fi": {"min_words": 10}})
    de = rules.setting("de")
    assert de.params.min_stop_words == 7 and de.params.stop_words == ("und",)
    fi = rules.setting("fi")   # a language the table lacks, with an override: known, agnostic otherwise
    assert fi.known and fi.params.min_words == 10 and fi.params.min_stop_words == 0


def test_a_language_missing_from_the_table_gets_language_agnostic_settings_never_english():
    setting = LanguageRules("gopher", GOPHER, None).setting("xx")
    assert not setting.known and setting.segmentation == "auto"
    assert setting.params.min_stop_words == 0                              # no stop-word rule
    assert setting.params.max_mean_word_length >= GOPHER.max_mean_word_length
    assert setting.params.min_mean_word_length <= GOPHER.min_mean_word_length


@pytest.mark.parametrize("lang", ["de", "fr", "ru", "ar", "hi", "zh", "ja", "sv", "tr"])
def test_real_held_out_text_survives_its_own_rules_where_the_english_ones_drop_it(lang):
    docs = documents(f"lingua-{lang}")
    english = sum(gopher_quality(d) is None and gopher_repetition(d) is None for d in docs) / len(docs)
    assert english < 0.5                  # what a run did before: the English stop words, whitespace words
    assert kept_share(docs, lang) >= 0.9


@pytest.mark.parametrize("lang", ["de", "ru", "zh", "ar"])
def test_a_language_left_out_of_the_table_still_keeps_its_clean_text(lang, monkeypatch):
    table = {**languages.derived_table(), "languages": {k: v for k, v in languages.derived_table()["languages"].items()
                                                       if k != lang}}
    monkeypatch.setattr(languages, "derived_table", lambda: table)
    assert kept_share(documents(f"lingua-{lang}"), lang) >= 0.9


def test_the_chain_counts_documents_that_got_language_agnostic_rules(monkeypatch):
    table = {**languages.derived_table(), "languages": {k: v for k, v in languages.derived_table()["languages"].items()
                                                       if k != "sv"}}
    monkeypatch.setattr(languages, "derived_table", lambda: table)
    from corpus.config.schemas import load_schema, with_defaults
    filters = with_defaults({"lang": {"keep": ["sv", "de"]}}, load_schema("corpus-config.schema.json")
                            ["properties"]["filters"])
    chain = FilterChain(filters, {})
    sv, de = documents("lingua-sv")[:3], documents("lingua-de")[:2]
    outcomes = chain.check_many(sv + de, [""] * 5, [str(i) for i in range(5)])
    assert [o.failed for o in outcomes] == [None] * 5
    assert [chain.unknown_language(o) for o in outcomes] == ["sv"] * 3 + [None] * 2
    warning = language_warnings({"language_agnostic": {"sv": 3}})
    assert len(warning) == 1 and "sv (3 docs)" in warning[0] and "language-agnostic" in warning[0]
    assert language_warnings({}) == []


def test_the_lang_filter_off_means_no_language_not_und():
    """A rule reading the document's language sees "" when the lang filter is off (the top-level settings
    apply; badwords then uses its default_language), not the 'und' placeholder of the lang columns."""
    from corpus.config.schemas import load_schema, with_defaults
    filters = with_defaults({"lang": {"enabled": False}}, load_schema("corpus-config.schema.json")
                            ["properties"]["filters"])
    chain = FilterChain(filters, {})
    assert chain.before_word_rules is None
    (measured,) = chain.measure_many([documents("lingua-en")[0]], [""], ["0"])
    gopher = [s.name for s in chain.steps].index("gopher")
    assert measured.values[gopher][0] == ""


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_the_committed_table_is_what_the_derivation_gives():
    mirror_file("lingua-en")  # skips without the mirror
    run = subprocess.run([sys.executable, str(REPO / "bench" / "lang_derive.py"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_language_codes_of_another_models_labels():
    from corpus.filters.lang import language_code
    assert language_code("rus_Cyrl", {}) == "ru" and language_code("cmn_Hani", {}) == "zh"
    assert language_code("fin_Latn", {}) == "fi" and language_code("yue_Hant", {}) == "yue"
    assert language_code("yue_Hant", {"yue": "zh"}) == "zh" and language_code("de", {}) == "de"
    assert language_code("als", {}) == "als"  # lid.176's own labels (Alemannic) are never remapped


def glotlid_like_model(tmp_path) -> Path:
    """A small fastText LID model trained here, labelled as GlotLID labels (no hub is reachable)."""
    import floret

    from corpus.filters.quality import to_fasttext
    lines = []
    for lang, label in (("de", "deu_Latn"), ("zh", "cmn_Hani"), ("en", "eng_Latn"), ("sv", "swe_Latn")):
        for s in documents(f"lingua-{lang}", n_sentences=1, skip=0.0)[:400]:
            lines.append(f"__label__{label} {' '.join(s.split())}")
    lines.sort(key=lambda line: zlib.crc32(line.encode()))  # interleave the labels (a fixed order)
    data = tmp_path / "lid.txt"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = floret.train_supervised(str(data), dim=16, epoch=20, lr=0.5, minn=2, maxn=4, bucket=20000, thread=1,
                                    seed=1, verbose=0, mode="fasttext")
    model.save_model(str(tmp_path / "floret.bin"))
    out = tmp_path / "glotlid-like.bin"
    out.write_bytes(to_fasttext((tmp_path / "floret.bin").read_bytes()))
    return out


def test_another_lid_model_feeds_the_word_rules_through_its_labels(tmp_path):
    from corpus.filters.lang import LangParams, LanguageFilter
    model = glotlid_like_model(tmp_path)
    lid = LanguageFilter(LangParams(keep=("de", "zh"), min_score=0.3), {"lang_path": str(model)})
    de, zh, en = (documents(f"lingua-{c}")[0] for c in ("de", "zh", "en"))
    (lang, _), fail = lid.annotate(de)
    assert lang == "de" and fail is None
    (lang, _), fail = lid.annotate(zh)
    assert lang == "zh" and fail is None          # cmn_Hani -> zh: the jieba rules of the table apply
    (lang, _), fail = lid.annotate(en)
    assert lang == "en" and fail[0] == "keep"
    by_label = LanguageFilter(LangParams(keep=("deu_Latn",), min_score=0.3), {"lang_path": str(model)})
    assert by_label.annotate(de)[1] is None         # keep may name the model's own label too


@pytest.mark.slow
def test_a_run_in_two_languages_keeps_both_and_reports_their_keep_rates(tmp_path):
    """End to end on real text: German and Chinese documents with `[filters.lang] keep = ["de", "zh"]` and
    every other setting at its default are kept (the English rules dropped them all), and `corpus report`
    shows the keep rate per language."""
    import hashlib

    from conftest import run_corpus, write_config, write_ledger
    docs = documents("lingua-de") + documents("lingua-zh") + documents("lingua-en")
    source = tmp_path / "mixed.txt"
    source.write_text("\n\n\n".join(docs) + "\n", encoding="utf-8")
    data = source.read_bytes()
    ledger = write_ledger(tmp_path / "ledger.jsonl", [{
        "source_id": "mixed", "role": "corpus", "url": source.as_uri(), "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data), "license_spdx": "Apache-2.0", "format": "text", "split": "delimiter",
        "delimiter": "\n\n\n"}])
    config = write_config(tmp_path / "c.toml", ledger=ledger, sources=["mixed"], artifacts=tmp_path / "art",
                          **{"filters.lang": {"keep": ["de", "zh"]}, "tokenize": {"vocab_size": 512}})
    run = run_corpus("--config", config, "run", "-j", "1", check=True)
    assert "WARNING: no word rules" not in run.stdout + run.stderr
    report = run_corpus("--config", config, "report", check=True).stdout
    line = next(ln for ln in report.splitlines() if ln.startswith("keep rate per language:"))
    n_de, n_zh = len(documents("lingua-de")), len(documents("lingua-zh"))
    assert f"de {n_de}/{n_de}" in line and f"zh {n_zh}/{n_zh}" in line


@pytest.mark.parametrize("lang", ["zh", "ja", "hi"])
def test_c4_keeps_the_lines_of_languages_with_their_own_end_marks(lang):
    """C4's terminal punctuation is ASCII: every Chinese, Japanese and most Hindi lines were removed as
    no_terminal_punct. For a language other than English any sentence terminal ends a line, and words are
    the language's segmenter's."""
    from corpus.filters.c4 import C4Params, c4_clean
    from corpus.filters.languages import rules_for
    docs = documents(f"lingua-{lang}")
    setting = rules_for("c4", C4Params()).setting(lang)
    english = [c4_clean(d, C4Params()) for d in docs]
    own = [c4_clean(d, setting.params, lang, setting.segmentation) for d in docs]
    assert sum(fail is None for _, _, fail in english) / len(docs) < 0.5
    assert sum(fail is None for _, _, fail in own) / len(docs) >= 0.9
    kept_lines = sum(len(text.splitlines()) for text, _, fail in own if fail is None)
    assert kept_lines >= 0.9 * sum(len(d.splitlines()) for d in docs)


def test_c4_and_fineweb_decide_english_as_before():
    from corpus.filters.c4 import C4Params, c4_clean
    from corpus.filters.fineweb import FineWebParams, fineweb_quality
    from corpus.filters.languages import rules_for
    for text in documents("lingua-en")[:20] + ["A line\nwith no end marks。\nJust words here"]:
        c4 = rules_for("c4", C4Params()).setting("en")
        assert c4_clean(text, c4.params, "en", c4.segmentation) == c4_clean(text, C4Params())
        fw = rules_for("fineweb", FineWebParams()).setting("en")
        assert fineweb_quality(text, fw.params, fw.segmentation) == fineweb_quality(text, FineWebParams())


def test_the_word_rules_split_a_document_once_and_measure_what_they_measure_alone(monkeypatch):
    """Gopher quality and repetition read the same words and lines of a document (registry.Doc.shared):
    split once per document, their signals equal to each measured on its own (real text, several
    languages)."""
    from corpus.config.schemas import load_schema, with_defaults
    from corpus.filters import gopher, repetition

    filters = with_defaults({"lang": {"keep": ["en", "de", "ru", "ar"]}, "ppl": {"enabled": False}},
                            load_schema("corpus-config.schema.json")["properties"]["filters"])
    chain = FilterChain(filters, {})
    texts = [t for lang in ("en", "de", "ru", "ar") for t in documents(f"lingua-{lang}")[:3]]
    calls: list[str] = []
    split = gopher.words_of
    monkeypatch.setattr(gopher, "words_of", lambda text, seg="whitespace": calls.append(text) or split(text, seg))
    found = chain.measure_many(texts, [""] * len(texts), [str(i) for i in range(len(texts))])
    assert sorted(calls) == sorted(texts)  # one split per document, not one per rule
    names = [s.name for s in chain.steps]
    g, r = names.index("gopher"), names.index("repetition")
    for m in found:
        lang = m.values[g][0]
        gs, rs = chain.checkers[g].rules.setting(lang), chain.checkers[r].rules.setting(lang)
        assert m.values[g] == (lang, *gopher.gopher_signals(m.text, gs.params, gs.segmentation))
        assert m.values[r] == (lang, *repetition.repetition_signals(m.text, rs.params, rs.segmentation))


def test_lid_on_a_bounded_prefix_is_opt_in_reads_whole_words_and_files_its_signals_apart():
    """[filters.lang] max_chars (unset by default: the whole text): the model reads the document's first
    max_chars characters, a word the cut splits left out; its signals are filed under another measuring
    identity, and a document whose opening is in another language is labelled by that opening."""
    from corpus.config.schemas import load_schema, with_defaults
    from corpus.filters.lang import model_line

    assert model_line("one  two\nthree") == "one two three"
    assert model_line("hello world again", 8) == "hello" and model_line("hello world again", 11) == "hello world"
    assert model_line("incomprehensibilities", 5) == "incom"  # a single word is cut, not dropped
    schema = load_schema("corpus-config.schema.json")["properties"]["filters"]
    default = with_defaults({}, schema)
    assert "max_chars" not in default["lang"]  # unset: no hash or memo identity of an existing version moves
    bounded = with_defaults({"lang": {"max_chars": 400}}, schema)
    de, en = " ".join(documents("lingua-de")), " ".join(documents("lingua-en") * 3)
    whole, prefix = FilterChain(default, {}), FilterChain(bounded, {})
    lang = [s.name for s in whole.steps].index("lang")
    assert whole.memo_identities(default, {})[lang] != prefix.memo_identities(bounded, {})[lang]
    (w,), (p,) = whole.measure_many([de + " " + en], [""], ["0"]), prefix.measure_many([de + " " + en], [""], ["0"])
    assert w.values[lang][0] == "en" and p.values[lang][0] == "de"
    (short,) = prefix.measure_many([en[:300]], [""], ["1"])
    assert short.values[lang] == whole.measure_many([en[:300]], [""], ["1"])[0].values[lang]
