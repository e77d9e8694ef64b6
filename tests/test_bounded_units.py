"""The shard stage's `write` and tokenize's `encode` stream (a row group / an encode batch at a time, never a
whole shard) and give the bytes of the whole-shard computation whatever the batch and row-group sizes; the
executor's pool session starts its workers once, warms them, and every map phase reuses them."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

import corpus.formats.parts as parts
import corpus.stages.shard as shard
import corpus.stages.tokenize as tokenize
import corpus.tokens.encode as encode
from corpus.tokens.tokenizer import tokenizer_facts
from corpus.tokens.train import train_tokenizer
from corpus.errors import CorpusError
from corpus.engine.executor import map_units, pool_session
from conftest import arrow_mb_reading, tinystories


def shard_input(n: int, seed: int = 0, late_nulls: bool = False) -> pa.Table:
    rng = random.Random(seed)
    texts = list(tinystories())
    ids = [f"src-{i % 3}:{i}" for i in range(n)]  # string order interleaves the parts' ids
    return pa.table({
        "id": ids, "text": [texts[i % len(texts)] + "é" * (i % 5) for i in range(n)],
        "source_id": [f"src-{i % 3}" for i in range(n)],
        # nulls give a validity bitmap; late ones are in no chunk's first rows (what the layout probe reads)
        "url": [None if (i == n - 1 if late_nulls else i % 7 == 0) else f"https://x/{i}" for i in range(n)],
        "license_spdx": ["CC-BY-4.0" if i % 2 else "MIT" for i in range(n)],
        "lang": ["en"] * n, "minhash_cluster": pa.array([rng.randrange(5) for _ in range(n)], pa.int64()),
        "pii_redactions": pa.array([i % 3 for i in range(n)], pa.int32()),
        # a web page's record facts (JSON), null for curated sources: mostly null, as in a mixed corpus
        "meta": [None if i % 4 else f'{{"record_offset":{i * 977},"warc_date":"2024-05-18T01:58:10Z"}}' for i in range(n)],
    })


def spill(table: pa.Table, spill_dir: Path, n_parts: int) -> None:
    """What `scatter` leaves for shard 0: each part's rows sorted by position in the shard, with it."""
    pos = np.empty(table.num_rows, np.int64)
    pos[pc.sort_indices(table.column("id")).to_numpy()] = np.arange(table.num_rows)
    d = spill_dir / "00000"
    d.mkdir(parents=True)
    for k, rows in enumerate(np.array_split(np.arange(table.num_rows), n_parts)):
        rows = rows[np.argsort(pos[rows])]
        t = shard.spill_table(table.take(pa.array(rows)), pos[rows])
        with pa.OSFile(str(d / f"part-{k:05d}.arrow"), "wb") as f, ipc.new_file(f, t.schema) as w:
            w.write_table(t)


def whole_shard(table: pa.Table, path: Path, val_permille: int) -> tuple[str, int]:
    """The whole-shard computation the streamed writer must match (the shard stage before it streamed)."""
    t = table.take(pc.sort_indices(table.column("id")))
    texts = t.column("text").to_pylist()
    digests = [hashlib.sha256(x.encode("utf-8")).digest() for x in texts]
    out = pa.table({**{c: t.column(c) for c in ("id", "text", "source_id", "url", "license_spdx", "lang")},
                    "n_chars": pa.array([len(x) for x in texts], pa.int32()),
                    "sha256": pa.array(digests, pa.binary(32)),
                    "minhash_cluster": t.column("minhash_cluster"), "pii_redactions": t.column("pii_redactions"),
                    "split": pa.array([shard.split_of(d, val_permille) for d in digests]),
                    "meta": t.column("meta")}, schema=shard.SHARD_SCHEMA)
    cuts = shard.row_group_cuts(pc.binary_length(out.column("text")).to_numpy().astype(np.int64), out.nbytes)
    with pq.ParquetWriter(path, out.schema, **parts.PARQUET_WRITE_OPTIONS) as w:
        for a, b in cuts:
            w.write_table(out.slice(a, b - a), row_group_size=b - a)
    return hashlib.sha256(path.read_bytes()).hexdigest(), out.nbytes


@pytest.mark.parametrize("n_parts,late_nulls", [(1, False), (4, False), (4, True)])
@pytest.mark.parametrize("row_group_bytes", [shard.ROW_GROUP_BYTES, 150_000])
@pytest.mark.parametrize("piece_bytes", [shard.PIECE_BYTES, 5_000])  # 5,000: pieces of a few rows each
def test_streamed_shard_has_the_bytes_of_the_whole_shard(tmp_path, monkeypatch, n_parts, late_nulls, row_group_bytes,
                                                         piece_bytes):
    monkeypatch.setattr(shard, "ROW_GROUP_BYTES", row_group_bytes)
    monkeypatch.setattr(shard, "PIECE_BYTES", piece_bytes)
    table = shard_input(1500, late_nulls=late_nulls)
    spill(table, tmp_path / "spill", n_parts)
    want, nbytes = whole_shard(table, tmp_path / "want.parquet", 100)
    (tmp_path / "out").mkdir()
    unit = shard.ShardUnit("shard-00000", 0, 1, tmp_path / "spill", tmp_path / "out", 100)
    spills = shard._open_spills(unit)
    val = np.concatenate([shard.splits_of(s.digests, 100) for s in spills])
    assert shard._shard_nbytes(spills, 1500, val) == nbytes  # the size that decides the row groups, exactly
    got = shard.write_shard(unit)
    assert got["parts"][0]["sha256"] == want and got["parts"][0]["rows"] == 1500
    groups = pq.ParquetFile(tmp_path / "out" / got["parts"][0]["name"]).metadata.num_row_groups
    assert (groups > 2) == (row_group_bytes < 1 << 20)
    stats = got["sources"]
    assert sum(s["train"] + s["val"] for s in stats.values()) == 1500 and stats["src-0"]["val"] > 0


def test_row_group_cuts_close_before_the_limit():
    text = np.array([10] * 50 + [1000] * 10 + [5000] + [10] * 5, np.int64)  # short, long, one over the limit
    nbytes = int(text.sum()) + 8 * len(text)
    cuts = shard.row_group_cuts(text, nbytes, limit=2000)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(text) and all(b == c for (_, b), (c, _) in zip(cuts, cuts[1:]))
    for a, b in cuts:
        size = int(text[a:b].sum()) + 8 * (b - a)
        assert size <= 2000 or b - a == 1  # a row above the limit is a group of its own
        if b < len(text):  # closed only because the next row would not fit
            assert size + int(text[b]) + 8 > 2000
    assert shard.row_group_cuts(text, nbytes, limit=10**9) == [(0, len(text))]
    assert shard.row_group_cuts(np.zeros(0, np.int64), 0) == []


def test_long_documents_after_short_ones_do_not_make_a_larger_row_group(tmp_path, monkeypatch):
    """Cut by the shard's average row, the row groups of its long documents were many times the limit."""
    limit = 150_000
    monkeypatch.setattr(shard, "ROW_GROUP_BYTES", limit)
    table = shard_input(1500)
    ids = table.column("id").to_pylist()  # src-2:* sort last: make those documents 20x longer
    texts = [t * 20 if i.startswith("src-2:") else t for i, t in zip(ids, table.column("text").to_pylist())]
    table = table.set_column(table.schema.get_field_index("text"), "text", pa.array(texts))
    spill(table, tmp_path / "spill", 3)
    (tmp_path / "out").mkdir()
    got = shard.write_shard(shard.ShardUnit("shard-00000", 0, 1, tmp_path / "spill", tmp_path / "out", 100))
    f = pq.ParquetFile(tmp_path / "out" / got["parts"][0]["name"])
    longest = max(len(t.encode()) for t in texts)
    sizes = [f.read_row_group(g).nbytes for g in range(f.metadata.num_row_groups)]
    assert max(sizes) <= limit + longest, sizes
    assert sum(f.metadata.row_group(g).num_rows for g in range(f.metadata.num_row_groups)) == 1500
    want, _ = whole_shard(table, tmp_path / "want.parquet", 100)
    assert got["parts"][0]["sha256"] == want
    average = parts.rows_per_group(pq.read_table(tmp_path / "want.parquet"))  # the old rule's fixed count
    old = [pq.read_table(tmp_path / "want.parquet").slice(a, average).nbytes for a in range(0, 1500, average)]
    assert max(old) > 2 * limit  # what the old rule would have written: the test can tell


def test_a_shard_of_long_documents_has_pages_of_about_1mb(tmp_path):
    """The shard writer takes parts.PARQUET_WRITE_OPTIONS: a page closes within 64 documents of 1 MB, so
    a reader of 20 KB documents holds a few MB, not a page of 1,024 of them (20 MB)."""
    table = shard_input(1500)
    texts = [f"{i}\n" + t * 24 for i, t in enumerate(table.column("text").to_pylist())]  # ~20 KB each
    table = table.set_column(table.schema.get_field_index("text"), "text", pa.array(texts))
    spill(table, tmp_path / "spill", 2)
    (tmp_path / "out").mkdir()
    got = shard.write_shard(shard.ShardUnit("shard-00000", 0, 1, tmp_path / "spill", tmp_path / "out", 100))
    del table, texts

    path = tmp_path / "out" / got["parts"][0]["name"]
    assert arrow_mb_reading(path, ["text"]) < 8
    pq.write_table(pq.read_table(path), tmp_path / "default.parquet", compression="zstd")  # pyarrow's pages
    assert arrow_mb_reading(tmp_path / "default.parquet", ["text"]) > 20


def test_encode_threads_follow_each_shards_share_of_the_documents():
    e = encode.encode_threads
    assert e([100_000, 4_152], cores=2, workers=2) == [2, 1]  # the big shard gets both cores
    assert e([100_000, 4_152], cores=2, workers=1) == [2, 2]  # one at a time: all cores each
    assert e([50, 50], cores=2, workers=2) == [1, 1]
    assert e([1] * 100, cores=2, workers=2) == [1] * 100
    assert e([80, 10, 10], cores=8, workers=4) == [6, 2, 2]
    assert e([0], cores=2, workers=2) == [2] and e([], cores=2, workers=2) == []


def tiny_shard(tmp_path: Path) -> tuple[Path, str, Path]:
    texts = list(tinystories())[:400]
    tok = tmp_path / "tokenizer.json"
    tok.write_bytes(train_tokenizer(texts[:200], 400, "<|endoftext|>"))
    table = pa.table({"text": texts, "split": ["val" if i % 9 == 0 else "train" for i in range(len(texts))]})
    path = tmp_path / "shard.parquet"
    pq.write_table(table, path, compression="zstd")
    return path, hashlib.sha256(path.read_bytes()).hexdigest(), tok


def encoded(tmp_path: Path, name: str, shard_path: Path, sha: str, tok: Path) -> dict:
    work = tmp_path / name
    work.mkdir()
    eos = tokenizer_facts(tok.read_bytes(), "<|endoftext|>")["eos_id"]
    res = tokenize.encode_shard(encode.EncodeUnit("shard-00000", 0, shard_path, sha, tok, eos, "uint16", work, 1, 7))
    return {e["name"].split("/")[-1]: e["sha256"] for e in res["work"]}


@pytest.mark.slow  # longer than ~2 s: the full tier
def test_encode_gives_the_same_work_files_whatever_the_batches(tmp_path, monkeypatch):
    shard_path, sha, tok = tiny_shard(tmp_path)
    want = encoded(tmp_path, "default", shard_path, sha, tok)
    for i, (rows, docs, chars) in enumerate([(1, 1, 1), (7, 3, 100), (64, 8192, 5000)]):
        monkeypatch.setattr(parts, "BATCH_ROWS", rows)
        monkeypatch.setattr(encode, "ENCODE_BATCH_DOCS", docs)
        monkeypatch.setattr(encode, "ENCODE_BATCH_CHARS_PER_THREAD", chars)
        assert encoded(tmp_path, f"b{i}", shard_path, sha, tok) == want
    tokens = np.fromfile(tmp_path / "default" / "shard-00000.train.bin", dtype="<u2")
    docs = np.load(tmp_path / "default" / "shard-00000.train.docs.npy")
    assert docs[:, 1].sum() == len(tokens) and len(docs) == 400 - 45


def test_encode_names_a_damaged_shard(tmp_path):
    shard_path, sha, tok = tiny_shard(tmp_path)
    data = bytearray(shard_path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard_path.write_bytes(bytes(data))
    with pytest.raises(CorpusError, match="shard.parquet"):
        encoded(tmp_path, "bad", shard_path, sha, tok)
    assert not list((tmp_path / "bad").glob("*.bin"))  # nothing half-written left behind


def mark_warm(path: str) -> None:
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")


def pid_of(x: int) -> tuple[int, int]:
    return x, os.getpid()


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_pool_session_starts_warms_and_reuses_its_workers(tmp_path):
    marks = tmp_path / "warm.txt"
    with pool_session(2, (mark_warm, (str(marks),))):
        first = map_units(pid_of, range(6), workers=2)
        second = map_units(pid_of, range(6, 10), workers=2)
    assert [x for x, _ in first + second] == list(range(10))  # unit order
    warmed = set(map(int, marks.read_text().split()))
    assert len(warmed) == 2  # each worker warmed once, as it started
    assert {p for _, p in first + second} <= warmed and os.getpid() not in warmed


POOL_THREADS = r"""
import json, os, sys
from corpus.engine.executor import map_units


def env(name):
    return os.environ.get(name)


if __name__ == "__main__":
    got = map_units(env, ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"], workers=2)
    print(json.dumps({"workers": got, "driver": os.environ.get("OMP_NUM_THREADS")}))
"""


@pytest.mark.parametrize("preset", [None, "3"])
def test_pool_workers_get_their_share_of_the_cores_for_library_thread_pools(tmp_path, preset):
    import json
    import subprocess
    import sys

    script = tmp_path / "threads.py"
    script.write_text(POOL_THREADS)
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if preset:
        env["OMP_NUM_THREADS"] = preset  # the user's choice is kept
    out = json.loads(subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                                    check=True, timeout=120).stdout)
    share = str(max(1, (os.cpu_count() or 1) // 2))
    assert out["workers"] == [preset or share, share]
    assert out["driver"] == preset  # the driver's own environment is left as it was


@pytest.mark.parametrize("preset,want", [(None, "system"), ("mimalloc", "mimalloc")])
def test_arrow_allocates_through_the_system_allocator_unless_the_user_chose(preset, want):
    """mimalloc kept the memory a stage had freed; glibc's is handed back (engine.memory.prefer_system_allocator)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if preset:
        env["ARROW_DEFAULT_MEMORY_POOL"] = preset
    out = subprocess.run([sys.executable, "-c", "import corpus.commands.cli, pyarrow as pa; print(pa.default_memory_pool().backend_name)"],
                         env=env, capture_output=True, text=True, check=True, timeout=120).stdout.strip()
    assert out == want


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_importing_the_loader_leaves_arrows_allocator_alone():
    """A trainer that imports corpus.tokens.loader keeps the process's own choice (the command sets it)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    code = "import os, corpus.tokens.loader; print(os.environ.get('ARROW_DEFAULT_MEMORY_POOL', 'unset'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         timeout=120).stdout.strip()
    assert out == "unset"


def die_on_three(x):
    if x == 3:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
    return x


@pytest.mark.slow  # ~3 s: a pool whose worker is killed
def test_a_worker_killed_from_outside_is_one_error_line_not_a_traceback():
    from corpus.engine.executor import WORKER_DIED

    with pytest.raises(CorpusError) as err:
        map_units(die_on_three, range(6), workers=2)
    assert str(err.value) == WORKER_DIED and "--resume" in WORKER_DIED
    assert map_units(die_on_three, [0, 1, 2], workers=2) == [0, 1, 2]  # the next map starts a sound pool
    with pytest.raises(CorpusError, match="worker process died"):  # a stage's warmed session pool too
        with pool_session(2):
            map_units(die_on_three, range(6), workers=2)


@pytest.mark.parametrize("argv,want", [
    (["--config", "{cfg}", "normalize", "-j", "2"], ("normalize", 2)),
    (["--config={cfg}", "-v", "pii", "--workers=3", "--force"], ("pii", 3)),
    (["--config", "{cfg}", "dedup", "-j4"], ("dedup", 4)),
    (["--config", "{cfg}", "run", "--through", "pii"], ("run", 5)),      # the config's [run] workers
    (["--config", "{cfg}", "takedown", "d/v1", "--to", "v2", "-j", "2"], ("takedown", 2)),  # every stage too
    (["--config", "{cfg}", "filter", "-j", "1"], None),                   # one worker: no pool
    (["--config", "{cfg}", "audit"], None),                               # not a stage
    (["--config", "{cfg}", "ledger", "list"], None),
    (["--config", "/nonexistent.toml", "shard"], None),                   # the CLI reports it
    (["--help"], None),
])
def test_the_launcher_starts_the_forkserver_only_for_a_stage_with_a_pool(tmp_path, argv, want):
    from corpus.commands.launch import planned_pool

    cfg = tmp_path / "c.toml"
    cfg.write_text("[run]\nworkers = 5\n")
    assert planned_pool([a.replace("{cfg}", str(cfg)) for a in argv]) == want


def test_the_launchers_defaults_are_the_configs():
    import corpus.config
    import corpus.commands.launch
    from corpus.config.schemas import load_schema

    assert corpus.commands.launch.DEFAULT_CONFIG == corpus.config.DEFAULT_CONFIG
    run = load_schema("corpus-config.schema.json")["properties"]["run"]["properties"]
    assert corpus.commands.launch.DEFAULT_WORKERS == run["workers"]["default"]
    assert corpus.commands.launch.CONFIG_MAX_BYTES == corpus.config.schemas.USER_FILE_MAX_BYTES


def test_shard_input_columns_are_the_stage_tables():
    """shard.INPUT_COLUMNS comes from the shard schema (importing the stage builds no filter registry): the
    same columns and types as the stage table's input columns that a shard carries."""
    from corpus.stages import input_columns

    want = {k: v for k, v in input_columns("shard").items() if k in dict(shard.SHARD_COLUMNS)}
    assert want == shard.INPUT_COLUMNS
