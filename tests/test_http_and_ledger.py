"""HTTP(S) downloads (a loopback server), the download cache, `ledger add` and `ledger verify`, config rules."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import time
from pathlib import Path

import pytest

from corpus.config import config_sha256, load_config
from conftest import error_line, mirror_file, run_corpus, write_config, write_ledger


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []
    delay_s = 0.0

    def do_GET(self):
        type(self).requests.append(self.path)
        if self.delay_s:
            time.sleep(self.delay_s)
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = type("H", (_Handler,), {"requests": [], "delay_s": 0.0})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()


@pytest.mark.slow  # `ledger add`, then two fetches
def test_ledger_add_then_fetch_downloads_once(tmp_path, server, mirror, monkeypatch):
    monkeypatch.delenv("CORPUS_MIRROR")
    root, base, handler = server
    data = mirror_file("inaugural").read_bytes()
    (root / "inaugural.zip").write_bytes(data)
    ledger = tmp_path / "LEDGER.jsonl"
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["inaug"], artifacts=tmp_path / "art")
    env = {"CORPUS_MIRROR": ""}
    out = run_corpus("--config", cfg, "ledger", "add", f"{base}/inaugural.zip", "--source-id", "inaug",
                     "--license", "LicenseRef-public-domain", "--split", "file", "--members", "inaugural/*.txt",
                     "--encoding", "latin-1", env=env, check=True)
    assert "59 documents" in out.stdout
    row = json.loads(ledger.read_text())
    assert row["sha256"] == hashlib.sha256(data).hexdigest() and row["bytes"] == len(data)
    assert row["url"] == f"{base}/inaugural.zip" and row["format"] == "text"
    assert handler.requests == ["/inaugural.zip"]
    # fetch finds it in the download cache: no second request
    first = run_corpus("--config", cfg, "fetch", env=env, check=True)
    assert "cache" in first.stdout and handler.requests == ["/inaugural.zip"]
    assert (tmp_path / "art" / "corpus" / "downloads" / row["sha256"]).is_file()
    # without the cache it downloads, verifies, and the rerun after that reads nothing
    (tmp_path / "art" / "corpus" / "downloads" / row["sha256"]).unlink()
    run_corpus("--config", cfg, "fetch", "--force", env=env, check=True)
    assert handler.requests == ["/inaugural.zip"] * 2
    run_corpus("--config", cfg, "fetch", env=env, check=True)
    assert handler.requests == ["/inaugural.zip"] * 2
    verify = run_corpus("--config", cfg, "ledger", "verify", env=env, check=True)
    assert "inaug" in verify.stdout and "OK" in verify.stdout


def test_download_not_matching_the_ledger(tmp_path, server):
    root, base, _ = server
    (root / "a.txt").write_text("Once upon a time there was a fox.\n")
    row = {"source_id": "a", "role": "corpus", "url": f"{base}/a.txt", "sha256": "1" * 64, "bytes": 35,
           "license_spdx": "MIT", "format": "text"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["a"], artifacts=tmp_path / "art")
    line = error_line(run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": ""}))
    assert "downloaded file does not match the ledger" in line and "1" * 64 in line
    assert not (tmp_path / "art" / "corpus" / "downloads" / ("1" * 64)).exists()
    assert not list((tmp_path / "art" / "corpus" / "raw").glob("a/2*[0-9]"))


def test_download_timeout(tmp_path, server):
    root, base, handler = server
    handler.delay_s = 3.0
    (root / "slow.txt").write_text("slow\n")
    row = {"source_id": "slow", "role": "corpus", "url": f"{base}/slow.txt", "sha256": "2" * 64, "bytes": 5,
           "license_spdx": "MIT", "format": "text"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["slow"], artifacts=tmp_path / "art",
                       fetch={"timeout_s": 0.5})
    t0 = time.monotonic()
    line = error_line(run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": ""}))
    assert "download failed" in line and "timed out" in line and f"{base}/slow.txt" in line
    assert time.monotonic() - t0 < 10


@pytest.mark.slow  # several CLI runs
def test_ledger_add_from_mirror_and_refusals(tmp_path, mirror):
    ledger = tmp_path / "L.jsonl"
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["x"], artifacts=tmp_path / "art")
    sha = hashlib.sha256(mirror_file("gsm8k-test").read_bytes()).hexdigest()
    url = "https://example.invalid/gsm8k/test.jsonl"
    args = ("--config", cfg, "ledger", "add", url, "--license", "MIT", "--role", "eval", "--format", "jsonl",
            "--text-field", "question", "--text-field", "answer", "--sha256", sha)
    out = run_corpus(*args, "--source-id", "gsm8k-test", check=True)
    assert "1319 documents" in out.stdout
    assert json.loads(ledger.read_text())["text_fields"] == ["question", "answer"]
    assert "duplicate source_id 'gsm8k-test'" in error_line(run_corpus(*args, "--source-id", "gsm8k-test"))
    assert "source_id" in error_line(run_corpus(*args, "--source-id", "Bad Id"))
    bad_scheme = error_line(run_corpus("--config", cfg, "ledger", "add", "ftp://host/x", "--source-id", "y",
                                       "--license", "MIT"))
    assert "unsupported URL scheme 'ftp'" in bad_scheme
    assert len(ledger.read_text().splitlines()) == 1


def test_ledger_verify_reports_a_bad_file(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("hello world\n")
    row = {"source_id": "a", "role": "corpus", "url": str(f), "sha256": hashlib.sha256(b"hello world\n").hexdigest(),
           "bytes": 12, "license_spdx": "MIT", "format": "text"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["a"], artifacts=tmp_path / "art")
    assert "1 rows, 0 failed" in run_corpus("--config", cfg, "ledger", "verify", check=True).stdout
    f.write_text("hello there\n")
    proc = run_corpus("--config", cfg, "ledger", "verify")
    assert proc.returncode == 1 and "sha256 mismatch" in proc.stdout
    assert "1 row(s) failed verification" in error_line(proc)


# ---- config

def test_artifacts_root_precedence(tmp_path, monkeypatch):
    cfg = write_config(tmp_path / "c.toml", ledger=Path("L.jsonl"), sources=["a"], artifacts=tmp_path / "fromcfg")
    monkeypatch.delenv("CORPUS_ARTIFACTS", raising=False)
    assert load_config(cfg).artifacts == tmp_path / "fromcfg"
    monkeypatch.setenv("CORPUS_ARTIFACTS", str(tmp_path / "fromenv"))
    assert load_config(cfg).artifacts == tmp_path / "fromenv"
    assert load_config(cfg, artifacts=str(tmp_path / "fromarg")).artifacts == tmp_path / "fromarg"
    monkeypatch.delenv("CORPUS_ARTIFACTS")
    (tmp_path / "bare.toml").write_text('[paths]\nledger = "L.jsonl"\n[dataset]\nsources = ["a"]\n')
    bare = load_config(tmp_path / "bare.toml")
    assert bare.artifacts == Path("/artifacts")
    assert bare["fetch"]["part_docs"] == 100000 and bare["dataset"]["name"] == "demo"
    assert bare["normalize"] == {"nfc": True, "newlines": True, "control_chars": True, "strip_trailing": True}


def test_config_sha256_ignores_paths_run_and_explicit_defaults(tmp_path):
    a = write_config(tmp_path / "a.toml", ledger=Path("L.jsonl"), sources=["x", "y"], artifacts=tmp_path / "1")
    b = write_config(tmp_path / "b.toml", ledger=Path("other.jsonl"), sources=["x", "y"], artifacts=tmp_path / "2",
                     fetch={"part_docs": 100000}, run={"workers": 7})
    c = write_config(tmp_path / "c.toml", ledger=Path("L.jsonl"), sources=["y", "x"], artifacts=tmp_path / "1")
    ca, cb, cc = (load_config(p) for p in (a, b, c))
    assert ca.sha256 == cb.sha256 == config_sha256(ca.data)
    assert ca.sha256 != cc.sha256  # source order is part of the dataset
    assert len(ca.sha256) == 64


@pytest.mark.slow  # ~2 s of CLI runs
def test_config_errors_name_file_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[paths]\nledger = "L.jsonl"\n[dataset]\nsources = ["a"]\n[fetch]\npart_docs = 0\n')
    assert f"{bad}: fetch.part_docs: 0 is less than the minimum of 1" in error_line(
        run_corpus("--config", bad, "fetch"))
    bad.write_text('[paths]\nledger = "L.jsonl"\n[dataset]\nsources = ["a"]\n[dedupe]\nx = 1\n')
    assert f"{bad}:5: unknown key 'dedupe'; did you mean 'dedup'?" in error_line(run_corpus("--config", bad, "fetch"))
    bad.write_text('[paths]\nledger = "L.jsonl"\n[dataset\n')
    assert f"{bad}: invalid TOML" in error_line(run_corpus("--config", bad, "fetch"))
    assert "config file not found" in error_line(run_corpus("--config", tmp_path / "none.toml", "fetch"))


@pytest.mark.slow  # 16 CLI processes
def test_every_command_has_help():
    import click

    from corpus.commands.cli import cli

    commands = [(name,) for name in sorted(cli.commands)]  # every command, a new one included
    commands += [(name, sub) for name, group in sorted(cli.commands.items()) if isinstance(group, click.Group)
                 for sub in sorted(group.commands)]
    assert {("diff",), ("gc",), ("why",), ("ledger", "add"), ("quality", "train")} <= set(commands)
    proc = run_corpus("--help")  # as a user runs it: the launcher, then click
    assert proc.returncode == 0 and "Usage:" in proc.stdout and "diff" in proc.stdout
    from click.testing import CliRunner

    for args in commands:  # in this process: the same click help, without a new interpreter for each
        res = CliRunner().invoke(cli, [*args, "--help"])
        assert res.exit_code == 0 and "Usage:" in res.output and len(res.output) > 200, (args, res.output)


def _parquet_of_gsm8k(path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in mirror_file("gsm8k-test").read_text().splitlines()[:50]]
    pq.write_table(pa.table({"question": [r["question"] for r in rows], "answer": [r["answer"] for r in rows]}), path)
    return path


# the command docs/usage.md and docs/web.md document, once per format the ledger schema lists:
# (source id whose mirror file is read, extra options, what the check counts)
EVERY_FORMAT = {
    "text": ("lee-background", ["--split", "line"], "documents"),
    "jsonl": ("gsm8k-test", ["--text-field", "question"], "documents"),
    "json": ("presidio-pii-sentences", ["--text-field", "full_text"], "documents"),
    "parquet": (None, ["--text-field", "question"], "50 documents"),
    "warc": ("cc-whirlwind-warc", [], "page records"),
    "warc-records": (None, ["--base-url", "https://data.commoncrawl.org/"], "3 records"),
    "binary": ("tinystories-train-head", ["--role", "model"], "bytes"),
}


@pytest.mark.parametrize("fmt", list(EVERY_FORMAT))
def test_ledger_add_every_format(tmp_path, fmt):
    """`corpus ledger add FILE --format F` (with its check: the file is read) works for every format."""
    from click.testing import CliRunner

    from corpus.commands.cli import cli
    from corpus.config.schemas import PACKAGED, load_json

    assert set(EVERY_FORMAT) == set(load_json(PACKAGED / "ledger-row.schema.json")["properties"]["format"]["enum"])
    sid, options, counted = EVERY_FORMAT[fmt]
    if sid is None and fmt == "warc-records":  # an index query's rows (fetch reads each record by Range)
        src = tmp_path / "index.csv"
        src.write_text("url,warc_filename,warc_record_offset,warc_record_length\n" + "".join(
            f"https://a.org/{k},crawl-data/CC-MAIN-2024-22/warc/f.warc.gz,{k * 1000},{900 + k}\n" for k in range(3)))
    elif sid is None:
        src = _parquet_of_gsm8k(tmp_path / "gsm8k.parquet")
    else:  # the mirror file under its own name: the suffix tells the reader what it is
        src = tmp_path / Path(json.loads(next(line for line in Path("corpus/LEDGER.jsonl").read_text().splitlines()
                                              if f'"{sid}"' in line))["url"]).name
        src.write_bytes(mirror_file(sid).read_bytes())
    ledger = tmp_path / "L.jsonl"
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["x"], artifacts=tmp_path / "art")
    res = CliRunner().invoke(cli, ["--config", str(cfg), "ledger", "add", str(src), "--source-id", "x",
                                   "--license", "MIT", "--format", fmt, *options])
    assert res.exit_code == 0, res.output
    assert counted in res.output and "added 'x'" in res.output
    row = json.loads(ledger.read_text())
    assert row["format"] == fmt and row["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    if fmt == "warc":
        assert "1 page records" in res.output  # whirlwind.warc.gz: one response (with request and metadata)


def test_ledger_add_names_the_config_given_or_the_default(tmp_path, monkeypatch):
    """Issue 47, item 9: the "next:" line names the config in use; with no --config, the default as one."""
    from click.testing import CliRunner

    from corpus.commands.cli import cli

    monkeypatch.delenv("CORPUS_CONFIG", raising=False)
    monkeypatch.delenv("CORPUS_ARTIFACTS", raising=False)
    monkeypatch.chdir(tmp_path)  # the default config, configs/demo.toml, is the one written here
    src = tmp_path / "udhr.txt"
    src.write_bytes(mirror_file("udhr").read_bytes())
    (tmp_path / "configs").mkdir()
    for cfg in (tmp_path / "configs" / "demo.toml", tmp_path / "other.toml"):
        write_config(cfg, ledger=tmp_path / f"{cfg.stem}.jsonl", sources=["udhr"], artifacts=tmp_path / "art")

    def next_line(*config: str) -> str:
        res = CliRunner().invoke(cli, [*config, "ledger", "add", str(src), "--source-id", "udhr",
                                       "--license", "LicenseRef-udhr", "--no-check"])
        assert res.exit_code == 0, res.output
        return res.output.splitlines()[-1]

    assert next_line("--config", "other.toml") == \
        'next: add "udhr" to [dataset] sources in other.toml, then `corpus run`'
    assert next_line() == \
        'next: add "udhr" to [dataset] sources in your config (configs/demo.toml by default), then `corpus run`'
    assert "udhr" in (tmp_path / "demo.jsonl").read_text() and "udhr" in (tmp_path / "other.jsonl").read_text()
