"""Bad input: each case gives one error line naming the file and place, a non-zero exit, and publishes nothing."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard

from conftest import LEDGER, error_line, ledger_rows, mirror_file, run_corpus, write_config, write_ledger


def local_row(path: Path, source_id: str, **kw) -> dict:
    data = path.read_bytes()
    row = {"source_id": source_id, "role": "corpus", "url": str(path), "sha256": hashlib.sha256(data).hexdigest(),
           "bytes": len(data), "license_spdx": "MIT", "format": "text"}
    row.update(kw)
    return row


def fetch_fails(tmp_path: Path, rows: list[dict], sources: list[str] | None = None, **tables) -> str:
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", rows)
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=sources or [r["source_id"] for r in rows],
                       artifacts=tmp_path / "art", **tables)
    line = error_line(run_corpus("--config", cfg, "fetch", "--workers", "1"))
    published = [p for p in (tmp_path / "art" / "corpus" / "raw").glob("*/*") if not p.name.endswith(".incomplete")]
    assert published == [], f"published despite the error: {published}"
    return line


@pytest.fixture
def stories(tmp_path, mirror) -> Path:
    """The first 40 lines of real TinyStories text."""
    p = tmp_path / "stories.txt"
    p.write_bytes(b"".join(mirror_file("tinystories-train-head").read_bytes().splitlines(keepends=True)[:40]))
    return p


def test_checksum_mismatch(tmp_path, stories):
    row = local_row(stories, "s", split="paragraph")
    row["sha256"] = "0" * 64
    line = fetch_fails(tmp_path, [row])
    assert "sha256 mismatch" in line and str(stories) in line and "0" * 64 in line


def test_size_mismatch(tmp_path, stories):
    row = local_row(stories, "s", split="paragraph")
    row["bytes"] += 1
    line = fetch_fails(tmp_path, [row])
    assert "size mismatch" in line and str(stories) in line


def test_unknown_config_key(tmp_path, stories):
    line = fetch_fails(tmp_path, [local_row(stories, "s")], fetch={"part_doc": 10})
    assert "unknown key 'fetch.part_doc'" in line and "c.toml" in line


def test_invalid_ledger_row(tmp_path, stories):
    bad = local_row(stories, "t", role="training")
    line = fetch_fails(tmp_path, [local_row(stories, "s"), bad], sources=["s"])
    assert "LEDGER.jsonl:2" in line and "role" in line


def test_duplicate_source_id(tmp_path, stories):
    line = fetch_fails(tmp_path, [local_row(stories, "s"), local_row(stories, "s")], sources=["s"])
    assert "LEDGER.jsonl:2" in line and "duplicate source_id 's'" in line


def test_invalid_json_line(tmp_path, mirror):
    lines = mirror_file("gsm8k-test").read_bytes().splitlines(keepends=True)[:6]
    lines[3] = lines[3][:40] + b"\n"  # cut inside a string
    p = tmp_path / "gsm.jsonl"
    p.write_bytes(b"".join(lines))
    line = fetch_fails(tmp_path, [local_row(p, "g", format="jsonl", text_fields=["question", "answer"])])
    assert f"{p}:4: invalid JSON" in line


def test_invalid_utf8(tmp_path, stories):
    lines = stories.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:10] + b"\xff\xfe" + lines[2][10:]
    stories.write_bytes(b"".join(lines))
    line = fetch_fails(tmp_path, [local_row(stories, "s", split="paragraph")])
    assert f"{stories}:3: invalid utf-8 at column 11" in line


def test_text_field_not_a_string(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"text": "Once upon a time there was a cat."}\n{"text": 42}\n')
    line = fetch_fails(tmp_path, [local_row(p, "x", format="jsonl")])
    assert f"{p}:2: field 'text' is not a string (got int)" in line


def test_missing_text_field(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"text": "fine"}\n{"body": "no text here"}\n')
    line = fetch_fails(tmp_path, [local_row(p, "x", format="jsonl")])
    assert f"{p}:2: missing field 'text'" in line


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_archive_member_escaping_its_folder(tmp_path, stories, kind):
    p = tmp_path / f"evil.{kind}"
    data = stories.read_bytes()
    if kind == "zip":
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("docs/ok.txt", data)
            z.writestr("../../etc/evil.txt", b"owned")
    else:
        with tarfile.open(p, "w:gz") as t:
            for name, payload in [("docs/ok.txt", data), ("docs/../../evil.txt", b"owned")]:
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                t.addfile(info, io.BytesIO(payload))
    line = fetch_fails(tmp_path, [local_row(p, "e", split="file")])
    assert "escapes its folder" in line and str(p) in line
    assert not (tmp_path.parent / "evil.txt").exists()


@pytest.mark.parametrize("ext", [".zst", ".gz"])
def test_truncated_compressed_file(tmp_path, mirror, ext):
    text = mirror_file("wikitext2-test").read_bytes()
    packed = zstandard.ZstdCompressor().compress(text) if ext == ".zst" else gzip.compress(text)
    p = tmp_path / f"wiki.raw{ext}"
    p.write_bytes(packed[: len(packed) // 2])
    line = fetch_fails(tmp_path, [local_row(p, "w", split="paragraph")])
    assert str(p) in line and "truncated or corrupt" in line


def test_unsupported_url_scheme(tmp_path, stories):
    row = local_row(stories, "s")
    row["url"] = "ftp://example.org/stories.txt"
    line = fetch_fails(tmp_path, [row])
    assert "unsupported URL scheme 'ftp'" in line


@pytest.mark.slow  # a real fetch, then a failing one
def test_earlier_published_output_untouched(tmp_path, stories):
    good = local_row(stories, "good", split="paragraph")
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [good])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["good"], artifacts=tmp_path / "art")
    run_corpus("--config", cfg, "fetch", check=True)
    raw = tmp_path / "art" / "corpus" / "raw" / "good"
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in raw.rglob("*")  if p.is_file()}
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "ok"}\n{"text": \n')
    write_ledger(ledger, [good, local_row(broken, "broken", format="jsonl")])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["good", "broken"], artifacts=tmp_path / "art")
    line = error_line(run_corpus("--config", cfg, "fetch", "--force", "--source", "broken"))
    assert f"{broken}:2: invalid JSON" in line
    assert not [p for p in (raw.parent / "broken").glob("*") if not p.name.endswith(".incomplete")]
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in raw.rglob("*") if p.is_file()} == before


def test_source_missing_from_ledger(tmp_path, stories):
    line = fetch_fails(tmp_path, [local_row(stories, "s")], sources=["s", "nope"])
    assert "source 'nope' is not in the ledger" in line


def test_eval_source_as_corpus_refused(tmp_path, stories):
    line = fetch_fails(tmp_path, [local_row(stories, "s", role="eval")])
    assert "source 's' has role 'eval', expected 'corpus'" in line


def test_real_ledger_is_valid():
    rows = ledger_rows()
    assert len(rows) == len(LEDGER.read_text().splitlines())
    from corpus.config.ledger import load_ledger
    assert list(load_ledger(LEDGER)) == list(rows)
    assert json.dumps  # the ledger is JSON Lines, one object per line
