"""A crawl as one ledger row (corpus.web.listing): a listing of WARC files served over loopback HTTP, its
files pinned on first use (corpus.web.pins), unreadable files counted rejects, a changed file refused."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import itertools
import json
import threading
from pathlib import Path

import pytest

from corpus.errors import CorpusError
from corpus.engine.runner import checkpoints
from corpus.formats.jsonl import read_zst_jsonl
from corpus.web.listing import list_digest, listing_kind, read_listing, resolve_glob, select_members
from conftest import error_line, run_corpus, write_config, write_ledger
from warcs import eval_pages, other, response, write_warc

FILES, MISSING, TRUNCATED, CHANGED = 50, (7, 31), 12, 40


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files under the root; a path in `cut` is announced whole and sent half (a connection cut short)."""
    cut: set[str] = set()
    requests: list[str] = []

    def do_GET(self):
        type(self).requests.append(self.path)
        if self.path in self.cut:
            data = (Path(self.directory) / self.path.lstrip("/")).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = type("H", (_Handler,), {"cut": set(), "requests": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()


def _crawl(root: Path, pages: list[dict], n: int) -> list[str]:
    """n WARC files of one real page each (and a warcinfo record), named as Common Crawl names them."""
    names = []
    for i in range(n):
        p = pages[i % len(pages)]
        name = f"crawl-data/CC-TEST/segments/1/warc/CC-TEST-{i:05d}.warc.gz"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        write_warc(root / name, [other("warcinfo", f"urn:file:{i}"),
                                 response(f"{p['url']}?file={i}", p["html"], "text/html")])
        names.append(name)
    return names


def _listing_row(path: Path, base_url: str) -> dict:
    data = path.read_bytes()
    return {"source_id": "crawl", "role": "corpus", "url": str(path), "base_url": base_url,
            "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "license_spdx": "LicenseRef-test",
            "format": "warc"}


def _raw(art: Path) -> tuple[dict, list[dict], list[dict]]:
    (d,) = [d for d in (art / "corpus" / "raw" / "crawl").iterdir() if not d.name.endswith(".incomplete")]
    manifest = json.loads((d / "_STAGE.json").read_text())
    docs = [rec for p in sorted(d.glob("part-*.jsonl.zst")) for rec in read_zst_jsonl(p)]
    return manifest, docs, sorted(p.name for p in d.glob("part-*.jsonl.zst"))


def _parts(art: Path) -> dict[str, list[dict]]:
    """Every raw part's records (documents and rejects/), fetched_at aside (when the run was)."""
    (d,) = [d for d in (art / "corpus" / "raw" / "crawl").iterdir() if not d.name.endswith(".incomplete")]
    return {p.relative_to(d).as_posix(): [{k: v for k, v in rec.items() if k != "fetched_at"} for rec in read_zst_jsonl(p)]
            for p in sorted(d.rglob("*.jsonl.zst"))}


@pytest.mark.slow  # four fetches of 50 files
def test_a_listing_of_50_files_over_http(tmp_path, server):
    root, base, handler = server
    pages = eval_pages()[:10]
    names = _crawl(root, pages, FILES)
    for i in MISSING:
        (root / names[i]).unlink()
    handler.cut.add("/" + names[TRUNCATED])
    listing = tmp_path / "warc.paths.gz"
    listing.write_bytes(gzip.compress("".join(n + "\n" for n in names).encode(), mtime=0))
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [_listing_row(listing, base + "/")])

    def config(name: str, **fetch) -> Path:
        return write_config(tmp_path / f"{name}.toml", ledger=ledger, sources=["crawl"], artifacts=tmp_path / name,
                            fetch={"max_failed_files": 3, **fetch}, extract={"engine": "resiliparse"})

    # no failure allowed (the default): one line naming the files, nothing published, the good files pinned
    strict = write_config(tmp_path / "strict.toml", ledger=ledger, sources=["crawl"], artifacts=tmp_path / "strict",
                          extract={"engine": "resiliparse"})
    line = error_line(run_corpus("--config", strict, "fetch", "-j", "2"))
    assert "3 of 50 files could not be read, more than [fetch] max_failed_files = 0" in line, line
    assert f"{names[7]} (missing:" in line and f"{names[TRUNCATED]} (truncated:" in line, line
    pins = [json.loads(x) for x in (tmp_path / "LEDGER.pins.jsonl").read_text().splitlines()]
    assert len(pins) == 47
    assert not list((tmp_path / "strict" / "corpus" / "raw" / "crawl").glob("*/_STAGE.json"))

    handler.requests.clear()
    proc = run_corpus("--config", config("one"), "fetch", "-j", "1", check=True)
    assert "files 47 read, 3 rejected (missing 2, truncated 1)" in proc.stdout, proc.stdout
    manifest, docs, _ = _raw(tmp_path / "one")
    good = [i for i in range(FILES) if i not in MISSING and i != TRUNCATED]
    assert [d["url"] for d in docs] == [f"{pages[i % 10]['url']}?file={i}" for i in good]
    assert docs[0]["meta"]["locator"] == f"{base}/{names[0]}@{len(gzip.compress(other('warcinfo', 'urn:file:0'), 6, mtime=0))}"
    assert [(r["url"].rsplit("/", 1)[1], r["reason"]) for r in manifest["files"]["rejected"]] == [
        ("CC-TEST-00007.warc.gz", "missing"), ("CC-TEST-00012.warc.gz", "truncated"), ("CC-TEST-00031.warc.gz", "missing")]
    assert manifest["counts"]["files"] == {"read": 47, "rejected": {"missing": 2, "truncated": 1}}
    assert {f["url"]: f["sha256"] for f in manifest["files"]["read"]} == {p["url"]: p["sha256"] for p in pins}

    proc = run_corpus("--config", config("one"), "audit")
    assert "raw crawl" in proc.stdout and "47 files match their pins" in proc.stdout, proc.stdout

    run_corpus("--config", config("two"), "fetch", "-j", "2", check=True)  # pinned: every file checked again
    assert _parts(tmp_path / "two") == _parts(tmp_path / "one")

    # a file changed on the server after it was pinned: another machine (no cache) refuses it, by name
    (root / names[CHANGED]).write_bytes((root / names[CHANGED]).read_bytes() + gzip.compress(b"x", mtime=0))
    line = error_line(run_corpus("--config", config("three"), "fetch", "-j", "2"))
    assert f"source 'crawl': {base}/{names[CHANGED]} changed since it was pinned on" in line, line
    assert not list((tmp_path / "three" / "corpus" / "raw" / "crawl").glob("*/_STAGE.json"))


@pytest.mark.slow  # a fetch killed after 10 files, then resumed
def test_resume_reuses_every_finished_file(tmp_path, server):
    root, base, handler = server
    names = _crawl(root, eval_pages()[:5], 20)
    listing = tmp_path / "warc.paths"
    listing.write_text("".join(f"{base}/{n}\n" for n in names))  # absolute lines: no base_url needed
    row = _listing_row(listing, base)
    del row["base_url"]
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [row])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["crawl"], artifacts=tmp_path / "a",
                       extract={"engine": "resiliparse"})
    proc = run_corpus("--config", cfg, "fetch", env={"CORPUS_FAULT_AFTER": "files:10"})
    assert proc.returncode != 0
    (staging,) = (tmp_path / "a" / "corpus" / "raw" / "crawl").glob("*.incomplete")
    journal = checkpoints(staging, "files")
    done = {int(k.rsplit("-", 1)[1]) for k in journal}
    assert len(done) >= 10
    # a finished file's download damaged (it is not fsynced: a power loss may do this): that unit is redone
    damaged = min(done)
    record = journal[f"crawl/file-{damaged:06d}"]
    Path(record["work"][0]["name"]).write_bytes(b"\0" * 100)
    handler.requests.clear()
    run_corpus("--config", cfg, "fetch", "--resume", check=True)
    assert sorted(handler.requests) == [f"/{names[i]}" for i in range(20) if i not in done - {damaged}]
    _, docs, _ = _raw(tmp_path / "a")
    assert len(docs) == 20


def test_listing_lines_and_base_url(tmp_path):
    listing = tmp_path / "wet.paths.gz"
    listing.write_bytes(gzip.compress(b"crawl-data/a.warc.gz\n\nhttps://x.org/b.warc.gz\n/data/c.warc.gz\n", mtime=0))
    row = {"source_id": "s", "url": "https://cc/wet.paths.gz", "format": "warc", "base_url": "https://data.cc.org/"}
    assert listing_kind(row) == "paths"
    assert read_listing(listing, row) == ["https://data.cc.org/crawl-data/a.warc.gz", "https://x.org/b.warc.gz",
                                          "/data/c.warc.gz"]
    assert read_listing(listing, {**row, "base_url": None})[0] == "https://cc/crawl-data/a.warc.gz"  # beside it
    assert read_listing(listing, {**row, "url": "wet.paths.gz", "base_url": None})[0] == "./crawl-data/a.warc.gz"
    listing.write_bytes(b"ftp://x.org/a.warc.gz\n")
    with pytest.raises(CorpusError, match=r"^https://cc/wet.paths.gz:1: ftp://x.org/a.warc.gz: unsupported URL scheme"):
        read_listing(listing, row)
    listing.write_bytes(b"a.warc.gz\n\xff.warc.gz\n")
    with pytest.raises(CorpusError, match=r"^https://cc/wet.paths.gz:2: not UTF-8 at column 1$"):
        read_listing(listing, row)
    assert listing_kind({"format": "warc", "url": "s3://b/crawl/*.warc.gz"}) == "glob"
    assert listing_kind({"format": "warc", "url": "file:///d/"}) == "glob"
    assert listing_kind({"format": "warc", "url": "https://x/a.warc.gz"}) is None
    assert listing_kind({"format": "text", "url": "a.paths"}) is None


def test_glob_and_directory_rows_are_pinned_by_their_file_list(tmp_path):
    for name in ("b.warc.gz", "a.warc.gz", "notes.txt", "sub/c.warc.gz"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    glob = {"source_id": "s", "url": f"file://{tmp_path}/*.warc.gz", "format": "warc"}
    urls = resolve_glob(glob)
    assert urls == [f"file://{tmp_path}/a.warc.gz", f"file://{tmp_path}/b.warc.gz"]
    assert resolve_glob({**glob, "url": f"{tmp_path}/"}) == [f"{tmp_path}/a.warc.gz", f"{tmp_path}/b.warc.gz"]
    assert resolve_glob({**glob, "url": f"{tmp_path}/*/*.warc.gz"}) == [f"{tmp_path}/sub/c.warc.gz"]
    sha, size = list_digest(urls)
    assert size == sum(len(u) + 1 for u in urls) and sha == list_digest(list(reversed(urls)))[0]


def test_files_selects_a_seeded_sample_or_a_range():
    urls = [f"https://cc/f{i}.warc.gz" for i in range(2000)]
    assert [m.index for m in select_members(urls, {"start": 10, "stop": 13})] == [10, 11, 12]
    small = {m.url for m in select_members(urls, {"sample": 0.05, "seed": 1})}
    large = {m.url for m in select_members(urls, {"sample": 0.2, "seed": 1})}
    assert 60 < len(small) < 140 and small < large  # a larger sample keeps a smaller one's files
    assert small == {m.url for m in select_members(urls[::-1], {"sample": 0.05, "seed": 1})}  # by URL, not position
    assert small != {m.url for m in select_members(urls, {"sample": 0.05, "seed": 2})}
    assert len(select_members(urls, None)) == 2000


class _RangeHandler(_Handler):
    """Serves `Range: bytes=a-b` with 206 (http.server ignores Range), as Common Crawl's servers do, over
    HTTP/1.1 connections a client may keep; `ranges` is the (connection number, path) of each Range request."""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else a kept connection's body waits for the ACK of its headers (40 ms)
    ranges: list[tuple[int, str]] = []
    opened = itertools.count()
    drop_idle = False

    def setup(self):
        super().setup()
        self.connection_number = next(type(self).opened)

    def do_GET(self):
        spec = self.headers.get("Range")
        if not spec:
            return super().do_GET()
        type(self).ranges.append((self.connection_number, self.path))
        # read as the request comes, not after the answer: a test that sets it once an answer arrived
        # would otherwise race this thread's end of that answer (and the connection close a request early)
        drop = type(self).drop_idle
        path = Path(self.directory) / self.path.lstrip("/")
        if not path.is_file():
            return self.send_error(404)
        a, b = (int(x) for x in spec.removeprefix("bytes=").split("-"))
        with open(path, "rb") as f:
            f.seek(a)
            data = f.read(b - a + 1)
        self.send_response(206)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        if drop:  # hang up after the answer without saying so: the client's connection goes stale
            self.close_connection = True


@pytest.mark.slow  # two fetches of 200 records
def test_warc_records_by_range_equal_reading_the_whole_files(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.sources.warc import record_offsets

    root = tmp_path / "www"
    root.mkdir()
    handler = type("R", (_RangeHandler,), {"cut": set(), "requests": [], "ranges": [], "opened": itertools.count()})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        pages = eval_pages()[:20]
        table = {"warc_filename": [], "warc_record_offset": [], "warc_record_length": []}
        names = []
        for i in range(10):  # 10 files of 20 records: pages, a PDF, a revisit
            records = [response(f"{p['url']}?f={i}", p["html"], "text/html") for p in pages[:18]]
            records.insert(5, response(f"http://a.org/{i}.pdf", b"%PDF-1.4 ...", "application/pdf"))
            records.insert(9, other("revisit", f"{pages[0]['url']}?f={i}"))
            name = f"crawl-data/CC-TEST/warc/f{i:02d}.warc.gz"
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            path = write_warc(root / name, records)
            offsets = record_offsets(path, name)
            ends = offsets[1:] + [path.stat().st_size]
            for a, b in zip(offsets, ends):
                table["warc_filename"].append(name)
                table["warc_record_offset"].append(a)
                table["warc_record_length"].append(b - a)
            names.append(name)
        assert len(table["warc_filename"]) == 200
        index = tmp_path / "index.parquet"
        pq.write_table(pa.table(table), index)
        listing = tmp_path / "warc.paths"
        listing.write_text("".join(n + "\n" for n in names))
        rows = [_listing_row(listing, base + "/"), {**_listing_row(index, base + "/"), "source_id": "crawl",
                                                    "format": "warc-records"}]
        out = {}
        for row in rows:
            ledger = write_ledger(tmp_path / f"{row['format']}.jsonl", [row])
            cfg = write_config(tmp_path / f"{row['format']}.toml", ledger=ledger, sources=["crawl"],
                               artifacts=tmp_path / row["format"], extract={"engine": "resiliparse"},
                               fetch={"unit_bytes": 200_000})
            run_corpus("--config", cfg, "fetch", "-j", "2", check=True)
            out[row["format"]] = _parts(tmp_path / row["format"])
        whole, ranged = (out[k] for k in ("warc", "warc-records"))
        docs = [rec for name, recs in whole.items() if "/" not in name for rec in recs]
        assert len(docs) == 180 and [rec for name, recs in ranged.items() if "/" not in name for rec in recs] == docs
        assert [r for n, recs in ranged.items() if n.startswith("rejects/") for r in recs] == \
            [r for n, recs in whole.items() if n.startswith("rejects/") for r in recs]
        assert len(handler.ranges) == 200  # one Range request a record, no whole file
        # over a kept-alive connection per worker (and host), not one per record
        assert len({conn for conn, _ in handler.ranges}) <= 4
    finally:
        httpd.shutdown()


@pytest.mark.cluster  # starts Ray
@pytest.mark.slow
def test_a_listing_on_ray_equals_the_local_pool(tmp_path, server):
    pytest.importorskip("ray")
    root, base, _ = server
    names = _crawl(root, eval_pages()[:10], 10)
    listing = tmp_path / "warc.paths"
    listing.write_text("".join(n + "\n" for n in names))
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [_listing_row(listing, base)])
    for executor in ("local", "ray"):
        cfg = write_config(tmp_path / f"{executor}.toml", ledger=ledger, sources=["crawl"], artifacts=tmp_path / executor,
                           extract={"engine": "resiliparse"}, run={"executor": executor, "workers": 2})
        run_corpus("--config", cfg, "fetch", env={"RAY_USAGE_STATS_ENABLED": "0"}, check=True)
    assert _parts(tmp_path / "ray") == _parts(tmp_path / "local")
    assert len(_raw(tmp_path / "ray")[1]) == 10


def test_ledger_add_pins_a_glob_by_its_file_list(tmp_path):
    pages = [{"url": f"https://a.org/{i}", "html": b"<html><body><p>page</p></body></html>"} for i in range(3)]
    for i, p in enumerate(pages):
        write_warc(tmp_path / f"f{i}.warc.gz", [response(p["url"], p["html"])])
    cfg = write_config(tmp_path / "c.toml", ledger=tmp_path / "LEDGER.jsonl", sources=["crawl"], artifacts=tmp_path / "art")
    glob = f"file://{tmp_path}/*.warc.gz"
    proc = run_corpus("--config", cfg, "ledger", "add", glob, "--source-id", "crawl", "--license", "CC0-1.0",
                      "--format", "warc", check=True)
    assert "3 files" in proc.stdout, proc.stdout
    (row,) = [json.loads(x) for x in (tmp_path / "LEDGER.jsonl").read_text().splitlines()]
    assert (row["sha256"], row["bytes"]) == list_digest([f"file://{tmp_path}/f{i}.warc.gz" for i in range(3)])


def test_a_member_file_is_read_rejected_or_refused(tmp_path):
    from corpus.stages.crawl import FileUnit, check_file

    good = write_warc(tmp_path / "good.warc.gz", [response(f"https://a.org/{i}", b"<p>page</p>" * 50) for i in range(4)])
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(good.read_bytes()[:-40])
    junk = tmp_path / "junk.warc.gz"
    junk.write_bytes(b"<html>not a WARC file</html>\n" * 10)
    fetch = {"unit_bytes": 1 << 20, "timeout_s": 5}

    def unit(path: Path, pin: dict | None = None) -> dict:
        return check_file(FileUnit("s/file-000000", "s", 0, str(path), pin, fetch, tmp_path / "dl", None))

    ok = unit(good)["file"]
    assert (ok["sha256"], ok["bytes"], ok["found_by"]) == (hashlib.sha256(good.read_bytes()).hexdigest(),
                                                          good.stat().st_size, "local") and ok["ranges"]
    assert unit(tmp_path / "gone.warc.gz")["reject"]["reason"] == "missing"
    assert unit(cut)["reject"]["reason"] == "truncated"
    assert unit(junk)["reject"]["reason"] == "undecodable"
    pin = {"url": str(good), "sha256": "0" * 64, "bytes": ok["bytes"], "pinned": "2026-12-01"}
    assert unit(good, pin)["changed"].startswith(f"source 's': {good} changed since it was pinned on 2026-12-01")
    assert unit(good, {**pin, "sha256": ok["sha256"]})["file"]["pinned"]


def test_a_record_index_in_csv_or_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.sources.record_index import index_records, plan_index_ranges

    cols = {"warc_filename": [f"crawl-data/f{k % 3}.warc.gz" for k in range(2500)],
            "warc_record_offset": [k * 100 for k in range(2500)], "warc_record_length": [90] * 2500}
    pq.write_table(pa.table({"url": ["x"] * 2500, **cols}), tmp_path / "i.parquet")
    (tmp_path / "i.csv.gz").write_bytes(gzip.compress(("warc_record_length,warc_filename,warc_record_offset\n" + "".join(
        f"90,{n},{o}\n" for n, o in zip(cols["warc_filename"], cols["warc_record_offset"]))).encode(), mtime=0))
    rows = {ext: {"source_id": "i", "url": str(tmp_path / f"i.{ext}"), "format": "warc-records",
                  "base_url": "https://data.commoncrawl.org/"} for ext in ("parquet", "csv.gz")}
    got = {ext: list(index_records(tmp_path / f"i.{ext}", row)) for ext, row in rows.items()}
    assert got["parquet"] == got["csv.gz"] and len(got["csv.gz"]) == 2500
    assert got["csv.gz"][4].url == "https://data.commoncrawl.org/crawl-data/f1.warc.gz" and got["csv.gz"][4].offset == 400
    assert plan_index_ranges(tmp_path / "i.parquet", rows["parquet"], 1 << 30) == [(0, 1000), (1000, 2000), (2000, 2500)]
    assert plan_index_ranges(tmp_path / "i.parquet", rows["parquet"], 900)[:2] == [(0, 10), (10, 20)]
    (tmp_path / "bad.csv").write_text("warc_filename,warc_record_offset,warc_record_length\nf.warc.gz,12,-3\n")
    with pytest.raises(CorpusError, match=r"bad.csv: row 0: a record needs a warc_filename, an offset >= 0"):
        list(index_records(tmp_path / "bad.csv", {**rows["csv.gz"], "url": str(tmp_path / "bad.csv")}))
    (tmp_path / "cols.csv").write_text("filename,offset,length\n")
    with pytest.raises(CorpusError, match=r"cols.csv: line 1: no column 'warc_filename'"):
        list(index_records(tmp_path / "cols.csv", {**rows["csv.gz"], "url": str(tmp_path / "cols.csv")}))


def test_range_reads_keep_one_connection_and_reject_one_line(tmp_path):
    """read_range over HTTP/1.1: many ranges over one kept-alive connection; a missing file and a range
    past the end are one-line DownloadFailed (missing, truncated) and later ranges still come; a
    connection the server closed is opened again."""
    from corpus.errors import DownloadFailed
    from corpus.store.retrieve import close_connections, read_range

    root = tmp_path / "www"
    root.mkdir()
    data = bytes(range(256)) * 40
    (root / "f.warc").write_bytes(data)
    handler = type("R", (_RangeHandler,), {"cut": set(), "requests": [], "ranges": [], "opened": itertools.count()})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/f.warc"
    try:
        close_connections()
        for k in range(100):
            assert read_range(url, 97 * k, 50, timeout=10) == data[97 * k: 97 * k + 50]
        with pytest.raises(DownloadFailed) as e:
            read_range(url.replace("f.warc", "gone.warc"), 0, 10, timeout=10)
        assert e.value.kind == "missing" and "\n" not in str(e.value)
        with pytest.raises(DownloadFailed) as e:
            read_range(url, len(data) - 5, 10, timeout=10)
        assert e.value.kind == "truncated" and "\n" not in str(e.value)
        assert read_range(url, 3, 4, timeout=10) == data[3:7]
        # one connection until the 404 (http.server closes the connection after an error page), then one more
        assert [conn for conn, _ in handler.ranges] == [0] * 101 + [1] * 2
        handler.drop_idle = True  # the server now hangs up after each answer, unannounced
        assert [read_range(url, k, 3, timeout=10) for k in (0, 9, 20)] == [data[0:3], data[9:12], data[20:23]]
        assert [conn for conn, _ in handler.ranges][-3:] == [1, 2, 3]
    finally:
        close_connections()
        httpd.shutdown()
