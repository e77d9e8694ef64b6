"""Stages read and write parts in record batches: PartReader hashes a part as it streams it (a damaged part
is the one-line sha256 mismatch naming the file, wherever the damage is), PartWriter gives the bytes of
write_table for a part under 64 MiB of Arrow data and, above it, row groups that depend on the data only;
normalize, filter and pii give the same parts whatever the batch size; the tokenizer's training sample is
bounded and depends on the ids and the seed only."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import corpus.formats.parts as parts
from corpus.errors import CorpusError
from corpus.formats.parts import PartReader, PartWriter, write_table
from conftest import arrow_mb_reading, tinystories


def stories_table(n: int = 3000) -> pa.Table:
    texts = list(tinystories())
    texts = [texts[i % len(texts)] for i in range(n)]
    return pa.table({"id": [f"s:{i}" for i in range(n)], "text": texts, "n": pa.array(range(n), pa.int64())})


def stream_copy(src: Path, sha: str, dst: Path, batch_rows: int) -> dict:
    reader = PartReader(src, sha, batch_rows=batch_rows)
    writer = PartWriter(dst, reader.schema)
    for b in reader.batches():
        writer.write(b)
    return writer.close()


def test_streamed_part_has_the_bytes_of_write_table(tmp_path):
    t = stories_table()
    want = write_table(t, tmp_path / "a.parquet")
    for rows in (1, 7, 1000, 5000):
        got = stream_copy(tmp_path / "a.parquet", want["sha256"], tmp_path / f"b{rows}.parquet", rows)
        assert got["sha256"] == want["sha256"] and got["rows"] == t.num_rows
    empty = write_table(t.slice(0, 0), tmp_path / "e.parquet")
    assert PartWriter(tmp_path / "e2.parquet", t.schema).close()["sha256"] == empty["sha256"]


def test_row_groups_close_at_the_byte_rule(tmp_path, monkeypatch):
    t = stories_table()
    src = write_table(t, tmp_path / "a.parquet")
    monkeypatch.setattr(parts, "ROW_GROUP_BYTES", 200_000)
    shas = set()
    for workers_like in range(2):  # the same data twice: the same row groups
        e = stream_copy(tmp_path / "a.parquet", src["sha256"], tmp_path / f"b{workers_like}.parquet", 256)
        shas.add(e["sha256"])
        meta = pq.ParquetFile(tmp_path / f"b{workers_like}.parquet").metadata
        assert meta.num_row_groups > 3
        assert pq.read_table(tmp_path / f"b{workers_like}.parquet").equals(t)
    assert len(shas) == 1


def long_documents(n: int = 1500, stories: int = 24) -> pa.Table:
    """~20 KB documents of real text (24 stories each, numbered so no two are equal): 1,024 of them are 20 MB."""
    texts = list(tinystories())
    return pa.table({"text": [f"{i}\n" + "\n".join(texts[(stories * i + k) % len(texts)] for k in range(stories))
                              for i in range(n)]})


@pytest.mark.parametrize("writer", ["write_table", "PartWriter"])  # the shard writer: test_bounded_units
def test_long_documents_make_pages_of_about_1mb_not_of_1024_documents(tmp_path, writer):
    t = long_documents()
    path = tmp_path / "long.parquet"
    if writer == "write_table":
        write_table(t, path)
    elif writer == "PartWriter":
        w = PartWriter(path, t.schema)
        for b in t.to_batches(max_chunksize=100):
            w.write(b)
        w.close()
        del b
    text_mb = t.nbytes / 1e6
    del t
    assert pa.total_allocated_bytes() < 1 << 20
    # 64-row write batches: pages of at most 1 MB + 64 documents (2.3 MB); a reader held 3.8 MB here, and
    # 43 MB for pyarrow's default (1,024-row write batches: 20 MB pages)
    peak = arrow_mb_reading(path)
    assert peak < 8, f"{peak:.1f} MB of Arrow memory to read {text_mb:.0f} MB of 20 KB documents a row at a time"
    pq.write_table(pq.read_table(path), tmp_path / "default.parquet", compression="zstd")
    assert arrow_mb_reading(tmp_path / "default.parquet") > 20  # the test can tell the two apart


@pytest.mark.parametrize("where", ["start", "middle", "footer"])
def test_damaged_part_is_a_sha256_mismatch_while_streaming(tmp_path, where):
    t = stories_table()
    e = write_table(t, tmp_path / "a.parquet")
    data = bytearray((tmp_path / "a.parquet").read_bytes())
    data[{"start": 10, "middle": len(data) // 2, "footer": len(data) - 20}[where]] ^= 0x55
    (tmp_path / "a.parquet").write_bytes(bytes(data))
    with pytest.raises(CorpusError) as err:
        reader = PartReader(tmp_path / "a.parquet", e["sha256"], batch_rows=100)
        for _ in reader.batches():
            pass
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'a.parquet'}: sha256 mismatch: expected {e['sha256']}, got ") and "\n" not in msg


def test_missing_part_is_named(tmp_path):
    with pytest.raises(CorpusError, match=r": missing$"):
        PartReader(tmp_path / "nope.parquet", "0" * 64)


@pytest.mark.slow  # fetch, then normalize, filter, dedup and pii three times
def test_stages_same_parts_whatever_the_batch_size(tmp_path, monkeypatch, mirror):
    """normalize, filter and pii on real sources with batches of 1, 13 and 1024 documents."""
    from conftest import LEDGER, write_config
    from corpus.config import load_config
    from corpus.stages import run_stage

    cfg = load_config(write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["minhash-articles-100", "enterprise-pii"],
                                   artifacts=tmp_path / "art", fetch={"part_docs": 150},
                                   **{"filters.lang": {"keep": ["en"]}}))
    run_stage("fetch", cfg, workers=1, extra={"sources": ("minhash-articles-100", "enterprise-pii")})
    seen = []
    for rows in (1024, 13, 1):
        monkeypatch.setattr(parts, "BATCH_ROWS", rows)
        for mod in ("normalize", "filter", "pii"):
            monkeypatch.setattr(f"corpus.stages.{mod}.BATCH_ROWS", rows, raising=False)
        got = {}
        for stage in ("normalize", "filter", "pii"):
            r = run_stage(stage, cfg, workers=1, force=True) if stage != "pii" else None
            if stage == "pii":
                # pii reads dedup's output: feed it the filter parts through a dedup run
                run_stage("dedup", cfg, workers=1, force=True)
                r = run_stage("pii", cfg, workers=1, force=True)
            got[stage] = [(p["name"], p["sha256"]) for p in r.manifest["parts"]]
            got[stage + ".counts"] = json.dumps(r.manifest["counts"], sort_keys=True)
        seen.append(got)
    assert seen[0] == seen[1] == seen[2]
    assert len(seen[0]["normalize"]) > 3


def test_tokenizer_sample_bounded_and_seeded(tmp_path):
    from corpus.tokens.sample import sample_key, train_sample

    rng = random.Random(5)
    stories = list(tinystories())
    n = 4000
    table = pa.table({"id": [f"src:{i}" for i in range(n)], "text": [stories[i % len(stories)] + f" {i}" for i in range(n)],
                      "split": ["val" if rng.random() < 0.1 else "train" for _ in range(n)]})
    shards = []
    for k in range(4):
        p = tmp_path / f"shard-{k:05d}-of-00004.parquet"
        e = write_table(table.slice(k * 1000, 1000), p)
        shards.append({"name": p.name, "sha256": e["sha256"], "rows": 1000})
    train = [t for t, s in zip(table.column("text").to_pylist(), table.column("split").to_pylist()) if s == "train"]
    total = sum(len(t.encode()) for t in train)

    class Cfg(dict):
        dataset_dir = tmp_path

    def texts(budget, seed=1337):
        it, _ = train_sample(Cfg(tokenize={"train_sample_bytes": budget, "seed": seed}), {"shards": shards})
        return list(it)

    assert texts(total) == train  # under the budget: everything, in shard order
    small = texts(total // 10)
    assert set(small) < set(train) and 0.6 * total / 10 < sum(len(t.encode()) for t in small) < 1.4 * total / 10
    assert small == [t for t in train if t in set(small)]  # shard order
    assert texts(total // 10) == small and texts(total // 10, seed=7) != small
    assert sample_key(1337, "src:1") == int.from_bytes(hashlib.blake2b(b"1337:src:1", digest_size=8).digest(), "big")


def test_batch_size_reaches_the_readers(tmp_path, monkeypatch):
    t = stories_table(100)
    e = write_table(t, tmp_path / "a.parquet")
    monkeypatch.setattr(parts, "BATCH_ROWS", 7)
    assert [b.num_rows for b in PartReader(tmp_path / "a.parquet", e["sha256"]).batches()] == [7] * 14 + [2]
