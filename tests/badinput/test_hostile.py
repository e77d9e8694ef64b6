"""Hostile inputs and failing infrastructure beyond the catalogue: each is one error line naming the file or
address, a non-zero exit, nothing published, and earlier outputs unchanged."""

from __future__ import annotations

import contextlib
import http.server
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import error_line, run_corpus, write_config, write_ledger

MB = 1 << 20


class _Hostile(http.server.BaseHTTPRequestHandler):
    """`/endless`: streams without end (bounded here by a byte and time budget so the test always stops);
    `/huge`: announces Content-Length 10**12 and then streams the same way."""
    sent: dict[str, int] = {}
    BUDGET_BYTES = 256 * MB
    BUDGET_S = 60.0

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if self.path == "/huge":
            self.send_header("Content-Length", str(10**12))
        self.end_headers()
        chunk = b"Once upon a time there was a fox who ran and ran.\n" * 4096
        sent, t0 = 0, time.monotonic()
        try:
            while sent < self.BUDGET_BYTES and time.monotonic() - t0 < self.BUDGET_S:
                self.wfile.write(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        type(self).sent[self.path] = sent

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile_server():
    handler = type("H", (_Hostile,), {"sent": {}})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()


@pytest.mark.parametrize("path", ["/endless", "/huge"])
def test_a_download_stops_at_the_ledger_size(tmp_path, hostile_server, path):
    base, handler = hostile_server
    declared = 1000
    row = {"source_id": "web", "role": "corpus", "url": f"{base}{path}", "sha256": "0" * 64, "bytes": declared,
           "license_spdx": "MIT", "format": "text"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    art = tmp_path / "art"
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["web"], artifacts=art)
    proc = run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": ""})
    line = error_line(proc)
    assert f"{base}{path}: download refused" in line and f"{declared} bytes the ledger declares" in line, line
    # nothing on disk: no download, no temp file, no published raw output
    downloads = art / "corpus" / "downloads"
    assert not downloads.exists() or not any(downloads.iterdir())
    assert not (art / "corpus" / "raw").exists() or not any((art / "corpus" / "raw").rglob("_STAGE.json"))
    # the client hung up within 1 MB of the declared size (plus what the kernel's socket buffers held)
    deadline = time.monotonic() + 10
    while path not in handler.sent and time.monotonic() < deadline:
        time.sleep(0.05)
    assert handler.sent.get(path, 0) < declared + 1 * MB + 8 * MB  # socket buffers: a few MB at most


def _published(root: Path) -> list[str]:
    """Every published file under an artifacts root: not the writer lock (taken before the config is read
    through), not a staging dir (`*.incomplete`, kept for --resume)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != ".corpus.lock"
                  and not any(d.endswith(".incomplete") for d in p.relative_to(root).parts)) if root.exists() else []


def _small_setup(tmp_path: Path, source_id: str = "tiny") -> tuple[Path, Path]:
    row = {"source_id": source_id, "role": "corpus", "url": "file:///nonexistent/tiny.txt", "sha256": "0" * 64,
           "bytes": 10, "license_spdx": "MIT", "format": "text"}
    ledger = write_ledger(tmp_path / "L.jsonl", [row])
    return ledger, write_config(tmp_path / "c.toml", ledger=ledger, sources=[source_id], artifacts=tmp_path / "art")


@pytest.mark.parametrize("doc_id", ["tiny:05", "tiny:\u0661", "tiny:+1", "tiny: 1", "tiny:1.0"])
def test_why_refuses_a_non_canonical_document_number(tmp_path, doc_id):
    _, cfg = _small_setup(tmp_path)
    line = error_line(run_corpus("--config", cfg, "why", doc_id))
    assert f"unknown document id '{doc_id}'" in line, line


def test_a_source_id_too_long_for_a_file_name_is_refused_by_the_ledger(tmp_path):
    ledger, cfg = _small_setup(tmp_path, "a" * 300)
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert line.startswith(f"error: {ledger}:1: ") and "source_id" in line and "too long" in line, line
    assert _published(tmp_path / "art") == []


@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_a_config_or_ledger_that_is_a_directory_or_not_utf8(tmp_path):
    ledger, cfg = _small_setup(tmp_path)
    line = error_line(run_corpus("--config", tmp_path, "fetch"))
    assert line == f"error: {tmp_path}: is a directory, not a config file (pass the .toml file)", line
    utf16 = tmp_path / "utf16.toml"
    utf16.write_bytes(cfg.read_text().encode("utf-16"))
    line = error_line(run_corpus("--config", utf16, "fetch"))
    assert line.startswith(f"error: {utf16}: not UTF-8 at byte 0 (it starts with a UTF-16 byte-order mark)"), line
    as_dir = write_config(tmp_path / "d.toml", ledger=tmp_path, sources=["tiny"], artifacts=tmp_path / "art")
    line = error_line(run_corpus("--config", as_dir, "fetch"))
    assert line.startswith(f"error: {tmp_path}: is a directory, not a ledger file"), line
    ledger.write_bytes(ledger.read_text().encode("utf-16"))
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert line.startswith(f"error: {ledger}:1: not UTF-8"), line
    assert _published(tmp_path / "art") == []


@pytest.mark.parametrize("fmt,body,place", [
    ("jsonl", b'{"text": "fine"}\n{"text": "bad \\ud800 here"}\n', ":2: field 'text'"),
    ("json", b'[{"text": "fine"}, {"text": "bad \\udfff"}]', ": row 1: field 'text'"),
])
def test_a_lone_surrogate_is_one_line_naming_the_record(tmp_path, fmt, body, place):
    import hashlib

    good, bad = tmp_path / "good.jsonl", tmp_path / f"bad.{fmt}"
    good.write_bytes(b'{"text": "Once upon a time."}\n')
    bad.write_bytes(body)
    rows = [{"source_id": sid, "role": "corpus", "url": f"file://{p}", "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
             "bytes": p.stat().st_size, "license_spdx": "MIT", "format": f}
            for sid, p, f in (("good", good, "jsonl"), ("bad", bad, fmt))]
    ledger = write_ledger(tmp_path / "L.jsonl", rows)
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["good", "bad"], artifacts=tmp_path / "art")
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert line.startswith(f"error: file://{bad}{place} has a lone surrogate"), line
    assert _published(tmp_path / "art") == []


@pytest.mark.parametrize("args,expected", [
    (["--filter", "lnag"], "--filter 'lnag': no such filter (one of: url, lang, gopher, repetition, c4, fineweb, badwords, ppl, quality); did you mean 'lang'?"),
    (["--rule", "min_wrds"], "--rule 'min_wrds': no such rule of any filter"),
    (["--filter", "gopher", "--rule", "dup_line_frac"], "--rule 'dup_line_frac': no such rule of gopher"),
    (["--source", "tiny2"], "--source 'tiny2': no such source in dataset t/v1 (one of: tiny); did you mean 'tiny'?"),
    (["--rule", "near"], "--rule 'near' is a dedup reason: add --stage dedup"),
    (["--stage", "dedup", "--rule", "nearr"], "--rule 'nearr': no such dedup reason (one of: decontam, url, exact, near, lines, spans)"),
])
def test_rejects_names_what_cannot_match(tmp_path, args, expected):
    _, cfg = _small_setup(tmp_path)
    proc = run_corpus("--config", cfg, "rejects", *args)
    assert proc.returncode == 2 and error_line(proc).startswith(f"error: {expected}"), proc.stderr


@pytest.mark.slow
def test_force_on_a_stage_does_not_paper_over_a_stale_input(tmp_path):
    """After a filter threshold edit, `dedup --force`, `pii --force`, `shard --force` and `tokenize --force`
    refuse (naming the stale stage they read) instead of publishing this config's name over another
    config's filter output; after a [shard] edit, `tokenize --force` refuses the stale shards."""
    from conftest import LEDGER

    tables = {"fetch": {"part_docs": 300}, "decontam": {"evals": []}, "tokenize": {"vocab_size": 512}}
    art = tmp_path / "art"
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art, **tables)
    run_corpus("--config", cfg, "run", "-j", "1", check=True)
    before = {p: p.read_bytes() for p in art.rglob("*") if p.is_file() and "raw" not in p.parts}
    edited = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art,
                          **tables, **{"filters.gopher": {"min_words": 60}})
    for stage, reads in (("dedup", "stages/03-filter"), ("pii", "stages/04-dedup"), ("shard", "stages/05-pii")):
        line = error_line(run_corpus("--config", edited, stage, "--force", "-j", "1"))
        assert f"{reads}: the published" in line and "is stale" in line and "run `corpus" in line, line
    for edit in ({"filters.gopher": {"min_words": 60}}, {"shard": {"val_permille": 100}}):
        edited = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art,
                              **tables, **edit)
        line = error_line(run_corpus("--config", edited, "tokenize", "--force", "-j", "1"))
        assert "t/v1: the published shard output is stale" in line and "run `corpus shard` first" in line, line
    assert {p: p.read_bytes() for p in art.rglob("*") if p.is_file() and "raw" not in p.parts} == before


@pytest.mark.cluster
def test_a_ray_address_where_nothing_answers_is_one_line(tmp_path):
    import socket

    pytest.importorskip("ray")
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ledger, _ = _small_setup(tmp_path)
    cfg = write_config(tmp_path / "ray.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                       run={"executor": "ray"})
    (tmp_path / "tiny.txt").write_text("Once upon a time.\n")
    t0 = time.monotonic()
    proc = run_corpus("--config", cfg, "fetch", env={"RAY_ADDRESS": f"127.0.0.1:{port}",
                                                      "CORPUS_RAY_CONNECT_TIMEOUT_S": "2"})
    line = error_line(proc)
    assert line.startswith(f"error: RAY_ADDRESS=127.0.0.1:{port}: no Ray head answers there"), line
    assert time.monotonic() - t0 < 60
    assert _published(tmp_path / "art") == []


class _NotRay:
    """A plain TCP listener on 127.0.0.1: `silent` accepts and says nothing, `http` answers as HTTP/1.1 does."""

    def __init__(self, kind: str):
        import socket

        self.kind, self.sock = kind, socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.kind == "http":
                conn.recv(1024)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                conn.close()
            else:
                self.held.append(conn)

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


@pytest.mark.cluster
@pytest.mark.parametrize("kind", ["silent", "http"])
def test_a_ray_address_where_something_else_listens_is_one_line(tmp_path, kind):
    """Before: ray.init on a listener that is no Ray head hung for more than 200 s (and ignored SIGTERM)."""
    pytest.importorskip("ray")
    listener = _NotRay(kind)
    try:
        ledger, _ = _small_setup(tmp_path)
        cfg = write_config(tmp_path / "ray.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                           run={"executor": "ray"})
        t0 = time.monotonic()
        proc = run_corpus("--config", cfg, "fetch", timeout=120,
                          env={"RAY_ADDRESS": f"127.0.0.1:{listener.port}", "CORPUS_RAY_CONNECT_TIMEOUT_S": "2"})
        line = error_line(proc)
        heard = "nothing" if kind == "silent" else "b'HTTP/1.1 '"  # the first 9 bytes
        assert line.startswith(f"error: RAY_ADDRESS=127.0.0.1:{listener.port}: something listens there but is no "
                               f"Ray head (no gRPC greeting within 2 s, it sent {heard};"), line
        assert time.monotonic() - t0 < 60
        assert _published(tmp_path / "art") == []
    finally:
        listener.close()


@pytest.mark.cluster
def test_sigterm_stops_a_run_waiting_for_a_ray_head(tmp_path):
    import signal
    import subprocess
    import sys

    pytest.importorskip("ray")
    listener = _NotRay("silent")
    try:
        ledger, _ = _small_setup(tmp_path)
        cfg = write_config(tmp_path / "ray.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                           run={"executor": "ray"})
        env = dict(os.environ, RAY_ADDRESS=f"127.0.0.1:{listener.port}", CORPUS_RAY_CONNECT_TIMEOUT_S="120")
        proc = subprocess.Popen([sys.executable, "-m", "corpus.commands.launch", "--config", str(cfg), "fetch"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not listener.held and time.monotonic() < deadline:  # it has connected: it waits for the greeting
            time.sleep(0.1)
        assert listener.held, "the run never connected"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("SIGTERM was ignored while waiting for the Ray head")
        assert proc.returncode == -signal.SIGTERM
        assert _published(tmp_path / "art") == []
    finally:
        listener.close()


@pytest.mark.slow  # longer than ~2 s: the full tier
def test_an_s3_endpoint_that_never_answers_fails_after_the_timeouts(tmp_path):
    """An endpoint that accepts connections and never answers: one line naming the root, after the
    user-set timeouts (seconds, not minutes), and the lease's progress line names what it waits for."""
    import socket

    pytest.importorskip("boto3")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)  # accepted by the kernel, never read or answered
    port = listener.getsockname()[1]
    try:
        ledger, _ = _small_setup(tmp_path)
        cfg = write_config(tmp_path / "s3.toml", ledger=ledger, sources=["tiny"], artifacts="s3://silent-bucket/run")
        env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
               "AWS_REGION": "us-east-1", "CORPUS_LOCAL_DIR": str(tmp_path / "node"),
               "CORPUS_S3_CONNECT_TIMEOUT_S": "1", "CORPUS_S3_REQUEST_TIMEOUT_S": "1"}
        t0 = time.monotonic()
        proc = run_corpus("--config", cfg, "fetch", env=env)
        elapsed = time.monotonic() - t0
    finally:
        listener.close()
    line = error_line(proc)
    assert line.startswith("error: s3://silent-bucket/run/.corpus.lock: cannot take the writer lease"), line
    assert "timeout" in line.lower(), line
    assert "taking the writer lease (endpoint" in proc.stderr
    assert elapsed < 30, elapsed


@pytest.mark.slow  # longer than ~2 s: the full tier
def test_a_long_s3_transfer_prints_progress_lines(tmp_path, monkeypatch, caplog):
    """Case 12: a transfer that takes long (here: a stream that trickles) prints a line every
    CORPUS_S3_PROGRESS_S seconds naming the object and the bytes so far; a quick one prints none."""
    import io
    import logging

    from corpus.store import s3

    class Trickle(io.BytesIO):
        def read(self, n=-1):
            time.sleep(0.05)
            return super().read(min(n, 1000) if n and n > 0 else 1000)

    class FakeFs:
        def open_input_stream(self, key, compression=None):
            return Trickle(b"x" * 20_000)

        def open_output_stream(self, key, compression=None):
            class Slow(io.BytesIO):
                def write(self, b):
                    time.sleep(0.05)
                    return super().write(b)
            return Slow()

    class SlowRemote(s3.Remote):
        fs = FakeFs()

    monkeypatch.setenv(s3.PROGRESS_ENV, "0.2")
    remote = SlowRemote(tmp_path / "obj", "bucket/run/obj", {"endpoint": "", "region": ""})
    with caplog.at_level(logging.WARNING, logger="corpus.store.s3"):
        sha, n = s3.download(remote, tmp_path / "got", 20_000)
    assert n == 20_000 and (tmp_path / "got").read_bytes() == b"x" * 20_000
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) >= 2 and all(x.startswith("s3: still downloading s3://bucket/run/obj: ") for x in lines), lines
    caplog.clear()
    monkeypatch.setattr(s3, "CHUNK", 1000)
    big = tmp_path / "big"
    big.write_bytes(b"y" * 10_000)
    with caplog.at_level(logging.WARNING, logger="corpus.store.s3"):
        s3.upload(big, remote)
    lines = [r.getMessage() for r in caplog.records]
    assert lines and all(" of 0.0 MB after " in x and x.startswith("s3: still uploading") for x in lines), lines
    caplog.clear()
    monkeypatch.setenv(s3.PROGRESS_ENV, "30")
    with caplog.at_level(logging.WARNING, logger="corpus.store.s3"):
        s3.download(remote, tmp_path / "again", 20_000)
    assert not caplog.records


@pytest.mark.slow  # waits out a stall: the full tier
def test_beside_a_progress_bar_the_watcher_speaks_only_when_a_transfer_stalls(tmp_path, monkeypatch, caplog):
    """An object over s3.BAR_BYTES moves with a progress bar (its lines on the corpus logger off a terminal,
    the last '... done in'); the watcher's 'still downloading' line then comes only for an interval in
    which no byte moved (here: one read that hangs for 3 intervals), not while bytes flow."""
    import io
    import logging

    from corpus.store import s3

    class Stalls(io.BytesIO):
        reads = 0

        def read(self, n=-1):
            Stalls.reads += 1
            time.sleep(3.5 if Stalls.reads == 30 else 0.01)
            return super().read(1000)

    class FakeFs:
        def open_input_stream(self, key, compression=None):
            return Stalls(b"z" * 60_000)

    class SlowRemote(s3.Remote):
        fs = FakeFs()

    monkeypatch.setenv(s3.PROGRESS_ENV, "1")
    monkeypatch.setattr(s3, "BAR_BYTES", 10_000)
    remote = SlowRemote(tmp_path / "obj", "bucket/run/obj", {"endpoint": "", "region": ""})
    with caplog.at_level(logging.INFO, logger="corpus"):
        s3.download(remote, tmp_path / "got", 60_000)
    lines = [r.getMessage() for r in caplog.records]
    still = [x for x in lines if x.startswith("s3: still downloading s3://bucket/run/obj: 0.0 of 0.1 MB after ")]
    # the first interval always saw bytes move (the stall starts after 0.3 s): no line for it, one for the stall
    assert still and not any(" MB after 1 s " in x for x in still), lines
    assert lines[-1].startswith("s3: downloading s3://bucket/run/obj: 0.1/0.1 MB done in "), lines


@pytest.mark.parametrize("table,key,value", [
    ("filters.lang", "min_score", float("nan")),
    ("filters.gopher", "max_mean_word_length", float("nan")),
    ("extract", "timeout_s", float("inf")),
    ("mix.weights", "tiny", float("inf")),
    ("dedup", "jaccard_threshold", float("nan")),
])
def test_a_non_finite_number_in_the_config_is_refused(tmp_path, table, key, value):
    ledger, _ = _small_setup(tmp_path)
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                       **{table: {key: value}})
    line_no = cfg.read_text().splitlines().index(f"{key} = {value!r}") + 1
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert line.startswith(f"error: {cfg}:{line_no}: {table}.{key}: {value!r} is not a finite number"), line
    assert _published(tmp_path / "art") == []


def _model_with_nan_weights(d: Path) -> Path:
    """A tiny fastText classifier whose every input row but the line end's is nan: a document of only
    unknown words scores a number, one with a known word (fox, ran, story) scores nan."""
    import struct

    import floret
    import numpy as np

    from corpus.filters.fasttext_linear import _read_dictionary
    from corpus.filters.quality import to_fasttext

    (d / "train.txt").write_text("".join(f"__label__{'hq' if i % 2 else 'lq'} the fox ran story {i}\n"
                                         for i in range(40)))
    floret.train_supervised(str(d / "train.txt"), dim=4, thread=1, seed=0, verbose=0, mode="fasttext",
                            bucket=1000).save_model(str(d / "floret.bin"))
    data = bytearray(to_fasttext((d / "floret.bin").read_bytes()))
    words, _, off = _read_dictionary(data, d / "floret.bin")
    rows, dim = struct.unpack_from("<qq", data, off + 1)
    at = off + 17  # the input matrix: (words + buckets) x dim float32
    matrix = np.frombuffer(bytes(data[at:at + rows * dim * 4]), dtype=np.float32).reshape(rows, dim).copy()
    matrix[np.arange(rows) != words.index(b"</s>")] = np.nan
    data[at:at + rows * dim * 4] = matrix.tobytes()
    (d / "nan.bin").write_bytes(bytes(data))
    return d / "nan.bin"


@pytest.mark.parametrize("cut", [{"threshold": 0.5}, {"keep_fraction": 0.3}])
def test_a_quality_model_that_scores_nan_is_one_line_naming_it(tmp_path, mirror, cut):
    import hashlib

    from conftest import LEDGER
    from corpus.filters.quality import load_model, score

    model = _model_with_nan_weights(tmp_path)
    sha = hashlib.sha256(model.read_bytes()).hexdigest()
    art = tmp_path / "art"
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=art,
                       decontam={"evals": []},
                       **{"filters.quality": {"enabled": True, "model": str(model), "model_sha256": sha, **cut}})
    line = error_line(run_corpus("--config", cfg, "run", "--through", "filter", "-j", "1"))
    assert line.startswith(f"error: {model}: the quality model scores document tinystories-train-head:"), line
    assert "nan, not a finite number" in line, line
    assert not (art / "corpus/t/v1/stages/03-filter").exists()
    assert np.isnan(score(load_model(str(model), sha), "the fox ran", "__label__hq"))  # fastText's predictor too: nan


def test_a_wet_record_over_max_html_bytes_is_a_too_large_reject(tmp_path):
    """A conversion record is read to max_html_bytes + 1 like a page: it is rejected, never kept cut."""
    from corpus.config import load_config
    from corpus.formats.sources.ranges import plan_ranges
    from corpus.web.records import WebCounts, WebDoc, WebReject, web_documents
    from warcs import ledger_row, other, write_warc

    text = "A paragraph of ordinary text about gardening, soil and the weather in spring time.\n"
    records = [other("warcinfo", ""), other("conversion", "http://a.org/one", text.encode()),
               other("conversion", "http://a.org/long", (text * 50).encode()),
               other("conversion", "http://a.org/two", text.encode())]
    wet = write_warc(tmp_path / "x.warc.wet.gz", records)
    _, cfg_path = _small_setup(tmp_path)
    cfg = dict(load_config(cfg_path)["extract"], max_html_bytes=1024)
    row, counts = ledger_row("w", wet), WebCounts()
    items = [it for r in plan_ranges(wet, row, 1 << 30) for it in web_documents(wet, row, r.start, r.stop, cfg, counts)]
    assert [(type(i), i.url) for i in items] == [(WebDoc, "http://a.org/one"), (WebReject, "http://a.org/long"),
                                                 (WebDoc, "http://a.org/two")]
    assert items[1].reason == "too_large" and "1024 bytes" in items[1].detail
    assert items[0].text == items[2].text == text and counts.rejected == {"too_large": 1}


def test_more_workers_than_the_machine_can_run_is_one_line(tmp_path):
    from corpus.engine.executor import WORKERS_PER_CPU, machine_cpus

    ledger, cfg = _small_setup(tmp_path)
    too_many = WORKERS_PER_CPU * machine_cpus() + 1
    line = error_line(run_corpus("--config", cfg, "fetch", "--workers", "100000"))
    assert line.startswith("error: --workers 100000: 100000 workers is more than this machine can run"), line
    in_config = write_config(tmp_path / "w.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                             run={"workers": too_many})
    line = error_line(run_corpus("--config", in_config, "run"))
    assert line.startswith(f"error: {in_config}: run.workers: {too_many} workers is more than"), line
    assert _published(tmp_path / "art") == []


def test_partitions_are_bounded_by_the_schema_and_the_document_count(tmp_path):
    from corpus.config import load_config
    from corpus.engine.partitioning import partitions

    ledger, _ = _small_setup(tmp_path)
    huge = write_config(tmp_path / "p.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                        run={"partitions": 10**9})
    line = error_line(run_corpus("--config", huge, "fetch"))
    assert line.startswith(f"error: {huge}: run.partitions: 1000000000 is greater than the maximum of 4096"), line
    most = load_config(write_config(tmp_path / "m.toml", ledger=ledger, sources=["tiny"], artifacts=tmp_path / "art",
                                    run={"partitions": 4096}))
    assert [partitions(most, n) for n in (0, 1, 400, 10**7)] == [1, 1, 400, 4096]


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "long line"])
def test_a_ledger_that_is_no_regular_file_or_has_an_endless_line_is_one_line(tmp_path, kind):
    import os

    _, cfg = _small_setup(tmp_path)
    if kind == "fifo":
        ledger = tmp_path / "fifo.jsonl"
        os.mkfifo(ledger)  # nothing ever writes: a reader that opens it waits forever
    elif kind == "long line":
        ledger = tmp_path / "long.jsonl"
        ledger.write_bytes(b'{"source_id": "' + b"x" * (2 << 20) + b'"}\n')
    else:
        ledger = Path(kind)
    cfg.write_text(cfg.read_text().replace(str(tmp_path / "L.jsonl"), str(ledger)))
    line = error_line(run_corpus("--config", cfg, "fetch", timeout=60))  # it read /dev/zero, and waited on a FIFO
    want = f"error: {ledger}:1: a line longer than" if kind == "long line" else \
        f"error: {ledger}: not a regular file ({'a FIFO' if kind == 'fifo' else 'a character device'})"
    assert line.startswith(want), line
    assert _published(tmp_path / "art") == []


def test_a_config_that_is_a_device_or_too_large_is_one_line(tmp_path):
    _, cfg = _small_setup(tmp_path)
    line = error_line(run_corpus("--config", "/dev/zero", "fetch", timeout=60))
    assert line == "error: /dev/zero: not a regular file (a character device); the config must be a file", line
    cfg.write_text(cfg.read_text() + "#" * (16 << 20) + "\n")
    line = error_line(run_corpus("--config", cfg, "fetch", timeout=60))
    assert line == f"error: {cfg}: larger than 16,777,216 bytes: not a config", line


@pytest.mark.parametrize("url", [
    "http://bücher.de/a",         # a Unicode host; the list holds its punycode
    "http://BÜCHER.de./a",        # case and a trailing dot
    "http://b%C3%BCcher.de/a",    # the host percent-encoded
    "http://bücher%2ede/a",       # %2e: a dot
    "http://bücher。de/a",        # U+3002, U+FF0E and U+FF61: dots, as browsers read them
    "http://bücher\uff0ede/a",
    "http://bücher\uff61de/a",
    "http://xn--bcher-kva.de\\@safe.example.org/a",  # a backslash is a slash: the host is before it
    "http:\\\\xn--bcher-kva.de\\a",
    "http://sub.bücher.de/",      # a parent domain is on the list
])
def test_the_url_blocklist_matches_a_host_however_it_is_written(tmp_path, url):
    from corpus.filters.lists import write_lists
    from corpus.filters.url import UrlFilter, UrlParams, domain_entry
    from corpus.web.urls import host_of, normalize_url

    assert host_of(url).endswith("xn--bcher-kva.de"), host_of(url)
    assert normalize_url(url).split("/")[0].endswith("xn--bcher-kva.de"), normalize_url(url)
    for entry in ("xn--bcher-kva.de", "Bücher.de", "||bücher。de^"):  # punycode or Unicode lists
        _, resources = write_lists(tmp_path, "url", {"block_domains": [domain_entry(entry)]})
        assert UrlFilter(UrlParams(), resources).check(url) == ("domain", 1.0, "xn--bcher-kva.de"), entry


def test_host_normalisation_keeps_ascii_hosts_and_the_words_of_unicode_ones():
    from corpus.web.urls import host_of, normalize_url, url_words

    assert host_of("http://Example.COM:8080/x") == "example.com"
    assert normalize_url("HTTPS://www.Example.com:443/a\\b?q=\\x#f") == "example.com/a/b?q=\\x"  # the query keeps it
    assert normalize_url("http://www%2eexample.com/") == "example.com/"
    assert url_words("http://xn--bcher-kva.de/neu") == ["bücher", "de", "neu"]  # words, not punycode
    assert host_of("http://ex%zzample.com/") == "ex%zzample.com"  # not percent-encoding: left as it is
    assert host_of("http://faß.de/") == "xn--fa-hia.de"  # nontransitional, as browsers (IDNA 2003 said fass.de)


class _Trickle(http.server.BaseHTTPRequestHandler):
    """Announces 1000 bytes and sends one every 0.1 s: each byte comes well within a socket timeout."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        try:
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


@pytest.mark.slow  # waits out two deadlines
@pytest.mark.parametrize("fetch", [{"timeout_s": 1}, {"timeout_s": 1, "min_download_bytes_per_s": 500}])
def test_a_trickling_download_stops_at_its_deadline(tmp_path, fetch):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/slow.txt"
    try:
        row = {"source_id": "slow", "role": "corpus", "url": url, "sha256": "0" * 64, "bytes": 1000,
               "license_spdx": "MIT", "format": "text"}
        art = tmp_path / "art"
        cfg = write_config(tmp_path / "c.toml", ledger=write_ledger(tmp_path / "L.jsonl", [row]), sources=["slow"],
                           artifacts=art, fetch=fetch)
        t0 = time.monotonic()
        line = error_line(run_corpus("--config", cfg, "fetch", env={"CORPUS_MIRROR": ""}, timeout=120))
        elapsed = time.monotonic() - t0
    finally:
        httpd.shutdown()
    rate = fetch.get("min_download_bytes_per_s", 16384)
    assert line.startswith(f"error: {url}: download too slow: "), line
    assert f"under the {rate:,} bytes/s a download must average after its first 1 s" in line, line
    assert elapsed < 30, elapsed  # the trickle takes 100 s
    downloads = art / "corpus" / "downloads"
    assert not downloads.exists() or not any(downloads.iterdir())


@pytest.mark.parametrize("name", ["CORPUS_RAY_CONNECT_TIMEOUT_S", "CORPUS_S3_CONNECT_TIMEOUT_S",
                                  "CORPUS_S3_REQUEST_TIMEOUT_S"])
@pytest.mark.parametrize("value", ["junk", "0", "-3", "inf", "nan"])
def test_a_timeout_variable_that_is_no_positive_number_is_one_line(monkeypatch, name, value):
    from corpus.errors import CorpusError
    from corpus.store.environment import seconds_from_env

    monkeypatch.setenv(name, value)
    with pytest.raises(CorpusError, match=rf"^{name}='{value}': not a number of seconds above 0"):
        seconds_from_env(name, 10)
    monkeypatch.setenv(name, " 2.5 ")
    assert seconds_from_env(name, 10) == 2.5
    monkeypatch.delenv(name)
    assert seconds_from_env(name, 10) == 10


@pytest.mark.parametrize("tables,expected", [
    ({"dataset": {"name": "news\n"}}, "dataset.name"),             # a name ending in a newline: a directory with one
    ({"dataset": {"version": "v1\n"}}, "dataset.version"),
    ({"dataset": {"name": "n" * 300}}, "dataset.name"),            # a name no file system takes as a directory
    ({"paths": {"artifacts": ""}}, "paths.artifacts"),            # empty: was /artifacts, silently
    ({"paths": {"artifacts": "a\x00b"}}, "paths.artifacts"),
    ({"paths": {"ledger": "L\x00.jsonl"}}, "paths.ledger"),
])
def test_names_and_paths_the_file_system_cannot_take_are_refused_in_the_config(tmp_path, tables, expected):
    from corpus.config import dump_toml, load_config
    from corpus.errors import CorpusError

    data = {"paths": {"ledger": "L.jsonl", "artifacts": str(tmp_path / "a")}, "dataset": {"sources": ["x"]}}
    for table, keys in tables.items():
        data[table].update(keys)
    cfg = tmp_path / "c.toml"
    cfg.write_text(dump_toml(data))
    with pytest.raises(CorpusError, match=expected.replace(".", r"\.")):
        load_config(cfg)


def test_a_nul_in_the_artifacts_root_or_config_path_is_one_line(tmp_path):
    from corpus.config import load_config
    from corpus.errors import CorpusError

    cfg = write_config(tmp_path / "c.toml", ledger=tmp_path / "L.jsonl", sources=["x"], artifacts=tmp_path / "a")
    with pytest.raises(CorpusError, match="an artifacts root cannot hold a NUL character"):
        load_config(cfg, artifacts="/tmp/a\x00b")
    with pytest.raises(CorpusError, match="a config path cannot hold a NUL character"):
        load_config(str(cfg) + "\x00")


def test_a_source_id_ending_in_a_newline_is_refused_by_the_ledger(tmp_path):
    from corpus.config.ledger import load_ledger
    from corpus.errors import CorpusError

    row = {"source_id": "news\n", "role": "corpus", "url": "https://example.org/a.txt", "sha256": "0" * 64,
           "bytes": 1, "license_spdx": "MIT", "format": "text"}
    with pytest.raises(CorpusError, match="source_id"):
        load_ledger(write_ledger(tmp_path / "L.jsonl", [row]))


def test_a_mirror_that_is_no_directory_is_named_when_a_download_fails(tmp_path):
    import socket

    from corpus.errors import CorpusError
    from corpus.store.retrieve import locate

    with socket.socket() as s:  # a port nothing listens on: the download fails at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    row = {"source_id": "x", "url": f"http://127.0.0.1:{port}/x.txt", "sha256": "0" * 64, "bytes": 3}
    with pytest.raises(CorpusError, match=r"the mirror .*missing-mirror is not a directory"):
        locate(row, mirror=tmp_path / "missing-mirror", downloads=tmp_path / "dl", timeout=2)


def test_a_config_with_a_utf8_byte_order_mark_reads_as_without_it(tmp_path):
    from corpus.config import load_config

    cfg = write_config(tmp_path / "c.toml", ledger=tmp_path / "L.jsonl", sources=["x"], artifacts=tmp_path / "a")
    plain = load_config(cfg)
    cfg.write_bytes(b"\xef\xbb\xbf" + cfg.read_bytes())
    assert load_config(cfg).data == plain.data


def test_sources_with_no_document_are_one_line_not_a_schema_error(tmp_path):
    import hashlib

    from corpus.config import load_config
    from corpus.errors import CorpusError
    from corpus.stages import run_stage

    rows = []
    for sid, body in (("empty", b""), ("blank", b"  \n\n\t\n")):
        (tmp_path / f"{sid}.txt").write_bytes(body)
        rows.append({"source_id": sid, "role": "corpus", "url": str(tmp_path / f"{sid}.txt"), "split": "line",
                     "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "license_spdx": "MIT",
                     "format": "text"})
    cfg = load_config(write_config(tmp_path / "c.toml", ledger=write_ledger(tmp_path / "L.jsonl", rows),
                                   sources=["empty", "blank"], artifacts=tmp_path / "a",
                                   decontam={"evals": []}, **{"filters.ppl": {"enabled": False}}))
    run_stage("fetch", cfg, workers=1)
    with pytest.raises(CorpusError, match=r"dataset.sources empty, blank: their raw outputs hold no documents"):
        run_stage("normalize", cfg, workers=1)
    assert not (tmp_path / "a/corpus/t/v1/stages/02-normalize").exists()


def test_a_vocabulary_the_trainer_cannot_allocate_is_refused_by_the_schema(tmp_path):
    from corpus.config import load_config
    from corpus.errors import CorpusError

    cfg = write_config(tmp_path / "c.toml", ledger=tmp_path / "L.jsonl", sources=["x"], artifacts=tmp_path / "a",
                       tokenize={"vocab_size": 1 << 32})
    with pytest.raises(CorpusError, match=r"tokenize\.vocab_size"):
        load_config(cfg)
    write_config(cfg, ledger=tmp_path / "L.jsonl", sources=["x"], artifacts=tmp_path / "a",
                 tokenize={"vocab_size": 1 << 22})
    assert load_config(cfg)["tokenize"]["vocab_size"] == 1 << 22


def test_a_file_size_limit_is_one_line_naming_the_file_not_no_space(tmp_path):
    """EFBIG (the process's file size limit, `ulimit -f`, or a file system's), and EDQUOT, are named as what
    they are, like ENOSPC: one line with the file and the bytes it wanted."""
    import subprocess
    import sys

    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))\n"
            "from corpus.store.atomic import write_bytes\n"
            "from corpus.errors import CorpusError\n"
            "try:\n    write_bytes(sys.argv[1], b'x' * (3 << 20))\n"
            "except CorpusError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "big.bin")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"{tmp_path / 'big.bin'}: file too large") and "3,145,728 bytes" in out.stdout
    assert not (tmp_path / "big.bin").exists() and not list(tmp_path.glob("*.tmp*"))


def test_a_brotli_body_inflates_to_its_limit_only():
    brotli = pytest.importorskip("brotli")
    from corpus.formats.sources.http_body import decode_body

    bomb = brotli.compress(b"a" * (64 << 20))  # a few hundred bytes that inflate to 64 MiB
    assert len(decode_body(bomb, {"content-encoding": "br"}, 1 << 20)) == (1 << 20) + 1


@pytest.mark.parametrize("engine", ["resiliparse", pytest.param("trafilatura", marks=pytest.mark.slow)])  # 7 s
def test_a_page_nested_too_deep_is_a_too_deep_reject_before_extraction(tmp_path, engine):
    """40,000 nested divs (resiliparse: minutes inside every other limit; trafilatura kept part of the page)
    and 40,000 `<div/>` (HTML opens each): too_deep rejects, decided before the extractor; the real pages
    of the shared evaluation set, and a page of 5,000 unclosed <p> and SVG paths, are documents."""
    from test_web import extract_cfg, read_all
    from warcs import eval_pages, response, write_warc

    from corpus.web.depth import depth_over, nesting_depth
    from corpus.web.records import WebDoc, WebReject

    text = "<p>A paragraph of ordinary text about gardening, soil and the weather in spring time.</p>"
    deep = "<html><body>" + "<div>x" * 40_000 + "</div>" * 40_000 + text + "</body></html>"
    slashed = "<html><body>" + "<div/>" * 40_000 + text + "</body></html>"
    stray = "<html><body>" + "<div></span>" * 40_000 + text + "</body></html>"  # a stray end tag hides nothing
    wide = "<html><body>" + text * 5_000 + "<svg>" + "<path d='M0 0'/>" * 5_000 + "</svg></body></html>"
    pages = eval_pages()[:3]
    records = [response(f"http://a.org/{name}", html.encode()) for name, html in
               (("deep", deep), ("slashed", slashed), ("stray", stray), ("wide", wide))]
    records += [response(p["url"], p["html"], "text/html") for p in pages]
    cfg = extract_cfg(tmp_path, engine=engine, max_html_elements=1_000_000)
    items, counts = read_all(write_warc(tmp_path / "deep.warc.gz", records), cfg)
    reasons = {i.url: (i.reason, i.detail) for i in items if isinstance(i, WebReject)}
    assert reasons == {f"http://a.org/{n}": ("too_deep", "elements nested 40000 deep > 1024 ([extract] max_html_depth)")
                       for n in ("deep", "slashed", "stray")}, reasons
    assert [i.url for i in items if isinstance(i, WebDoc)] == ["http://a.org/wide"] + [p["url"] for p in pages]
    assert counts.rejected == {"too_deep": 3}
    assert nesting_depth("<div><p>a<p>b<ul><li>c<li>d</ul><br><img src=x></div>") == 2
    assert nesting_depth("<div><b><i>x</div><div>y</div>") == 3
    # depth_over skips counting only where it cannot be over: it agrees with the scan at every limit
    for html in [deep, stray, wide] + [p["html"].decode("utf-8", "replace") for p in eval_pages()]:
        d = nesting_depth(html)
        for limit in (d - 1, d, html.count("<") - html.count("</"), 1024):
            assert depth_over(html, limit) == (d if d > limit else None)


def _marked_processes(mark: str) -> list[int]:
    """Pids of the processes whose environment holds CORPUS_TEST_MARK=mark (this test's descendants)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if f"CORPUS_TEST_MARK={mark}".encode() in (d / "environ").read_bytes().split(b"\0"):
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


@pytest.mark.slow  # ~10 s: a fetch started, killed and waited for
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_extractor_children_die_with_a_killed_fetch(tmp_path):
    """kill -9 of the fetch's process group while its extractor child is busy on a page: the child (in a
    session of its own) went on, for as long as the page kept it; now it dies with its parent."""
    import signal
    import subprocess
    import sys

    from warcs import ledger_row, response, write_warc

    page = b"<html><body><p>Text about rivers and the boats on them, long enough to keep.</p></body></html>"
    warc = write_warc(tmp_path / "w.warc.gz", [response(f"http://a.org/slow{i}", page) for i in range(4)])
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("web-pages", warc)])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["web-pages"], artifacts=tmp_path / "art",
                       fetch={"unit_bytes": 1024}, extract={"timeout_s": 600})
    mark = str(tmp_path)
    env = dict(os.environ, CORPUS_FAULT_EXTRACT="hang:/slow", CORPUS_TEST_MARK=mark)
    proc = subprocess.Popen([sys.executable, "-m", "corpus.commands.launch", "--config", str(cfg), "fetch", "-j", "2"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                b"corpus.web.sandbox" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _marked_processes(mark)
                if Path(f"/proc/{p}/cmdline").exists()):
            time.sleep(0.2)
        time.sleep(1.0)  # the child has read its page and hangs on it
        assert len(_marked_processes(mark)) > 1
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while _marked_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _marked_processes(mark) == [], "processes outlived the killed fetch"
    finally:
        for pid in _marked_processes(mark):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_utf16_pages_without_a_bom_and_pages_with_a_nul_are_documents(tmp_path):
    """Before: a correctly labelled UTF-16 page without a byte-order mark, and a page with one NUL byte,
    were `not_html` (NULs near the start looked binary). Now the label decodes the first, and the NUL of
    the second is removed and counted in the document's meta; binary bytes stay not_html."""
    from test_web import extract_cfg, read_all
    from warcs import response, write_warc

    from corpus.web.records import WebDoc, WebReject

    words = "Die Brücke über den Fluss wurde im Frühling neu gebaut, und die Boote fahren wieder darunter."
    page = f"<!DOCTYPE html><html><head><title>Fluss</title></head><body><p>{words}</p></body></html>"
    records = [
        response("http://a.org/le", page.encode("utf-16-le"), "text/html; charset=utf-16le"),
        response("http://a.org/be", page.encode("utf-16-be"), "text/html; charset=UTF-16BE"),
        response("http://a.org/plain-label", page.encode("utf-16-le"), "text/html; charset=utf-16"),
        response("http://a.org/nul", page.replace("<title>", "<title>\x00").encode(), "text/html; charset=utf-8"),
        response("http://a.org/png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "text/html; charset=utf-16le"),
        response("http://a.org/blob", b"\x00\x01\x02\x03" * 300, "text/html"),
    ]
    items, counts = read_all(write_warc(tmp_path / "u.warc.gz", records), extract_cfg(tmp_path))
    docs = {i.url: i for i in items if isinstance(i, WebDoc)}
    assert sorted(docs) == ["http://a.org/be", "http://a.org/le", "http://a.org/nul", "http://a.org/plain-label"]
    assert all(words in d.text for d in docs.values())
    assert [docs[u].meta["charset"] for u in ("http://a.org/le", "http://a.org/be", "http://a.org/plain-label")] == [
        "utf-16-le", "utf-16-be", "utf-16-le"]
    assert docs["http://a.org/nul"].meta["nul_chars_removed"] == 1
    assert "nul_chars_removed" not in docs["http://a.org/le"].meta
    assert {i.url: i.reason for i in items if isinstance(i, WebReject)} == {
        "http://a.org/png": "not_html", "http://a.org/blob": "not_html"}
    assert counts.rejected == {"not_html": 2}


@pytest.mark.slow  # ~7 s: a fetch and two training attempts in subprocesses
def test_quality_training_with_a_one_document_class_is_one_line(tmp_path):
    """Before: the one document trained a model that had seen one positive and nothing measured (exit 0,
    held-out F1 0, AUC None), or, held out, was reported as a source that holds none."""
    from conftest import LEDGER

    ledger = tmp_path / "LEDGER.jsonl"
    ledger.write_text(LEDGER.read_text())
    (tmp_path / "one.txt").write_text("A single document about the weather in spring and the gardens of the town.\n")
    quality = {"enabled": True, "positive": ["one"], "negative": ["webtext"], "caps": {"webtext": 300}, "dim": 16,
               "bucket": 20000, "keep_fraction": 0.5}
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["webtext"], artifacts=tmp_path / "art",
                       **{"filters.quality": quality, "decontam": {"evals": []}})
    run_corpus("--config", cfg, "ledger", "add", tmp_path / "one.txt", "--source-id", "one", "--license", "CC0-1.0",
               check=True)
    run_corpus("--config", cfg, "fetch", "--source", "one", "--source", "webtext", check=True)
    for seed, split in ((1, "1 to train on and 0 held out"), (0, "0 to train on and 1 held out")):
        cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["webtext"], artifacts=tmp_path / "art",
                           **{"filters.quality": {**quality, "seed": seed}, "decontam": {"evals": []}})
        line = error_line(run_corpus("--config", cfg, "quality", "train"))
        assert line == (f"error: {cfg}: filters.quality.positive: 1 document in one, {split}: a class needs both "
                        "(filters.quality.heldout 0.1 of its documents are held out); add documents to it"), line
    assert not (tmp_path / "art" / "models").exists() or not any((tmp_path / "art" / "models").rglob("*.bin"))


@pytest.mark.parametrize("kind", ["warc", "arc"])
def test_records_of_a_file_gzipped_as_one_stream_have_distinct_locators(tmp_path, kind):
    """Before: every WARC record after the first of a one-stream .warc.gz had FastWARC's inflater position,
    the same for several records (and every ARC record its member's offset): repeated locators."""
    import gzip

    from test_web import extract_cfg, read_all
    from warcs import arc_file, response, write_warc

    from corpus.web.records import WebDoc

    page = "<html><body><p>Some words about rivers, bridges and the boats on them, page {}.</p></body></html>"
    if kind == "warc":
        plain = write_warc(tmp_path / "p.warc", [response(f"http://a.org/{i}", page.format(i).encode())
                                                 for i in range(6)], gz=False)
        path = tmp_path / "one.warc.gz"
        path.write_bytes(gzip.compress(plain.read_bytes()))
    else:
        path = arc_file(tmp_path / "one.arc.gz", [(f"http://a.org/{i}", page.format(i).encode(), "text/html")
                                                  for i in range(6)], one_stream=True)
    items, _ = read_all(path, extract_cfg(tmp_path))
    docs = [i for i in items if isinstance(i, WebDoc)]
    assert [d.url for d in docs] == [f"http://a.org/{i}" for i in range(6)]
    places = [d.meta.get("record_in_member", 0) for d in docs]
    if kind == "warc":  # the record's number in the member
        assert places == list(range(6))
    else:  # where it starts in the inflated member (after the filedesc record), as the ARC record id says
        assert places == sorted(set(places)) and places[0] > 0 and docs[0].meta["record_id"] == f"<arc:0+{places[0]}>"
    assert [d.locator.rsplit("@", 1)[1] for d in docs] == [f"0+{k}" if k else "0" for k in places]


def test_verify_refuses_a_tokens_directory_without_its_stage_manifest(tmp_path):
    """Before: deleting `_STAGE.json` skipped the manifest's sha256 check, so an edited `_MANIFEST.json`
    (vouching for edited parts) passed verify=True."""
    from test_loader import build_tokens_dir, make_docs, write_stage_manifest

    from corpus.errors import CorpusError
    from corpus.tokens.loader import TokenStream

    root = build_tokens_dir(tmp_path / "t", {"train": [make_docs(np.random.default_rng(4), 5, 512)]})
    stage = write_stage_manifest(root)
    TokenStream.open(root, "train", verify=True)
    stage.unlink()
    TokenStream.open(root, "train")  # sizes and indexes only: still readable
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train", verify=True)
    assert str(e.value) == (f"{root}: no _STAGE.json, so nothing records _MANIFEST.json's sha256 and verify=True "
                            "cannot check it (the tokenize stage publishes one with every tokens directory; "
                            "verify=False checks the sizes and indexes only)")
