"""The packaged JSON Schemas are valid Draft 2020-12 schemas (corpus.config.schemas checks them only when
CORPUS_SCHEMAS points elsewhere), and a broken schema from elsewhere is refused."""

from __future__ import annotations

import json
import re
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


# ---------------------------------------------------------------- the fast validator and the reference
# validate() takes jsonschema-rs's "valid" as final; a document it finds valid that python-jsonschema (the
# reference, which describes every failure) does not would be accepted wrongly. The test suite runs with
# CORPUS_SCHEMA_CROSSCHECK=1 (conftest), which checks every document it validates both ways; this test
# checks the ones no run writes: each real document changed at every place.

REGEX_CLASSES = re.compile(r"\\[dDsSwWbB]")  # classes whose members differ between Python's re and ECMA 262


def _patterns(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            yield from _patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v)


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_patterns_keep_to_classes_both_regex_dialects_read_alike(path):
    assert [p for p in _patterns(json.loads(path.read_text())) if REGEX_CLASSES.search(p)] == []


def _variants(doc, limit=400):
    """`doc` changed at one place each: every key dropped, every value replaced by a value of each other
    kind, an unknown key added to every object (at most `limit`, in document order)."""
    others = (None, True, -1, 2.5, "", "x\n", "é" * 70, [], ["x"], {}, {"x": 1}, 10**30)
    out = []

    def walk(node, rebuild):
        if len(out) >= limit:
            return
        if isinstance(node, dict):
            out.append(rebuild({**node, "no_such_key": 1}))
            for k in node:
                out.append(rebuild({j: v for j, v in node.items() if j != k}))
                walk(node[k], lambda v, k=k: rebuild({**node, k: v}))
        elif isinstance(node, list):
            out.append(rebuild(node + node[:1]))
            for i, v in enumerate(node[:3]):
                walk(v, lambda x, i=i: rebuild(node[:i] + [x] + node[i + 1:]))
        for other in others:
            if type(other) is not type(node):
                out.append(rebuild(other))

    walk(doc, lambda v: v)
    return out[:limit]


def _real_documents():
    """(schema, document): the repository's configs and ledger rows, and a token manifest (the manifests
    the runs write are checked both ways as the tests' runs validate them)."""
    import tomllib

    from conftest import LEDGER, REPO
    from test_token_formats import example_manifest

    docs = [("corpus-config.schema.json", tomllib.loads(p.read_text()))
            for p in sorted((REPO / "configs").glob("*.toml")) + [REPO / "tests" / "golden" / "golden.toml"]]
    rows = [json.loads(x) for x in LEDGER.read_text().splitlines() if x.strip()]
    docs += [("ledger-row.schema.json", r) for r in rows[:: max(1, len(rows) // 12)]]
    return docs + [("tokens-manifest.schema.json", example_manifest())]


@pytest.mark.parametrize("schema,doc", _real_documents(), ids=lambda x: x if isinstance(x, str) else "")
def test_jsonschema_rs_finds_valid_only_what_the_reference_does(schema, doc):
    from corpus.config.schemas import _fast_validator, _validator

    fast, reference = _fast_validator(schema), _validator(schema)
    assert fast.is_valid(doc) and reference.is_valid(doc)
    wrong = [v for v in _variants(doc) if fast.is_valid(v) and not reference.is_valid(v)]
    assert wrong == []
