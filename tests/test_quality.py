"""The learned quality classifier ([filters.quality], filters/quality.py) on real text: a reproducible model
with its training manifest, scores that do not depend on workers, keep_fraction's exact quantile, a new
threshold that rescores nothing, and one-line errors for a bad model or a label without documents."""

from __future__ import annotations

import copy
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from corpus.config import Config, load_config
from corpus.errors import CorpusError
from corpus.filters.quality import classifier_text, keep_count, load_model, metrics, score, train
from corpus.stages import run_stage
from conftest import LEDGER, error_line, run_corpus, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test", "state-union", "webtext", "minhash-articles-100"]
QUALITY = {"enabled": True, "positive": ["lee-background", "wikitext2-test"], "negative": ["webtext", "abc-news"],
           "caps": {"webtext": 1500, "abc-news": 1500}, "dim": 16, "bucket": 20000, "keep_fraction": 0.5}


def _config(root, **quality):
    cfg = write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "a",
                       **{"filters.quality": {**QUALITY, **quality}, "decontam": {"evals": []}})
    return load_config(cfg)


def _edited(config: Config, version: str, **quality) -> Config:
    data = copy.deepcopy(config.data)
    data["dataset"]["version"] = version
    data["filters"]["quality"].update(quality)
    return Config(path=config.path, data=data, artifacts=config.artifacts)


@pytest.fixture(scope="module")
def scored(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("quality")
    config = _config(root)
    run_stage("fetch", config, workers=2)
    run_stage("normalize", config, workers=2)
    manifest = run_stage("filter", config, workers=2).manifest
    return config, manifest


def _files(config: Config) -> dict:
    d = config.stage_dir("03-filter")
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*.parquet"))}


def test_training_gives_the_same_model_twice_with_its_manifest(scored, tmp_path):
    config, _ = scored
    path, manifest = train(config)  # found: trained by the filter stage's prepare
    again = Config(path=config.path, data=config.data, artifacts=tmp_path / "elsewhere")
    import shutil

    shutil.copytree(config.artifacts / "corpus" / "raw", again.artifacts / "corpus" / "raw")
    path2, manifest2 = train(again)  # trained anew in another root
    assert path2.read_bytes() == path.read_bytes() and path.name == f"{manifest['sha256']}.bin"
    assert manifest2 == manifest
    assert set(manifest["sources"]["positive"]) == {"lee-background", "wikitext2-test"}
    assert manifest["hyperparameters"]["dim"] == 16 and manifest["floret"] and manifest["preprocessing"]
    assert manifest["counts"]["webtext"]["train"] + manifest["counts"]["webtext"]["heldout"] == 1500
    m = manifest["heldout_metrics"]
    assert m["positive"] > 10 and m["negative"] > 100
    assert m["f1"] > 0.8 and m["auc"] > 0.95  # news and Wikipedia against forum lines and headlines


def test_keep_fraction_is_the_exact_quantile_and_does_not_depend_on_workers(scored):
    config, manifest = scored
    q = manifest["counts"]["quality"]
    d = config.stage_dir("03-filter")
    kept = np.concatenate([pq.read_table(p, columns=["quality_score"]).column(0).to_numpy()
                           for p in sorted(d.glob("part-*.parquet"))])
    cut = [r for p in sorted(d.glob("rejects/*.quality.parquet")) for r in pq.read_table(p).to_pylist()]
    scores = np.sort(np.concatenate([kept, np.array([r["value"] for r in cut], dtype=np.float32)]))[::-1]
    k = keep_count(len(scores), 0.5)
    assert q["scored"] == len(scores) and q["threshold"] == float(scores[k - 1])
    assert kept.min() >= q["threshold"] and all(r["value"] < q["threshold"] for r in cut)
    assert q["kept"] == len(kept) >= k and manifest["counts"]["dropped"]["quality"] == len(cut) > 0
    assert {r["rule"] for r in cut} == {"keep_fraction"} and "ranked" in cut[0]["detail"]
    before = _files(config)
    one = _edited(config, "v1", cache=None)
    one.data["run"]["cache"] = False  # recomputed, one worker: the same bytes
    run_stage("filter", one, workers=1, force=True)
    assert _files(config) == before


def test_a_new_threshold_rescores_nothing(scored):
    config, _ = scored
    v2 = _edited(config, "v2", keep_fraction=0.0, threshold=0.9)
    run_stage("normalize", v2, workers=1)
    counts = run_stage("filter", v2, workers=1).manifest["counts"]
    info = json.loads((v2.stage_dir("03-filter") / "_RUN.json").read_text())["filter_cache"]
    assert info["computed"] == 0 and info["hits"] > 0  # every score, and every other filter, from the cache
    assert counts["quality"]["rule"] == "threshold" and counts["quality"]["threshold"] == pytest.approx(0.9)
    kept = pq.read_table(v2.stage_dir("03-filter") / "part-00000.parquet").column("quality_score").to_numpy()
    assert (kept >= np.float32(0.9)).all()


def test_a_long_document_is_scored_whole_and_labels_in_text_stay_text(scored):
    config, _ = scored
    path, manifest = train(config)
    model = load_model(str(path), manifest["sha256"])
    text = " ".join(["The committee reviewed the annual report and the budget in detail."] * 30000)  # 330k words
    assert len(classifier_text(text).split()) > 300000
    assert 0.0 <= score(model, classifier_text(text), "__label__hq") <= 1.0
    assert classifier_text("a\n\n__label__hq  b __label__lq x__label__") == "a  _label_hq  b _label_lq x__label__"


def test_metrics_on_known_values():
    m = metrics(np.array([True, True, False, False]), np.array([0.9, 0.4, 0.6, 0.1]))
    assert (m["precision"], m["recall"], m["f1"], m["auc"]) == (0.5, 0.5, 0.5, 0.75)


def test_a_truncated_model_is_named_as_truncated(tmp_path):
    import floret

    from corpus.filters.quality import check_model, to_fasttext

    data = tmp_path / "train.txt"
    data.write_text("__label__hq good text here\n__label__lq bad text there\n" * 20)
    floret.train_supervised(str(data), dim=4, epoch=1, thread=1, verbose=0, mode="fasttext").save_model(
        str(tmp_path / "floret.bin"))
    model = tmp_path / "model.bin"
    model.write_bytes(to_fasttext((tmp_path / "floret.bin").read_bytes()))
    check_model(model, "__label__hq")
    cut = tmp_path / "cut.bin"
    cut.write_bytes(model.read_bytes()[:10])  # fastText's loader dies of SIGFPE on this one
    with pytest.raises(CorpusError) as e:
        check_model(cut, "__label__hq")
    assert str(e.value).startswith(f"{cut}: truncated, or not a fastText model (") and "\n" not in str(e.value)


def test_a_bad_model_or_a_label_without_documents_is_one_line(scored, tmp_path):
    config, _ = scored
    path, manifest = train(config)
    bad = tmp_path / "model.bin"
    bad.write_bytes(path.read_bytes()[:1000])
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=config.artifacts,
                       **{"filters.quality": {"enabled": True, "model": str(bad), "model_sha256": manifest["sha256"]},
                          "decontam": {"evals": []}})
    cfg.write_text(cfg.read_text().replace('version = "v1"', 'version = "v9"'))
    run_corpus("--config", cfg, "normalize", check=True)
    line = error_line(run_corpus("--config", cfg, "filter"))
    assert str(bad) in line and "sha256" in line, line
    from corpus.store.atomic import sha256_file

    cfg.write_text(cfg.read_text().replace(manifest["sha256"], sha256_file(bad)))
    line = error_line(run_corpus("--config", cfg, "filter"))
    assert str(bad) in line and "not a fastText model" in line, line
    nolabel = _edited(config, "v3")
    nolabel.data["filters"]["quality"]["positive"] = []
    with pytest.raises(CorpusError, match="filters.quality.positive names no source"):
        train(nolabel)
    ledger = tmp_path / "LEDGER.jsonl"
    ledger.write_text(LEDGER.read_text())
    (tmp_path / "blank.txt").write_text("\n \n\n")  # a real ledger row whose file holds no document
    cfg = write_config(tmp_path / "e.toml", ledger=ledger, sources=SOURCES, artifacts=tmp_path / "e",
                       **{"filters.quality": {**QUALITY, "positive": ["blank"]}, "decontam": {"evals": []}})
    run_corpus("--config", cfg, "ledger", "add", tmp_path / "blank.txt", "--source-id", "blank", "--license", "CC0-1.0",
               check=True)
    run_corpus("--config", cfg, "fetch", "--source", "blank", "--source", "webtext", "--source", "abc-news", check=True)
    line = error_line(run_corpus("--config", cfg, "quality", "train"))
    assert line == f"error: {cfg}: filters.quality.positive: no documents to train on (blank holds none after sampling)"


def _model_row_config(config: Config, tmp_path, version: str, **quality):
    """A config of `version` in the fixture's artifacts root whose ledger is the demo's plus what the test
    adds (tmp_path/LEDGER.jsonl), and whose [filters.quality] is `quality` (keep_fraction 0.5 like QUALITY)."""
    ledger = tmp_path / "LEDGER.jsonl"
    if not ledger.exists():
        ledger.write_text(LEDGER.read_text())
    cfg = write_config(tmp_path / f"{version}.toml", ledger=ledger, sources=SOURCES, artifacts=config.artifacts,
                       **{"filters.quality": {"enabled": True, "keep_fraction": 0.5, **quality},
                          "decontam": {"evals": []}})
    cfg.write_text(cfg.read_text().replace('version = "v1"', f'version = "{version}"'))
    return cfg


def test_a_model_given_as_a_ledger_row_scores_as_the_path_given_model(scored, tmp_path):
    from corpus.config.ledger import load_ledger

    config, _ = scored
    path, trained = train(config)  # the fixture's model, as a pretrained file would come
    model_file = tmp_path / "hq.bin"
    model_file.write_bytes(path.read_bytes())
    by_row = _model_row_config(config, tmp_path, "v5", model_source="hq-model")
    run_corpus("--config", by_row, "ledger", "add", model_file, "--source-id", "hq-model", "--license", "CC0-1.0",
               "--role", "model", check=True)
    row = load_ledger(tmp_path / "LEDGER.jsonl")["hq-model"]
    assert (row["role"], row["format"], row["sha256"]) == ("model", "binary", trained["sha256"])
    run_corpus("--config", by_row, "run", "-j", "1", "--through", "filter", check=True)  # fetch copies the file, never reads it
    c5 = load_config(by_row)
    (raw,) = (c5.raw_dir / "hq-model").iterdir()
    fetched = json.loads((raw / "_STAGE.json").read_text())
    assert [p["name"] for p in fetched["parts"]] == ["model.bin"] and fetched["counts"]["docs_out"] == 0
    assert (raw / "model.bin").read_bytes() == path.read_bytes()
    manifest = json.loads((c5.stage_dir("03-filter") / "_STAGE.json").read_text())
    assert manifest["params"]["quality_model"] == row["sha256"]  # the row's sha256 decides the filter's identity
    by_path = _model_row_config(config, tmp_path, "v6", model=str(model_file), model_sha256=trained["sha256"])
    run_corpus("--config", by_path, "run", "-j", "1", "--through", "filter", check=True)
    c6 = load_config(by_path)
    assert json.loads((c6.stage_dir("03-filter") / "_RUN.json").read_text())["filter_cache"]["computed"] > 0
    assert _files(c5) == _files(c6) == _files(config)  # the same scores and cut as the trained model's (v1)
    assert json.loads((c6.stage_dir("03-filter") / "_STAGE.json").read_text())["counts"]["quality"] == \
        manifest["counts"]["quality"]
    text = _model_row_config(config, tmp_path, "v4", model_source="hq-model")
    text.write_text(text.read_text().replace('"minhash-articles-100"]', '"minhash-articles-100", "hq-model"]'))
    line = error_line(run_corpus("--config", text, "normalize"))  # a model row is no text source
    assert line.endswith("dataset.sources: source 'hq-model' has role 'model', expected 'corpus'"), line


def test_a_ledger_model_whose_file_is_not_its_sha256_is_one_line(scored, tmp_path):
    from corpus.store.atomic import sha256_file

    config, _ = scored
    path, trained = train(config)
    model_file = tmp_path / "hq.bin"
    model_file.write_bytes(path.read_bytes())
    wrong = sha256_file(LEDGER)  # a real sha256, of another file
    cfg = _model_row_config(config, tmp_path, "v8", model_source="hq-wrong")
    (tmp_path / "LEDGER.jsonl").write_text(LEDGER.read_text() + json.dumps(
        {"source_id": "hq-wrong", "role": "model", "url": str(model_file), "sha256": wrong,
         "bytes": model_file.stat().st_size, "license_spdx": "CC0-1.0", "format": "binary"}) + "\n")
    proc = run_corpus("--config", cfg, "run", "-j", "1", "--through", "filter")
    line = error_line(proc)
    assert str(model_file) in line and f"sha256 mismatch: expected {wrong}, got {trained['sha256']}" in line, line
    assert not (config.raw_dir / "hq-wrong").exists() or not any((config.raw_dir / "hq-wrong").glob("*/_STAGE.json"))
    assert not load_config(cfg).stage_dir("03-filter").exists()  # nothing published
    # fetched right, then the published copy damaged: the filter stage checks it against the row first
    good = _model_row_config(config, tmp_path, "v10", model_source="hq-flip")
    run_corpus("--config", good, "ledger", "add", model_file, "--source-id", "hq-flip", "--license", "CC0-1.0",
               "--role", "model", check=True)
    run_corpus("--config", good, "run", "-j", "1", "--through", "normalize", check=True)
    (copy,) = (config.raw_dir / "hq-flip").glob("*/model.bin")
    data = bytearray(copy.read_bytes())
    data[5000] ^= 1
    copy.write_bytes(bytes(data))
    line = error_line(run_corpus("--config", good, "filter"))
    assert line.startswith(f"error: source 'hq-flip': {copy}: sha256 mismatch: expected {trained['sha256']}"), line
    assert not load_config(good).stage_dir("03-filter").exists()


def test_the_report_shows_scores_and_keep_rates_per_source_and_language(scored):
    from corpus.report.quality import collect_quality
    from corpus.report.render import quality_section
    from corpus.report.sampling import Budget

    config, manifest = scored
    q = collect_quality(config, Budget())
    by = q["by_source"]
    assert sum(int(g["kept"].sum() + g["cut"].sum()) for g in by.values()) == q["scored"] == manifest["counts"]["quality"]["scored"]
    assert sum(int(g["kept"].sum()) for g in by.values()) == q["kept"]
    assert abs(sum(int(g["kept"].sum() + g["cut"].sum()) for g in q["by_lang"].values()) - q["scored"]) <= len(q["by_lang"])
    page = quality_section(q)
    assert "keep rate" in page and "ranked" in page and all(f"<code>{s}</code>" in page for s in by)
    assert page.count("data:image/svg+xml") == 2  # scores by source and by language


def test_nothing_to_score_is_a_published_empty_cut(scored):
    config, _ = scored
    none = _edited(config, "v7")
    none.data["filters"]["lang"]["keep"] = ["fi"]  # no document of these English sources reaches the classifier
    run_stage("normalize", none, workers=1)
    counts = run_stage("filter", none, workers=1).manifest["counts"]
    assert counts["docs_out"] == 0 and counts["quality"]["scored"] == 0 and counts["quality"]["kept"] == 0


def test_huge_pages_change_no_score(scored):
    """load_model collapses a large model's memory into 2 MiB pages (engine/hugepages.py): the bytes, and so
    every score, are those of a plain load."""
    import fasttext

    from corpus.engine.hugepages import huge_pages_for, new_ranges

    assert new_ranges([(0, 10), (20, 30)], [(0, 40), (50, 60)]) == [(10, 20), (30, 40), (50, 60)]
    with huge_pages_for("an array", min_bytes=0) as pages:
        a = np.arange(24 << 20, dtype=np.int32)  # 96 MiB: malloc maps it anew
    assert pages["added"] >= a.nbytes and (a == np.arange(24 << 20, dtype=np.int32)).all()
    config, _ = scored
    path, _ = train(config)
    fasttext.FastText.eprint = lambda *a, **k: None
    plain = fasttext.load_model(str(path))
    with huge_pages_for(str(path), min_bytes=0):  # the fixture's model is small: collapse what it can
        huge = fasttext.load_model(str(path))
    texts = pq.read_table(config.stage_dir("03-filter") / "part-00000.parquet", columns=["text"]).column(0).to_pylist()
    assert [score(huge, classifier_text(t), "__label__hq") for t in texts] == \
        [score(plain, classifier_text(t), "__label__hq") for t in texts]


def test_fnv1a_is_fasttexts_hash_in_python_and_vectorised():
    from corpus.filters.fasttext_linear import VECTOR_FNV_MAX, fnv1a, fnv1a_many

    assert (fnv1a(b""), fnv1a(b"a"), fnv1a(b"foobar")) == (0x811C9DC5, 0xE40C292C, 0xBF9CF968)  # FNV-1a vectors
    assert fnv1a("é".encode()) != 0x811C9DC5 and fnv1a(b"\xc3") == ((0x811C9DC5 ^ 0xFFFFFFC3) * 16777619) % 2**32
    rng = np.random.default_rng(0)  # bytes >= 0x80 (signed chars in fastText) and words past the vectorised length
    words = [rng.integers(1, 256, n, dtype=np.uint8).tobytes() for n in rng.integers(1, VECTOR_FNV_MAX + 40, 500)]
    buf = np.frombuffer(b"".join(words), np.uint8)
    lengths = np.array([len(w) for w in words])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    assert fnv1a_many(buf, starts, lengths).tolist() == [fnv1a(w) for w in words]


def test_the_linear_scorer_is_fasttexts_predictor_up_to_rounding_whatever_the_batch(scored):
    """filters/fasttext_linear.py scores the model from its projected rows: on real documents and on lines
    that exercise fastText's reading (its six separators and NUL, bytes >= 0x80, words of 8, 9, 16, 17 and
    more than 64 bytes in and out of the vocabulary, no word at all, a lone surrogate) its scores are
    fastText's within 1e-5, and a line's score is the same alone or in any batch."""
    import mmap

    from corpus.filters.fasttext_linear import LinearScorer, _read_dictionary
    from corpus.filters.quality import QualityFilter, QualityParams

    config, _ = scored
    path, manifest = train(config)
    model, lin = load_model(str(path), manifest["sha256"]), LinearScorer(path)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        words, nwords, _ = _read_dictionary(data, path)
    vocab = [w.decode("utf-8", "replace") for w in words[:nwords]]
    by_length = {n: [w for w in vocab if len(w.encode()) == n][:3] for n in (8, 9, 16, 17, 30)}
    assert all(by_length[n] for n in (8, 9, 16, 17)), by_length
    texts = pq.read_table(config.stage_dir("03-filter") / "part-00000.parquet", columns=["text"]).column(0).to_pylist()
    awkward = ["", "   ", "\t\x0b\x0c\r", "the\x00committee\x00\x00report", "Zürich café naïve 日本語の文 😀 emoji",
               "x" * 17 + " " + "y" * 65 + " " + "z" * 5000, "\ud800 lone surrogate", "\x01\x1f control bytes",
               " ".join(w for ws in by_length.values() for w in ws), "the " + "ünïcödé" * 20 + " the"]
    lines = [classifier_text(t) for t in texts + awkward]
    for label in ("__label__hq", "__label__lq"):
        batch = lin.scores(lines, label)
        theirs = np.array([score(model, line, label) for line in lines])
        assert float(np.max(np.abs(batch - theirs))) <= 1e-5
        assert [lin.scores([line], label)[0] for line in lines] == batch.tolist()
        assert lin.scores(lines[::-1], label).tolist() == batch[::-1].tolist()
    with pytest.raises(ValueError, match="newline"):
        lin.scores(["two\nlines"], "__label__hq")
    f = QualityFilter(QualityParams(), {"quality_path": str(path), "quality_sha256": manifest["sha256"]})
    assert f.annotate_many(texts[:5]) == [f.annotate(t) for t in texts[:5]]


def test_a_model_the_linear_scorer_does_not_cover_is_scored_by_fasttexts_predictor(scored, tmp_path):
    """A hierarchical-softmax model (fastText's sigmoid table) is not projected: the filter scores it with
    fastText's predictor, as it would score any model fastText loads."""
    import floret

    from corpus.filters.fasttext_linear import LinearScorer, Unsupported
    from corpus.filters.quality import PredictorScorer, QualityFilter, QualityParams, load_scorer, to_fasttext
    from corpus.store.atomic import sha256_bytes

    config, _ = scored
    texts = pq.read_table(config.stage_dir("03-filter") / "part-00000.parquet", columns=["text"]).column(0).to_pylist()
    data = tmp_path / "train.txt"
    data.write_text("".join(f"__label__{'hq' if i % 2 else 'lq'} {classifier_text(t)}\n" for i, t in enumerate(texts)))
    m = floret.train_supervised(str(data), dim=8, loss="hs", thread=1, seed=0, verbose=0, mode="fasttext", bucket=1000)
    m.save_model(str(tmp_path / "floret.bin"))
    path = tmp_path / "hs.bin"
    path.write_bytes(to_fasttext((tmp_path / "floret.bin").read_bytes()))
    with pytest.raises(Unsupported, match="not softmax"):
        LinearScorer(path)
    sha = sha256_bytes(path.read_bytes())
    assert isinstance(load_scorer(str(path), sha), PredictorScorer)
    f = QualityFilter(QualityParams(), {"quality_path": str(path), "quality_sha256": sha})
    model = load_model(str(path), sha)
    assert f.annotate_many(texts[:20]) == [((float(np.float32(score(model, classifier_text(t), "__label__hq"))),), None)
                                           for t in texts[:20]]


def test_gc_keeps_the_model_a_filter_used_and_lists_one_no_version_used(scored, tmp_path):
    from corpus.commands.gc import collect

    config, _ = scored
    path, _ = train(config)
    stray = path.with_name("0" * 64 + ".bin")
    stray.write_bytes(b"a model no filter manifest names")
    try:
        listed = {g.path for g in collect(config, delete=False)}
        assert stray in listed and path not in listed and path.with_suffix(".json") not in listed
    finally:
        stray.unlink()


def test_training_that_diverges_is_one_line_naming_the_rate(scored):
    config, _ = scored
    with pytest.raises(CorpusError, match=r"filters.quality: training diverged \(fastText: Encountered NaN.*lower "
                                          r"filters.quality.lr \(100\)"):
        train(_edited(config, "diverged", lr=100.0))


def test_tune_keep_fraction_agrees_with_runs_at_each_value(scored):
    """`corpus tune filters.quality.keep_fraction` re-cuts from the stored scores (the quantile of the
    documents the other filters keep): per source, what a filter run at each value keeps."""
    from corpus.commands.signals import tune

    config, _ = scored
    base = _edited(config, "kfbase")  # v1 may have been rebuilt with the cache off (no signals kept)
    run_stage("normalize", base, workers=1)
    run_stage("filter", base, workers=1)
    r = tune(config, f"{config.dataset}/kfbase", "filters.quality.keep_fraction", ["0.3", "0.5", "0.8"])
    assert [v["value"] for v in r["values"]] == [0.3, 0.5, 0.8]
    for v in r["values"]:
        edited = _edited(config, f"kf{int(v['value'] * 10)}", keep_fraction=v["value"])
        run_stage("normalize", edited, workers=1)
        counts = run_stage("filter", edited, workers=1).manifest["counts"]
        assert {s: c["docs_out"] for s, c in counts["by_source"].items() if c["docs_out"]} == \
            {s: c["docs"] for s, c in v["by_source"].items()}, v["value"]
    assert r["values"][0]["docs"] < r["values"][2]["docs"]
