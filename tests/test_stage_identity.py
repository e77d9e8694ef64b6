"""Per-stage identity: a stage's config_sha256 hashes only the config keys it and the stages before it
read (the stage table's `config`), so an edit reruns the stage that reads the key and those after it."""

from __future__ import annotations

import copy

import pytest

from corpus.config import UNHASHED_KEYS, UNHASHED_TABLES, Config, load_config
from corpus.stages import NAMES, STAGES, config_hash, config_keys

@pytest.fixture(scope="module")
def demo() -> Config:
    return load_config("configs/demo.toml")


def _leaves(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _leaves(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}"


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value + ["x"]
    return {"x": 1}


def _edit(config: Config, dotted: str) -> Config:
    data = copy.deepcopy(config.data)
    *tables, key = dotted.split(".")
    d = data
    for t in tables:
        d = d[t]
    d[key] = _changed(d[key])
    return Config(path=config.path, data=data, artifacts=config.artifacts)


def _first_reader(dotted: str) -> str:
    """The first stage whose declared keys cover this config key."""
    for s in STAGES:
        if any(dotted == k or dotted.startswith(k + ".") for k in s.config):
            return s.name
    raise AssertionError(f"no stage declares config key {dotted}")


def test_every_hashed_config_key_is_read_by_a_stage(demo):
    for table in demo.data:
        if table in UNHASHED_TABLES:
            assert not any(k.split(".")[0] == table for n in NAMES for k in config_keys(n)), table
            continue
        for leaf in _leaves({table: demo.data[table]}):
            _first_reader(leaf)


def test_each_config_key_invalidates_its_stage_and_those_after_only(demo):
    before = {n: config_hash(demo, n) for n in NAMES}
    for table in demo.data:
        for leaf in _leaves({table: demo.data[table]}):
            after = {n: config_hash(_edit(demo, leaf), n) for n in NAMES}
            if table in UNHASHED_TABLES or leaf in UNHASHED_KEYS:
                assert after == before, leaf
                continue
            changed = [n for n in NAMES if after[n] != before[n]]
            if _first_reader(leaf) == "fetch":  # raw outputs carry no config hash (fetch_identity's params)
                assert changed == [], (leaf, changed)
                continue
            first = NAMES.index(_first_reader(leaf))
            assert changed == list(NAMES[first:]), (leaf, changed)


def test_a_warning_threshold_changes_no_hash(demo):
    """[tokenize] min_train_bytes only decides a warning: no stage's hash, nor the config's, moves with it
    (so adding it left every published output current)."""
    edited = _edit(demo, "tokenize.min_train_bytes")
    assert [n for n in NAMES if config_hash(edited, n) != config_hash(demo, n)] == []
    assert edited.sha256 == demo.sha256


def test_a_filter_threshold_leaves_fetch_and_normalize_current(demo):
    edited = _edit(demo, "filters.gopher.min_words")
    assert config_hash(edited, "normalize") == config_hash(demo, "normalize")
    assert config_hash(edited, "filter") != config_hash(demo, "filter")
    assert config_hash(edited, "tokenize") != config_hash(demo, "tokenize")
    tokenizer_only = _edit(demo, "tokenize.seed")
    assert [n for n in NAMES if config_hash(tokenizer_only, n) != config_hash(demo, n)] == ["tokenize"]


@pytest.mark.slow
def test_a_published_version_is_never_replaced_without_force(tmp_path):
    """`corpus run` with a config that would change a published dataset version is refused naming what
    changed, nothing rewritten; `run --replace` (alias --force) rebuilds it; a new [dataset] version is built
    beside it."""
    from conftest import LEDGER, error_line, run_corpus, write_config

    art = tmp_path / "art"
    tables = {"decontam": {"evals": []}, "filters.ppl": {"enabled": False}}
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art, **tables)
    run_corpus("--config", cfg, "run", "-j", "1", "--through", "shard", check=True)
    before = {p: p.read_bytes() for p in (art / "corpus" / "t").rglob("*") if p.is_file()}
    edited = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art,
                          **tables, **{"filters.gopher": {"min_words": 60}})
    line = error_line(run_corpus("--config", edited, "run", "-j", "1", "--through", "shard"))
    assert line == (f"error: {art}/corpus/t/v1: t/v1 is published with other settings (filters.gopher.min_words 50 -> "
                    f"60); a published version is never replaced: bump [dataset] version in {edited}, or pass --replace "
                    f"(corpus run --replace) to rebuild it"), line
    assert {p: p.read_bytes() for p in (art / "corpus" / "t").rglob("*") if p.is_file()} == before
    proc = run_corpus("--config", edited, "run", "-j", "1", "--through", "shard", "--force", check=True)
    assert "filter     recomputed" in proc.stdout and "normalize  current" in proc.stdout
    bumped = tmp_path / "v2.toml"
    bumped.write_text(edited.read_text().replace('version = "v1"', 'version = "v2"'))
    run_corpus("--config", bumped, "run", "-j", "1", "--through", "shard", check=True)
    assert (art / "corpus" / "t" / "v2" / "_MANIFEST.json").is_file() and (art / "corpus" / "t" / "v1" / "_MANIFEST.json").is_file()


@pytest.mark.slow
def test_a_new_version_reuses_the_units_whose_input_and_settings_did_not_change(tmp_path):
    """v2 edits a filter threshold: every normalize unit is reused from v1, filter's are recomputed; v3
    adds a source: only its normalize and filter units are computed. Every output byte is the same as a
    from-scratch run's, and _RUN.json says how many units were reused."""
    import json

    from conftest import LEDGER, run_corpus, write_config

    base = {"decontam": {"evals": []}, "filters.ppl": {"enabled": False}, "fetch": {"part_docs": 200}}
    art, fresh = tmp_path / "art", tmp_path / "fresh"

    def cfg(version, sources, artifacts, **extra):
        path = write_config(tmp_path / f"{version}-{artifacts.name}.toml", ledger=LEDGER, sources=sources,
                            artifacts=artifacts, **base, **extra)
        path.write_text(path.read_text().replace('version = "v1"', f'version = "{version}"'))
        return path

    def stage_files(root, version):
        d = root / "corpus" / "t" / version / "stages"
        return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
                if p.is_file() and p.name != "_RUN.json"}

    def reused(root, version, stage):
        run = json.loads((root / "corpus" / "t" / version / "stages" / stage / "_RUN.json").read_text())
        units = sum(run.get("units_run", {}).values())
        return run.get("reused_units", {}), units

    one = ["tinystories-train-head"]
    run_corpus("--config", cfg("v1", one, art), "run", "-j", "1", "--through", "pii", check=True)
    edit = {"filters.gopher": {"min_words": 60}}
    run_corpus("--config", cfg("v2", one, art, **edit), "run", "-j", "1", "--through", "pii", check=True)
    got, units = reused(art, "v2", "02-normalize")
    assert got == {"normalize": units} and units > 1
    assert reused(art, "v2", "03-filter")[0] == {}
    pii = json.loads((art / "corpus" / "t" / "v2" / "stages" / "05-pii" / "_RUN.json").read_text())["pii_cache"]
    assert pii["computed"] == 0 and pii["hits"] > 0  # v2's documents are a subset of v1's: none scrubbed again
    two = one + ["presidio-pii-sentences"]
    run_corpus("--config", cfg("v3", two, art, **edit), "run", "-j", "1", "--through", "pii", check=True)
    got, units = reused(art, "v3", "02-normalize")
    assert got["normalize"] == units - 1  # the new source's one part is computed
    assert reused(art, "v3", "03-filter")[0]["filter"] == units - 1
    import shutil

    shutil.copytree(art / "corpus" / "raw", fresh / "corpus" / "raw")  # the same fetch (its manifests hold fetch times)
    for version, sources, extra in (("v2", one, edit), ("v3", two, edit)):
        run_corpus("--config", cfg(version, sources, fresh, **extra), "run", "-j", "1", "--through", "pii", check=True)
        assert stage_files(art, version) == stage_files(fresh, version), version
