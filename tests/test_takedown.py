"""Takedown (issue 52): lists of role takedown remove documents by url, domain, id, text sha256 or source,
first in the filter stage; a new version made by `corpus takedown` rewrites only the shards that held a
removed document, gives the bytes of a from-scratch run with the list in its config, and its audit
proves the removed texts are gone."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import LEDGER, error_line, run_corpus, write_config
from corpus.config import load_config
from corpus.errors import CorpusError
from corpus.filters import takedown
from corpus.formats.parts import read_parquet
from corpus.store.atomic import dump_json


def test_entries_match_by_kind_first_entry_wins_and_malformed_ones_name_their_line():
    rows = ["# opt-outs", "domain:Example.COM.  # the whole site", "url:https://a.org/p#frag", "id:s:3",
            "sha256:" + hashlib.sha256("gone".encode()).hexdigest(), "source:s2"]
    lines = [x for x in map(takedown.strip_comment, rows) if x]
    entries = [[*takedown.parse_entry(x, "l"), "td", "0" * 64] for x in lines]
    m = takedown.Matcher(entries)
    kind = lambda *a: (x.kind, x.line) if (x := m.match(*a)) else None  # noqa: E731
    assert kind("s:1", "http://www.sub.example.com/x", "s", "t") == ("domain", 1)  # subdomain, any case
    assert kind("s:1", "http://notexample.com/", "s", "t") is None                # not a parent domain
    assert kind("s:1", "https://a.org/p#frag", "s", "t") == ("url", 2)            # '#frag' is no comment
    assert kind("s:1", "https://a.org/p", "s", "t") is None                       # exact URLs only
    assert kind("s:3", "http://example.com/", "s", "t") == ("domain", 1)          # the first entry wins
    assert kind("s:3", None, "s", "t") == ("id", 3)
    assert kind("s:9", None, "s", "gone") == ("sha256", 4)
    assert kind("s2:0", None, "s2", "t") == ("source", 5)
    assert m.match("s:3", None, "s", "t").detail == "td sha256:" + "0" * 64 + " id:s:3"
    # a part's batch at once (the match phase): the rows match() matches, nulls and all
    import pyarrow as pa
    docs = [("s:1", "http://www.sub.example.com/x", "s", "t"), ("s:1", "http://notexample.com/", "s", "t"),
            ("s:1", "https://a.org/p#frag", "s", "t"), ("s:1", "https://a.org/p", "s", "t"), ("s:3", None, "s", "t"),
            ("s:9", None, "s", "gone"), ("s:9", "", "s", "gone!"), ("s2:0", None, "s2", "t"), ("s:8", "x", "s", "")]
    batch = pa.record_batch([pa.array(list(c), pa.string()) for c in zip(*docs)], names=["id", "url", "source_id", "text"])
    assert m.matched(batch).tolist() == [m.match(*d) is not None for d in docs] == [1, 0, 1, 0, 1, 1, 0, 1, 0]
    for bad in ("http://x.org/", "host:x.org", "sha256:abc", "id:"):
        with pytest.raises(CorpusError, match=r"^list 'td' f#L7: takedown entry"):
            takedown.parse_entry(bad, "list 'td' f#L7")


def test_the_match_phase_takes_the_texts_sha256_from_the_cache_and_counts_the_same(tmp_path, monkeypatch):
    """A part whose text sha256s the cache holds (the filter stage keeps them as it reads the texts) is
    matched without reading or hashing a text; one without them is hashed, and its sha256s kept. Either
    way the count is the one of match() over every document."""
    import pyarrow as pa

    from conftest import tinystories
    from corpus.formats.parts import write_table
    from corpus.stages import filter as filter_stage

    texts = list(tinystories()[:300])
    part = tmp_path / "part-00000.parquet"
    entry = write_table(pa.table({"id": [f"s:{i}" for i in range(300)], "url": [f"https://e.org/{i}" for i in range(300)],
                                  "source_id": ["s"] * 300, "text": texts}), part)
    lines = [f"sha256:{hashlib.sha256(texts[i].encode()).hexdigest()}" for i in (3, 150, 299)] + ["id:s:7", "url:https://e.org/8"]
    entries = [[*takedown.parse_entry(x, "l"), "td", "0" * 64] for x in lines]
    res = tmp_path / takedown.FILE
    res.write_bytes(json.dumps({"lists": [], "entries": entries}).encode())
    lists = json.dumps({"takedown_lists": str(res), "takedown_lists_sha256": hashlib.sha256(res.read_bytes()).hexdigest()})
    cache = tmp_path / "art"
    unit = filter_stage.MatchUnit("part-00000", part, entry["sha256"], lists, str(cache))
    assert takedown.cached_digests(cache, entry["sha256"], 300) is None
    assert filter_stage.match_part(unit)["matches"] == 5  # hashed here, and kept
    kept = takedown.cached_digests(cache, entry["sha256"], 300)
    assert kept is not None and kept[150].tobytes() == hashlib.sha256(texts[150].encode()).digest()

    def no_text(*a, **k):
        raise AssertionError("a text was read and hashed although the cache held its sha256")

    monkeypatch.setattr(filter_stage, "utf8_digests", no_text)
    monkeypatch.setattr(takedown, "utf8_digests", no_text)
    assert filter_stage.match_part(unit)["matches"] == 5
    # the same bytes under another name are the same part: only its sha256 keys the entry
    assert takedown.cached_digests(cache, "0" * 64, 300) is None


# ---------------------------------------------------------------- a takedown of a published version

SOURCES = ["tinystories-train-head", "minhash-articles-100"]
# minhash-articles-100's planted near-duplicates (dedup keeps the smallest id of a group): {4, 31} keeps
# 31, {0, 7} keeps 0. Taking down 31 promotes 4; taking down 0 and 7 (by its text) leaves neither.
ART = "minhash-articles-100:"


def _published(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file() and p.suffix in (".parquet", ".bin", ".idx")
            and "stages" not in p.parts}


def _ids(directory: Path) -> set[str]:
    return {i for p in directory.glob("shard-*.parquet") for i in read_parquet(p, columns=["id"]).column("id").to_pylist()}


@pytest.fixture(scope="module")
def takedown_run(tmp_path_factory, mirror):
    """v1 of a small corpus, then `corpus takedown t/v1 --to v2` with a list of mixed entry kinds, then a
    from-scratch run (other root, no cache) of the config the takedown wrote."""
    from corpus.commands.pipeline import run_all
    from corpus.commands.takedown import run_takedown

    tmp = tmp_path_factory.mktemp("takedown")
    ledger = tmp / "ledger.jsonl"
    ledger.write_text(LEDGER.read_text())
    cfg = write_config(tmp / "t.toml", ledger=ledger, sources=SOURCES, artifacts=tmp / "art",
                       shard={"shard_rows": 300}, decontam={"evals": ["gsm8k-test"]}, tokenize={"vocab_size": 1024})
    v1 = load_config(cfg)
    run_all(v1, workers=1)  # in-process: the models load once; the takedown itself runs with 2 workers
    before = _published(tmp / "art")
    normalized = {}
    for p in sorted((v1.dataset_dir / "stages" / "02-normalize").glob("part-*.parquet")):
        t = read_parquet(p, columns=["id", "url", "text"])
        normalized.update({r["id"]: r for r in t.to_pylist()})
    story = normalized["tinystories-train-head:10"]
    entries = ["# opt-outs, 2026-12", f"id:{ART}31", f"id:{ART}0  # a court order",
               "sha256:" + hashlib.sha256(normalized[f"{ART}7"]["text"].encode()).hexdigest(),
               f"url:{story['url']}", "domain:example.com"]
    (tmp / "list.txt").write_text("\n".join(entries) + "\n")
    data = (tmp / "list.txt").read_bytes()
    with ledger.open("a") as f:
        f.write(json.dumps({"source_id": "td-1", "role": "takedown", "url": str(tmp / "list.txt"),
                            "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                            "license_spdx": "CC0-1.0", "reason": "opt-out requests", "format": "text",
                            "split": "line"}) + "\n")
    t0 = time.monotonic()
    v2, rows, size = run_takedown(v1, "t/v1", "v2", ("td-1",), None, 2)
    seconds = time.monotonic() - t0
    fresh_cfg = tmp / "fresh.toml"
    fresh_cfg.write_text(v2.path.read_text().replace(str(tmp / "art"), str(tmp / "fresh")) + "\n[run]\ncache = false\n")
    fresh = load_config(fresh_cfg)
    run_all(fresh, workers=1)
    return {"tmp": tmp, "v1": v1, "v2": v2, "fresh": fresh, "before": before, "size": size, "rows": rows,
            "seconds": seconds, "normalized": normalized}


@pytest.mark.slow
def test_takedown_rewrites_only_the_shards_that_held_a_removed_document_and_equals_a_fresh_run(takedown_run):
    r = takedown_run
    v1, v2, fresh = r["v1"], r["v2"], r["fresh"]
    assert _published(r["tmp"] / "art" / "corpus" / "t" / "v1") == {
        k.removeprefix("corpus/t/v1/"): v for k, v in r["before"].items() if k.startswith("corpus/t/v1/")}  # base intact
    # v1's filter stage kept every normalize part's text sha256s, from which the takedown matched
    parts = sorted((v1.dataset_dir / "stages" / "02-normalize").glob("part-*.parquet"))
    assert len(list((r["tmp"] / "art" / "cache" / takedown.DIGESTS_KIND).glob("*"))) == len(parts) > 0
    m = json.loads((v2.dataset_dir / "_MANIFEST.json").read_text())
    listed = hashlib.sha256((r["tmp"] / "list.txt").read_bytes()).hexdigest()
    assert m["takedown"]["lists"] == [{"source_id": "td-1", "sha256": listed, "reason": "opt-out requests"}]
    assert m["takedown"]["removed"] == {"id": [f"{ART}0", f"{ART}31"], "sha256": [f"{ART}7"],
                                        "url": ["tinystories-train-head:10"]}
    ids = _ids(v2.dataset_dir)
    assert f"{ART}4" in ids and f"{ART}4" not in _ids(v1.dataset_dir)   # the next copy of 31's group, promoted
    # decided from v1's signals tables: v2's (signals export, tune) are v1's rows without the removed ones
    from corpus.commands.signals import export
    gone = {i for v in m["takedown"]["removed"].values() for i in v}
    rows = {}
    for name in ("v1", "v2"):
        export(v2, f"t/{name}", r["tmp"] / f"signals-{name}")
        rows[name] = [x for p in sorted((r["tmp"] / f"signals-{name}").glob("*.parquet")) for x in read_parquet(p).to_pylist()]
    assert len(rows["v2"]) == len(rows["v1"]) - len(gone) and rows["v2"] == [x for x in rows["v1"] if x["id"] not in gone]
    assert not ids & {f"{ART}0", f"{ART}7", f"{ART}31"}                   # 0's group: both copies matched
    # shards 1-3 held no removed document: the base's files, linked; shard 0 rewritten
    same = [s for s in sorted(v2.dataset_dir.glob("shard-*")) if os.path.samefile(s, v1.dataset_dir / s.name)]
    assert [s.name for s in same] == [f"shard-{i:05d}-of-00004.parquet" for i in (1, 2, 3)]
    assert r["size"]["files_reused"] >= 3 + 2 and r["size"]["written"] < r["size"]["reused"] + r["size"]["written"]
    # byte-identical shards, token files and manifests to a from-scratch run of the config it wrote
    for a, b in ((v2.dataset_dir, fresh.dataset_dir), (v2.artifacts / "tokens/t/v2", fresh.artifacts / "tokens/t/v2")):
        assert _published(a) == _published(b)
    assert (v2.dataset_dir / "_MANIFEST.json").read_bytes() == (fresh.dataset_dir / "_MANIFEST.json").read_bytes()
    proc = run_corpus("--config", v2.path, "why", f"{ART}31", check=True)
    assert "filter 'takedown', rule 'id', value 1" in proc.stdout and "removed from t/v2 by entry 1" in proc.stdout
    # a config that is not the base's is one line
    other = v1.path.with_name("other.toml")
    other.write_text(v1.path.read_text() + '\n[filters.gopher]\nmin_words = 20\n')
    err = error_line(run_corpus("--config", other, "takedown", "t/v1", "--to", "v3", "--list", "td-1"))
    assert "differs from the one t/v1 was made with in [filters]" in err


def _fix_listing(directory: Path, names: list[str]) -> None:
    """Make a stage manifest (and a corpus/tokens _MANIFEST.json) agree with files edited in place."""
    stage = json.loads((directory / "_STAGE.json").read_text())
    for p in stage["parts"]:
        if p["name"] in names or p["name"] == "_MANIFEST.json":
            data = (directory / p["name"]).read_bytes()
            p["sha256"], p["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (directory / "_STAGE.json").write_bytes(dump_json(stage))


@pytest.mark.slow
def test_audit_fails_when_a_removed_text_is_planted_in_a_shard_or_a_token_file(takedown_run, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer

    from corpus.commands.audit import audit
    from corpus.formats import parts as parts_io
    from corpus.formats.megatron import MegatronIndex

    r = takedown_run
    assert all(c.ok for c in audit(r["v2"])), [c for c in audit(r["v2"]) if not c.ok]
    gone = r["normalized"][f"{ART}31"]["text"]

    root = tmp_path / "art"  # a copy of the root: the text planted into shard 1, every checksum fixed
    shutil.copytree(r["v2"].artifacts, root)
    v2 = load_config(r["v2"].path, artifacts=str(root))
    shard = v2.dataset_dir / "shard-00001-of-00004.parquet"
    t = read_parquet(shard)
    texts = t.column("text").to_pylist()
    texts[0] = gone
    t = t.set_column(t.column_names.index("text"), "text", pa.array(texts, pa.string()))
    t = t.set_column(t.column_names.index("sha256"), "sha256", pa.array(
        [hashlib.sha256(x.encode()).digest() for x in texts], pa.binary(32)))
    t = t.set_column(t.column_names.index("n_chars"), "n_chars", pa.array([len(x) for x in texts], pa.int32()))
    shard.unlink()
    pq.write_table(t, shard, **parts_io.PARQUET_WRITE_OPTIONS)
    m = json.loads((v2.dataset_dir / "_MANIFEST.json").read_text())
    m["shards"][1]["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    (v2.dataset_dir / "_MANIFEST.json").write_bytes(dump_json(m))
    _fix_listing(v2.dataset_dir, [shard.name])
    failed = [c for c in audit(v2) if not c.ok]
    assert [c.what for c in failed] == ["takedown: shards"], failed
    assert f"{shard}: document" in failed[0].detail and "holds the text of a document the takedown removed" in failed[0].detail

    root = tmp_path / "art2"  # its tokens planted over a longer train document's, in place
    shutil.copytree(r["v2"].artifacts, root)
    v2 = load_config(r["v2"].path, artifacts=str(root))
    (d,) = (root / "tokens" / "t" / "v2").iterdir()
    seq = np.array(Tokenizer.from_file(str(d / "tokenizer.json")).encode(gone, add_special_tokens=False).ids)
    index = MegatronIndex(d / "train" / "part-00000")
    k = int(np.argmax(index.lengths))
    assert index.lengths[k] > len(seq)
    bin_path = d / "train" / "part-00000.bin"
    stream = np.fromfile(bin_path, dtype=np.uint16)
    at = int(index.pointers[k]) // 2
    stream[at:at + len(seq)] = seq
    stream.tofile(bin_path)
    m = json.loads((d / "_MANIFEST.json").read_text())
    m["splits"]["train"]["files"][0]["bin_sha256"] = hashlib.sha256(bin_path.read_bytes()).hexdigest()
    (d / "_MANIFEST.json").write_bytes(dump_json(m))
    _fix_listing(d, ["train/part-00000.bin"])
    failed = [c for c in audit(v2) if not c.ok]
    assert [c.what for c in failed] == ["takedown: tokens"], failed
    assert f"{bin_path}: holds the tokens of removed document '{ART}31' at token {at:,}" == failed[0].detail


@pytest.mark.slow
@pytest.mark.cluster
def test_a_takedown_on_ray_gives_the_shards_and_tokens_of_the_local_one(takedown_run, tmp_path, monkeypatch):
    """The same takedown with `[run] executor = "ray"` (two workers, the cache off, in a copy of the root
    holding only v1): the shards and token files of the local takedown's v2, byte for byte."""
    ray = pytest.importorskip("ray")
    from corpus.commands.takedown import run_takedown

    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    r = takedown_run
    art = tmp_path / "art"
    keep_v1 = lambda d, names: [n for n in names if n == "cache" or (Path(d).name == "t" and n != "v1")]  # noqa: E731
    shutil.copytree(r["tmp"] / "art", art, ignore=keep_v1)
    cfg = tmp_path / "ray.toml"
    cfg.write_text(r["v1"].path.read_text().replace(str(r["tmp"] / "art"), str(art))
                   + '\n[run]\nexecutor = "ray"\nworkers = 2\ncache = false\n')
    try:
        v2, rows, _ = run_takedown(load_config(cfg), "t/v1", "v2", ("td-1",), None, 2)
    finally:
        ray.shutdown()
    for stage in ("03-filter", "04-dedup", "05-pii"):  # computed, and on Ray
        run = json.loads((v2.dataset_dir / "stages" / stage / "_RUN.json").read_text())
        assert run["executor"] == "ray", (stage, run)
    assert _published(v2.dataset_dir) == _published(r["v2"].dataset_dir)
    assert _published(art / "tokens" / "t" / "v2") == _published(r["v2"].artifacts / "tokens" / "t" / "v2")


@pytest.mark.slow
def test_a_takedown_killed_mid_way_is_finished_by_running_it_again_and_never_touches_the_base(takedown_run):
    r = takedown_run
    v1 = r["v1"]
    base = _published(v1.dataset_dir)
    args = ("--config", v1.path, "takedown", "t/v1", "--to", "v3", "--list", "td-1", "-j", "2")
    # v3 removes what v2 removed: its later stages are taken whole from v2's; killed once its shards are
    # published, before its token files are
    killed = run_corpus(*args, env={"CORPUS_FAULT_AT": "shard:between"})
    assert killed.returncode == -9, killed.stderr
    assert _published(v1.dataset_dir) == base
    run_corpus(*args, check=True)
    assert _published(v1.dataset_dir) == base
    v3 = load_config(v1.path.with_name("t-v3.toml"))
    assert _published(v3.dataset_dir) == _published(r["v2"].dataset_dir)
    assert _published(v3.artifacts / "tokens/t/v3") == _published(r["v2"].artifacts / "tokens/t/v2")


@pytest.mark.slow
def test_removing_documents_in_no_duplicate_group_takes_the_bases_dedup_output_without_them(takedown_run):
    """v2 removed the kept copy of a group: its dedup ran over every document. A takedown of v2 whose
    documents were in no group takes v2's dedup output without them: the bytes dedup gives over every
    document (--recompute, which takes nothing from before)."""
    from corpus.engine.runner import RunOptions
    from corpus.stages import run_stage

    r = takedown_run
    v2 = r["v2"]
    dedup = v2.dataset_dir / "stages" / "04-dedup"
    assert "from_base" not in json.loads((dedup / "_RUN.json").read_text())
    named = {x for p in sorted(dedup.glob("dropped/part-*.parquet"))
             for x in read_parquet(p, columns=["duplicate_of"]).column("duplicate_of").to_pylist()}
    alone = sorted(i for p in sorted(dedup.glob("part-*.parquet")) for i in read_parquet(p, columns=["id"]).column("id").to_pylist()
                   if i.startswith("tinystories-train-head:") and i not in named)
    lst = r["tmp"] / "list-2.txt"
    lst.write_text("".join(f"id:{i}\n" for i in alone[::97][:3]))
    with (r["tmp"] / "ledger.jsonl").open("a") as f:
        f.write(json.dumps({"source_id": "td-2", "role": "takedown", "url": str(lst),
                            "sha256": hashlib.sha256(lst.read_bytes()).hexdigest(), "bytes": lst.stat().st_size,
                            "license_spdx": "CC0-1.0", "reason": "opt-outs", "format": "text", "split": "line"}) + "\n")
    from corpus.commands.takedown import run_takedown

    v4, _, _ = run_takedown(v2, "t/v2", "v4", ("td-2",), None, 2)
    out = v4.dataset_dir / "stages" / "04-dedup"
    assert json.loads((out / "_RUN.json").read_text())["from_base"] in ("corpus/t/v2/stages/04-dedup",
                                                                         "corpus/t/v3/stages/04-dedup")
    files = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and p.name != "_RUN.json"}
    assert not _ids(v4.dataset_dir) & set(alone[::97][:3]) and len(files) > 3
    run_stage("dedup", v4, RunOptions(workers=1, recompute=True))
    assert "from_base" not in json.loads((out / "_RUN.json").read_text())
    assert {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and p.name != "_RUN.json"} == files


def test_window_hashes_equal_the_polynomial_computed_window_by_window():
    """The audit's rolling hash (prefix sums, a constant number of passes) is the plain polynomial hash of
    each window, mod 2^64, for window lengths from 1 to 64 and both token dtypes."""
    from corpus.commands.takedown_proof import BASE, window_hashes

    def plain(tokens, w):
        out = []
        for i in range(len(tokens) - w + 1):
            h = 0
            for x in tokens[i:i + w]:
                h = (h * int(BASE) + int(x)) % (1 << 64)
            out.append(h)
        return np.array(out, np.uint64)

    rng = np.random.default_rng(7)
    for n, w, dtype in ((1, 1, np.uint16), (10, 3, np.uint16), (300, 64, np.uint32), (64, 64, np.uint16), (5, 9, np.uint16)):
        tokens = rng.integers(0, np.iinfo(dtype).max, n, endpoint=True).astype(dtype)
        assert np.array_equal(window_hashes(tokens, w), plain(tokens, w)), (n, w, dtype)


def test_the_dedup_counts_without_removed_documents_drop_a_source_left_with_none():
    from corpus.dedup.delta import Base, counts_without

    counts = {"docs_in": 5, "docs_out": 4, "dropped": {"near": 1}, "near_marked": 0,
              "by_source": {"a": {"docs_in": 4, "docs_out": 3}, "b": {"docs_in": 1, "docs_out": 1}}}
    base = Base(Path("."), {}, counts, {"part-00000": ["a:1", "b:0"]}, {"a:1": "a", "b:0": "b"})
    assert counts_without(base) == {"docs_in": 3, "docs_out": 2, "dropped": {"near": 1}, "near_marked": 0,
                                    "by_source": {"a": {"docs_in": 3, "docs_out": 2}}}
    assert counts["by_source"]["b"] == {"docs_in": 1, "docs_out": 1}  # the base's counts are left as they were


def test_a_shared_band_key_is_found_among_many():
    from corpus.dedup.delta import _any_in

    pool = np.random.default_rng(0).integers(1, 2**63, 100_000, dtype=np.int64).astype(np.uint64)
    assert _any_in(pool[[17, 99_999]], pool) and _any_in(pool[:1], pool)
    assert not _any_in(np.array([0, 2**64 - 1], np.uint64), pool) and not _any_in(pool[:3], pool[:0])
    assert not _any_in(pool[:0], pool)
