"""The cache (engine.cache): entries named by key and checksum, damaged ones noticed and rebuilt, keys that
change with every fact and library version, and `[run] cache = false` / `corpus gc --cache`."""

from __future__ import annotations

import pytest

from corpus.config import Config, load_config
from corpus.engine.cache import Cache, cache_key, cache_root
from conftest import LEDGER, run_corpus, write_config


def test_an_entry_is_read_only_when_its_bytes_match_its_name(tmp_path, caplog):
    cache = Cache(tmp_path, "thing", ".bin")
    key = cache_key({"a": 1})
    assert cache.get(key) is None
    built = []
    data, cached = cache.get_or_build(key, lambda: built.append(1) or b"payload")
    assert (data, cached, built) == (b"payload", False, [1])
    assert cache.get_or_build(key, lambda: built.append(1) or b"payload") == (b"payload", True) and built == [1]
    (entry,) = (tmp_path / "cache" / "thing").iterdir()
    entry.write_bytes(b"payloaX")
    with caplog.at_level("WARNING"):
        assert cache.get(key) is None
    assert "does not match the checksum in its name; removed" in caplog.text and not entry.exists()
    cache.put(key, b"one")
    cache.put(key, b"two")  # a new entry of the key replaces the old one
    assert cache.get(key) == b"two" and len(list((tmp_path / "cache" / "thing").iterdir())) == 1


def test_keys_differ_with_facts_and_a_switched_off_cache_keeps_nothing(tmp_path, monkeypatch):
    before = cache_key({"a": 1})
    assert before == cache_key({"a": 1}) != cache_key({"a": 2})
    from corpus.engine import versions

    monkeypatch.setattr(versions, "_output_packages", lambda: {"numpy": "0.0"})  # another library version
    assert cache_key({"a": 1}) != before
    off = Cache(None, "thing")
    off.put("k", b"x")
    assert off.get("k") is None and off.get_or_build("k", lambda: b"y") == (b"y", False)
    cfg = load_config(write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"],
                                   artifacts=tmp_path / "a", run={"cache": False}))
    assert cache_root(cfg) is None
    on = Config(path=cfg.path, data={**cfg.data, "run": {**cfg.data["run"], "cache": True}}, artifacts=cfg.artifacts)
    assert cache_root(on) == cfg.artifacts


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_gc_lists_the_cache_only_when_asked(tmp_path):
    art = tmp_path / "a"
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art)
    Cache(art, "ppl-model", ".npz").put(cache_key({"m": 1}), b"model bytes")
    assert "nothing to collect" in run_corpus("--config", cfg, "gc", check=True).stdout
    out = run_corpus("--config", cfg, "gc", "--cache", check=True).stdout
    assert f"would remove  {art / 'cache' / 'ppl-model'}" in out and "cached results of earlier runs" in out
    run_corpus("--config", cfg, "gc", "--cache", "--delete", check=True)
    assert not (art / "cache" / "ppl-model").exists()


def test_a_part_memo_of_digests_alone_finds_them_again(tmp_path):
    """A filter with no signals keeps only digests: each is found again, with an empty row."""
    import pyarrow as pa

    from corpus.engine.cache import PartMemo

    cols = {"digest": pa.binary(16)}
    memo = PartMemo(tmp_path, "filter-memo/x", {"part": "p"}, cols)
    for i in range(3):
        memo.put(bytes([i]) * 16, ())
    memo.save()
    again = PartMemo(tmp_path, "filter-memo/x", {"part": "p"}, cols)
    assert [again.get(bytes([i]) * 16) for i in range(4)] == [(), (), (), None]
