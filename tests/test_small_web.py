"""What a newcomer sees building a small web dataset (issue 47): what became of every WARC record (fetch,
`corpus run`, `corpus rejects --stage fetch`, the report's funnel); a mixed tokenize writes only the mixed stream, and the
loader names the mix to pass; the mix manifest's units; a tokenizer trained on a few pages and an empty val
split are warned about."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_corpus, write_config, write_ledger
from warcs import eval_pages, ledger_row, other, response, write_warc

FORMATS = Path(__file__).resolve().parents[1] / "docs" / "formats.md"
OFF = {"enabled": False}
SMALL = {"filters.lang": OFF, "filters.gopher": OFF, "filters.repetition": OFF, "tokenize": {"vocab_size": 300}}
# 8 records: 4 that are no page, a PDF (rejected: not_html), 3 pages
RECORDS_LINE = ("WARC records of 1 web source: 8 read, 4 skipped (metadata 1, request 1, revisit 1, warcinfo 1), "
                "1 rejected (not_html 1), 3 documents")


def web_config(root: Path, artifacts: Path, name: str = "", **tables) -> Path:
    return write_config(root / f"{name or artifacts.name}.toml", ledger=root / "ledger.jsonl", sources=["crawl"],
                        artifacts=artifacts, **{**SMALL, **tables})


@pytest.fixture(scope="module")
def small_web(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A WARC of three real pages among the records a crawl writes, run through every stage: (config, the
    `corpus run` process); the config's directory holds the WARC and the ledger."""
    root = tmp_path_factory.mktemp("small-web")
    pages = eval_pages()[:3]
    url = pages[0]["url"]
    records = [other("warcinfo", "urn:crawl"), other("request", url),
               *(response(p["url"], p["html"], "text/html") for p in pages),
               response("http://a.org/report.pdf", b"%PDF-1.4 ...", "application/pdf"),
               other("metadata", url), other("revisit", url)]
    warc = write_warc(root / "crawl.warc.gz", records)
    write_ledger(root / "ledger.jsonl", [ledger_row("crawl", warc)])
    config = web_config(root, root / "artifacts")
    return config, run_corpus("--config", config, "run", "-j", "1", check=True)


def test_every_warc_record_is_accounted_for_where_fetch_is_shown(small_web):
    config, run = small_web
    fetch_row = re.search(r"^fetch +\S+ +[\d.]+ +(.*)$", run.stdout, re.M).group(1)
    assert fetch_row == f"1 of 1 sources fetched; {RECORDS_LINE}", run.stdout

    fetch = run_corpus("--config", config, "fetch", check=True).stdout.splitlines()
    assert ("  crawl: WARC records 8 read, 4 skipped (metadata 1, request 1, revisit 1, warcinfo 1), "
            "1 rejected (not_html 1), 3 documents") in fetch and fetch[-1] == RECORDS_LINE, fetch

    rejects = run_corpus("--config", config, "rejects", "--stage", "fetch", check=True).stdout.splitlines()
    assert rejects[:2] == [RECORDS_LINE, "fetch.not_html: 1 records"], rejects

    report = run_corpus("--config", config, "report", check=True).stdout.splitlines()
    assert report[1] == RECORDS_LINE, report
    page = Path(report[-1].removeprefix("html report: ")).read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", page[page.index('id="funnel"'):])
    assert rows[0].startswith("WARC records (1 web source)<div class=\"sub\">skipped by type: metadata 1, request 1, "
                              "revisit 1, warcinfo 1</div></td><td class=\"n\">8</td><td class=\"n\">4</td>"
                              "<td class=\"n\">4</td>"), rows[0]
    assert rows[1].startswith("raw (01 fetch)</td><td class=\"n\">4</td><td class=\"n\">3</td>"), rows[1]


@pytest.fixture(scope="module")
def mixed(small_web) -> Path:
    """The small web dataset tokenized with a [mix] (one source, all of the train tokens) on an artifacts
    root without token directories: its artifacts root."""
    config, _ = small_web
    art = config.parent / "mixed"
    shutil.copytree(config.parent / "artifacts", art, ignore=shutil.ignore_patterns("tokens", "cache"))
    run_corpus("--config", web_config(config.parent, art, mix={"seed": 1}, **{"mix.targets": {"crawl": "100%"}}),
               "tokenize", check=True)
    return art


def test_a_mixed_run_writes_the_mix_only_and_the_loader_names_it(mixed):
    from corpus.errors import CorpusError
    from corpus.tokens.loader import current_tokens_dir

    (directory,) = (mixed / "tokens" / "t" / "v1").iterdir()  # the mixed stream only: nothing unmixed beside it
    mix_id = json.loads((directory / "_MANIFEST.json").read_text())["mix"]["id"]
    assert current_tokens_dir(mixed, "t", "v1", mix=mix_id) == directory
    with pytest.raises(CorpusError) as e:
        current_tokens_dir(mixed, "t", "v1")
    assert str(e.value) == (f'{mixed / "tokens" / "t" / "v1"}: 1 token directory, none is current without a '
                            f'mixture; current instead: pass mix="{mix_id}" ({directory.name})')


def _field_paths(mix: dict) -> set[str]:
    """The mix section's fields as docs/formats.md names them: `sources.<id>.weight`, `train_tokens`, ..."""
    entry = next(iter(mix["sources"].values()))
    return {k for k in mix if k != "sources"} | {f"sources.<id>.{k}" for k in entry}


def test_the_mix_manifest_has_one_unit_and_every_field_documented(mixed):
    (directory,) = (mixed / "tokens" / "t" / "v1").iterdir()
    mix = json.loads((directory / "_MANIFEST.json").read_text())["mix"]
    crawl = mix["sources"]["crawl"]
    assert crawl["target"]["share"] == crawl["share"] == 1.0 and crawl["share_error"] == 0.0  # fractions both
    assert crawl["weight"] == 1 and "threshold" not in crawl
    table = FORMATS.read_text(encoding="utf-8").split("adds `mix`", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"^\| `([^`]+)` \|", table, re.M))
    assert _field_paths(mix) <= documented, _field_paths(mix) - documented


def _train_text_bytes(dataset_dir: Path) -> int:
    import pyarrow.parquet as pq

    rows = [r for s in sorted(dataset_dir.glob("shard-*.parquet"))
            for r in pq.read_table(s, columns=["split", "text"]).to_pylist()]
    return sum(len(r["text"].encode("utf-8")) for r in rows if r["split"] == "train")


def test_a_tokenizer_trained_on_little_text_and_an_empty_val_split_are_warned_about(small_web):
    config, run = small_web
    art = config.parent / "artifacts"
    (directory,) = (art / "tokens" / "t" / "v1").iterdir()
    m = json.loads((directory / "_MANIFEST.json").read_text())
    trained = m["tokenizer"]["trained_on_bytes"]
    assert trained == _train_text_bytes(art / "corpus" / "t" / "v1") and 0 < trained < 1 << 20
    assert m["splits"]["val"]["docs"] == 0  # three documents at val_permille 5
    few = f"the tokenizer was trained on {trained:,} bytes of text, fewer than [tokenize] min_train_bytes = 1,048,576"
    empty = "the val split is empty ([shard] val_permille = 5 per mille gave no document)"
    tokenize_row = re.search(r"^tokenize +\S+ +[\d.]+ +(.*)$", run.stdout, re.M).group(1)
    assert f"WARNING: {few}" in tokenize_row and f"WARNING: {empty}" in tokenize_row, tokenize_row
    assert f"WARNING tokenize: {few}" in run.stderr and f"WARNING tokenize: {empty}" in run.stderr, run.stderr

    tokenize = run_corpus("--config", config, "tokenize", check=True).stdout  # current: still said
    assert f"  WARNING: {few}" in tokenize and f"  WARNING: {empty}" in tokenize, tokenize
    report = run_corpus("--config", config, "report", check=True).stdout.splitlines()
    assert f"WARNING: tokens: {few}" in " ".join(report) and any(line.startswith(f"WARNING: tokens: {empty}")
                                                                  for line in report), report
    page = Path(report[-1].removeprefix("html report: ")).read_text(encoding="utf-8")
    assert f'<div class="flag unknown"><b>tokens:</b> {few}' in page and empty in page

    quiet = web_config(config.parent, art, name="quiet", tokenize={"vocab_size": 300, "min_train_bytes": 0})
    rerun = run_corpus("--config", quiet, "run", "-j", "1", check=True).stdout  # a warning's threshold reruns nothing
    assert re.search(r"^tokenize +current +[\d.]+ +train \d+ docs / \d+ tokens, val 0 docs / 0 tokens; "
                     r"WARNING: the val split is empty", rerun, re.M) and few not in rerun, rerun


@pytest.mark.parametrize("recorded", [True, False])
def test_a_tokenizer_found_trained_before_keeps_its_byte_count(small_web, recorded):
    """A mixed run takes the unmixed run's tokenizer (trained nothing): its manifest says the same bytes,
    read from that manifest, or counted again when that manifest predates the count."""
    config, _ = small_web
    art = config.parent / f"reuse-{recorded}"
    shutil.copytree(config.parent / "artifacts", art)
    (plain,) = (art / "tokens" / "t" / "v1").iterdir()
    manifest = json.loads((plain / "_MANIFEST.json").read_text())
    trained = manifest["tokenizer"].pop("trained_on_bytes")
    if not recorded:
        (plain / "_MANIFEST.json").write_text(json.dumps(manifest))
    mixed = web_config(config.parent, art, mix={"seed": 1}, **{"mix.targets": {"crawl": "100%"}})
    proc = run_corpus("--config", mixed, "tokenize", check=True)
    assert "tokenizer: the one trained on this corpus with these settings" in proc.stderr
    (mix_dir,) = [d for d in (art / "tokens" / "t" / "v1").iterdir() if d != plain]
    assert json.loads((mix_dir / "_MANIFEST.json").read_text())["tokenizer"]["trained_on_bytes"] == trained
