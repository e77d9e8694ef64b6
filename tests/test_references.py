"""What the dataset versions on a root read (engine.references) and what `corpus gc` may collect, on
hand-made roots: recorded inputs, a manifest made before filter and dedup recorded their raw outputs, a
version another one reads, token directories of a version that is gone, staging directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.commands.gc import garbage, version_garbage
from corpus.config import load_config
from corpus.engine.references import versions
from corpus.errors import CorpusError
from conftest import write_config, write_ledger


def stage(root: Path, rel: str, name: str, inputs=(), params=None) -> Path:
    d = root / rel
    d.mkdir(parents=True, exist_ok=True)
    (d / "_STAGE.json").write_text(json.dumps({"stage": name, "params": params or {},
                                               "inputs": [{"path": p, "sha256": "0" * 64} for p in inputs]}))
    return d


def raw(root: Path, sid: str, key: str) -> str:
    stage(root, f"corpus/raw/{sid}/{key}", "fetch")
    return f"corpus/raw/{sid}/{key}/_STAGE.json"


@pytest.fixture
def config(tmp_path):
    ledger = write_ledger(tmp_path / "L.jsonl", [])
    return load_config(write_config(tmp_path / "c.toml", ledger=ledger, sources=["x"], artifacts=tmp_path / "a"))


def listed(config) -> set[str]:
    return {str(g.path.relative_to(config.artifacts)) for g in garbage(config)}


def test_gc_lists_only_raw_outputs_no_version_records(config):
    root = config.artifacts
    read = raw(root, "news", "aaaaaaaaaaaa-111111111111")
    raw(root, "news", "aaaaaaaaaaaa-222222222222")  # another [fetch] setting nobody built on
    stage(root, "corpus/ds/v1/stages/02-normalize", "normalize", [read])
    (v,) = versions(root)
    assert v.name == "ds/v1" and read in v.inputs
    assert listed(config) == {"corpus/raw/news/aaaaaaaaaaaa-222222222222"}


def test_a_manifest_that_records_no_raw_output_keeps_every_raw_output_its_params_name(config):
    root = config.artifacts
    raw(root, "gsm8k-test", "bbbbbbbbbbbb-111111111111")
    raw(root, "gsm8k-test", "bbbbbbbbbbbb-222222222222")
    raw(root, "unrelated", "cccccccccccc-111111111111")
    stage(root, "corpus/ds/v1/stages/04-dedup", "dedup", params={"decontam": {"evals": ["gsm8k-test"]}})
    assert listed(config) == {"corpus/raw/unrelated/cccccccccccc-111111111111"}


def test_gc_version_refuses_while_another_version_reads_it_and_names_what_only_it_reads(config):
    root = config.artifacts
    mine, shared = raw(root, "a", "dddddddddddd-1"), raw(root, "b", "eeeeeeeeeeee-1")
    stage(root, "corpus/ds/v1/stages/02-normalize", "normalize", [mine, shared])
    index = stage(root, "corpus/ds/v1/stages/04-dedup", "dedup", [raw(root, "ev", "ffffffffffff-1")])
    stage(root, "corpus/ds/v2/stages/02-normalize", "normalize", [shared])
    stage(root, "corpus/ds/v2/stages/04-dedup", "dedup", [f"{index.relative_to(root)}/_STAGE.json"])
    with pytest.raises(CorpusError, match="dataset version ds/v2 reads it"):
        version_garbage(config, "ds/v1")
    (root / "corpus/ds/v2/stages/04-dedup/_STAGE.json").unlink()  # v2 no longer reads v1's index
    names = {str(g.path.relative_to(root)) for g in version_garbage(config, "ds/v1")}
    assert names == {"corpus/ds/v1", "corpus/raw/a/dddddddddddd-1", "corpus/raw/ev/ffffffffffff-1"}
    for bad in ("ds", "raw/x", "ds/../x", "ds/v9"):
        with pytest.raises(CorpusError):
            version_garbage(config, bad)


def test_gc_lists_tokens_of_a_version_that_is_gone_and_every_staging_dir(config):
    root = config.artifacts
    (root / "tokens/old/v1/bpe-1").mkdir(parents=True)
    (root / "corpus/ds/v1/stages/03-filter.incomplete").mkdir(parents=True)
    (root / "corpus/raw/news/x.incomplete").mkdir(parents=True)
    assert listed(config) == {"tokens/old/v1/bpe-1", "corpus/ds/v1/stages/03-filter.incomplete",
                              "corpus/raw/news/x.incomplete"}


def test_a_rebuilt_raw_output_must_be_the_bytes_every_version_recorded(config):
    from corpus.stages.fetch import keep_what_versions_read
    from corpus.store.atomic import dump_json, sha256_bytes

    root = config.artifacts
    manifest = {"stage": "fetch", "fetched_at": "2026-12-01T00:00:00Z", "parts": []}
    d = root / "corpus/raw/news/aaaaaaaaaaaa-111111111111"
    stage(root, "corpus/ds/v1/stages/02-normalize", "normalize")
    (root / "corpus/ds/v1/stages/02-normalize/_STAGE.json").write_text(json.dumps({
        "stage": "normalize", "params": {},
        "inputs": [{"path": f"{d.relative_to(root)}/_STAGE.json", "sha256": sha256_bytes(dump_json(manifest))}]}))
    guard = keep_what_versions_read(config, d)
    guard(manifest)  # the same bytes: published
    with pytest.raises(CorpusError, match=r"other bytes than dataset version ds/v1 read"):
        guard({**manifest, "fetched_at": "2026-12-06T00:00:00Z"})
    keep_what_versions_read(config, root / "corpus/raw/news/other")(manifest)  # nobody read that one


def test_gc_delete_over_a_symlinked_staging_dir_and_a_broken_token_manifest(config, tmp_path):
    from corpus.commands.gc import collect

    root = config.artifacts
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (root / "corpus/ds/v1/stages").mkdir(parents=True)
    (root / "corpus/ds/v1/stages/03-filter.incomplete").symlink_to(elsewhere)
    (root / "corpus/ds/v1/_MANIFEST.json").write_text("{}")
    broken = root / "tokens/ds/v1/bpe-1"
    broken.mkdir(parents=True)
    (broken / "_MANIFEST.json").write_text("{not json")
    found = {str(g.path.relative_to(root)) for g in collect(config, delete=True)}
    assert found == {"corpus/ds/v1/stages/03-filter.incomplete"}  # the broken manifest: audit's to name
    assert (elsewhere / "keep").is_dir() and broken.is_dir()
