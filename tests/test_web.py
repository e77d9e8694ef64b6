"""Web sources (format warc): the real WARC/WET files of the shared data, WARCs written from real pages in
other charsets, broken records (each a counted reject with a reason, or one error line naming the file and
place), the extractor's sandbox (timeout, crash), and the same bytes for any worker count and unit size."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import LEDGER, error_line, mirror_file, run_corpus, write_config, write_ledger
from corpus.config import load_config
from corpus.errors import CorpusError
from corpus.formats.jsonl import read_zst_jsonl
from corpus.web.records import WebCounts, WebDoc, WebReject, web_documents
from warcs import arc_file, eval_pages, ledger_row, other, response, write_warc


def extract_cfg(tmp_path: Path, **over) -> dict:
    cfg = write_config(tmp_path / "x.toml", ledger=LEDGER, sources=["tinystories-train-head"], artifacts=tmp_path)
    table = dict(load_config(cfg)["extract"])
    table.update(over)
    return table


def read_all(path: Path, cfg: dict) -> tuple[list, WebCounts]:
    from corpus.formats.sources.ranges import plan_ranges

    row = ledger_row("t", path)
    counts = WebCounts()
    items = [it for r in plan_ranges(path, row, 1 << 30)
             for it in web_documents(path, row, r.start, r.stop, cfg, counts)]
    return items, counts


def test_real_warc_and_wet_files(tmp_path):
    cfg = extract_cfg(tmp_path)
    warc, counts = read_all(mirror_file("cc-whirlwind-warc"), cfg)
    (doc,) = warc
    assert isinstance(doc, WebDoc) and doc.url == "https://an.wikipedia.org/wiki/Escopete"
    assert "Escopete ye un municipio d'a provincia de Guadalachara" in doc.text
    assert "<div" not in doc.text and "function(" not in doc.text
    assert doc.meta["record_id"] == "<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>"
    assert doc.meta["warc_date"] == "2024-05-18T01:58:10Z" and doc.meta["http_status"] == 200
    assert doc.meta["charset"] == "utf-8" and doc.meta["record_offset"] == 1023 and doc.locator.endswith("@1023")
    assert counts.skipped == {"warcinfo": 1, "request": 1, "metadata": 1} and not counts.rejected
    wet, counts = read_all(mirror_file("cc-whirlwind-wet"), cfg)
    (doc,) = wet
    assert doc.meta["record_type"] == "conversion" and "Escopete" in doc.text and counts.skipped == {"warcinfo": 1}
    for sid in ("warcio-example-warc-gz", "warcio-example-warc"):  # a gzip content-encoding, a revisit
        (doc,), counts = read_all(mirror_file(sid), cfg)
        assert doc.url == "http://example.com/" and "illustrative examples in documents" in doc.text
        assert counts.skipped == {"warcinfo": 2, "request": 2, "revisit": 1}


SNIPPETS = {"windows-1252": "Grüße aus Köln – „Straße“ für 20 €", "shift_jis": "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。",
            "gb18030": "床前明月光，疑是地上霜。举头望明月，低头思故乡。这是一段中文文本。"}


def _page(text: str) -> str:
    para = " ".join([text] * 12)
    return f"<html><head><title>t</title></head><body><article><h1>Title</h1><p>{para}</p><p>{para}</p></article></body></html>"


@pytest.mark.parametrize("charset,header,meta", [
    ("windows-1252", "text/html; charset=windows-1252", None),   # declared in HTTP
    ("windows-1252", "text/html; charset=iso-8859-1", None),     # latin-1 label: browsers read windows-1252
    ("shift_jis", "text/html", "shift_jis"),                     # declared in <meta charset>
    ("gb18030", "text/html", "gb2312"),                          # a GB2312 label on GB18030 bytes
    ("shift_jis", "text/html", None),                            # declared nowhere: detected
    ("gb18030", "text/html; charset=windows-1252", None),        # a wrong declared charset that fits no bytes
])
def test_charsets(tmp_path, charset, header, meta):
    text = SNIPPETS[charset]
    html = _page(text)
    if meta:
        html = html.replace("<head>", f'<head><meta charset="{meta}">')
    body = html.encode(charset)
    path = write_warc(tmp_path / "c.warc.gz", [response("http://example.org/p", body, header)])
    (doc,), _ = read_all(path, extract_cfg(tmp_path))
    assert isinstance(doc, WebDoc) and text in doc.text, doc


def test_utf16_with_bom_and_utf8_under_a_wrong_label(tmp_path):
    text = "Ünïcödé text with a byte-order mark, repeated so that the extractor keeps it as the main content."
    records = [response("http://example.org/u16", _page(text).encode("utf-16"), "text/html"),
               response("http://example.org/u8", _page(text).encode("utf-8"), "text/html; charset=shift_jis")]
    docs, _ = read_all(write_warc(tmp_path / "u.warc", records, gz=False), extract_cfg(tmp_path))
    assert [d.meta["charset_from"] for d in docs] == ["bom", "utf-8"]
    assert all(text in d.text for d in docs)


def test_real_pages_decode_and_extract(tmp_path):
    """The shared evaluation pages as one WARC: every page is a document, its text has what it must have."""
    pages = eval_pages()[:12]
    path = write_warc(tmp_path / "p.warc.gz", [response(p["url"], p["html"], "text/html") for p in pages])
    docs, counts = read_all(path, extract_cfg(tmp_path))
    assert len(docs) == len(pages) and all(isinstance(d, WebDoc) for d in docs), counts.rejected
    found = sum(s in d.text for p, d in zip(pages, docs) for s in p["with"])
    assert found >= 0.8 * sum(len(p["with"]) for p in pages)


def test_broken_records_are_counted_rejects(tmp_path):
    good = _page("A paragraph of ordinary text about gardening, soil and the weather in spring time.").encode()
    records = [
        response("http://a.org/ok", good),
        response("http://a.org/png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "text/html"),  # labelled html
        response("http://a.org/pdf", b"%PDF-1.4 ...", "application/pdf"),
        response("http://a.org/404", good, status=404),
        response("http://a.org/empty", b"<html><body><script>var x = 1;</script></body></html>"),
        response("http://a.org/big", b"<html><body>" + b"<p>word word word</p>" * 500_000 + b"</body></html>"),
        response("http://a.org/tags", b"<html><body>" + b"<b>x</b>" * 3000 + b"</body></html>"),
        other("revisit", "http://a.org/ok"),
        response("http://a.org/cut", good, content_length=10_000),  # runs past the end of the file
    ]
    cfg = extract_cfg(tmp_path, max_html_elements=5000)
    for gz in (True, False):
        items, counts = read_all(write_warc(tmp_path / f"b{gz}.warc", records, gz=gz), cfg)
        reasons = {i.url: i.reason for i in items if isinstance(i, WebReject)}
        assert reasons == {"http://a.org/png": "not_html", "http://a.org/pdf": "not_html",
                           "http://a.org/404": "http_status", "http://a.org/empty": "empty",
                           "http://a.org/big": "too_large", "http://a.org/tags": "too_many_elements",
                           "http://a.org/cut": "truncated"}, reasons
        assert [i.url for i in items if isinstance(i, WebDoc)] == ["http://a.org/ok"]
        assert counts.skipped == {"revisit": 1} and sum(counts.rejected.values()) == 7


def test_a_truncated_gzip_member_and_garbage(tmp_path):
    page = _page("Some text about rivers, bridges and the boats that pass below them every day.").encode()
    data = b"".join(write_warc(tmp_path / f"{i}.gz", [response(f"http://a.org/{i}", page)]).read_bytes()
                    for i in range(3))
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[:-25])
    items, counts = read_all(cut, extract_cfg(tmp_path))
    assert [type(i).__name__ for i in items] == ["WebDoc", "WebDoc", "WebReject"]
    assert items[-1].reason == "truncated" and "gzip member" in items[-1].detail
    bad = tmp_path / "garbage.warc.gz"
    bad.write_bytes(data[:300] + b"not a gzip member" + data[300:])
    with pytest.raises(CorpusError, match=r"garbage.warc.gz: not a readable WARC file"):
        read_all(bad, extract_cfg(tmp_path))


@pytest.mark.parametrize("how,reason", [pytest.param("hang", "timeout", marks=pytest.mark.slow),  # waits out a timeout
                                        ("crash", "extractor_crash"), ("raise", "extractor_error")])
def test_the_sandbox_rejects_a_page_and_goes_on(tmp_path, monkeypatch, how, reason):
    from corpus.web import sandbox

    sandbox.close_all()  # children started by earlier tests have another environment
    monkeypatch.setenv("CORPUS_FAULT_EXTRACT", f"{how}:/bad")
    page = _page("Text about the mountains and the valleys between them, long enough to keep.").encode()
    records = [response(f"http://a.org/{n}", page) for n in ("one", "bad", "two")]
    items, counts = read_all(write_warc(tmp_path / "s.warc.gz", records), extract_cfg(tmp_path, timeout_s=2))
    assert [type(i).__name__ for i in items] == ["WebDoc", "WebReject", "WebDoc"]
    assert items[1].reason == reason and counts.rejected == {reason: 1}
    sandbox.close_all()


def _raw_records(art: Path, sid: str, engine: str = "trafilatura") -> dict[str, list[dict]]:
    """The documents and the rejects of a source's raw output extracted by `engine`, in part order,
    fetched_at set aside (how they are cut into parts follows the fetch units, so [fetch] unit_bytes)."""
    (d,) = [d for d in sorted((art / "corpus" / "raw" / sid).iterdir())
            if json.loads((d / "_STAGE.json").read_text())["params"]["extract"]["engine"] == engine]
    out: dict[str, list[dict]] = {"documents": [], "rejects": []}
    for p in sorted(d.rglob("*.jsonl.zst")):
        out["rejects" if p.parent.name == "rejects" else "documents"] += [
            {k: v for k, v in rec.items() if k != "fetched_at"} for rec in read_zst_jsonl(p)]
    return out


@pytest.mark.slow
def test_fetch_of_a_warc_source_end_to_end(tmp_path):
    """One WARC of real pages and broken records: the same documents and rejects for 1 and 2 workers and
    any fetch-unit size; an [extract] edit re-extracts from the local file; rejects and why show it."""
    pages = eval_pages()[:20]
    records = [response(p["url"], p["html"], "text/html") for p in pages]
    records.insert(3, response("http://a.org/pdf", b"%PDF-1.4 ...", "application/pdf"))
    records.insert(7, other("revisit", pages[0]["url"]))
    warc = write_warc(tmp_path / "pages.warc.gz", records)
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("web-pages", warc)])
    runs = {}
    for name, workers, unit in (("one", 1, 1 << 26), ("two", 2, 1024)):
        cfg = write_config(tmp_path / f"{name}.toml", ledger=ledger, sources=["web-pages"], artifacts=tmp_path / name,
                           fetch={"unit_bytes": unit})
        proc = run_corpus("--config", cfg, "fetch", "-j", workers, check=True)
        assert ("web-pages: WARC records 22 read, 1 skipped (revisit 1), 1 rejected (not_html 1), 20 documents"
                in proc.stdout), proc.stdout
        runs[name] = _raw_records(tmp_path / name, "web-pages")
    assert runs["one"] == runs["two"]
    docs = runs["one"]["documents"]
    assert [d["url"] for d in docs] == [p["url"] for p in pages]
    assert [r["reason"] for r in runs["one"]["rejects"]] == ["not_html"]
    stage = json.loads(next((tmp_path / "two" / "corpus" / "raw" / "web-pages").glob("*/_STAGE.json")).read_text())
    assert stage["counts"]["rejected"] == {"not_html": 1} and stage["params"]["extract"]["versions"]["trafilatura"]
    run_info = json.loads(next((tmp_path / "two" / "corpus" / "raw" / "web-pages").glob("*/_RUN.json")).read_text())
    assert run_info["ranges"] >= 20  # about one unit a record (a small one shares the next one's)

    cfg = write_config(tmp_path / "one.toml", ledger=ledger, sources=["web-pages"], artifacts=tmp_path / "one",
                       fetch={"unit_bytes": 1 << 26}, extract={"engine": "resiliparse"})
    before = sorted(p.name for p in (tmp_path / "one" / "corpus" / "raw" / "web-pages").iterdir())
    proc = run_corpus("--config", cfg, "run", "-j", "1", "--through", "fetch", check=True)  # another engine: a raw output
    assert re.search(r"^fetch +computed", proc.stdout, re.M), proc.stdout      # of its own, beside the first
    after = sorted(p.name for p in (tmp_path / "one" / "corpus" / "raw" / "web-pages").iterdir())
    assert len(after) == 2 and set(before) < set(after)
    assert _raw_records(tmp_path / "one", "web-pages", engine="resiliparse")["documents"] != docs  # re-extracted

    proc = run_corpus("--config", cfg, "rejects", "--stage", "fetch", check=True)
    assert "fetch.not_html: 1 records" in proc.stdout and "application/pdf" in proc.stdout
    line = error_line(run_corpus("--config", cfg, "rejects", "--stage", "fetch", "--rule", "timeot"))
    assert "did you mean 'timeout'" in line
    proc = run_corpus("--config", cfg, "rejects", "--stage", "fetch", "--rule", "timeout", check=True)
    assert proc.stdout.splitlines()[1].startswith("no fetch rejects for rule timeout")  # after the records line
    run_corpus("--config", cfg, "normalize", check=True)
    proc = run_corpus("--config", cfg, "why", "web-pages:2", check=True)
    assert f"url '{pages[2]['url']}'" in proc.stdout and "record_id '<urn:uuid:" in proc.stdout, proc.stdout
    assert "extractor 'resiliparse'" in proc.stdout


@pytest.mark.slow
def test_the_same_url_from_two_crawls_keeps_the_newest(tmp_path):
    """Exact URL dedup: a page in two crawls (another date, http vs https, www., a fragment) is kept once,
    the newest crawl; a page under another URL with the same text is an exact duplicate instead."""
    pages = eval_pages()[:4]
    old = [response(p["url"], p["html"], "text/html", warc_headers={"WARC-Date": "2023-01-01T00:00:00Z"})
           for p in pages[:3]]
    new_url = pages[0]["url"].replace("https://", "http://").replace("://www.", "://") + "#comments"
    new = [response(new_url, pages[0]["html"], "text/html", warc_headers={"WARC-Date": "2024-06-01T00:00:00Z"}),
           response(pages[3]["url"], pages[3]["html"], "text/html"),
           response("https://mirror.example.org/copy", pages[2]["html"], "text/html")]
    rows = [ledger_row("crawl-a", write_warc(tmp_path / "a.warc.gz", old)),
            ledger_row("crawl-b", write_warc(tmp_path / "b.warc", new, gz=False))]
    ledger = write_ledger(tmp_path / "ledger.jsonl", rows)
    off = {"enabled": False}
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["crawl-a", "crawl-b"], artifacts=tmp_path / "art",
                       **{"filters.lang": off, "filters.gopher": off, "filters.repetition": off, "filters.ppl": off,
                          "decontam": {"evals": []}, "dedup": {"near": False}})
    run_corpus("--config", cfg, "run", "--through", "dedup", "-j", "2", check=True)
    import pyarrow.parquet as pq

    d = tmp_path / "art" / "corpus" / "t" / "v1" / "stages" / "04-dedup"
    dropped = sorted((r["id"], r["reason"], r["duplicate_of"]) for p in sorted((d / "dropped").glob("*.parquet"))
                     for r in pq.read_table(p).to_pylist())
    same_text = "exact" if pages[0]["html"] != pages[2]["html"] else "url"
    assert dropped == [("crawl-a:0", "url", "crawl-b:0"), ("crawl-b:2", same_text, "crawl-a:2")], dropped
    proc = run_corpus("--config", cfg, "rejects", "--stage", "dedup", "--rule", "url", check=True)
    assert "dedup.url: 1 documents" in proc.stdout and "duplicate_of=crawl-b:0" in proc.stdout


def test_arc_files(tmp_path):
    """ARC (1996-2009 crawls), gzip and plain: pages become documents with the ARC line's URL and date."""
    text = SNIPPETS["windows-1252"]
    pages = [("http://www.example.com/a.html", _page(text).encode("cp1252"), "text/html; charset=iso-8859-1"),
             ("http://www.example.com/b.html", _page("Plain ASCII text about trains and timetables.").encode(),
              "text/html")]
    for gz in (True, False):
        path = arc_file(tmp_path / f"t{gz}.arc", pages, gz=gz)
        docs, counts = read_all(path, extract_cfg(tmp_path))
        assert [d.url for d in docs] == ["http://www.example.com/a.html", "http://www.example.com/b.html"]
        assert text in docs[0].text and docs[0].meta["warc_date"] == "2005-06-14T07:01:59Z"
        assert docs[0].meta["record_id"].startswith("<arc:") and counts.skipped == {"warcinfo": 1}
    cut = tmp_path / "cut.arc.gz"
    cut.write_bytes((tmp_path / "tTrue.arc").read_bytes()[:-12])
    items, _ = read_all(cut, extract_cfg(tmp_path))
    assert [type(i).__name__ for i in items] == ["WebDoc", "WebReject"] and items[1].reason == "truncated"


def test_a_50_mb_page_is_rejected_unread(tmp_path):
    """A 50 MB page between two real ones: rejected as too_large (only max_html_bytes + 1 of it is read),
    and the pages around it are documents."""
    page = eval_pages()[0]
    huge = b"<html><body>" + b"<p>" + b"word " * (50 << 18) + b"</p></body></html>"  # 50 MiB
    records = [response(page["url"], page["html"], "text/html"), response("http://a.org/huge", huge),
               response(page["url"] + "?again", page["html"], "text/html")]
    items, counts = read_all(write_warc(tmp_path / "h.warc.gz", records), extract_cfg(tmp_path))
    assert [type(i).__name__ for i in items] == ["WebDoc", "WebReject", "WebDoc"]
    assert items[1].reason == "too_large" and counts.rejected == {"too_large": 1}


def test_an_arc_file_gzipped_as_one_stream_gives_every_record(tmp_path):
    """Real pages in an ARC file that is one gzip stream (not a member per record): every page is a
    document, each with its own record id."""
    pages = eval_pages()[:8]
    path = arc_file(tmp_path / "one.arc.gz", [(p["url"], p["html"], "text/html") for p in pages], one_stream=True)
    items, counts = read_all(path, extract_cfg(tmp_path))
    assert [i.url for i in items if isinstance(i, WebDoc)] == [p["url"] for p in pages], counts.rejected
    assert len({d.meta["record_id"] for d in items}) == len(pages) and counts.skipped == {"warcinfo": 1}


def _arc_line(url: str, length: int) -> bytes:
    return f"{url} 93.184.216.34 20050614070159 text/html {length}\n".encode()


@pytest.mark.parametrize("gz", [True, False])
@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_an_arc_record_over_the_limit_is_read_bounded(tmp_path, gz):
    """A record over max_html_bytes is a too_large reject (the page after it a document); one declaring
    10**15 bytes is a truncated reject, read without holding it (a subprocess's peak RSS stays small;
    ru_maxrss would carry pytest's own over exec)."""
    import subprocess
    import sys
    import zlib

    page = _page("Text about the harbour, its ships and the gulls that follow them home.").encode()
    path = arc_file(tmp_path / "big.arc", [("http://a.org/big", b"<html><body>" + b"<p>x</p>" * 200_000, "text/html"),
                                           ("http://a.org/ok", page, "text/html")], gz=gz)
    items, counts = read_all(path, extract_cfg(tmp_path, max_html_bytes=100_000))
    assert [(i.url, getattr(i, "reason", None)) for i in items] == [("http://a.org/big", "too_large"),
                                                                     ("http://a.org/ok", None)]
    head, body = _arc_line("http://a.org/huge", 10**15) + b"HTTP/1.0 200 OK\r\n\r\n", b"<p>x</p>" * (1 << 20)
    with open(tmp_path / "huge.arc", "wb") as f:
        f.write(path.read_bytes())
        if not gz:
            f.write(head + body)
        else:  # 256 MiB inflated from a member of 0.3 MB
            z = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
            f.write(b"".join([z.compress(head), *(z.compress(body) for _ in range(32)), z.flush()]))
    script = ("import re, sys; from pathlib import Path; from corpus.formats.sources.arc import arc_records\n"
              "p = Path(sys.argv[1]); rs = list(arc_records(p, 'x', 0, p.stat().st_size, 100_000))\n"
              "peak = re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text())[1]\n"
              "print(rs[-1].truncated, len(rs[-1].payload), peak)")  # VmHWM: this process's own peak (KiB)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "huge.arc")], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "the" and int(out[-2]) == 100_001 and int(out[-1]) < 200_000, out


def _http_response(url: str, http_head: bytes, body: bytes) -> bytes:
    """A response record whose HTTP header block is `http_head` as given (any names, any encodings)."""
    http = b"HTTP/1.1 200 OK\r\n" + http_head + b"\r\n" + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Date: 2024-05-18T01:58:10Z\r\n"
            f"WARC-Record-ID: <urn:uuid:{url}>\r\nContent-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return head + http + b"\r\n\r\n"


def test_a_bad_content_or_transfer_encoding_is_one_record_not_the_file(tmp_path):
    """Encodings as browsers read them are decoded, a 40 KB HTTP header block read; a body that is not what
    its Content-Encoding says, or a header block over MAX_HTTP_HEADER, is an undecodable reject; the
    records around them are documents."""
    import gzip
    import zlib

    page = _page("Text about the orchard, its apple trees and the bees that visit them in May.").encode()
    html = b"Content-Type: text/html\r\n"
    bodies = {"x-gzip": (html + b"Content-Encoding: x-gzip\r\n", gzip.compress(page)),
              "none": (html + b"Content-Encoding: none\r\n", page),
              "raw-deflate": (html + b"Content-Encoding: deflate\r\n", zlib.compress(page)[2:-4]),
              "fake-chunked": (html + b"Transfer-Encoding: chunked\r\n", page),
              "lower-case": (b"content-type: text/html\r\ncontent-encoding: gzip\r\n", gzip.compress(page)),
              "head-40KB": (html + b"X-Pad: " + b"a" * 40_000 + b"\r\n", page),  # FastWARC's limit: 32 KB
              "head-2MB": (html + b"X-Pad: " + b"a" * (2 << 20) + b"\r\n", page),  # over MAX_HTTP_HEADER
              "gzip-over-plain": (html + b"Content-Encoding: gzip\r\n", page)}
    bad = ("head-2MB", "gzip-over-plain")
    records = [_http_response(f"http://a.org/{name}", head, body) for name, (head, body) in bodies.items()]
    items, counts = read_all(write_warc(tmp_path / "e.warc.gz", records), extract_cfg(tmp_path))
    assert [(i.url.rsplit("/", 1)[1], getattr(i, "reason", None)) for i in items] == [
        (name, "undecodable" if name in bad else None) for name in bodies]
    assert counts.rejected == {"undecodable": 2} and "Content-Encoding: gzip" in items[-1].detail


def test_a_page_trafilatura_cannot_parse_is_an_extractor_error_not_empty(tmp_path):
    """`<!-- -->` is sniffed as HTML but gives trafilatura no tree: extractor_error; a page of scripts is empty."""
    from corpus.web import sandbox

    sandbox.close_all()  # a child started by an earlier test may run older code
    records = [response("http://a.org/comment", b"<!-- -->", None),
               response("http://a.org/scripts", b"<html><body><script>var x = 1;</script></body></html>")]
    items, counts = read_all(write_warc(tmp_path / "t.warc.gz", records), extract_cfg(tmp_path))
    assert [(i.url, i.reason) for i in items] == [("http://a.org/comment", "extractor_error"),
                                                  ("http://a.org/scripts", "empty")], items
    assert "could not parse" in items[0].detail and counts.rejected == {"extractor_error": 1, "empty": 1}


def test_an_arc_body_is_decoded_as_a_warc_one(tmp_path):
    """ARC records go through the same per-record decoding: x-gzip is read, gzip over a plain body is an
    undecodable reject (it was kept as stored), and the file goes on."""
    import gzip

    page = _page("Text about the lighthouse keeper, the lamp and the long winter nights.").encode()
    path = arc_file(tmp_path / "e.arc.gz", [])
    for name, enc, body in (("x-gzip", "x-gzip", gzip.compress(page)), ("plain", "gzip", page),
                            ("after", "identity", page)):
        http = f"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {enc}\r\n\r\n".encode() + body
        with open(path, "ab") as f:
            f.write(gzip.compress(_arc_line(f"http://a.org/{name}", len(http)) + http + b"\n", 6, mtime=0))
    items, counts = read_all(path, extract_cfg(tmp_path))
    assert [(i.url, getattr(i, "reason", None)) for i in items] == [
        ("http://a.org/x-gzip", None), ("http://a.org/plain", "undecodable"), ("http://a.org/after", None)]


@pytest.mark.slow
def test_extract_retry_re_extracts_only_the_pages_rejected_for_a_transient_reason(tmp_path):
    """Issue 47 item 15: an extractor child killed on one page leaves an extractor_crash reject, and a rerun
    is current; `[extract] retry = ["extractor_crash"]` makes a new raw output that extracts that page
    again and takes every other outcome from the first output (here every other page would raise if it
    were extracted), counts the retry, and holds the bytes a whole extraction (--recompute) gives."""
    topics = ["rivers and the bridges over them", "mountains and the valleys between them",
              "harbours and the ships that leave them", "forests and the paths through them",
              "cities and the markets inside them"]
    records = [response(f"http://a.org/{i}", _page(f"A page about {t}, long enough to be kept.").encode())
               for i, t in enumerate(topics)]
    records.insert(2, response("http://b.org/bad", _page("The page whose extractor is killed from outside.").encode()))
    records.insert(4, response("http://a.org/pdf", b"%PDF-1.4 ...", "application/pdf"))
    warc = write_warc(tmp_path / "pages.warc.gz", records)
    ledger = write_ledger(tmp_path / "ledger.jsonl", [ledger_row("web", warc)])
    art = tmp_path / "art"
    first = write_config(tmp_path / "first.toml", ledger=ledger, sources=["web"], artifacts=art,
                         fetch={"unit_bytes": 1024})
    proc = run_corpus("--config", first, "fetch", "-j", 2, env={"CORPUS_FAULT_EXTRACT": "crash:/bad"}, check=True)
    assert "7 read, 0 skipped, 2 rejected (extractor_crash 1, not_html 1), 5 documents" in proc.stdout, proc.stdout
    proc = run_corpus("--config", first, "fetch", check=True)  # the problem: the crash is kept for good
    assert re.search(r"^web +current", proc.stdout, re.M), proc.stdout
    (old,) = (art / "corpus" / "raw" / "web").iterdir()

    retry = write_config(tmp_path / "retry.toml", ledger=ledger, sources=["web"], artifacts=art,
                         fetch={"unit_bytes": 1024}, extract={"retry": ["extractor_crash"]})
    proc = run_corpus("--config", retry, "fetch", "-j", 2, env={"CORPUS_FAULT_EXTRACT": "raise:a.org"}, check=True)
    assert "web: [extract] retry: 1 pages extracted again (extractor_crash 1), 1 now a document" in proc.stdout
    assert "1 rejected (not_html 1), 6 documents" in proc.stdout, proc.stdout
    (new,) = set((art / "corpus" / "raw" / "web").iterdir()) - {old}
    stage = json.loads((new / "_STAGE.json").read_text())
    old_stage = json.loads((old / "_STAGE.json").read_text())
    assert stage["counts"]["retried"] == {"extractor_crash": 1} and stage["counts"]["recovered"] == 1
    assert stage["params"]["extract"]["retry"] == ["extractor_crash"] and "retry" not in old_stage["params"]["extract"]
    assert stage["fetched_at"] == old_stage["fetched_at"]  # the reused documents carry it
    assert json.loads((new / "_RUN.json").read_text())["retried_from"] == str(old.relative_to(art))
    docs = [r for p in sorted(new.glob("part-*.jsonl.zst")) for r in read_zst_jsonl(p)]
    assert [d["url"] for d in docs] == [f"http://a.org/{i}" for i in range(2)] + ["http://b.org/bad"] + [
        f"http://a.org/{i}" for i in range(2, 5)]
    # a whole extraction of the same config (--recompute: nothing taken from the first output) gives the same bytes
    parts = {p["name"]: p["sha256"] for p in stage["parts"]}
    run_corpus("--config", retry, "fetch", "--replace", "--recompute", check=True)
    again = json.loads((new / "_STAGE.json").read_text())
    assert {p["name"]: p["sha256"] for p in again["parts"]} == parts and again["counts"]["retried"] == {}


def test_earlier_outcomes_are_found_by_record_offset_across_parts(tmp_path):
    """web.retry: the earlier raw output's documents and rejects, indexed per part by record offset, give
    each asked offset its outcome (kept text, a reject, or a retried reason), reading only overlapping parts."""
    from corpus.formats.jsonl import ZstJsonlWriter
    from corpus.web.retry import Earlier, document_offset, index_parts, overlapping, reject_offset

    docs = ZstJsonlWriter(tmp_path, 2)  # two records a part: offsets 10, 30 | 50, 90 | 110
    for off in (10, 30, 50, 90, 110):
        docs.write({"text": f"page at {off}", "meta": {"record_offset": off}})
    (tmp_path / "rejects").mkdir()
    rejects = ZstJsonlWriter(tmp_path / "rejects", 2)
    for off, reason in ((20, "not_html"), (70, "extractor_crash"), (100, "timeout")):
        rejects.write({"locator": f"http://x/w.warc.gz@{off}", "reason": reason, "detail": f"at {off}"})
    doc_parts = [{"name": p.name} for p, _ in docs.close()]
    reject_parts = [{"name": f"rejects/{p.name}"} for p, _ in rejects.close()]
    d_index = index_parts(tmp_path, doc_parts, document_offset)
    r_index = index_parts(tmp_path, reject_parts, reject_offset)
    assert [(p["first"], p["last"]) for p in d_index] == [(10, 30), (50, 90), (110, 110)]
    assert [(p["first"], p["last"]) for p in r_index] == [(20, 70), (100, 100)]
    assert [p["first"] for p in overlapping(d_index, 40, 100)] == [50]
    earlier = Earlier(tmp_path, overlapping(d_index, 40, 120), overlapping(r_index, 40, 120), ["extractor_crash"], 40)
    assert earlier.outcome(50) == ("kept", "page at 50")
    assert earlier.outcome(60) is None  # no earlier outcome: extract it
    assert earlier.outcome(70) == ("retry", "extractor_crash")
    assert earlier.outcome(90) == ("kept", "page at 90")
    assert earlier.outcome(100) == ("rejected", "timeout", "at 100")  # not a retried reason here
    assert earlier.outcome(110) == ("kept", "page at 110")
