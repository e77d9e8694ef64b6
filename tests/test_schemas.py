"""The packaged JSON Schemas are valid Draft 2020-12 schemas (corpus.config.schemas checks them only when
CORPUS_SCHEMAS points elsewhere), and a broken schema from elsewhere is refused."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from corpus.config.schemas import PACKAGED

SCHEMAS = sorted(PACKAGED.glob("*.schema.json"))


def test_there_are_schemas():
    assert {p.name for p in SCHEMAS} >= {"corpus-config.schema.json", "stage-manifest.schema.json"}


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_packaged_schema_is_valid(path):
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_a_schema_from_elsewhere_is_checked(tmp_path):
    (tmp_path / "ledger-row.schema.json").write_text(json.dumps({"type": "no-such-type"}))
    code = "from corpus.config.schemas import load_schema; load_schema('ledger-row.schema.json')"
    proc = subprocess.run([sys.executable, "-c", code], env={"CORPUS_SCHEMAS": str(tmp_path), "PATH": ""},
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "SchemaError" in proc.stderr


def test_an_unknown_config_key_names_its_line_and_the_key_meant(tmp_path):
    from corpus.config import load_config
    from corpus.errors import CorpusError

    cfg = tmp_path / "c.toml"
    cfg.write_text('[paths]\nledger = "x.jsonl"\n\n[dataset]\nsources = ["a"]\n\n[filters.gopher]\nmin_word = 3\n')
    with pytest.raises(CorpusError) as e:
        load_config(cfg)
    assert str(e.value).startswith(f"{cfg}:8: unknown key 'filters.gopher.min_word'; did you mean 'min_words'?")
    cfg.write_text('[paths]\nledger = "x.jsonl"\n[dataset]\nsources = ["a"]\n[filterz]\nx = 1\n')
    with pytest.raises(CorpusError, match=r"c.toml:5: unknown key 'filterz'; did you mean 'filters'\?"):
        load_config(cfg)
