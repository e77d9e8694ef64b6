"""Stages 04–07 end to end on real data: dedup, PII, shards, tokens, audit and `corpus run`.

One pipeline runs per module (workers=2) and a second one with workers=1 into another artifacts root:
every shard, _MANIFEST.json and token file must be byte-identical between them."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus.config import load_config
from corpus.errors import CorpusError
from corpus.commands.pipeline import run_all
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage
from conftest import LEDGER, error_line, mirror_file, run_corpus, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test", "state-union", "minhash-articles-100", "enterprise-pii"]
TABLES = {"shard": {"shard_rows": 700, "val_permille": 50}, "decontam": {"evals": ["gsm8k-test", "hellaswag"]},
          "tokenize": {"vocab_size": 2048, "max_tokens_per_file": 200000}}
SHARD_TYPES = [("id", pa.string()), ("text", pa.string()), ("source_id", pa.string()), ("url", pa.string()),
               ("license_spdx", pa.string()), ("lang", pa.string()), ("n_chars", pa.int32()),
               ("sha256", pa.binary(32)), ("minhash_cluster", pa.int64()), ("pii_redactions", pa.int32()),
               ("split", pa.string()), ("meta", pa.string())]


PII_ROWS = 800  # of enterprise-pii's 3,395 records: its e-mails, phones and keys, at a quarter of the scrub time


def pipeline_ledger(root: Path) -> Path:
    """The ledger with enterprise-pii's row naming its first PII_ROWS records (a file written under root)."""
    path = root / "LEDGER.jsonl"
    if not path.exists():
        head = root / "enterprise-pii-head.jsonl"
        head.write_text("".join(mirror_file("enterprise-pii").read_text().splitlines(keepends=True)[:PII_ROWS]))
        rows = [json.loads(line) for line in LEDGER.read_text().splitlines() if line.strip()]
        data = head.read_bytes()
        pii = {"url": str(head), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        path.write_text("".join(json.dumps({**r, **pii} if r["source_id"] == "enterprise-pii" else r) + "\n"
                                for r in rows))
    return path


def make_config(root: Path, name: str, variant: str = "", **extra):
    """A config over artifacts root/name; a variant gets its own file (the base config file stays as it is)."""
    tables = {**TABLES, **extra}
    return load_config(write_config(root / f"{name}{variant}.toml", ledger=pipeline_ledger(root), sources=SOURCES,
                                    artifacts=root / name, **tables))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("pipeline")
    two = make_config(root, "w2")
    rows2 = run_all(two, workers=2)
    one = make_config(root, "w1")
    run_all(one, workers=1)
    return two, one, rows2


def files(config, *globs):
    base = config.artifacts
    return {str(p.relative_to(base)): p.read_bytes() for g in globs for p in sorted(base.glob(g)) if p.is_file()}


def shard_rows(config) -> list[dict]:
    return [r for p in sorted(config.dataset_dir.glob("shard-*.parquet")) for r in pq.read_table(p).to_pylist()]


def run_tokenize(config, *, workers, force=False, resume=False, **budgets) -> tuple[dict, Path]:
    """The tokenize stage: (its tokens _MANIFEST.json, its directory)."""
    r = run_stage("tokenize", config, RunOptions(workers=workers, force=force, resume=resume, extra=budgets))
    return json.loads((r.path / "_MANIFEST.json").read_text()), r.path


def tokens_dir(config) -> Path:
    (d,) = [p for p in (config.artifacts / "tokens" / "t" / "v1").iterdir() if p.is_dir()]
    return d


# ---------------------------------------------------------------- determinism

def test_shards_manifest_and_tokens_identical_across_worker_counts(runs):
    two, one, rows = runs
    assert [r[1] for r in rows] == ["computed"] * 7
    globs = ("corpus/t/v1/stages/*/part-*.parquet", "corpus/t/v1/stages/*/*/part-*.parquet", "corpus/t/v1/shard-*",
             "corpus/t/v1/_MANIFEST.json", "tokens/**/*.bin", "tokens/**/*.idx", "tokens/**/_MANIFEST.json",
             "tokens/**/tokenizer.json")
    a, b = files(two, *globs), files(one, *globs)
    assert len([k for k in a if "04-dedup/dropped/" in k]) == len([k for k in a if "04-dedup/part-" in k]) > 1
    assert len([k for k in a if "shard-" in k]) >= 3 and a == b


def test_second_run_is_all_current_and_a_changed_filter_recomputes_from_there(runs, tmp_path):
    two, _, _ = runs
    before = files(two, "corpus/raw/**/*", "corpus/t/v1/stages/02-normalize/*")
    assert [r[1] for r in run_all(two, workers=2)] == ["current"] * 7
    changed = make_config(two.artifacts.parent, "w2", "-gopher60", **{"filters.gopher": {"min_words": 60}})
    with pytest.raises(CorpusError, match=r"t/v1 is published with other settings \(filters.gopher.min_words 50 -> 60\); "
                                          r"a published version is never replaced: bump \[dataset\] version"):
        run_all(changed, workers=2, through="shard")
    assert files(changed, "corpus/raw/**/*", "corpus/t/v1/stages/02-normalize/*") == before
    statuses = {stage: status for stage, status, _, _ in run_all(changed, workers=2, through="shard", replace=True)}
    # per-stage identity: a filter threshold is no key of fetch's or normalize's, so both stay current
    assert statuses == {"fetch": "current", "normalize": "current", "filter": "recomputed",
                        "dedup": "recomputed", "pii": "recomputed", "shard": "recomputed"}
    assert files(changed, "corpus/raw/**/*", "corpus/t/v1/stages/02-normalize/*") == before
    assert [r[1] for r in run_all(two, workers=2, through="shard", replace=True)][1:] == ["current"] + ["recomputed"] * 4


# ---------------------------------------------------------------- 04 dedup

def test_planted_near_duplicates_are_dropped_with_their_kept_twin(runs):
    two, _, _ = runs
    truth = [line.split() for line in mirror_file("minhash-articles-100").with_name(
        "de4b4dcd40e7e4dc07b3ef27bf79f438fff62a80acf8e7c3ae04b1b26b11c307").read_text().splitlines() if line.strip()]
    d = two.stage_dir("04-dedup")
    dropped = [r for p in sorted((d / "dropped").glob("*.parquet")) for r in pq.read_table(p).to_pylist()]
    near = {r["text"].split()[0]: r for r in dropped if r["reason"] == "near" and r["source_id"] == "minhash-articles-100"}
    kept = {r["text"].split()[0]: r for p in sorted(d.glob("part-*.parquet")) for r in pq.read_table(p).to_pylist()
            if r["source_id"] == "minhash-articles-100"}
    for a, b in truth:
        ids = {kept[x]["id"] if x in kept else near[x]["id"] for x in (a, b)}
        keep_id = min(ids, key=lambda i: i.encode())
        drop_tag = b if (kept.get(a, {}).get("id") == keep_id or near.get(b)) else a
        assert drop_tag in near and near[drop_tag]["duplicate_of"] == keep_id
    assert len(near) == len(truth)
    # minhash_cluster: the kept twin's own row index (id order over the dedup input)
    ids = sorted((r["id"] for p in sorted(two.stage_dir("03-filter").glob("part-*.parquet"))
                  for r in pq.read_table(p, columns=["id"]).to_pylist()), key=str.encode)
    rank = {i: k for k, i in enumerate(ids)}
    for r in kept.values():
        assert r["minhash_cluster"] == rank[r["id"]]
    manifest = json.loads((d / "_STAGE.json").read_text())
    assert manifest["counts"]["dropped"]["near"] >= len(truth)


def test_mark_mode_keeps_everything_and_annotates(runs, tmp_path):
    two, _, _ = runs
    mark = make_config(tmp_path, "mark", dedup={"mode": "mark"})
    run_all(mark, workers=2, through="dedup")
    d = mark.stage_dir("04-dedup")
    counts = json.loads((d / "_STAGE.json").read_text())["counts"]
    assert counts["dropped"]["near"] == 0 and counts["near_marked"] >= 5
    rows = [r for p in sorted(d.glob("part-*.parquet")) for r in pq.read_table(p).to_pylist()]
    clusters = {}
    for r in rows:
        clusters.setdefault(r["minhash_cluster"], []).append(r["id"])
    multi = [v for v in clusters.values() if len(v) > 1]
    assert len(multi) >= 5 and all(len({i.split(":")[0] for i in v}) == 1 for v in multi)


def decontam_words(text: str) -> list[str]:
    """Independent of corpus.dedup: lowercase, keep letters/digits, split on anything else."""
    import re
    return re.sub(r"[^\w\s]|_", "", text.lower()).split()


@pytest.mark.slow  # run_all through dedup
def test_decontamination_equals_brute_force_on_gsm8k(tmp_path, mirror):
    cfg = load_config(write_config(tmp_path / "g.toml", ledger=LEDGER, sources=["gsm8k-train"],
                                   artifacts=tmp_path / "g", decontam={"evals": ["gsm8k-test"]},
                                   **{"filters.lang": {"enabled": False}, "filters.gopher": {"enabled": False},
                                      "filters.repetition": {"enabled": False}},
                                   dedup={"exact": False, "near": False}))
    run_all(cfg, workers=2, through="dedup")
    d = cfg.stage_dir("04-dedup")
    dropped = {r["id"]: r for p in sorted((d / "dropped").glob("*.parquet")) for r in pq.read_table(p).to_pylist()}
    assert {r["reason"] for r in dropped.values()} == {"decontam"}

    def items(source):
        return [json.loads(line) for line in mirror_file(source).read_text().splitlines() if line.strip()]

    grams = set()
    for item in items("gsm8k-test"):
        w = decontam_words(item["question"] + "\n" + item["answer"])
        grams |= {tuple(w[i:i + 13]) for i in range(len(w) - 12)}
    expected = set()
    for k, item in enumerate(items("gsm8k-train")):
        w = decontam_words(item["question"] + "\n" + item["answer"])
        if any(tuple(w[i:i + 13]) in grams for i in range(len(w) - 12)):
            expected.add(f"gsm8k-train:{k}")
    assert expected and set(dropped) == expected
    for r in dropped.values():
        assert r["eval_source"] == "gsm8k-test" and len(r["matched_ngram"].split()) == 13
        assert r["matched_ngram"] in " ".join(decontam_words(r["text"]))


# ---------------------------------------------------------------- 05 pii, 06 shard

def test_pii_placeholders_and_counts(runs):
    two, _, _ = runs
    rows = shard_rows(two)
    manifest = json.loads((two.dataset_dir / "_MANIFEST.json").read_text())
    total = sum(r["pii_redactions"] for r in rows)
    assert total == sum(manifest["pii"].values()) and manifest["pii"]["emails"] > 0
    placeholders = sum(r["text"].count(p) for r in rows for p in ("<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>"))
    assert placeholders >= total
    assert all(r["pii_redactions"] == 0 for r in rows if r["source_id"] == "tinystories-train-head")
    assert not any("@" in r["text"] and ".com" in r["text"] for r in rows if r["source_id"] == "enterprise-pii"
                   and "<EMAIL>" not in r["text"])


def test_shards_follow_the_contract(runs):
    two, _, _ = runs
    manifest = json.loads((two.dataset_dir / "_MANIFEST.json").read_text())
    rows = []
    for s in manifest["shards"]:
        t = pq.read_table(two.dataset_dir / s["name"])
        assert t.schema.names == [n for n, _ in SHARD_TYPES]
        assert [t.schema.field(n).type for n, _ in SHARD_TYPES] == [ty for _, ty in SHARD_TYPES]
        assert t.num_rows == s["rows"] and hashlib.sha256((two.dataset_dir / s["name"]).read_bytes()).hexdigest() == s["sha256"]
        meta = pq.ParquetFile(two.dataset_dir / s["name"]).metadata
        assert meta.row_group(0).column(1).compression == "ZSTD"
        rows += t.to_pylist()
    assert [s["rows"] for s in manifest["shards"][:-1]] == [700] * (len(manifest["shards"]) - 1)
    assert manifest["n_docs"] == len(rows) == sum(s["rows"] for s in manifest["shards"])
    ids = [r["id"].encode() for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for r in rows:
        digest = hashlib.sha256(r["text"].encode()).digest()
        assert r["sha256"] == digest and r["n_chars"] == len(r["text"])
        assert r["split"] == ("val" if int.from_bytes(digest[:8], "big") % 1000 < 50 else "train")
    assert manifest["splits"] == {"train": sum(r["split"] == "train" for r in rows),
                                  "val": sum(r["split"] == "val" for r in rows)}
    per_source = {s["source_id"]: s for s in manifest["sources"]}
    for sid in SOURCES:
        assert per_source[sid]["docs"] == sum(r["source_id"] == sid for r in rows)
    assert manifest["filters"]["gopher"] > 0 and manifest["dedup"]["near_dropped"] >= 5


def test_shards_open_with_pyarrow_dataset_and_duckdb(runs):
    two, _, _ = runs
    import pyarrow.dataset as ds

    n = json.loads((two.dataset_dir / "_MANIFEST.json").read_text())["n_docs"]
    assert ds.dataset(str(two.dataset_dir), format="parquet", exclude_invalid_files=True,
                      ignore_prefixes=["stages", "_", "."]).count_rows() == n
    duckdb = pytest.importorskip("duckdb")
    got = dict(duckdb.sql(f"SELECT split, count(*) FROM read_parquet('{two.dataset_dir}/shard-*.parquet') "
                          "GROUP BY split ORDER BY split").fetchall())
    manifest = json.loads((two.dataset_dir / "_MANIFEST.json").read_text())
    assert got == {"train": manifest["splits"]["train"], "val": manifest["splits"]["val"]}


# ---------------------------------------------------------------- audit

def flip_byte(path: Path, at: int = 200) -> bytes:
    data = path.read_bytes()
    b = bytearray(data)
    b[min(at, len(b) - 1)] ^= 0x01
    path.write_bytes(bytes(b))
    return data


def test_audit_passes_then_fails_naming_a_flipped_file(runs):
    two, _, _ = runs
    ok = run_corpus("--config", two.path, "audit", check=True)
    assert " 0 failed" in ok.stdout
    for victim in [next(two.dataset_dir.glob("shard-*.parquet")),
                   two.stage_dir("03-filter") / "part-00001.parquet",
                   next((two.artifacts / "tokens").rglob("train/part-00000.bin"))]:
        original = flip_byte(victim)
        try:
            line = error_line(run_corpus("--config", two.path, "audit"))
            assert str(victim) in line and "sha256 mismatch" in line
        finally:
            victim.write_bytes(original)
    assert run_corpus("--config", two.path, "audit").returncode == 0


# ---------------------------------------------------------------- 07 tokens

def read_megatron(prefix: Path):
    """An independent reader of the Megatron MMIDIDX v1 layout (not the project's)."""
    idx = prefix.with_suffix(".idx").read_bytes()
    assert idx[:9] == b"MMIDIDX\x00\x00"
    version, code, n, n_doc_idx = struct.unpack_from("<QBQQ", idx, 9)
    assert version == 1 and n_doc_idx == n + 1
    dtype = {8: np.uint16, 4: np.int32}[code]
    off = 9 + 8 + 1 + 8 + 8
    lengths = np.frombuffer(idx, "<i4", n, off)
    pointers = np.frombuffer(idx, "<i8", n, off + 4 * n)
    doc_idx = np.frombuffer(idx, "<i8", n + 1, off + 12 * n)
    assert list(doc_idx) == list(range(n + 1))
    data = prefix.with_suffix(".bin").read_bytes()
    size = np.dtype(dtype).itemsize
    return [np.frombuffer(data, dtype, int(length), int(p)) for length, p in zip(lengths, pointers)], size


def test_tokens_decode_back_to_the_shard_texts(runs):
    from tokenizers import Tokenizer

    two, _, _ = runs
    d = tokens_dir(two)
    m = json.loads((d / "_MANIFEST.json").read_text())
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    eos = m["tokenizer"]["eos_token"]
    assert m["tokenizer"]["dtype"] == "uint16" and tok.token_to_id("<EMAIL>") == m["tokenizer"]["placeholder_tokens"]["<EMAIL>"]
    texts = {"train": [], "val": []}
    for r in shard_rows(two):
        texts[r["split"]].append(r["text"])
    for split in ("train", "val"):
        decoded = []
        for f in m["splits"][split]["files"]:
            docs, size = read_megatron(d / f["bin"].removesuffix(".bin"))
            assert size == 2 and len(docs) == f["docs"]
            for ids in docs:
                assert int(ids[-1]) == m["tokenizer"]["eos_id"] and m["tokenizer"]["eos_id"] not in ids[:-1]
                decoded.append(tok.decode(ids.tolist(), skip_special_tokens=False))
        assert sorted(decoded) == sorted(t + eos for t in texts[split])  # a permutation of the shard texts
        expected_tokens = sum(len(e.ids) + 1 for e in tok.encode_batch(texts[split], add_special_tokens=False))
        assert m["splits"][split]["tokens"] == expected_tokens
    assert decoded and len(m["splits"]["train"]["files"]) >= 2  # cut at max_tokens_per_file
    emails = [t for t in texts["train"] + texts["val"] if "<EMAIL>" in t]
    assert emails and tok.encode("<EMAIL>", add_special_tokens=False).ids == [m["tokenizer"]["placeholder_tokens"]["<EMAIL>"]]


def test_tokenize_resume_after_a_kill_is_byte_identical(runs, tmp_path, monkeypatch):
    two, _, _ = runs
    d = tokens_dir(two)
    want = {p.relative_to(d): p.read_bytes() for p in d.rglob("*") if p.is_file() and p.name != "_RUN.json"}
    import corpus.stages.tokenize as tk

    real = tk.write_part
    calls = []

    def dies_after_first(u):
        calls.append(u.key)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed after the first committed part
        return real(u)

    monkeypatch.setattr(tk, "write_part", dies_after_first)
    with pytest.raises(KeyboardInterrupt):
        run_tokenize(two, workers=1, force=True)
    monkeypatch.setattr(tk, "write_part", real)
    redone = []
    monkeypatch.setattr(tk, "write_part", lambda u: redone.append(u.key) or real(u))
    run_tokenize(two, workers=1, force=True, resume=True)
    assert calls[0] not in redone
    got = {p.relative_to(d): p.read_bytes() for p in d.rglob("*") if p.is_file() and p.name != "_RUN.json"}
    assert got == want


def test_budgets_and_pinned_tokenizer(runs, tmp_path):
    two, _, _ = runs
    d = tokens_dir(two)
    full = json.loads((d / "_MANIFEST.json").read_text())
    m, out = run_tokenize(two, workers=2, force=True, train_tokens=50_000)
    lengths = [int(x) for f in m["splits"]["train"]["files"]
               for x in np.frombuffer((out / f["idx"]).read_bytes(), "<i4", f["docs"], 34)]
    assert sum(lengths) >= 50_000 and sum(lengths) - lengths[-1] < 50_000  # stops after the crossing doc
    assert m["splits"]["val"] == full["splits"]["val"] and m["budgets"]["train_tokens"] == 50_000
    m2, _ = run_tokenize(two, workers=2, force=True, max_documents=10)
    assert m2["splits"]["train"]["docs"] == 10
    pinned = tmp_path / "tok.json"
    shutil.copy(d / "tokenizer.json", pinned)
    sha = hashlib.sha256(pinned.read_bytes()).hexdigest()
    cfg = make_config(two.artifacts.parent, "w2", "-badpin", tokenize={"tokenizer": str(pinned), "tokenizer_sha256": "0" * 64})
    with pytest.raises(CorpusError, match="sha256 mismatch"):
        run_tokenize(cfg, workers=1)
    cfg = make_config(two.artifacts.parent, "w2", "-pinned", tokenize={"tokenizer": str(pinned), "tokenizer_sha256": sha})
    m3, out3 = run_tokenize(cfg, workers=1)
    assert out3.name == f"tok-{sha[:12]}" and m3["splits"]["train"]["tokens"] == full["splits"]["train"]["tokens"]
    shutil.rmtree(out3)
    run_tokenize(two, workers=2, force=True)  # leave the full run for the other tests


def test_export_formats(runs, tmp_path):
    from corpus.tokens.exports import read_datatrove, read_llmc_shard

    two, _, _ = runs
    d = tokens_dir(two)
    m = json.loads((d / "_MANIFEST.json").read_text())
    stream = np.concatenate([np.fromfile(d / f["bin"], np.uint16) for f in m["splits"]["train"]["files"]])
    run_corpus("--config", two.path, "export", "--format", "nanogpt", "--out", tmp_path / "n", check=True)
    assert np.array_equal(np.fromfile(tmp_path / "n" / "train.bin", np.uint16), stream)
    run_corpus("--config", two.path, "export", "--format", "llmc", "--out", tmp_path / "l", check=True)
    shards = sorted((tmp_path / "l").glob("t_train_*.bin"))
    assert np.array_equal(np.concatenate([read_llmc_shard(p) for p in shards]), stream)
    run_corpus("--config", two.path, "export", "--format", "datatrove", "--out", tmp_path / "d", check=True)
    parts = sorted((tmp_path / "d" / "train").glob("*.ds"))
    tokens = np.concatenate([read_datatrove(p)[0] for p in parts])
    assert np.array_equal(tokens, stream)


def test_loader_reads_the_real_tokens(runs):
    import torch

    from corpus.tokens.loader import TokenStream, get_batch

    two, _, _ = runs
    stream = TokenStream.open(tokens_dir(two), "train", verify=True)
    x, y = get_batch(stream, 64, 4, torch.Generator().manual_seed(0))
    assert x.shape == (4, 64) and x.dtype == torch.int64 and torch.equal(x[:, 1:], y[:, :-1])


def test_tiny_gpt_example_loss_falls(runs):
    import importlib.util

    two, _, _ = runs
    spec = importlib.util.spec_from_file_location("train_tiny_gpt", Path(__file__).parents[1] / "examples" / "train_tiny_gpt.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    losses = example.main([str(tokens_dir(two)), "--steps", "80", "--batch", "4", "--block", "32"])
    assert sum(losses[-5:]) / 5 < losses[0] - 1.0


def test_stale_token_directories_are_named_collected_and_warned_about(runs, tmp_path):
    """A token directory made from shards the version no longer has: the loader warns when opening it,
    current_tokens_dir finds the current one only, `corpus gc` lists it and `--delete` removes it."""
    import warnings

    from corpus.tokens.loader import TokenStream, current_tokens_dir

    two, _, _ = runs
    art = tmp_path / "art"
    shutil.copytree(two.artifacts / "tokens", art / "tokens")
    (art / "corpus" / "t" / "v1").mkdir(parents=True)
    shutil.copy(two.dataset_dir / "_MANIFEST.json", art / "corpus" / "t" / "v1" / "_MANIFEST.json")
    d = tokens_dir(two)
    current = current_tokens_dir(art, "t", "v1")
    assert current.name == d.name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TokenStream.open(current, "train")  # current: no warning
    manifest = art / "corpus" / "t" / "v1" / "_MANIFEST.json"
    manifest.write_text(manifest.read_text() + "\n")  # other shards now
    with pytest.warns(UserWarning, match="made from other shards than"):
        TokenStream.open(current, "train")
    with pytest.raises(CorpusError, match="none is current"):
        current_tokens_dir(art, "t", "v1")
    cfg = make_config(tmp_path, "gc")
    cfg_path = cfg.path
    proc = run_corpus("--config", cfg_path, "--artifacts", art, "gc", check=True)
    assert f"would remove  {current}" in proc.stdout and "token directory of other shards" in proc.stdout
    run_corpus("--config", cfg_path, "--artifacts", art, "gc", "--delete", check=True)
    assert not current.exists()
    assert "nothing to collect" in run_corpus("--config", cfg_path, "--artifacts", art, "gc", check=True).stdout
