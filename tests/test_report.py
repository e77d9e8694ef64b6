"""`corpus report`: the HTML page of a small real run, rendered in headless Chromium (no console error, no
network request, the funnel numbers of _MANIFEST.json on the page), byte-identical across two renders, the
recomputed filter values equal to the ones stage 03 stored, and no PII value on the page."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from corpus.report.build import build_report, report_path
from corpus.report.filters import all_rules
from corpus.report.sampling import Budget, choose_parts
from corpus.filters.ppl import MODEL_FILE as PPL_MODEL, load_lm
from corpus.stages import STAGE
from browser import find_chromium, load_page
from conftest import LEDGER, error_line, run_corpus, write_config

SOURCES = ["tinystories-train-head", "minhash-articles-100", "presidio-pii-sentences", "udhr", "gsm8k-train"]
TABLES = {"fetch": {"part_docs": 1500}, "shard": {"shard_rows": 3000, "val_permille": 20},
          "filters.ppl": {"enabled": True, "reference": ["tinystories-val-head"], "threshold": 20000},
          "decontam": {"evals": ["gsm8k-test", "hellaswag"]}, "tokenize": {"vocab_size": 2048}}
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("report")
    path = write_config(root / "t.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "artifacts", **TABLES)
    config = load_config(path)
    run_all(config, workers=1)  # in-process: presidio, fastText and the LM load once, not once per worker
    return path, config


def chromium_or_skip() -> str:
    path = find_chromium()
    if path is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            pytest.skip("chromium is absent and cannot be installed here (needs root and apt-get); "
                        ".ci/run installs Debian's chromium")
        pytest.fail("chromium is absent: install it with `apt-get update && apt-get install -y chromium` (.ci/run does)")
    return path


@pytest.fixture(scope="module")
def rendered(run):
    """The report as `corpus report` writes it: (stdout, page path, page bytes)."""
    proc, page = report_cli(run[0])
    return proc.stdout, page, page.read_bytes()


def report_cli(config_path: Path, *options) -> tuple[subprocess.CompletedProcess, Path]:
    proc = run_corpus("--config", config_path, *options, "report", check=True)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("html report: ")]
    assert len(line) == 1, proc.stdout
    return proc, Path(line[0].removeprefix("html report: "))


# every chart: [alt, rendered width, natural width] (CSS px; an SVG's natural width is its own, in pt)
CHART_SIZES = "[...document.querySelectorAll('img.fig')].map(i => [i.alt, i.getBoundingClientRect().width, i.naturalWidth])"


def assert_charts_drawn_alike(charts: list) -> None:
    """Every chart shown at the same scale of its drawing (all are drawn with the same font sizes), within
    10%: a chart stretched past the others shows bigger letters."""
    assert len(charts) >= 5, charts
    scales = {alt: shown / natural for alt, shown, natural in charts}
    assert max(scales.values()) <= 1.1 * min(scales.values()), scales


@pytest.mark.browser
def test_report_renders_in_chromium_offline_with_the_manifest_funnel(run, rendered, tmp_path):
    config_path, config = run
    chromium = chromium_or_skip()
    stdout, page, _ = rendered
    assert page == report_path(config) and page.is_file()
    assert "documents through the stages" in stdout  # the text summary is still there
    png = tmp_path / "report.png"
    result = load_page(chromium, page, png, expressions={"charts": CHART_SIZES})
    assert result.errors == []
    assert_charts_drawn_alike(result.values["charts"])
    assert [u for u in result.requests if not (u.startswith("data:") or u == page.resolve().as_uri())] == []
    assert png.stat().st_size > 100_000 and result.height > 4000
    m = json.loads((config.dataset_dir / "_MANIFEST.json").read_text())
    text = result.text
    for stage, c in m["docs_per_stage"].items():
        assert f"{c['in']:,}" in text and f"{c['out']:,}" in text, stage
    for s in m["sources"]:
        assert s["source_id"] in text
        assert f"{s['train']:,} / {s['val']:,}" in text, s["source_id"]
    assert f"{m['n_docs']:,}" in text and f"{m['splits']['train']:,} / {m['splits']['val']:,}" in text
    for rule, n in m["filters_by_rule"].items():
        assert f"{n:,} dropped" in text or f"{n:,} documents" in text, rule
    from corpus.report.licences import classify

    for lic in m["licenses"]:  # flagged licences of the shards are named at the top of the page
        shipped = any(lic in s["licenses_in_shards"] and s["docs"] for s in m["sources"])
        if classify(lic)[0] in ("research-only", "unknown") and shipped:
            assert f"{classify(lic)[0]}: {lic}" in text.split("fetched documents")[0], lic  # before the cards
    for section in ("Funnel", "Licences", "Filters", "Language mix", "Dedup", "PII", "Tokens", "Samples"):
        assert section in text
    d = m["dedup"]
    assert d["near_dropped"] > 0 and "Largest clusters" in text  # minhash-articles-100's planted twins
    hits = sorted((r["eval_source"], r["id"].encode(), r["matched_ngram"]) for p in
                  sorted((config.stage_dir(STAGE["dedup"].dirname) / STAGE["dedup"].side.dirname).glob("part-*.parquet"))
                  for r in pq.read_table(p).to_pylist() if r["reason"] == "decontam")
    assert len(hits) == d["decontaminated"] > 0 and hits[0][2] in text  # a hit with its matched n-gram
    assert "recomputed here on a seeded sample" in text  # the page says the kept values are recomputed
    assert EMAIL.search(text) is None, EMAIL.search(text).group(0)  # rejects are scrubbed before display
    html = page.read_text()
    assert "<script" not in html.lower() and "http://" not in html.split("<body>", 1)[1].split("data:")[0]


def test_two_renders_are_byte_identical(run, rendered, tmp_path):
    """Another process (another hash seed, fresh matplotlib state) over a copy of the dataset elsewhere."""
    config_path, config = run
    _, page, first = rendered
    copy = tmp_path / "elsewhere"
    shutil.copytree(config.artifacts, copy, ignore=shutil.ignore_patterns("reports"))
    _, again = report_cli(config_path, "--artifacts", copy)
    assert again == copy / "reports" / "t" / "v1" / "index.html"
    assert again.read_bytes() == first
    assert b"<svg" not in first.split(b"<body>", 1)[1][:1000] and first.count(b"data:image/svg+xml;base64,") >= 8


def test_recomputed_filter_values_equal_the_stored_ones(run):
    """The kept values come from the same functions as the stage: on every rejected document, the rule's
    measure gives back exactly the value stage 03 stored."""
    _, config = run
    d = config.stage_dir(STAGE["filter"].dirname)
    manifest = json.loads((d / "_STAGE.json").read_text())
    model = [p for p in manifest["parts"] if p["name"] == PPL_MODEL][0]
    rules = {r.key: r for group in all_rules(config, load_lm(str(d / PPL_MODEL), model["sha256"])).values()
             for r in group}
    checked = set()
    for p in manifest["parts"]:
        if p["name"].startswith("rejects/"):
            for row in pq.read_table(d / p["name"]).to_pylist():
                rule = rules.get(f"{row['filter']}.{row['rule']}")
                if rule is not None and rule.measure is not None:
                    assert rule.measure(row["text"]) == pytest.approx(row["value"], rel=1e-12), (row["id"], rule.key)
                    checked.add(rule.key)
    assert {"gopher.min_words", "gopher.min_alpha_words_ratio", "ppl.threshold"} <= checked


def test_sampled_parts_are_said_on_the_page(run, tmp_path):
    _, config = run
    budget = Budget(part_bytes=1)  # every stage over budget: one part each, seeded
    parts = [{"name": f"part-{i:05d}.parquet", "bytes": 10} for i in range(6)]
    assert choose_parts(parts, budget, "x").parts == choose_parts(parts, budget, "x").parts
    assert len(choose_parts(parts, budget, "x").parts) == 1
    small = load_config(config.path, artifacts=str(config.artifacts))
    page = build_report(small, budget).read_text()
    assert "seeded sample" in page and "≈" in page


def test_missing_dataset_is_one_line(tmp_path, mirror):
    path = write_config(tmp_path / "t.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "none")
    line = error_line(run_corpus("--config", path, "report"))
    assert "_MANIFEST.json" in line and "corpus run" in line


def test_licence_flags():
    from corpus.report.licences import classify

    assert classify("LicenseRef-research-only")[0] == "research-only"
    assert classify("CC-BY-NC-4.0")[0] == "research-only"
    assert classify("NOASSERTION")[0] == classify("")[0] == "unknown"
    assert classify("LicenseRef-UDHR")[0] == "unknown"          # custom terms: someone must read them
    assert classify("LicenseRef-public-domain")[0] == classify("MIT")[0] == classify("Apache-2.0")[0] == ""
    assert classify("CC-BY-SA-3.0")[0] == classify("CDLA-Sharing-1.0")[0] == "share-alike"


def test_report_where_it_cannot_write_is_one_line(run, tmp_path):
    """A report under an artifacts root it cannot write to (here a file where reports/ must be: root ignores
    permission bits) is one line naming the path, exit 1, and the dataset is untouched."""
    config_path, config = run
    copy = tmp_path / "elsewhere"
    shutil.copytree(config.artifacts, copy, ignore=shutil.ignore_patterns("reports"))
    (copy / "reports").write_text("not a directory\n")
    before = sorted((p.relative_to(copy), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file())
    line = error_line(run_corpus("--config", config_path, "--artifacts", copy, "report"))
    assert line.startswith(f"error: {copy / 'reports'}") and "Not a directory" in line, line
    assert sorted((p.relative_to(copy), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file()) == before
