"""Fetch in ranges (corpus.formats.sources.plan_ranges, one Map unit per range): the raw documents, their order,
their locators and the ids normalize gives them are the same whatever `[fetch].unit_bytes`, on real data
of every splittable kind (line text, paragraph text, JSONL, zip members, Parquet row groups); a source
that is one range keeps exactly the raw parts of a whole-file read; a document over max_doc_bytes is
refused through `corpus fetch` in one line, nothing published."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.formats.jsonl import read_zst_jsonl
from corpus.formats.parts import read_table
from corpus.engine.raw import current_raw
from corpus.engine.runner import RunOptions
from corpus.formats.sources import plan_ranges, read_documents
from corpus.stages import run_stage
from conftest import error_line, ledger_rows, mirror_file, run_corpus, write_config, write_ledger

SOURCES = ["minhash-articles-1000", "tinystories-val-head", "webtext"]
UNITS = [2048, 7919, 200_000, 64 << 20]  # 64 MiB (the default): every source here is one range


@pytest.fixture(scope="module")
def ledger(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("ranges")
    rows = [dict(ledger_rows()[s]) for s in SOURCES]
    # a Parquet source with many small row groups, from real text (GSM8K questions)
    lines = mirror_file("gsm8k-train").read_text().splitlines()[:1500]
    gsm = [json.loads(line) for line in lines]
    # JSON lines: the first 1,500 GSM8K training problems as they are (the whole file: 7,473, 4 MB)
    jsonl_path = root / "gsm.jsonl"
    jsonl_path.write_text("".join(line + "\n" for line in lines))
    rows.append({**ledger_rows()["gsm8k-train"], "source_id": "gsm-jsonl", "url": str(jsonl_path),
                 "sha256": hashlib.sha256(jsonl_path.read_bytes()).hexdigest(), "bytes": jsonl_path.stat().st_size})
    pq_path = root / "gsm.parquet"
    pq.write_table(pa.table({"text": [g["question"] for g in gsm], "answer": [g["answer"] for g in gsm]}),
                   pq_path, row_group_size=97)
    data = pq_path.read_bytes()
    rows.append({"source_id": "gsm-parquet", "role": "corpus", "url": str(pq_path),
                 "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "license_spdx": "MIT",
                 "format": "parquet", "text_fields": ["text", "answer"]})
    return root, write_ledger(root / "LEDGER.jsonl", rows), [r["source_id"] for r in rows]


def fetch_with(root: Path, ledger: Path, sources: list[str], unit: int):
    cfg = write_config(root / f"c{unit}.toml", ledger=ledger, sources=sources, artifacts=root / f"a{unit}",
                       fetch={"part_docs": 300, "unit_bytes": unit})
    config = load_config(cfg)
    run_stage("fetch", config, RunOptions(workers=2, extra={"sources": tuple(sources)}))
    return config


def raw_records(config, row) -> tuple[list[tuple], list[bytes]]:
    d, manifest = current_raw(config, row)
    names = [p["name"] for p in manifest["parts"]]
    assert names == sorted(names) == [f"part-{i:05d}.jsonl.zst" for i in range(len(names))]
    assert sorted(p.name for p in d.glob("*.jsonl.zst")) == names  # nothing else left in the directory
    recs = [(r["url"], r["license_spdx"], r["text"]) for n in names for r in read_zst_jsonl(d / n)]
    return recs, [(d / n).read_bytes() for n in names]


@pytest.fixture(scope="module")
def runs(ledger):
    root, path, sources = ledger
    return {u: fetch_with(root, path, sources, u) for u in UNITS}


def test_ranges_give_the_same_documents_and_ids(ledger, runs):
    root, path, sources = ledger
    rows = {json.loads(line)["source_id"]: json.loads(line) for line in path.read_text().splitlines()}
    for sid in sources:
        want, whole_parts = raw_records(runs[64 << 20], rows[sid])
        assert want and [(loc, text) for loc, _, text in want] == [
            (loc, text) for loc, text in read_documents(mirror_or_path(rows[sid]), rows[sid]) if text.strip()]
        n_ranges = {u: len(plan_ranges(mirror_or_path(rows[sid]), rows[sid], u)) for u in UNITS}
        assert n_ranges[64 << 20] == 1 and n_ranges[2048] > 3, (sid, n_ranges)  # the test splits every source
        for u in UNITS[:-1]:
            got, parts = raw_records(runs[u], rows[sid])
            assert got == want, (sid, u)
            assert len(parts) >= n_ranges[u]
    # ids: normalize numbers the documents by their position in the raw parts, whatever the unit size
    ids = {}
    for u in (2048, 64 << 20):
        result = run_stage("normalize", runs[u], workers=2)
        ids[u] = [(i, t) for p in result.manifest["parts"]
                  for t in [read_table(result.path / p["name"], p["sha256"])]
                  for i, t in zip(t.column("id").to_pylist(), t.column("text").to_pylist())]
    assert ids[2048] == ids[64 << 20] and len(ids[2048]) > 10_000


def test_one_range_keeps_the_parts_of_a_whole_read(ledger, runs, tmp_path):
    """unit_bytes at or above the file: the raw parts are those of the single writer fetch used before."""
    from corpus.formats.jsonl import ZstJsonlWriter

    _, path, _ = ledger
    row = ledger_rows()["minhash-articles-1000"]
    d, manifest = current_raw(runs[64 << 20], row)
    fetched_at = json.loads((d / "_STAGE.json").read_text())["fetched_at"]
    writer = ZstJsonlWriter(tmp_path, 300)
    for loc, text in read_documents(mirror_file(row["source_id"]), row):
        if text.strip():
            writer.write({"url": loc, "fetched_at": fetched_at, "license_spdx": row["license_spdx"], "text": text})
    want = [p.read_bytes() for p, _ in writer.close()]
    assert [(d / p["name"]).read_bytes() for p in manifest["parts"]] == want
    assert manifest["params"]["unit_bytes"] == 64 << 20


def test_unit_bytes_is_part_of_the_raw_identity(ledger, runs):
    _, path, _ = ledger
    row = next(json.loads(line) for line in path.read_text().splitlines() if '"gsm-jsonl"' in line)
    m1 = json.loads((current_raw(runs[2048], row)[0] / "_STAGE.json").read_text())
    m2 = json.loads((current_raw(runs[7919], row)[0] / "_STAGE.json").read_text())
    assert m1["params"]["unit_bytes"] == 2048 and m2["params"]["unit_bytes"] == 7919
    assert m1["counts"] == m2["counts"] == {"docs_in": 1500, "docs_out": 1500, "skipped_empty": 0}


def mirror_or_path(row: dict) -> Path:
    return Path(row["url"]) if row["url"].startswith("/") else mirror_file(row["source_id"])


@pytest.mark.slow  # two `corpus fetch` runs, 2 workers
def test_document_over_max_doc_bytes_refused_through_fetch(tmp_path, mirror):
    lines = mirror_file("gsm8k-test").read_text().splitlines()[:200]
    big = json.dumps({"question": "x " * 1500, "answer": "y"})  # about 3 KB: over a 2 KiB limit
    src = tmp_path / "qa.jsonl"
    src.write_text("\n".join(lines[:150] + [big] + lines[150:]) + "\n")
    data = src.read_bytes()
    row = {"source_id": "qa", "role": "corpus", "url": str(src), "sha256": hashlib.sha256(data).hexdigest(),
           "bytes": len(data), "license_spdx": "MIT", "format": "jsonl", "text_fields": ["question", "answer"]}
    led = write_ledger(tmp_path / "LEDGER.jsonl", [row])
    for unit in (1024, 64 << 20):  # split in ranges or not, the same one line
        cfg = write_config(tmp_path / f"c{unit}.toml", ledger=led, sources=["qa"], artifacts=tmp_path / f"art{unit}",
                           fetch={"max_doc_bytes": 2048, "unit_bytes": unit})
        line = error_line(run_corpus("--config", cfg, "fetch", "--workers", "2"))
        assert line.startswith(f"error: {src}#151: ") and "larger than [fetch].max_doc_bytes (2048 bytes)" in line
        raw = tmp_path / f"art{unit}" / "corpus" / "raw"
        assert not [q for q in raw.glob("*/*") if not q.name.endswith(".incomplete")]
    # under the limit it is fetched
    cfg = write_config(tmp_path / "ok.toml", ledger=led, sources=["qa"], artifacts=tmp_path / "ok",
                       fetch={"max_doc_bytes": 8192, "unit_bytes": 1024})
    out = run_corpus("--config", cfg, "fetch", "--workers", "2", check=True)
    assert "201 docs" in out.stdout
