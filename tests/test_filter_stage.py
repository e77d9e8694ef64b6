"""Stage 03 filter on real data: what each filter drops, the rejects, counts that add up, determinism."""

from __future__ import annotations

import copy
import json
import shutil

import pyarrow.parquet as pq
import pytest

from corpus.config import Config, load_config
from corpus.stages import run_stage
from corpus.store.atomic import sha256_file
from conftest import LEDGER, run_corpus, write_config

SOURCES = ["tinystories-train-head", "state-union", "inaugural", "webtext", "udhr", "genesis", "genesis-utf8"]
FILTERS = {"filters.ppl": {"enabled": True, "reference": ["tinystories-val-head", "lee-background"],
                           "threshold": 5000}}


@pytest.fixture(scope="module")
def filtered(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("filter")
    cfg = write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "a", **FILTERS)
    config = load_config(cfg)
    run_stage("fetch", config, workers=2)
    run_stage("normalize", config, workers=2)
    manifest = run_stage("filter", config, workers=2).manifest
    return config, manifest


def read_parts(config, prefix=""):
    d = config.stage_dir("03-filter")
    return [r for p in sorted(d.glob(f"{prefix}part-*.parquet")) for r in pq.read_table(p).to_pylist()]


def test_each_source_meets_the_filters_it_should(filtered):
    config, manifest = filtered
    by_source = manifest["counts"]["by_source"]
    keep = {s: c["docs_out"] / c["docs_in"] for s, c in by_source.items()}
    assert keep["tinystories-train-head"] > 0.85
    assert keep["state-union"] > 0.9 and keep["inaugural"] > 0.9
    assert keep["webtext"] < 0.05 and keep["udhr"] < 0.01
    rejects = read_parts(config, "rejects/")
    lang_drops = [r for r in rejects if r["filter"] == "lang"]
    translations = {r["url"].rsplit("/", 1)[1].split(".")[0] for r in lang_drops if r["source_id"].startswith("genesis")}
    assert translations == {"finnish", "french", "german", "portuguese", "swedish"}
    assert {r["filter"] for r in rejects if r["source_id"] == "udhr"} >= {"lang"}
    kept_udhr = [r for r in read_parts(config) if r["source_id"] == "udhr"]
    assert all(r["lang"] == "en" for r in kept_udhr)
    short_web = [r for r in rejects if r["source_id"] == "webtext" and r["filter"] == "gopher"]
    gopher_keys = set(config["filters"]["gopher"]) - {"enabled", "max_words", "stop_words"}
    assert short_web and {r["rule"] for r in short_web} <= gopher_keys  # rules are named by their config keys
    assert sum(r["rule"] == "min_words" for r in short_web) > 0.5 * len(short_web)


def test_rejects_explain_every_drop_and_counts_add_up(filtered):
    config, manifest = filtered
    c = manifest["counts"]
    kept, rejects = read_parts(config), read_parts(config, "rejects/")
    assert c["docs_out"] == len(kept)
    assert c["docs_in"] == c["docs_out"] + sum(c["dropped"].values()) == len(kept) + len(rejects)
    assert sum(c["dropped_by_rule"].values()) == len(rejects)
    for r in rejects[:200]:
        assert r["id"] and r["text"] and r["filter"] in ("lang", "gopher", "repetition", "ppl") and r["rule"]
        assert r["value"] == r["value"]  # not NaN
    ppl = [r for r in rejects if r["filter"] == "ppl"]
    assert all(r["value"] > 5000 for r in ppl)
    assert set(kept[0]) == {"id", "text", "source_id", "url", "license_spdx", "meta", "lang", "lang_score", "quality_score",
                            "cleaned"}
    assert {r["lang"] for r in kept} == {"en"} and min(r["lang_score"] for r in kept) >= 0.65


def test_workers_and_reruns_give_identical_bytes(filtered, tmp_path):
    config, manifest = filtered
    d = config.stage_dir("03-filter")
    before = {p.relative_to(d): p.read_bytes() for p in d.rglob("*.parquet")}
    model = (d / "ppl-model.npz").read_bytes()
    again = run_stage("filter", _edited(config, run={"cache": False}), workers=1, force=True).manifest
    assert {p.relative_to(d): p.read_bytes() for p in d.rglob("*.parquet")} == before
    assert (d / "ppl-model.npz").read_bytes() == model
    assert again["parts"] == manifest["parts"] and again["counts"] == manifest["counts"]


def _edited(config, **tables):
    """The config with some keys of some tables replaced ({"filters.gopher": {...}, "dataset": {...}})."""
    data = copy.deepcopy(config.data)
    for dotted, keys in tables.items():
        d = data
        for t in dotted.split("."):
            d = d.setdefault(t, {})
        d.update(keys)
    return Config(path=config.path, data=data, artifacts=config.artifacts)


def test_an_edited_threshold_takes_the_other_filters_results_from_the_cache(filtered, caplog):
    """A new version with [filters.gopher] min_words edited: the perplexity model and every filter's
    signals of every document come from the cache (filters.memo): min_words is a threshold, so nothing is
    measured again (they are read from each part's signals table: the per-filter memo is not needed), and
    every part is byte for byte what a run without the cache computes. A cache entry whose bytes were
    damaged is noticed, removed and recomputed."""
    config, _ = filtered
    gopher = {"filters.gopher": {"min_words": 60}}
    cached = _edited(config, dataset={"version": "v2"}, **gopher)
    run_stage("normalize", cached, workers=1)
    memo_dir = config.artifacts / "cache" / "filter-memo"
    memo_dir.rename(aside := memo_dir.with_name("memo-aside"))
    with caplog.at_level("INFO"):
        c = run_stage("filter", cached, workers=1).manifest["counts"]
    assert not memo_dir.exists()  # decided from the signals tables: no memo entry read or written
    aside.rename(memo_dir)
    assert "perplexity model: order 3, from the cache" in caplog.text
    info = json.loads((cached.stage_dir("03-filter") / "_RUN.json").read_text())["filter_cache"]
    assert info["computed"] == 0  # a threshold: decided again from the stored signals
    assert info["hits"] == 4 * c["docs_in"]  # language ID, Gopher, repetition and perplexity of every document

    def parts(c):
        d = c.stage_dir("03-filter")
        return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*")) if p.suffix in (".parquet", ".npz")}

    fresh = _edited(config, dataset={"version": "v3"}, run={"cache": False}, **gopher)
    run_stage("normalize", fresh, workers=1)
    run_stage("filter", fresh, workers=1)
    assert parts(cached) == parts(fresh) and len(parts(fresh)) > 3

    memo = sorted((config.artifacts / "cache" / "filter-memo").rglob("*.parquet"))
    tables = sorted((config.artifacts / "cache" / "filter-signals").rglob("*.parquet"))
    assert memo and tables
    for entry in memo + tables:  # every entry damaged: each is noticed (its checksum), removed and computed again
        entry.write_bytes(entry.read_bytes()[:-9] + b"corrupted")
    expected = parts(fresh)
    for done in (cached, fresh):  # no unit to reuse from v2's or v3's output: v4 reads the cache
        shutil.rmtree(done.stage_dir("03-filter"))
    again = _edited(config, dataset={"version": "v4"}, **gopher)
    run_stage("normalize", again, workers=1)
    run_stage("filter", again, workers=1)
    assert json.loads((again.stage_dir("03-filter") / "_RUN.json").read_text())["filter_cache"]["hits"] == 0
    assert parts(again) == expected
    entries = list((config.artifacts / "cache" / "filter-memo").rglob("*.parquet"))
    # min_words is a threshold: v4 files its signals under v1's identities, so each damaged entry it read was
    # removed and written again
    rebuilt = [e for e in entries if e.name.endswith(f"-{sha256_file(e)}.parquet")]
    assert rebuilt and len(entries) == len(rebuilt) == len(memo)


def test_rejects_command_shows_rules(filtered):
    config, _ = filtered
    out = run_corpus("--config", config.path, "rejects", "--source", "webtext", "-n", "2", check=True).stdout
    assert "gopher.min_words:" in out and "webtext:" in out and "value=" in out


def test_rejects_names_what_found_nothing_and_labels_each_detail():
    """Issue 47, item 7: "no filter rejects" for --filter url read as "the stage dropped nothing"; the
    quality cut's threshold note stood under matched=, like a URL list entry."""
    from corpus.commands.rejects import labelled_detail, nothing_found
    from corpus.filters.quality import threshold_note

    assert nothing_found("filter", "url", None, None) == "no filter rejects for filter url"
    assert nothing_found("filter", "url", "domain", "webtext") == \
        "no filter rejects for filter url and rule domain in source webtext"
    assert nothing_found("filter", None, None, None) == "no filter rejects"
    assert nothing_found("dedup", "dedup", "exact", None) == "no dedup drops for rule exact"
    note = threshold_note(0.25, 10, 40, 0.25)
    assert labelled_detail({"filter": "quality", "detail": note}) == f" cut={note!r}"
    assert labelled_detail({"filter": "url", "detail": "phish.example"}) == " matched='phish.example'"
    assert labelled_detail({"filter": "gopher", "detail": None}) == ""


@pytest.mark.slow  # run_all through dedup
def test_rejects_command_for_dedup(tmp_path, mirror):
    from corpus.commands.pipeline import run_all

    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["minhash-articles-100", "gsm8k-train"],
                       artifacts=tmp_path / "a", decontam={"evals": ["gsm8k-test"]})
    run_all(load_config(cfg), workers=1, through="dedup")
    out = run_corpus("--config", cfg, "rejects", "--stage", "dedup", check=True).stdout
    assert "dedup.decontam:" in out and "eval=gsm8k-test ngram=" in out
    assert "dedup.near:" in out and "duplicate_of=minhash-articles-100:" in out
