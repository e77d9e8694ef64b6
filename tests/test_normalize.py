"""Stage 02 normalize: the text rules, stable ids, worker-count independence, resume and bad input."""

from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.errors import CorpusError
from corpus.stages import run_stage
from corpus.formats.textnorm import normalize_text
from conftest import LEDGER, error_line, run_corpus, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test", "webtext", "genesis"]


def test_normalize_text_rules():
    assert normalize_text("a\r\nb\rc\n") == "a\nb\nc\n"
    assert normalize_text("e\u0301t\u00e9") == "\u00e9t\u00e9"  # NFC composes e + combining acute
    assert normalize_text("bell\x07 nul\x00 esc\x1b c1\x85 tab\tok") == "bell nul esc c1 tab\tok"
    assert normalize_text("line   \nnext\t \n\u00a0end \u3000") == "line\nnext\n\u00a0end"
    off = dict(nfc=False, newlines=False, control_chars=False, strip_trailing=False)
    assert normalize_text("e\u0301 \r\n\x07", **off) == "e\u0301 \r\n\x07"
    assert normalize_text("a\r\nb", **{**off, "control_chars": True}) == "a\nb"  # \r is a control char


@pytest.fixture(scope="module")
def fetched(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("norm")
    cfg = write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "a1", fetch={"part_docs": 5000})
    config = load_config(cfg)
    run_stage("fetch", config, workers=2)
    return root, config


def part_bytes(config):
    d = config.stage_dir("02-normalize")
    return {p.name: p.read_bytes() for p in sorted(d.glob("part-*.parquet"))}


def test_ids_text_and_worker_independence(fetched):
    root, config = fetched
    m1 = run_stage("normalize", config, workers=1).manifest
    one = part_bytes(config)
    m2 = run_stage("normalize", config, workers=2, force=True).manifest
    assert part_bytes(config) == one
    assert m1["parts"] == m2["parts"] and m1["counts"] == m2["counts"]
    table = pq.read_table(config.stage_dir("02-normalize") / "part-00000.parquet")
    assert table.column_names == ["id", "text", "source_id", "url", "license_spdx", "meta"]
    ids = table.column("id").to_pylist()
    assert ids[:3] == ["tinystories-train-head:0", "tinystories-train-head:1", "tinystories-train-head:2"]
    webtext_ids = [i for p in sorted(config.stage_dir("02-normalize").glob("part-*.parquet"))
                   for i in pq.read_table(p, columns=["id"]).column("id").to_pylist() if i.startswith("webtext:")]
    assert webtext_ids == [f"webtext:{k}" for k in range(len(webtext_ids))]  # k runs across raw parts
    assert len(webtext_ids) > 5000  # spans several raw parts
    wiki = [t for p in sorted(config.stage_dir("02-normalize").glob("part-*.parquet"))
            for t in pq.read_table(p).to_pylist() if t["source_id"] == "wikitext2-test"]
    assert "\r" not in wiki[0]["text"] and wiki[0]["text"].startswith(" = Robert Boulter =\n Robert Boulter")
    assert m2["counts"]["by_source"]["genesis"] == {"docs_in": 6, "docs_out": 6}  # lolcat, Portuguese: genesis-utf8


def test_rerun_is_current_and_stale_needs_force(fetched, tmp_path):
    root, config = fetched
    run_stage("normalize", config, workers=2, force=True)
    before = part_bytes(config)
    assert run_stage("normalize", config, workers=2).current
    cfg2 = write_config(root / "c2.toml", ledger=LEDGER, sources=SOURCES, artifacts=config.artifacts,
                        fetch={"part_docs": 5000}, normalize={"nfc": False})
    with pytest.raises(CorpusError, match="stale"):
        run_stage("normalize", load_config(cfg2), workers=1)
    assert part_bytes(config) == before


def test_resume_after_interruption_is_byte_identical(fetched, monkeypatch):
    root, config = fetched
    run_stage("normalize", config, workers=1, force=True)
    want = part_bytes(config)
    final = config.stage_dir("02-normalize")
    # interrupt: the third unit fails after two were checkpointed
    import corpus.stages.normalize as norm
    real = norm.normalize_part
    calls = []

    def flaky(u):
        calls.append(u.key)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(u)

    shutil.rmtree(final)
    monkeypatch.setattr(norm, "normalize_part", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_stage("normalize", config, workers=1)
    assert not final.exists() and final.with_name("02-normalize.incomplete").is_dir()
    monkeypatch.setattr(norm, "normalize_part", real)
    done = []
    monkeypatch.setattr(norm, "normalize_part", lambda u: done.append(u.key) or real(u))
    run_stage("normalize", config, workers=1, resume=True)
    assert calls[:2] and not set(calls[:2]) & set(done)  # the checkpointed units were not redone
    assert part_bytes(config) == want


def test_corrupt_raw_part_is_named(fetched, tmp_path):
    root, config = fetched
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["genesis"], artifacts=tmp_path / "a")
    run_corpus("--config", cfg, "fetch", check=True)
    part = next((tmp_path / "a" / "corpus" / "raw" / "genesis").glob("*/part-00000.jsonl.zst"))
    data = bytearray(part.read_bytes())
    data[100] ^= 0xFF
    part.write_bytes(bytes(data))
    line = error_line(run_corpus("--config", cfg, "normalize"))
    assert str(part.relative_to(tmp_path / "a")) in line or str(part) in line
    assert "sha256 mismatch" in line
    assert not (tmp_path / "a" / "corpus" / "t" / "v1" / "stages" / "02-normalize").exists()
    manifest = json.loads((part.parent / "_STAGE.json").read_text())
    assert manifest["parts"][0]["name"] == part.name


def test_edited_raw_row_count_is_named(fetched, tmp_path):
    """The driver no longer recounts raw parts before normalizing (each unit checks its part as it reads
    it): an edited count is still the one-line error naming the part, and nothing is published."""
    root, config = fetched
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["genesis"], artifacts=tmp_path / "a")
    run_corpus("--config", cfg, "fetch", check=True)
    stage = next((tmp_path / "a" / "corpus" / "raw" / "genesis").glob("*/_STAGE.json"))
    manifest = json.loads(stage.read_text())
    manifest["parts"][0]["rows"] += 1
    stage.write_text(json.dumps(manifest))
    line = error_line(run_corpus("--config", cfg, "normalize"))
    assert manifest["parts"][0]["name"] in line and "rows" in line
    assert not (tmp_path / "a" / "corpus" / "t" / "v1" / "stages" / "02-normalize").exists()


def test_input_manifest_with_a_wrong_schema_is_named(fetched, tmp_path):
    root, config = fetched
    run_stage("normalize", config, workers=1, force=True)
    stage = config.stage_dir("02-normalize") / "_STAGE.json"
    original = stage.read_text()
    broken = json.loads(original)
    del broken["counts"]
    stage.write_text(json.dumps(broken))
    try:
        line = error_line(run_corpus("--config", config.path, "filter"))
        assert str(stage) in line and "'counts' is a required property" in line
        assert not config.stage_dir("03-filter").exists()
    finally:
        stage.write_text(original)
