"""An s3:// artifacts root against a real S3-compatible server started here on 127.0.0.1 (moto's
ThreadedMotoServer): every stage, each from an empty local dir (normalize killed after two units and
resumed), `corpus audit` on a node with an empty local dir, the loader reading an s3:// tokens directory, and every published byte compared with a
local-disk run of the same config. The ledger's source is an s3:// URL on the same server. Then the
publication rules: a publication killed before its `_STAGE.json` is no stage (the loader refuses it, a
rerun finishes the upload from the verified local copy, or recomputes it when the local dir is lost), `--force` deletes the objects the new manifest does not list, and objects no manifest
lists are ignored by readers and audit. Nothing here reaches any address but the server's."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, ledger_rows, mirror_file, write_config, write_ledger
from faults.conftest import published, run_killed
from corpus.stages import NAMES

pytest.importorskip("moto")
pytest.importorskip("flask")  # moto[server]
fs = pytest.importorskip("pyarrow.fs")

SOURCE = "tinystories-train-head"
TABLES = {"fetch": {"part_docs": 300}, "decontam": {"evals": []}, "shard": {"shard_rows": 300},
          "tokenize": {"vocab_size": 600, "max_tokens_per_file": 100000}}
BUCKET, PREFIX = "corpus-test", "runs/one"
ROOT = f"s3://{BUCKET}/{PREFIX}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """(AWS env for the clients, a pyarrow filesystem on the server): a bucket on 127.0.0.1 only."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    port = _free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}
    s3 = fs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", region="us-east-1",
                         access_key="testing", secret_key="testing", allow_bucket_creation=True)
    s3.create_dir(BUCKET)
    try:
        yield env, s3
    finally:
        srv.stop()


def _objects(s3, prefix: str = f"{BUCKET}/{PREFIX}") -> dict[str, int]:
    infos = s3.get_file_info(fs.FileSelector(prefix, recursive=True, allow_not_found=True))
    return {i.path[len(prefix) + 1:]: i.size for i in infos if i.type == fs.FileType.File}


def _get(s3, rel: str) -> bytes:
    with s3.open_input_stream(f"{BUCKET}/{PREFIX}/{rel}", compression=None) as f:
        return f.read()


def _put(s3, rel: str, data: bytes, *, under: str = f"{BUCKET}/{PREFIX}") -> None:
    with s3.open_output_stream(f"{under}/{rel}", compression=None) as f:
        f.write(data)


def _corpus(cfg: Path, *args, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "corpus.commands.cli", "-q", "--config", str(cfg), *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, **env})
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def runs(tmp_path_factory, server):
    """A local-disk run and an s3 run of one config (the source fetched from s3:// by the s3 run, from the
    mirror by the local one: same ledger row, same bytes); the s3 run is SIGKILLed after two normalize
    units and resumed; the local run starts from its raw output. Returns (workspace, env of the s3 runs, config)."""
    env, s3 = server
    root = tmp_path_factory.mktemp("s3")
    src = mirror_file(SOURCE)
    _put(s3, "sources/tiny.txt", src.read_bytes(), under=BUCKET)
    row = {**ledger_rows()[SOURCE], "url": f"s3://{BUCKET}/sources/tiny.txt"}
    ledger = write_ledger(root / "ledger.jsonl", [row])
    local_cfg = write_config(root / "local.toml", ledger=ledger, sources=[SOURCE], artifacts=root / "a", **TABLES)
    s3_cfg = write_config(root / "s3.toml", ledger=ledger, sources=[SOURCE], artifacts=ROOT, **TABLES)
    s3_env = {**env, "CORPUS_MIRROR": "", "CORPUS_LOCAL_DIR": str(root / "node1"),
              "XDG_CACHE_HOME": str(root / "cache")}  # node1: where the later tests' runs work
    # Stage by stage, each from an empty local dir (another node), so every input comes from the store;
    # normalize (2 workers) is SIGKILLed after two units and resumed on its node; the other stages run in-process.
    for stage in NAMES:
        node = {**s3_env, "CORPUS_LOCAL_DIR": str(root / f"node-{stage}")}
        if stage == "normalize":
            run_killed(s3_cfg, [stage, "-j", "2"], {**node, "CORPUS_FAULT_AFTER": "normalize:2"})
            _corpus(s3_cfg, stage, "-j", "2", "--resume", env=node)
        else:
            _corpus(s3_cfg, stage, "-j", "1", env=node)
    # The local run starts from the s3 run's raw output (a raw output records its fetch time, and every
    # later manifest the sha256 of the one it read): fetch is current there, every other stage runs.
    for rel in _objects(s3):
        if rel.startswith("corpus/raw/"):
            (root / "a" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "a" / rel).write_bytes(_get(s3, rel))
    proc = _corpus(local_cfg, "run", "-j", "1", env={})
    assert "fetch      current" in proc.stdout and "normalize  computed" in proc.stdout, proc.stdout
    return root, s3_env, s3_cfg


def test_s3_run_matches_local_disk(runs, server):
    root, env, _ = runs
    _, s3 = server
    objects = _objects(s3)
    assert "corpus/t/v1/_STAGE.json" in objects and not any(".incomplete" in k for k in objects)
    copy = root / "downloaded"
    for rel in objects:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(_get(s3, rel))
    theirs, ours = published(copy), published(root / "a")
    assert sorted(theirs) == sorted(ours)
    assert len(ours) > 50
    assert [k for k in ours if theirs[k] != ours[k]] == []
    normalize_run = json.loads(_get(s3, "corpus/t/v1/stages/02-normalize/_RUN.json"))
    assert normalize_run["resumed_units"] == {"normalize": 2}  # the killed run's checkpoints were reused
    raw = json.loads(_get(s3, next(k for k in objects if k.startswith("corpus/raw/") and k.endswith("_STAGE.json"))))
    sha = ledger_rows()[SOURCE]["sha256"]
    assert raw["inputs"] == [{"path": f"s3://{BUCKET}/sources/tiny.txt", "sha256": sha}]
    assert (root / "node-fetch" / "corpus" / "downloads" / sha).is_file()  # fetched from s3://, not the mirror


def test_audit_and_loader_on_a_fresh_node(runs, server, monkeypatch, tmp_path):
    root, env, cfg = runs
    proc = _corpus(cfg, "audit", env={**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node2")})
    assert proc.stdout.rstrip().endswith(" 0 failed"), proc.stdout
    proc = _corpus(cfg, "why", f"{SOURCE}:5", env={**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node2b")})
    assert "tokenize   kept" in proc.stdout, proc.stdout
    from corpus.tokens.loader import TokenStream

    for k, v in {**server[0], "XDG_CACHE_HOME": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(k, v)
    tok = next(p.name for p in (root / "a" / "tokens" / "t" / "v1").iterdir())
    for split in ("train", "val"):
        remote = TokenStream.open(f"{ROOT}/tokens/t/v1/{tok}", split, verify=True)
        local = TokenStream.open(root / "a" / "tokens" / "t" / "v1" / tok, split, verify=True)
        assert len(remote) == len(local) > 0
        assert np.array_equal(remote.read(0, len(local)), local.read(0, len(local)))
        batch = remote.windows(np.array([0, len(local) // 2]), 64)
        assert np.array_equal(batch, local.windows(np.array([0, len(local) // 2]), 64))


def test_audit_reads_the_store_not_an_older_local_copy(runs, server, tmp_path):
    """An object overwritten in the bucket (same size, two bytes changed) fails audit on a node whose local
    dir still holds the original bytes; the original put back, audit passes again."""
    root, env, cfg = runs
    _, s3 = server
    node = {**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node")}
    assert _corpus(cfg, "audit", env=node).stdout.rstrip().endswith(" 0 failed")  # the local copies are made
    rel = "corpus/t/v1/stages/03-filter/part-00000.parquet"
    original = _get(s3, rel)
    tampered = bytearray(original)
    tampered[len(tampered) // 2] ^= 0xFF
    tampered[len(tampered) // 3] ^= 0xFF
    _put(s3, rel, bytes(tampered))
    try:
        proc = _corpus(cfg, "audit", env=node, check=False)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        line = proc.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: {ROOT}/{rel}: sha256 mismatch"), line
    finally:
        _put(s3, rel, original)
    assert _corpus(cfg, "audit", env=node).stdout.rstrip().endswith(" 0 failed")


def test_killed_publication_force_and_unlisted_objects(runs, server, monkeypatch, tmp_path):
    root, env, cfg = runs
    _, s3 = server
    tok = next(p.name for p in (root / "a" / "tokens" / "t" / "v1").iterdir())
    tokens = f"tokens/t/v1/{tok}"
    stray = f"{tokens}/train/part-00099.bin"            # an older version's leftover
    ignored = "corpus/t/v1/stages/02-normalize/part-09999.parquet"
    _put(s3, stray, b"\0" * 64)
    _put(s3, ignored, b"not a part")
    # killed after every part is uploaded and before _STAGE.json: no tokens output exists
    run_killed(cfg, ["tokenize", "--force"], {**env, "CORPUS_FAULT_AT": "tokenize:s3-parts-uploaded"})
    objects = _objects(s3)
    assert f"{tokens}/train/part-00000.bin" in objects and f"{tokens}/_STAGE.json" not in objects
    for k, v in {**server[0], "XDG_CACHE_HOME": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(k, v)
    from corpus.errors import CorpusError
    from corpus.tokens.loader import TokenStream

    with pytest.raises(CorpusError, match="no published output"):
        TokenStream.open(f"{ROOT}/{tokens}", "train")
    proc = _corpus(cfg, "run", env=env)
    assert "finishing the upload of" in proc.stderr, proc.stderr  # from the verified local copy
    objects = _objects(s3)
    assert f"{tokens}/_STAGE.json" in objects and stray not in objects  # published; the leftover deleted after it
    assert ignored in objects  # normalize was current: nothing republished it
    fresh = {**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node3")}
    proc = _corpus(cfg, "audit", env=fresh)
    assert proc.stdout.rstrip().endswith(" 0 failed") and "1 object no manifest lists (ignored), e.g. " + ignored in proc.stdout, proc.stdout
    assert not (tmp_path / "node3" / ignored).exists()  # never downloaded: no manifest lists it
    copy = tmp_path / "downloaded"
    for rel in _objects(s3):
        if rel != ignored:
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_bytes(_get(s3, rel))
    theirs, ours = published(copy), published(root / "a")
    assert theirs == ours
    # the local dir lost after a killed --force upload: a clean recompute gives the same bytes, and the
    # publication deletes what its manifest does not list
    _put(s3, stray, b"\0" * 64)
    run_killed(cfg, ["tokenize", "--force"], {**env, "CORPUS_FAULT_AT": "tokenize:s3-parts-uploaded"})
    lost = {**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node4")}
    proc = _corpus(cfg, "run", env=lost)
    assert "finishing the upload" not in proc.stderr
    objects = _objects(s3)
    assert f"{tokens}/_STAGE.json" in objects and stray not in objects
    assert _get(s3, f"{tokens}/_STAGE.json") == (root / "a" / tokens / "_STAGE.json").read_bytes()


def test_one_writer_per_s3_root(runs, server, monkeypatch, tmp_path):
    """The store's lease excludes a writer on another node (another local dir), which a flock cannot; an
    expired lease of a host that is gone is taken over."""
    root, env, cfg = runs
    _, s3 = server
    for k, v in {**server[0], "CORPUS_LOCAL_DIR": str(tmp_path / "nodeA")}.items():
        monkeypatch.setenv(k, v)
    from corpus.config import load_config
    from corpus.store.lock import writer_lock

    other = {**env, "CORPUS_LOCAL_DIR": str(tmp_path / "nodeB")}
    with writer_lock(load_config(cfg).artifacts):
        lease = json.loads(_get(s3, ".corpus.lock"))
        assert lease["pid"] == os.getpid() and lease["local_dir"] == str(tmp_path / "nodeA")
        proc = _corpus(cfg, "normalize", env=other, check=False)
        assert proc.returncode != 0 and "Traceback" not in proc.stderr
        line = proc.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: {ROOT}/.corpus.lock: held by pid {os.getpid()} on ") and "another writer" in line
    assert ".corpus.lock" not in _objects(s3)  # released
    _put(s3, ".corpus.lock", json.dumps({"pid": 1, "host": "gone-host", "command": "corpus run",
                                         "since": "2026-01-01T00:00:00Z", "expires": "2026-01-01T00:05:00Z"}).encode())
    proc = _corpus(cfg, "normalize", env=other)
    assert "taking over a stale writer lease of pid 1 on gone-host" in proc.stderr, proc.stderr
    assert ".corpus.lock" not in _objects(s3)


def test_lease_is_renewed_and_a_lost_lease_stops_publication(server, monkeypatch, tmp_path):
    env, s3 = server
    for k, v in {**env, "CORPUS_S3_LEASE_SECONDS": "1.5"}.items():
        monkeypatch.setenv(k, v)
    from corpus.errors import CorpusError
    from corpus.store import lock, publish
    from corpus.store.root import mount

    local = tmp_path / "local"
    mount(local, f"s3://{BUCKET}/lease-test")
    lock.acquire(local, "t")  # the local flock and the store's lease
    lease = lock.lease(local)
    first = lease.etag
    try:
        import time

        time.sleep(1.2)  # renewed every third of its 1.5 s lifetime
        assert lease.etag != first and lease.lost is None
        lock.check_writer(local / "corpus" / "raw")
        _put(s3, ".corpus.lock", b"{}", under=f"{BUCKET}/lease-test")  # another writer took it over
        with pytest.raises(CorpusError, match="lost the writer lease"):
            publish.push(local / "corpus" / "raw", {"parts": []})  # the publisher checks the writer
    finally:
        lock.release(local)
    assert ".corpus.lock" in _objects(s3, f"{BUCKET}/lease-test")  # not ours any more: left alone


BAR_SCRIPT = """
import sys
from pathlib import Path
from corpus.commands.cli import _setup_logging
from corpus.store import s3

_setup_logging(0, False)  # as `corpus` logs: INFO and up on stderr
remote = s3.Remote(Path(sys.argv[1]), sys.argv[2], s3.env_endpoint())
for name in sys.argv[3:]:
    s3.upload(Path(sys.argv[1]) / name, remote.child(name))
    s3.download(remote.child(name), Path(sys.argv[1]) / f"{name}.back")
"""


def test_a_large_object_moves_with_a_progress_bar_a_small_one_without(server, tmp_path):
    """Issue 47 item 12: an object larger than s3.BAR_BYTES gets a progress bar each way; off a terminal it is
    the other bars' lines on stderr (one every few seconds, the last '... done in'); a small one prints none."""
    from corpus.store import s3

    env, _ = server
    big, small = tmp_path / "big.bin", tmp_path / "small.bin"
    big.write_bytes(bytes(range(256)) * ((s3.BAR_BYTES + (1 << 20)) // 256))
    small.write_bytes(b"x" * 100_000)
    proc = subprocess.run([sys.executable, "-c", BAR_SCRIPT, str(tmp_path), f"{BUCKET}/bars", big.name, small.name],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, **env}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "big.bin.back").read_bytes() == big.read_bytes()
    assert (tmp_path / "small.bin.back").read_bytes() == small.read_bytes()
    mb = f"{big.stat().st_size / 1e6:,.1f}"
    for verb in ("uploading", "downloading"):
        done = [ln for ln in proc.stderr.splitlines() if f"s3: {verb} s3://{BUCKET}/bars/big.bin: " in ln]
        assert done and done[-1].split(": ", 2)[-1].startswith(f"{mb}/{mb} MB done in "), proc.stderr
    assert "small.bin" not in proc.stderr and proc.stdout == "", proc.stderr


def test_a_crawl_glob_and_its_records_by_range_on_s3(tmp_path, server):
    """An s3:// glob row (its file list resolved through pyarrow.fs, pinned by its sha256) and a
    warc-records table of s3:// files (each record a ranged read) give the same documents."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.jsonl import read_zst_jsonl
    from corpus.formats.sources.warc import record_offsets
    from corpus.web.listing import list_digest
    from warcs import response, write_warc

    env, s3 = server
    urls, table = [], {"warc_filename": [], "warc_record_offset": [], "warc_record_length": []}
    for i in range(3):
        path = write_warc(tmp_path / f"f{i}.warc.gz", [
            response(f"https://a.org/{i}/{k}", f"<html><body><p>{'Words of page %d. ' % k * 30}</p></body></html>"
                     .encode()) for k in range(2)])
        _put(s3, f"f{i}.warc.gz", path.read_bytes(), under=f"{BUCKET}/crawl")
        urls.append(f"s3://{BUCKET}/crawl/f{i}.warc.gz")
        offsets = record_offsets(path, str(path))
        for a, b in zip(offsets, offsets[1:] + [path.stat().st_size]):
            table["warc_filename"].append(f"crawl/f{i}.warc.gz")
            table["warc_record_offset"].append(a)
            table["warc_record_length"].append(b - a)
    _put(s3, "notes.txt", b"not a crawl file", under=f"{BUCKET}/crawl")
    sha, size = list_digest(urls)
    index = tmp_path / "index.parquet"
    pq.write_table(pa.table(table), index)
    rows = {"glob": {"source_id": "crawl", "role": "corpus", "url": f"s3://{BUCKET}/crawl/*.warc.gz", "sha256": sha,
                     "bytes": size, "license_spdx": "MIT", "format": "warc"},
            "records": {"source_id": "crawl", "role": "corpus", "url": str(index), "base_url": f"s3://{BUCKET}/",
                        "sha256": hashlib.sha256(index.read_bytes()).hexdigest(), "bytes": index.stat().st_size,
                        "license_spdx": "MIT", "format": "warc-records"}}
    docs = {}
    for name, row in rows.items():
        cfg = write_config(tmp_path / f"{name}.toml", ledger=write_ledger(tmp_path / f"{name}.jsonl", [row]),
                           sources=["crawl"], artifacts=tmp_path / name, extract={"engine": "resiliparse"})
        _corpus(cfg, "fetch", env=env)
        (d,) = (tmp_path / name / "corpus" / "raw" / "crawl").glob("*/_STAGE.json")
        docs[name] = [{k: v for k, v in r.items() if k != "fetched_at"}
                      for p in sorted(d.parent.glob("part-*.jsonl.zst")) for r in read_zst_jsonl(p)]
    assert len(docs["glob"]) == 6 and docs["records"] == docs["glob"]
    assert docs["glob"][0]["meta"]["locator"].startswith(f"s3://{BUCKET}/crawl/f0.warc.gz@")


def test_a_takedown_on_an_s3_root_gives_the_shards_and_tokens_of_a_local_one(runs, server, tmp_path):
    """`corpus takedown t/v1 --to v2` on the s3 root (a node with an empty local dir) and on the local
    root of the same published v1: the same shards and token files, byte for byte, without the removed
    documents, and `corpus audit` of the s3 v2 passing on another empty node."""
    from corpus.formats.parts import read_parquet

    root, env, s3_cfg = runs
    _, s3 = server
    v1 = root / "a" / "corpus" / "t" / "v1"
    ids = sorted(i for p in v1.glob("shard-*.parquet") for i in read_parquet(p, columns=["id"]).column("id").to_pylist())
    texts = {}
    for p in sorted((v1 / "stages" / "02-normalize").glob("part-*.parquet")):
        t = read_parquet(p, columns=["id", "text"])
        texts.update(zip(t.column("id").to_pylist(), t.column("text").to_pylist()))
    gone = [ids[5], ids[len(ids) // 2], ids[-1]]
    entries = [f"id:{gone[0]}", f"id:{gone[1]}", "sha256:" + hashlib.sha256(texts[gone[2]].encode()).hexdigest()]
    listed = tmp_path / "list.txt"
    listed.write_text("\n".join(entries) + "\n")
    row = {"source_id": "td-s3", "role": "takedown", "url": str(listed), "sha256": hashlib.sha256(listed.read_bytes()).hexdigest(),
           "bytes": listed.stat().st_size, "license_spdx": "CC0-1.0", "reason": "test", "format": "text", "split": "line"}
    with (root / "ledger.jsonl").open("a") as f:  # a row no dataset uses: the v1 manifests' ledger sha256 stays
        f.write(json.dumps(row) + "\n")
    for name, cfg, node in (("s3", s3_cfg, {**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node")}),
                            ("local", root / "local.toml", {})):
        (root / f"td-{name}").mkdir(exist_ok=True)  # the written configs: the same name in another folder each
        _corpus(cfg, "takedown", "t/v1", "--to", "v2", "--list", "td-s3", "-j", "1",
                "--write-config", root / f"td-{name}" / "v2.toml", env=node)
    proc = _corpus(root / "td-s3" / "v2.toml", "audit", env={**env, "CORPUS_LOCAL_DIR": str(tmp_path / "node2")})
    assert proc.stdout.rstrip().endswith(" 0 failed"), proc.stdout
    files = lambda rels: {r: hashlib.sha256(_get(s3, r)).hexdigest() for r in rels}  # noqa: E731
    ours = {r for r in _objects(s3) if r.startswith(("corpus/t/v2/shard-", "tokens/t/v2/")) and r.endswith((".parquet", ".bin", ".idx"))}
    local = {p.relative_to(root / "a").as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted((root / "a").rglob("*")) if p.is_file()
             and p.relative_to(root / "a").as_posix().startswith(("corpus/t/v2/shard-", "tokens/t/v2/"))
             and p.suffix in (".parquet", ".bin", ".idx")}
    assert len(ours) >= 3 and files(sorted(ours)) == local
    kept = {i for r in ours if r.startswith("corpus/") for i in read_parquet(root / "a" / r, columns=["id"]).column("id").to_pylist()}
    assert kept == set(ids) - set(gone)
