"""`[run] partitions = P` never changes a byte: shards, manifests and token files are identical for
P = 1, 3 and 8 (and for the worker count); the partitioned token plan equals its one-piece replay."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from corpus.config import load_config
from corpus.commands.pipeline import run_all
from corpus.engine.runner import RunOptions
from corpus.stages import run_stage
from corpus.engine.idsort import pick_splitters
from corpus.tokens import plan
from conftest import LEDGER, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test"]
TABLES = {"shard": {"shard_rows": 300, "val_permille": 50},
          "tokenize": {"vocab_size": 1024, "max_tokens_per_file": 50000}}
GLOBS = ("corpus/t/v1/shard-*", "corpus/t/v1/_MANIFEST.json", "tokens/**/*.bin", "tokens/**/*.idx",
         "tokens/**/_MANIFEST.json", "tokens/**/tokenizer.json")


def config(root, name, **run):
    return load_config(write_config(root / f"{name}.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / name,
                                    **TABLES, **({"run": run} if run else {})))


@pytest.fixture(scope="module")
def base(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("partitions")
    run_all(config(root, "base"), workers=2, through="pii")
    return root


def files(cfg):
    return {str(p.relative_to(cfg.artifacts)): p.read_bytes() for g in GLOBS for p in sorted(cfg.artifacts.glob(g))}


def run_from_pii(root, name, workers, **run):
    shutil.copytree(root / "base", root / name)
    cfg = config(root, name, **run)
    for stage in ("shard", "tokenize"):
        result = run_stage(stage, cfg, RunOptions(workers=workers))
        assert result.status == "computed"
    return cfg


def test_shards_manifests_and_tokens_identical_for_every_partition_count(base):
    runs = {p: run_from_pii(base, f"p{p}", workers, partitions=p) for p, workers in ((1, 1), (3, 2), (8, 2))}
    got = {p: files(cfg) for p, cfg in runs.items()}
    assert len([k for k in got[1] if "shard-" in k]) == 4 and len([k for k in got[1] if k.endswith(".bin")]) >= 10
    assert got[1] == got[3] == got[8]
    for p, cfg in runs.items():  # each run really had P partitions
        assert json.loads((cfg.dataset_dir / "_RUN.json").read_text())["partitions"] == p
        (tok,) = [d for d in (cfg.artifacts / "tokens" / "t" / "v1").iterdir() if d.is_dir()]
        assert json.loads((tok / "_RUN.json").read_text())["partitions"] == p


def test_token_streams_follow_the_replayed_two_level_shuffle(base):
    """Every document of the val split, re-encoded from the shards, sits where replay_order puts it."""
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer

    cfg = run_from_pii(base, "replay", 2, partitions=3)
    (tok_dir,) = [d for d in (cfg.artifacts / "tokens" / "t" / "v1").iterdir() if d.is_dir()]
    m = json.loads((tok_dir / "_MANIFEST.json").read_text())
    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    shards = [pq.read_table(cfg.dataset_dir / s["name"], columns=["text", "split"]) for s in
              json.loads((cfg.dataset_dir / "_MANIFEST.json").read_text())["shards"]]
    for split in ("val", "train"):
        texts = [[t for t, s in zip(x.column("text").to_pylist(), x.column("split").to_pylist()) if s == split]
                 for x in shards]
        flat = [t for per in texts for t in per]
        order = plan.replay_order(m["seed"], split, [len(t) for t in texts])
        assert sorted(order.tolist()) == list(range(len(flat))) and order.tolist() != sorted(order.tolist())
        stream = []
        for f in m["splits"][split]["files"]:
            data = np.fromfile(tok_dir / f["bin"], dtype=m["tokenizer"]["dtype"])
            raw = (tok_dir / f["idx"]).read_bytes()
            n = f["docs"]
            lengths = np.frombuffer(raw, "<i4", n, 9 + 8 + 1 + 8 + 8)
            stream += np.split(data, np.cumsum(lengths)[:-1]) if n else []
        assert len(stream) == len(flat)
        check = range(len(flat)) if split == "val" else range(0, len(flat), 97)
        for k in check:
            want = tok.encode(flat[order[k]], add_special_tokens=False).ids + [m["tokenizer"]["eos_id"]]
            assert stream[k].tolist() == want, (split, k)


def test_partitioned_budget_and_cuts_equal_the_one_piece_rules():
    def old_budget(order, lengths, md, tt):
        if md is not None:
            order = order[:md]
        if tt is not None and len(order):
            order = order[: int(np.searchsorted(np.cumsum(lengths[order]), tt, side="left")) + 1]
        return order

    def old_cut(order, lengths, m):
        parts, start, total = [], 0, 0
        for i, n in enumerate(lengths[order].tolist()):
            if i > start and total + n > m:
                parts.append((start, i))
                start, total = i, 0
            total += n
        if len(order) > start:
            parts.append((start, len(order)))
        return parts

    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(0, 60))
        lengths, order = rng.integers(1, 30, n), rng.permutation(n)
        bounds = [0, *sorted(rng.integers(0, n + 1, int(rng.integers(0, 8))).tolist()), n]
        pieces = [lengths[order][a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        c = plan.Cumulative([len(x) for x in pieces], [int(x.sum()) for x in pieces], lambda p: np.cumsum(pieces[p]))
        for md, tt in ((None, None), (int(rng.integers(0, 70)), None), (None, int(rng.integers(0, 900))), (5, 40)):
            k = plan.budget_end(c, md, tt)
            assert k == len(old_budget(order, lengths, md, tt))
            for m in (1, 10, 37, 10**6):
                assert plan.cut_parts(c, k, m) == old_cut(order[:k], lengths, m)


def test_splitters_are_weighted_quantiles():
    ids = [f"s:{i:04d}" for i in range(1000)]
    parts = [(ids[0::2][::5], 10.0), (ids[1::2][::5], 10.0)]
    got = pick_splitters(parts, 8)
    assert got == sorted(got) and len(got) == 7
    ranks = [ids.index(s) for s in got]
    assert all(abs(r - 125 * (j + 1)) <= 10 for j, r in enumerate(ranks))
    assert pick_splitters(parts, 1) == []


# ---------------------------------------------------------------- dedup's global step

V2 = ["edited-7", "edited-8", "edited-9"]

def dedup_files(cfg) -> dict[str, bytes]:
    d = cfg.stage_dir("04-dedup")
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and p.name != "_RUN.json"}


@pytest.fixture(scope="module")
def dedup_base(tmp_path_factory, mirror):
    """v1: news articles, published. v2: three sets of seeded edits of those articles (near duplicates of
    each other and of v1, some untouched: exact duplicates), deduplicated against v1 and decontaminated."""
    import hashlib

    from conftest import ledger_rows, write_ledger
    from test_dedup_against import config_for, edited_articles

    root = tmp_path_factory.mktemp("pdedup")
    rows = ledger_rows()
    ledger_rows_ = [rows["minhash-articles-1000"]]
    for seed in (7, 8, 9):
        path = root / f"edited-{seed}.jsonl"
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in edited_articles(seed)))
        data = path.read_bytes()
        ledger_rows_.append({"source_id": f"edited-{seed}", "role": "corpus", "url": str(path), "sha256":
                             hashlib.sha256(data).hexdigest(), "bytes": len(data), "license_spdx": "MIT",
                             "format": "jsonl"})
    ledger = write_ledger(root / "LEDGER.jsonl", ledger_rows_)
    base = root / "base"
    base.mkdir()
    run_all(config_for(base, "v1", ["minhash-articles-1000"], ledger), workers=2, through="dedup")
    run_all(config_for(base, "v2", V2, ledger, against=["t/v1"]), workers=2, through="filter")
    return root, ledger


def test_dedup_identical_for_every_partition_count(dedup_base):
    from test_dedup_against import config_for

    root, ledger = dedup_base
    got, runs = {}, {}
    for p, workers in ((1, 2), (3, 2), (8, 1)):
        shutil.copytree(root / "base", root / f"d{p}")
        cfg = config_for(root / f"d{p}", "v2", V2, ledger, against=["t/v1"])
        cfg.path.write_text(cfg.path.read_text() + f"\n[run]\npartitions = {p}\n")
        cfg = load_config(cfg.path)
        assert run_stage("dedup", cfg, RunOptions(workers=workers)).status == "computed"
        got[p] = dedup_files(cfg)
        runs[p] = json.loads((cfg.stage_dir("04-dedup") / "_RUN.json").read_text())
    counts = json.loads(got[1]["_STAGE.json"])["counts"]
    assert counts["dropped"]["exact"] > 0 and counts["dropped"]["near"] > 0 and counts["published_duplicates"] > 0
    assert got[1] == got[3] == got[8]
    assert [runs[p]["partitions"] for p in (1, 3, 8)] == [1, 3, 8]
    assert runs[8]["components_rounds"] > 1  # clusters found by several buckets: the rounds really merged them


@pytest.mark.parametrize("n_docs,workers,want", [
    (6_000, 2, 1),            # too few documents to split: one partition
    (49_679, 2, 2),           # one 53 MB source, two workers: both busy in every global step
    (49_679, 8, 4),           # no partition under 10,000 documents
    (2_500_000, 2, 3),        # the size rule wins
    (2_500_000, 1, 3),
])
def test_automatic_partitions_give_every_worker_a_task_when_there_is_enough_data(tmp_path, n_docs, workers, want):
    from corpus.engine.partitioning import partitions

    auto = load_config(write_config(tmp_path / "a.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path))
    assert partitions(auto, n_docs, workers=workers) == want
    fixed = load_config(write_config(tmp_path / "f.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path,
                                     run={"partitions": 5}))
    assert partitions(fixed, n_docs, workers=workers) == 5  # a configured P is kept
