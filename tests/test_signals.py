"""Signals, then decisions (issue 48): what each filter measures is kept apart from its thresholds, so a
threshold edit measures nothing again, `corpus tune` gives exactly what a run at each value keeps, and
`corpus signals export` writes the signals as Parquet."""

from __future__ import annotations

import copy
import dataclasses
import json

import pyarrow.parquet as pq
import pytest

from corpus.commands.signals import export, tune
from corpus.config import Config, load_config
from corpus.errors import CorpusError
from corpus.filters.fineweb import FineWebParams, fineweb_decision, fineweb_signals
from corpus.filters.gopher import GopherParams, gopher_decision, gopher_signals
from corpus.filters.registry import registry, schema_filter_tables
from corpus.filters.repetition import RepetitionParams, repetition_decision, repetition_signals
from corpus.stages import run_stage
from conftest import LEDGER, write_config

TEXTS = ["", "word", "The cat sat on the mat. " * 30, "# a\n# b\n" * 40, "- one\n- two\n- three and the four\n" * 10,
         "Hello... and then... nothing of the sort…\n" * 12, "x " * 60 + "1 2 3 4 5 6 7 8 9 10 " * 10,
         "A line that repeats with the words to be.\n\nA line that repeats with the words to be.\n\nOther.",
         "Short.\nA much longer line that ends with a full stop, as a line should.\nno end here\n" * 5]


def _variants(params, **choices):
    """`params` with each threshold set to each of its choices (one at a time)."""
    return [dataclasses.replace(params, **{k: v}) for k, vs in choices.items() for v in vs]


@pytest.mark.parametrize("measure, decide, base, choices", [
    (gopher_signals, gopher_decision, GopherParams(),
     {"min_words": [0, 3, 50, 200], "max_words": [5, 100_000], "min_stop_words": [-1, 0, 2, 20],
      "max_symbol_word_ratio": [0.0, 0.1], "min_alpha_words_ratio": [0.0, 0.99], "max_bullet_lines_ratio": [0.1]}),
    (repetition_signals, repetition_decision, RepetitionParams(),
     {"dup_line_frac": [0.0, 0.3, 1.0], "dup_para_char_frac": [0.0, 0.2],
      "top_ngram_char_frac": [((2, 0.05), (3, 0.9), (4, 0.16))],
      "dup_ngram_char_frac": [((5, 0.0), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10))]}),
    (fineweb_signals, fineweb_decision, FineWebParams(),
     {"line_punct_thr": [0.0, 0.5, 1.0], "line_punct_exclude_zero": [True], "short_line_thr": [0.0, 0.67],
      "char_duplicates_ratio": [0.0, 0.5], "new_line_ratio": [0.01, 0.3]}),
])
def test_signals_do_not_depend_on_thresholds(measure, decide, base, choices):
    """Measured under any thresholds, the signals are the same (the repetition rules' n-gram sizes, which
    measure, are kept); so deciding other thresholds from stored signals is deciding on the text."""
    for p in _variants(base, **choices):
        for text in TEXTS:
            stored = measure(text, base)
            assert measure(text, p) == stored
            assert decide(stored, p) == decide(measure(text, p), p)


def test_stop_words_are_counted_in_full_and_decide_as_the_capped_count():
    text = "the the the of to be " * 5 + "word " * 60
    s = gopher_signals(text)
    assert s[-1] == 30
    assert gopher_decision(s, GopherParams(min_stop_words=31)) == ("min_stop_words", 30.0)
    assert gopher_decision(s, GopherParams(min_stop_words=30)) is None


def test_every_threshold_is_a_config_key_and_not_in_the_measuring_identity():
    tables = schema_filter_tables()
    for name, spec in registry().items():
        props = tables[name]["properties"]
        assert set(spec.thresholds) <= set(props), name
        table = {k: v.get("default") for k, v in props.items()}
        for key in spec.thresholds:
            edited = {**table, key: "another value"}
            assert spec.measuring_table(edited) == spec.measuring_table(table), (name, key)
        assert bool(spec.cleans) == (spec.decide is None), name
    gopher = registry()["gopher"]
    assert gopher.measuring_table({"min_words": 1, "stop_words": ["a"]}) != gopher.measuring_table(
        {"min_words": 1, "stop_words": ["b"]})


# ---------------------------------------------------------------- on real data (slow tier)

SOURCES = ["tinystories-train-head", "webtext", "udhr", "genesis", "state-union"]
FILTERS = {"filters.c4": {"enabled": True, "min_num_sentences": 3}, "filters.fineweb": {"enabled": True}}
TUNED = {"filters.gopher.min_words": [30, 50, 80], "filters.lang.min_score": [0.4, 0.9],
         "filters.fineweb.short_line_thr": [0.5, 0.9], "filters.repetition.dup_line_frac": [0.1]}


@pytest.fixture(scope="module")
def measured(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("signals")
    cfg = write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "a", **FILTERS)
    config = load_config(cfg)
    for stage in ("fetch", "normalize", "filter"):
        run_stage(stage, config, workers=2)
    return config


def _edited(config, version: str, key: str | None = None, value=None, **run) -> Config:
    data = copy.deepcopy(config.data)
    data["dataset"]["version"] = version
    if key is not None:
        _, name, param = key.split(".")
        data["filters"][name][param] = value
    data["run"].update(run)
    return Config(path=config.path, data=data, artifacts=config.artifacts)


def _kept(config) -> dict[str, list[int]]:
    """Per source: [documents, characters] the filter stage published."""
    out: dict[str, list[int]] = {}
    for p in sorted(config.stage_dir("03-filter").glob("part-*.parquet")):
        t = pq.read_table(p, columns=["source_id", "text"])
        for sid, text in zip(t.column("source_id").to_pylist(), t.column("text").to_pylist()):
            c = out.setdefault(sid, [0, 0])
            c[0] += 1
            c[1] += len(text)
    return out


def test_tune_agrees_exactly_with_a_run_at_each_value(measured):
    """For threshold keys of four filters, several values each: tune's documents and characters per source
    are those a filter stage run at that value publishes, and that run measures nothing again."""
    config = measured
    n = 0
    for key, values in TUNED.items():
        r = tune(config, "t/v1", key, [json.dumps(v) for v in values])
        assert [v["value"] for v in r["values"]] == values
        for v in r["values"]:
            n += 1
            edited = _edited(config, f"v{n + 1}", key, v["value"])
            run_stage("normalize", edited, workers=1)
            manifest = run_stage("filter", edited, workers=1).manifest
            assert {s: c["docs_out"] for s, c in manifest["counts"]["by_source"].items() if c["docs_out"]} == \
                {s: c["docs"] for s, c in v["by_source"].items()}, (key, v["value"])
            assert {s: [c["docs"], c["chars"]] for s, c in v["by_source"].items()} == _kept(edited)
            info = json.loads((edited.stage_dir("03-filter") / "_RUN.json").read_text())["filter_cache"]
            assert info["computed"] == 0  # decided from stored signals only (v1's value: its units reused)
            assert (info["hits"] > 0) == (v["value"] != r["now"])
    counts = [v["docs"] for v in tune(config, "t/v1", "filters.gopher.min_words", ["30", "80"])["values"]]
    assert counts[0] > counts[1]  # the values make a difference on this input: the test can fail


def test_an_edited_threshold_is_byte_identical_to_a_run_from_scratch(measured):
    config = measured
    edit = _edited(config, "e1", "filters.gopher.min_words", 40)
    run_stage("normalize", edit, workers=1)
    run_stage("filter", edit, workers=1)
    fresh = _edited(config, "e2", "filters.gopher.min_words", 40, cache=False)
    run_stage("normalize", fresh, workers=1)
    run_stage("filter", fresh, workers=1, recompute=True)

    def files(c):
        d = c.stage_dir("03-filter")
        return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*.parquet"))}

    assert files(edit) == files(fresh) and len(files(fresh)) >= 3
    assert json.loads((fresh.stage_dir("03-filter") / "_RUN.json").read_text()).get("reused_units", {}) == {}


def test_signals_export_and_bad_keys(measured, tmp_path):
    config = measured
    entries = export(config, "t/v1", tmp_path / "out")
    tables = [pq.read_table(tmp_path / "out" / e["name"]) for e in entries]
    rows = sum(t.num_rows for t in tables)
    assert rows == run_stage("filter", config, workers=1).manifest["counts"]["docs_in"]
    names = tables[0].column_names
    assert names[:4] == ["id", "source_id", "url", "chars"]
    assert {"lang_label", "lang_score", "gopher_words", "repetition_dup_line_frac", "c4_rule",
            "fineweb_short_line_ratio"} <= set(names)
    with pytest.raises(CorpusError, match="not an empty directory"):
        export(config, "t/v1", tmp_path / "out")
    with pytest.raises(CorpusError, match="not a threshold .* cleaning filter"):
        tune(config, "t/v1", "filters.c4.min_num_sentences", ["2"])
    with pytest.raises(CorpusError, match="not enabled"):
        tune(config, "t/v1", "filters.ppl.threshold", ["10"])
    with pytest.raises(CorpusError, match="filters.gopher.min_words: 'many'"):
        tune(config, "t/v1", "filters.gopher.min_words", ["many"])
