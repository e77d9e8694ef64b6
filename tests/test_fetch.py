"""Stage 01 fetch on real data: counts checked against independent counts from each source's own format."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from corpus.config import load_config
from corpus.formats.jsonl import read_zst_jsonl
from corpus.engine.raw import current_raw
from corpus.stages import run_stage
from conftest import LEDGER, error_line, ledger_rows, mirror_file, run_corpus, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test", "state-union", "inaugural", "inaugural-utf8", "webtext", "udhr",
           "genesis", "genesis-utf8",
           "minhash-articles-1000", "presidio-pii-sentences", "gsm8k-train"]
EVALS = ["gsm8k-test", "lambada", "piqa", "arc-easy", "boolq", "hellaswag"]


@pytest.fixture(scope="module")
def fetched(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("fetch")
    cfg_path = write_config(root / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / "art",
                            fetch={"part_docs": 1000}, decontam={"evals": EVALS})
    config = load_config(cfg_path)
    results = run_stage("fetch", config, workers=2).outputs
    return config, {o.key: o for o in results}


def raw_docs(config, source_id) -> list[dict]:
    d, _ = current_raw(config, ledger_rows()[source_id])
    return [r for p in sorted(d.glob("part-*.jsonl.zst")) for r in read_zst_jsonl(p)]


# ---- independent counts, written from each source's published format, not from fetch's code

def count_tinystories(path: Path) -> int:
    """A story starts at a non-empty line whose previous line is non-empty (or at the top)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return sum(1 for i, line in enumerate(lines) if line.strip() and (i == 0 or lines[i - 1] != ""))


def count_zip_files(path: Path, prefix: str, encoding: str, names=lambda n: True) -> int:
    with zipfile.ZipFile(path) as z:
        return sum(1 for n in z.namelist() if n.startswith(prefix) and n.endswith(".txt") and names(n)
                   and z.read(n).decode(encoding).strip())


def count_zip_lines(path: Path, prefix: str, encoding: str) -> int:
    with zipfile.ZipFile(path) as z:
        return sum(1 for n in z.namelist() if n.startswith(prefix) and n.endswith(".txt")
                   for line in io.StringIO(z.read(n).decode(encoding)) if line.strip())


def wikitext_titles(path: Path) -> list[str]:
    """Title lines ' = Title = ' (not ' = = Section = = '), minus equation fragments ending in a one-letter word."""
    titles = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        s = line.strip()
        if s.startswith("= ") and s.endswith(" =") and not s.startswith("= ="):
            last = s[2:-2].split()[-1]
            if not (len(last) == 1 and last.isalpha()):
                titles.append(line.rstrip("\r"))
    return titles


def count_jsonl(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_counts_match_independent_counts(fetched):
    config, results = fetched
    expected = {
        "tinystories-train-head": count_tinystories(mirror_file("tinystories-train-head")),
        "wikitext2-test": len(wikitext_titles(mirror_file("wikitext2-test"))),
        "state-union": count_zip_files(mirror_file("state-union"), "state_union/", "latin-1"),
        "inaugural": count_zip_files(mirror_file("inaugural"), "inaugural/", "latin-1",
                                     lambda n: n[10:14] < "2010"),
        "inaugural-utf8": count_zip_files(mirror_file("inaugural"), "inaugural/", "utf-8",
                                          lambda n: n[10:14] >= "2010"),
        "webtext": count_zip_lines(mirror_file("webtext"), "webtext/", "latin-1"),
        "udhr": count_zip_files(mirror_file("udhr"), "udhr2/", "utf-8"),
        "genesis": count_zip_files(mirror_file("genesis"), "genesis/", "latin-1",
                                   lambda n: n not in ("genesis/lolcat.txt", "genesis/portuguese.txt")),
        "genesis-utf8": count_zip_files(mirror_file("genesis"), "genesis/", "utf-8",
                                        lambda n: n in ("genesis/lolcat.txt", "genesis/portuguese.txt")),
        "minhash-articles-1000": count_jsonl(mirror_file("minhash-articles-1000")),
        "presidio-pii-sentences": len(json.loads(mirror_file("presidio-pii-sentences").read_text())),
        **{s: count_jsonl(mirror_file(s)) for s in ["gsm8k-train"] + EVALS},
    }
    assert expected["tinystories-train-head"] == 1097 and expected["wikitext2-test"] == 60  # WikiText-2 test
    got = {s: len(raw_docs(config, s)) for s in expected}
    assert got == expected
    assert {s: o.manifest["counts"]["docs_out"] for s, o in results.items()} == expected


def test_raw_records_and_locators(fetched):
    config, _ = fetched
    row = ledger_rows()["tinystories-train-head"]
    docs = raw_docs(config, "tinystories-train-head")
    assert set(docs[0]) == {"url", "fetched_at", "license_spdx", "text"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", docs[0]["fetched_at"])
    assert docs[0]["license_spdx"] == "CDLA-Sharing-1.0"
    lines = mirror_file("tinystories-train-head").read_text(encoding="utf-8").split("\n")
    for d in docs[:50]:  # the locator's line is where the story text starts in the file
        url, line = d["url"].rsplit("#", 1)
        assert url == row["url"]
        assert d["text"].split("\n")[0] == lines[int(line) - 1]
    assert docs[1]["text"].startswith("Once upon a time, there was a little car named Beep.")
    sotu = raw_docs(config, "state-union")
    assert sotu[0]["url"].endswith("state_union.zip#state_union/1945-Truman.txt:1")
    wiki = raw_docs(config, "wikitext2-test")
    assert [w["text"].split("\r\n")[0] for w in wiki] == wikitext_titles(mirror_file("wikitext2-test"))
    assert wiki[1]["text"].startswith(" = Du Fu = \r\n Du Fu ( Wade")
    assert all(d["url"].rsplit("#", 1)[1].startswith("row") for d in raw_docs(config, "presidio-pii-sentences"))
    piqa = raw_docs(config, "piqa")[0]["text"]
    assert piqa.startswith("Question: How do I ready a guinea pig cage") and piqa.count("\n") >= 2


def test_parts_cut_at_part_docs(fetched):
    config, _ = fetched
    d, _ = current_raw(config, ledger_rows()["gsm8k-train"])
    manifest = json.loads((d / "_STAGE.json").read_text())
    assert [p["rows"] for p in manifest["parts"]] == [1000] * 7 + [473]
    assert manifest["counts"] == {"docs_in": 7473, "docs_out": 7473, "skipped_empty": 0}


def test_second_fetch_reads_and_rewrites_nothing(fetched):
    config, _ = fetched
    raw = config.raw_dir
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in raw.rglob("*") if p.is_file()}
    results = run_stage("fetch", config, workers=2).outputs
    assert {o.status for o in results} == {"current"}
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in raw.rglob("*") if p.is_file()}
    assert after == before
    assert not list(config.downloads_dir.glob("*")) if config.downloads_dir.exists() else True


def test_workers_do_not_change_documents(fetched, tmp_path):
    config, _ = fetched
    cfg1 = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["webtext", "udhr", "wikitext2-test"],
                        artifacts=tmp_path / "a1", fetch={"part_docs": 1000})
    one = load_config(cfg1)
    run_stage("fetch", one, workers=1)
    for s in ["webtext", "udhr", "wikitext2-test"]:
        strip = lambda docs: [(d["url"], d["text"]) for d in docs]  # noqa: E731 (fetched_at differs by design)
        assert strip(raw_docs(one, s)) == strip(raw_docs(config, s))


@pytest.mark.slow  # two `corpus fetch` runs
def test_cli_fetch_twice_reports_current(tmp_path, mirror):
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["inaugural"], artifacts=tmp_path / "a")
    first = run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": str(mirror)}, check=True)
    assert "fetched 1 of 1 sources: 56 docs" in first.stdout  # 1789-2009; 2013-2021 are inaugural-utf8
    second = run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": str(mirror)}, check=True)
    assert "inaugural" in second.stdout and "current" in second.stdout
    assert "fetched 0 of 1 sources" in second.stdout
    assert error_line  # imported for the bad-input tests


def test_ledger_encodings_fit_every_archive_member(mirror):
    """A latin-1 row must not read a member that is valid UTF-8 with non-ASCII text (that is mojibake:
    'princÃ\xadpio'); a UTF-8 row must decode every member it reads."""
    import fnmatch

    for row in ledger_rows().values():
        if not row["url"].endswith(".zip"):
            continue
        globs = row.get("members", "*")
        globs = [globs] if isinstance(globs, str) else globs
        with zipfile.ZipFile(mirror_file(row["source_id"])) as z:
            for name in z.namelist():
                if name.endswith("/") or not any(fnmatch.fnmatchcase(name, g) for g in globs):
                    continue
                data = z.read(name)
                if row.get("encoding", "utf-8") == "utf-8":
                    data.decode("utf-8")
                elif not data.isascii():
                    with pytest.raises(UnicodeDecodeError):
                        data.decode("utf-8")
