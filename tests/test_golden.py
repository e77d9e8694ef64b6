"""Golden hashes: a fresh build of the golden run publishes exactly the files of tests/golden/SHA256SUMS.

After an intended output change run `make golden` and commit the new SHA256SUMS with the change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import zstandard

from corpus.formats.sources.compression import read_zst
from corpus.store.atomic import dump_json
from corpus.commands.golden import REPO, SUMS, diff, format_sums, parse_sums, published_hashes


def test_fresh_build_matches_the_golden_hashes(golden_run):
    expected = parse_sums((REPO / SUMS).read_text(encoding="utf-8"))
    actual = published_hashes(golden_run)
    changes = diff(expected, actual)
    assert not changes, (f"{len(changes)} published files differ from {SUMS} (if intended: make golden):\n"
                         + "\n".join(changes[:40]))
    kinds = {p.split("/")[0] for p in actual} | {p.rsplit(".", 1)[-1] for p in actual}
    assert {"corpus", "tokens", "parquet", "zst", "idx", "pkl", "mds", "ds"} <= kinds  # every stage and export
    assert not any(p.endswith("_RUN.json") for p in actual)


def fake_fetch(root: Path, fetched_at: str, extra: bytes = b"") -> Path:
    """A raw output as fetch writes it (the date in the path, fetched_at in every line and in _STAGE.json),
    a stage manifest quoting the raw manifest's sha256 and path, and a binary part."""
    date = fetched_at[:10].replace("-", "")
    raw = root / "corpus" / "raw" / "src" / date
    raw.mkdir(parents=True)
    lines = "".join(json.dumps({"url": f"u#{i}", "fetched_at": fetched_at, "text": f"doc {i}"}) + "\n" for i in range(50))
    part = zstandard.ZstdCompressor().compress(lines.encode())
    (raw / "part-00000.jsonl.zst").write_bytes(part)
    stage = dump_json({"fetched_at": fetched_at, "parts": [{"name": "part-00000.jsonl.zst", "bytes": len(part),
                                                            "sha256": hashlib.sha256(part).hexdigest()}]})
    (raw / "_STAGE.json").write_bytes(stage)
    (raw / "_RUN.json").write_text(json.dumps({"seconds": len(fetched_at) * 0.1, "host": fetched_at}))
    norm = root / "corpus" / "d" / "v1" / "stages" / "02-normalize"
    norm.mkdir(parents=True)
    (norm / "_STAGE.json").write_bytes(dump_json({"inputs": [{"path": f"corpus/raw/src/{date}/_STAGE.json",
                                                              "sha256": hashlib.sha256(stage).hexdigest()}]}))
    (norm / "part-00000.parquet").write_bytes(b"PAR1 fixed bytes" + extra)
    return root


def test_golden_hashes_ignore_the_fetch_date_and_see_any_other_byte(tmp_path):
    a = published_hashes(fake_fetch(tmp_path / "a", "2026-12-01T11:40:39Z"))
    b = published_hashes(fake_fetch(tmp_path / "b", "2031-07-04T05:06:07Z"))
    assert a == b and len(a) == 4 and "corpus/raw/src/<date>/part-00000.jsonl.zst" in a
    c = published_hashes(fake_fetch(tmp_path / "c", "2026-12-01T11:40:39Z", extra=b"!"))
    assert diff(a, c) == ["changed  corpus/d/v1/stages/02-normalize/part-00000.parquet"]
    assert parse_sums(format_sums(a)) == a


def test_golden_hashes_see_a_changed_raw_document(tmp_path):
    a = published_hashes(fake_fetch(tmp_path / "a", "2026-12-01T11:40:39Z"))
    root = fake_fetch(tmp_path / "b", "2026-12-01T11:40:39Z")
    part = next(root.glob("corpus/raw/src/*/part-00000.jsonl.zst"))
    text = read_zst(part).replace(b"doc 7", b"doc 8")
    part.write_bytes(zstandard.ZstdCompressor().compress(text))
    assert "changed  corpus/raw/src/<date>/part-00000.jsonl.zst" in diff(a, published_hashes(root))
