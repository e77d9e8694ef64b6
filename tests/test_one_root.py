"""Many datasets and versions on one artifacts root (issue: a published version nothing else can change).

Four configs share one root, as a user's do: a text dataset; the same sources read with other [fetch]
part sizes (another dataset); a web dataset; its v2 with another [extract] engine. After every build each
published version passes its audit, and the first one's shards and token files are byte-identical to what
they were. Then `gc` never lists a raw output a version's manifests name, and `gc --version` of one
version leaves the others auditable (examples/one_root.py does the same with the shipped configs).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from corpus.commands.audit import audit
from corpus.commands.gc import collect
from corpus.commands.pipeline import run_all
from corpus.config import dump_toml, load_config
from corpus.errors import CorpusError
from conftest import REPO, error_line, run_corpus

pytestmark = pytest.mark.slow  # four small builds

TEXT = {"dataset": {"name": "text", "version": "v1", "sources": ["minhash-articles-100", "lingua-en"]},
        "filters": {"lang": {"keep": ["en"]}, "ppl": {"enabled": False}},
        "decontam": {"evals": ["gsm8k-test"]}, "shard": {"shard_rows": 200},
        "tokenize": {"vocab_size": 512}, "run": {"executor": "local", "workers": 2}}


def write(path: Path, root: Path, data: dict) -> Path:
    data = json.loads(json.dumps(data))
    data["paths"] = {"ledger": str(REPO / "corpus/LEDGER.jsonl"), "artifacts": str(root)}
    path.write_text(dump_toml(data))
    return path


def edited(data: dict, **tables) -> dict:
    out = json.loads(json.dumps(data))
    for table, keys in tables.items():
        out.setdefault(table, {}).update(keys)
    return out


def files(root: Path, name: str) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for top in ("corpus", "tokens") for p in sorted((root / top / name).rglob("*"))
            if p.is_file() and p.name != "_RUN.json"}


def raw_named_by_manifests(root: Path) -> set[str]:
    """corpus/raw/<source>/<dir> of every input any version's manifest records (read as plain JSON)."""
    out = set()
    for top in ("corpus", "tokens"):
        for m in (root / top).rglob("_STAGE.json"):
            if m.relative_to(root).parts[:2] != ("corpus", "raw"):
                out |= {str(Path(*Path(i["path"]).parts[:4])) for i in json.loads(m.read_text())["inputs"]
                        if i["path"].startswith("corpus/raw/")}
    return out


def test_many_datasets_and_versions_on_one_root(tmp_path, mirror):
    root = tmp_path / "artifacts"
    web = tomllib.loads((REPO / "configs/web.toml").read_text())
    configs = {
        "text/v1": write(tmp_path / "text.toml", root, TEXT),
        "web/v1": write(tmp_path / "web.toml", root, web),
        "text-parts/v1": write(tmp_path / "parts.toml", root, edited(
            TEXT, dataset={"name": "text-parts"}, fetch={"part_docs": 37, "part_bytes": 40_000})),
        "web/v2": write(tmp_path / "web2.toml", root, edited(web, dataset={"version": "v2"},
                                                              extract={"engine": "resiliparse"})),
    }
    built, first = [], None

    def audits_pass(step: str) -> None:
        for name in built:
            failed = [c for c in audit(load_config(configs[name])) if not c.ok]
            assert not failed, f"after {step}: audit of {name}: {failed[0].path}: {failed[0].detail}"
        if first is not None:
            assert files(root, "text/v1") == first, f"after {step}: text/v1's shards or tokens changed"

    for name in [*configs, "text/v1", "web/v1"]:  # the last two: built before, every stage current
        rows = run_all(load_config(configs[name]), workers=1)
        if name in built:
            assert {status for _, status, _, _ in rows} == {"current"}, (name, rows)
        else:
            built.append(name)
        first = first or files(root, "text/v1")
        audits_pass(f"run {name}")
    assert {p.name for p in (root / "corpus/raw/minhash-articles-100").iterdir()} and \
        len(list((root / "corpus/raw/minhash-articles-100").iterdir())) == 2  # two part sizes, side by side
    assert len(list((root / "corpus/raw/cc-whirlwind-warc").iterdir())) == 2  # two engines, side by side

    # corpus diff: the same documents read with other part sizes; a threshold edit's removals with their rule
    from corpus.commands.diff import diff

    same = diff(load_config(configs["text/v1"]), "text/v1", "text-parts/v1")
    assert same["documents"]["added"] == same["documents"]["removed"] == 0 and same["documents"]["a"] > 50
    assert {c["key"] for c in same["config"]} >= {"dataset.name", "raw output of minhash-articles-100"}
    assert same["tokens"]["a"]["by_source"] == same["tokens"]["b"]["by_source"]
    v2 = write(tmp_path / "text2.toml", root, edited(TEXT, dataset={"version": "v2"},
                                                      filters={**TEXT["filters"], "gopher": {"min_words": 245}}))
    run_all(load_config(v2), workers=1)
    d = diff(load_config(v2), "text/v1", "text/v2")
    assert [c["key"] for c in d["config"]] == ["dataset.version", "filters.gopher.min_words"]
    assert d["documents"]["removed"] > 0 and d["documents"]["added"] == 0
    by = Counter()
    for s in d["sources"].values():
        by.update(s["removed_by"])
    assert sum(by.values()) == d["documents"]["removed"] and set(by) <= {"gopher.min_words", "dedup.near",
                                                                          "dedup.exact"}, by

    # a damaged raw part: run names the way out (--replace), which rebuilds the very bytes the versions read
    normalize = json.loads((root / "corpus/text/v1/stages/02-normalize/_STAGE.json").read_text())
    read = next(i["path"] for i in normalize["inputs"] if i["path"].startswith("corpus/raw/lingua-en/"))
    part = root / Path(read).parent / "part-00000.jsonl.zst"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 1
    part.write_bytes(bytes(data))
    with pytest.raises(CorpusError, match="use --replace to rebuild it"):
        run_all(load_config(configs["text/v1"]), workers=1)
    rows = run_all(load_config(configs["text/v1"]), workers=1, replace=True)
    assert [status for _, status, _, _ in rows] == ["recomputed"] + ["current"] * 6, rows
    audits_pass("run --replace of a damaged raw part")
    (part.parent / "_STAGE.json").unlink()  # its manifest lost: fetch rebuilds it with the documents' fetched_at
    run_all(load_config(configs["text/v1"]), workers=1, replace=True)
    audits_pass("run --replace after a raw manifest was deleted")

    # an unreferenced raw output (what a config no version was built from fetched) is listed; none read is
    stray = root / "corpus/raw/lingua-en/000000000000-000000000000"
    stray.mkdir()
    (stray / "_STAGE.json").write_text("{}")
    listed = {str(g.path.relative_to(root)) for g in collect(load_config(configs["text/v1"]), delete=False)}
    assert str(stray.relative_to(root)) in listed
    assert not listed & raw_named_by_manifests(root)
    collect(load_config(configs["text/v1"]), delete=True)
    assert not stray.exists()
    audits_pass("gc --delete")

    # gc --version: refused while a writer holds the lock; then web/v1 goes, and only what it alone read
    hold = subprocess.Popen([sys.executable, "-c", "import sys, time; from corpus.store.lock import acquire; "
                             "acquire(sys.argv[1], 'test holder'); print('held', flush=True); time.sleep(60)",
                             str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert hold.stdout.readline().strip() == "held"
        line = error_line(run_corpus("--config", configs["web/v1"], "gc", "--version", "web/v1", "--delete"))
        assert "held by pid" in line, line
    finally:
        hold.kill()
        hold.wait()
    before = raw_named_by_manifests(root)
    dry = run_corpus("--config", configs["web/v1"], "gc", "--version", "web/v1", check=True).stdout
    assert "would remove" in dry and (root / "corpus/web/v1").is_dir()
    run_corpus("--config", configs["web/v1"], "gc", "--version", "web/v1", "--delete", check=True)
    built.remove("web/v1")
    assert not (root / "corpus/web/v1").exists() and not (root / "tokens/web/v1").exists()
    assert raw_named_by_manifests(root) <= before
    assert all((root / d).is_dir() for d in raw_named_by_manifests(root))  # what the others read is all there
    assert len(list((root / "corpus/raw/cc-whirlwind-warc").iterdir())) == 1  # web/v1's engine's output went
    audits_pass("gc --version web/v1 --delete")
    with pytest.raises(CorpusError, match="no dataset version web/v1"):
        collect(load_config(configs["web/v2"]), delete=False, version="web/v1")
