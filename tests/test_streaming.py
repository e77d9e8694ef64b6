"""Streaming source reads on real data: the same (locator, text) sequence as the whole-file reader whatever
the chunk size, ranges that add up to the whole read, the document and inflate limits, BOMs, codecs.

`reference_sources` is a frozen copy of the whole-file reader (main bb4f3f2); `data/ledger_read_sha256.json`
holds the sha256 of its output on every demo ledger row. Tiny chunks (1-13 bytes) and a tiny regex window
put chunk boundaries inside documents, lines, multi-byte characters, CRLF pairs and zstd frames."""

from __future__ import annotations

import bz2
import gzip
import functools
import hashlib
import io
import json
import lzma
import random
import struct
import tarfile
import time
import zipfile
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

import reference_sources as reference
from conftest import LEDGER, error_line, ledger_rows, mirror_file, run_corpus, write_config, write_ledger
from corpus.errors import CorpusError
from corpus.formats.sources import Range, ReadLimits, plan_ranges, read_documents

RECORDED = json.loads((Path(__file__).parent / "data" / "ledger_read_sha256.json").read_text())
WIKI_ARTICLES = r"(?m)^(?= = [^=].*(?<!\s\w) = \r?$)"
STORIES = r"(?<=[^\n])\n(?=[^\n])"


def tiny(chunk: int, window: int = 97, **kw) -> ReadLimits:
    return ReadLimits(chunk_bytes=chunk, regex_window=window, **kw)


def row_for(path: Path, **kw) -> dict:
    kw.setdefault("format", "text")
    kw.setdefault("url", str(path))
    return kw


def read(path, row, limits=None, rng=None):
    return list(read_documents(path, row, rng, limits=limits))


def error_of(fn) -> str:
    with pytest.raises(CorpusError) as e:
        fn()
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def assert_same(path, row, chunks=(1, 3, 7, 4096), window=97):
    """The streaming reader equals the whole-file reader at every chunk size (documents or error)."""
    try:
        want = list(reference.read_documents(path, row))
    except CorpusError as e:
        want_err = str(e)
        for c in chunks:
            assert error_of(lambda: read(path, row, tiny(c, window))) == want_err, f"chunk {c}"
        return want_err
    for c in chunks:
        assert read(path, row, tiny(c, window)) == want, f"chunk {c}"
    return want


def head_lines(data: bytes, n_bytes: int) -> bytes:
    """The first whole lines of `data` holding about n_bytes."""
    cut = data.index(b"\n", n_bytes) + 1 if len(data) > n_bytes else len(data)
    return data[:cut]


# ---------------------------------------------------------------- the demo ledger, as recorded

@pytest.mark.parametrize("source_id", sorted(s for s, r in ledger_rows().items() if r["format"] != "warc"))
def test_ledger_rows_equal_recorded_output(mirror, source_id):
    row = ledger_rows()[source_id]
    path = mirror / row["sha256"]
    if not path.is_file():
        pytest.skip("mirror file absent")
    for limits in (None, tiny(61, 128)):
        h, n = hashlib.sha256(), 0
        for loc, text in read_documents(path, row, limits=limits):
            assert loc.startswith(row["url"] + "#")
            h.update(json.dumps([loc[len(row["url"]):], text], ensure_ascii=False).encode() + b"\n")
            n += 1
        assert {"docs": n, "sha256": h.hexdigest()} == RECORDED[source_id]


# ---------------------------------------------------------------- splits, encodings, compressions

@pytest.fixture(scope="module")
def wiki_head(mirror) -> bytes:
    """~120 KB of WikiText-2 (CRLF line ends, several articles)."""
    return head_lines(mirror_file("wikitext2-test").read_bytes(), 120_000)


@pytest.mark.parametrize("split,extra", [("regex", {"pattern": WIKI_ARTICLES}), ("paragraph", {}), ("line", {}),
                                          ("file", {}), ("delimiter", {"delimiter": " = = "})])
def test_crlf_text_every_split(tmp_path, wiki_head, split, extra):
    p = tmp_path / "wiki.test.raw"
    p.write_bytes(wiki_head)
    got = assert_same(p, row_for(p, split=split, **extra), chunks=(1, 2, 5, 13, 4096), window=80)
    assert len(got) > (3 if split not in ("file", "paragraph") else 0)  # this copy has no blank lines


@pytest.mark.parametrize("ext", [".gz", ".bz2", ".xz", ".zst"])
def test_compressed_tiny_chunks(tmp_path, wiki_head, ext):
    pack = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress,
            ".zst": lambda b: zstandard.ZstdCompressor().compress(b)}[ext]
    p = tmp_path / f"wiki.test.raw{ext}"
    p.write_bytes(pack(wiki_head))
    assert len(assert_same(p, row_for(p, split="regex", pattern=WIKI_ARTICLES), chunks=(3, 11, 4096))) > 3


def test_multi_frame_zstd_small_frames_and_truncation(tmp_path, mirror):
    data = head_lines(mirror_file("gsm8k-test").read_bytes(), 60_000)
    c = zstandard.ZstdCompressor(write_checksum=True)
    frames, sizes = [], []
    for i in range(0, len(data), 997):  # frames cut inside lines, characters and JSON strings
        frames.append(c.compress(data[i:i + 997]))
        sizes.append(len(frames[-1]))
    packed = b"".join(frames)
    p = tmp_path / "gsm.jsonl.zst"
    p.write_bytes(packed)
    row = row_for(p, format="jsonl", text_fields=["question", "answer"])
    assert len(assert_same(p, row, chunks=(1, 7, 500, 4096))) == data.count(b"\n")
    boundary = sizes[0] + sizes[1]
    for cut in (boundary - 1, boundary + 2, boundary + 5, boundary + 9, len(packed) - 4, len(packed) - 1):
        p.write_bytes(packed[:cut])  # inside a block, a frame header, a checksum
        msg = error_of(lambda: read(p, row, tiny(64)))
        assert "truncated or corrupt .zst data" in msg and str(p) in msg
        with pytest.raises(CorpusError):
            list(reference.read_documents(p, row))
    p.write_bytes(packed[:boundary])  # ends between two frames: a valid zstd stream, as before, cut inside a line
    msg = assert_same(p, row, chunks=(1, 64))
    assert msg.startswith(f"{p}:") and "invalid JSON: Unterminated string" in msg


def test_zstd_skippable_frames_and_trailing_garbage(tmp_path, mirror):
    text = head_lines(mirror_file("lingua-en").read_bytes(), 20_000)
    c = zstandard.ZstdCompressor(write_checksum=True, write_content_size=False)
    skippable = struct.pack("<II", 0x184D2A5A, 5) + b"hello"
    p = tmp_path / "en.txt.zst"
    row = row_for(p, split="line")
    for data in (c.compress(text[:9000]) + skippable + c.compress(text[9000:]), skippable + c.compress(text)):
        p.write_bytes(data)
        assert len(assert_same(p, row, chunks=(1, 5, 4096))) == text.count(b"\n")
    for tail in (b"garbage!", bytes(4)):
        p.write_bytes(c.compress(text) + tail)
        assert error_of(lambda: read(p, row, tiny(5))).startswith(f"{p}: truncated or corrupt .zst data: zstd ")
        with pytest.raises(CorpusError):  # (zstandard words its message differently for the two readers)
            list(reference.read_documents(p, row))


def test_multibyte_utf8_split_inside_characters(tmp_path, mirror):
    for sid in ("lingua-zh", "lingua-hi", "lingua-ru"):
        p = tmp_path / f"{sid}.txt"
        p.write_bytes(head_lines(mirror_file(sid).read_bytes(), 20_000))
        for split, extra in (("line", {}), ("regex", {"pattern": r"[。.।]\n"}), ("file", {})):
            assert_same(p, row_for(p, split=split, **extra), chunks=(1, 2, 3, 5), window=16)


def mixed_line_ends(lines: list[bytes], seed: int) -> bytes:
    rng = random.Random(seed)
    out = []
    for line in lines:
        out.append(line.rstrip(b"\r\n") + rng.choice([b"\n", b"\r\n", b"\r", b"\n\n", b"\r\n\r\n", b"\r\r"]))
    return b"".join(out)


@pytest.mark.parametrize("seed", [1, 2])
def test_mixed_and_lone_cr_line_ends(tmp_path, mirror, seed):
    lines = mirror_file("lingua-en").read_bytes().splitlines(keepends=True)[:300]
    p = tmp_path / "mixed.txt"
    p.write_bytes(mixed_line_ends(lines, seed))
    for split, extra in (("line", {}), ("paragraph", {}), ("regex", {"pattern": r"\r\n\r\n|\n\n"}),
                         ("delimiter", {"delimiter": "\r\r"}), ("file", {})):
        assert_same(p, row_for(p, split=split, **extra), chunks=(1, 2, 3, 8), window=24)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_and_utf32(tmp_path, mirror, encoding):
    text = head_lines(mirror_file("lingua-de").read_bytes(), 15_000).decode("utf-8")
    p = tmp_path / "de.txt"
    p.write_bytes(text.replace("\n", "\r\n", 40).encode(encoding))
    for split, extra in (("line", {}), ("paragraph", {}), ("regex", {"pattern": r"\.\r?\n"})):
        assert_same(p, row_for(p, split=split, encoding=encoding, **extra), chunks=(1, 3, 5, 4096), window=32)
    p.write_bytes(p.read_bytes()[:-1] if encoding != "utf-32" else p.read_bytes() + b"\x00\x00\x11\x00")
    for split in ("line", "regex"):
        msg = assert_same(p, row_for(p, split=split, encoding=encoding, pattern=r"\n"), chunks=(1, 3, 4096))
        assert "invalid" in msg


def test_latin1_zip_members(mirror):
    p = mirror_file("state-union")
    assert_same(p, ledger_rows()["state-union"], chunks=(5, 4096))


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_zip_member_compressions(tmp_path, inaugural_members, method):
    p = tmp_path / "inaugural.zip"
    with zipfile.ZipFile(p, "w", compression=method) as z:
        for name, data in reversed(list(inaugural_members.items())[:12]):
            z.writestr(name, data)
    assert len(assert_same(p, row_for(p, split="paragraph", encoding="latin-1"), chunks=(5, 4096))) > 100


@pytest.mark.parametrize("place", ["start", "after_cr", "middle", "truncated_end"])
def test_invalid_utf8_named_by_line_and_column(tmp_path, mirror, place):
    data = bytearray(head_lines(mirror_file("wikitext2-test").read_bytes(), 8_000))  # CRLF
    if place == "start":
        data[0:0] = b"\xff"
    elif place == "after_cr":
        i = data.index(b"\r\n", 3000) + 2
        data[i:i] = b"\xe2\x82"  # a cut-off 3-byte character at the start of a line
    elif place == "middle":
        data[5000:5000] = b"\xc3\x28"
    else:
        data += b"caf\xc3"
    p = tmp_path / "bad.txt"
    p.write_bytes(bytes(data))
    for split, extra in (("line", {}), ("paragraph", {}), ("regex", {"pattern": WIKI_ARTICLES}), ("file", {})):
        msg = assert_same(p, row_for(p, split=split, **extra), chunks=(1, 2, 3, 64, 4096), window=40)
        assert msg.startswith(f"{p}:") and "invalid utf-8 at column" in msg
    j = tmp_path / "bad.jsonl"
    j.write_bytes(b"".join(json.dumps({"text": t}).encode() + b"\n" for t in ["ok"] * 5) + b'{"text": "\xff"}\n')
    assert assert_same(j, row_for(j, format="jsonl"), chunks=(1, 4, 4096)) == f"{j}:6: invalid utf-8 at column 11: invalid start byte"


def test_jsonl_errors_same_as_before(tmp_path, mirror):
    lines = mirror_file("gsm8k-test").read_bytes().splitlines(keepends=True)[:8]
    lines[5] = lines[5][:50] + b"\r\n"  # cut inside a string, CRLF
    p = tmp_path / "g.jsonl"
    p.write_bytes(b"".join(lines))
    msg = assert_same(p, row_for(p, format="jsonl", text_fields=["question"]), chunks=(1, 7, 4096))
    assert msg.startswith(f"{p}:6: invalid JSON")


@pytest.fixture(scope="module")
def inaugural_members(mirror) -> dict[str, bytes]:
    with zipfile.ZipFile(mirror_file("inaugural")) as z:
        return {n: z.read(n) for n in sorted(z.namelist()) if n.endswith(".txt")}


def make_tar(path: Path, members: dict[str, bytes], mode: str = "w") -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, data in reversed(list(members.items())):  # archive order differs from path order
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    data = raw.getvalue()
    pack = {"w": lambda b: b, "gz": gzip.compress, "xz": lzma.compress,
            "zst": lambda b: zstandard.ZstdCompressor().compress(b)}[mode]
    path.write_bytes(pack(data))
    return path


@pytest.mark.parametrize("ext,mode", [(".tar", "w"), (".tar.gz", "gz"), (".tar.xz", "xz"), (".tar.zst", "zst")])
def test_tar_members_in_path_order(tmp_path, inaugural_members, ext, mode):
    members = {n: d for n, d in inaugural_members.items() if n.startswith("inaugural/18")}
    p = make_tar(tmp_path / f"inaugural{ext}", members, mode)
    row = row_for(p, members="inaugural/18[0-4]*.txt", split="paragraph", encoding="latin-1")
    got = assert_same(p, row, chunks=(17, 4096))
    assert {u.split("#")[1].split(":")[0] for u, _ in got} == {n for n in members if n[10:13] in ("180", "181", "182", "183", "184")}


def test_parquet_batches_and_json_array(tmp_path, mirror):
    items = json.loads(mirror_file("presidio-pii-sentences").read_text())
    table = pa.table({"full_text": [i["full_text"] for i in items], "n": list(range(len(items)))})
    pq.write_table(table, tmp_path / "pii.parquet", row_group_size=17)
    row = row_for(tmp_path / "pii.parquet", format="parquet", text_fields=["full_text"])
    assert len(assert_same(tmp_path / "pii.parquet", row, chunks=(4096,))) == len(items)
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=13)
    (tmp_path / "pii.parquet.gz").write_bytes(gzip.compress(buf.getvalue()))  # read through a seekable stream
    with zipfile.ZipFile(tmp_path / "pii.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("b/pii.parquet", buf.getvalue())
        z.writestr("a/pii.parquet", buf.getvalue())
    for p in (tmp_path / "pii.parquet.gz", tmp_path / "pii.zip"):
        got = assert_same(p, row_for(p, format="parquet", text_fields=["full_text"]), chunks=(7, 4096))
        assert len(got) == len(items) * (2 if p.suffix == ".zip" else 1)
    gz = tmp_path / "pii.json.gz"
    gz.write_bytes(gzip.compress(mirror_file("presidio-pii-sentences").read_bytes()))
    assert len(assert_same(gz, row_for(gz, format="json", text_fields=["full_text"]), chunks=(3, 4096))) == 100


# ---------------------------------------------------------------- ranges

def concat(path, row, unit, limits=None):
    plan = plan_ranges(path, row, unit)
    assert plan == plan_ranges(path, row, unit)  # the plan is a function of the file and the unit
    assert [r.index for r in plan] == list(range(len(plan)))
    return plan, [d for rng in plan for d in read(path, row, limits, rng)]


RANGE_SOURCES = {
    "gsm8k-train": {},                                       # jsonl, 4 MB
    "lee-background": {},                                    # text, line
    "tinystories-val-head": {},                              # text, paragraph
    "wikitext2-test": {"split": "line", "pattern": None},    # CRLF lines
    "udhr": {},                                              # zip members
}


@pytest.mark.parametrize("source_id", sorted(RANGE_SOURCES))
@pytest.mark.slow  # 2.5-5 s on 2 cores: the full tier (docs/testing.md)
def test_range_reads_add_up_to_the_whole_read(mirror, source_id):
    row = dict(ledger_rows()[source_id], **RANGE_SOURCES[source_id])
    row = {k: v for k, v in row.items() if v is not None}
    path = mirror_file(source_id)
    whole = list(reference.read_documents(path, row))
    counts = []
    for unit in (20_000 if source_id == "udhr" else 1024, 100_003, 1 << 30):
        plan, got = concat(path, row, unit)
        assert got == whole, f"unit {unit}"
        counts.append(len(plan))
        if unit == 1 << 30:
            assert len(plan) == 1
    assert counts[0] > counts[1] > 1, counts
    plan, got = concat(path, row, 100_003, tiny(13, 50))
    assert got == whole


def test_ranges_of_crlf_lines_and_tar_and_parquet(tmp_path, mirror, inaugural_members):
    lines = mirror_file("lingua-en").read_bytes().splitlines(keepends=True)[:2000]
    p = tmp_path / "mixed.txt"
    p.write_bytes(mixed_line_ends(lines, 3))
    for split in ("line", "paragraph"):
        row = row_for(p, split=split)
        whole = list(reference.read_documents(p, row))
        for unit in (1, 1000, 7777):
            plan, got = concat(p, row, unit)
            assert got == whole and len(plan) > 3
    t = make_tar(tmp_path / "inaugural.tar", inaugural_members)
    row = row_for(t, members="inaugural/1*.txt", split="file", encoding="latin-1")
    plan, got = concat(t, row, 50_000)
    assert got == list(reference.read_documents(t, row)) and len(plan) > 5
    assert all(r.kind == "members" for r in plan)
    items = json.loads(mirror_file("presidio-pii-sentences").read_text())
    pq.write_table(pa.table({"full_text": [i["full_text"] for i in items]}), tmp_path / "p.parquet", row_group_size=9)
    row = row_for(tmp_path / "p.parquet", format="parquet", text_fields=["full_text"])
    plan, got = concat(tmp_path / "p.parquet", row, 1000)
    assert got == list(reference.read_documents(tmp_path / "p.parquet", row))
    assert len(plan) > 3 and plan[1].kind == "rows" and plan[1].first_row > 0


def test_planning_a_broken_source_is_a_one_line_error(tmp_path, mirror):
    for name, fmt in (("x.zip", "text"), ("x.tar", "text"), ("x.parquet", "parquet")):
        p = tmp_path / name
        p.write_bytes(mirror_file("lee-background").read_bytes()[:5000])
        msg = error_of(lambda: plan_ranges(p, row_for(p, format=fmt, split="file"), 1024))
        assert msg.startswith(f"{p}: ")


def test_unsplittable_sources_are_one_range(tmp_path, mirror):
    gz = tmp_path / "g.jsonl.gz"
    gz.write_bytes(gzip.compress(mirror_file("gsm8k-test").read_bytes()))
    assert plan_ranges(gz, row_for(gz, format="jsonl"), 1024) == [Range(0, "whole")]
    wiki = mirror_file("wikitext2-test")
    assert plan_ranges(wiki, ledger_rows()["wikitext2-test"], 1024) == [Range(0, "whole")]  # regex split
    assert plan_ranges(mirror_file("presidio-pii-sentences"), ledger_rows()["presidio-pii-sentences"], 1024) == \
        [Range(0, "whole")]


# ---------------------------------------------------------------- limits

@functools.cache
def deflate_zeros(mib: int, prefix: bytes = b"") -> tuple[bytes, int, int]:
    """A raw deflate stream of `prefix` + `mib` MiB of zeros built from one compressed MiB (after a full
    flush every MiB of zeros compresses to the same bytes), its CRC-32 and its size: about 1 KB per MiB,
    never held inflated."""
    zeros = bytes(1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    assert c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH) == block
    body = head + block * mib + c.flush()
    crc = zlib.crc32(prefix)
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    assert zlib.decompressobj(-15).decompress(body, len(prefix) + (4 << 20)) == prefix + bytes(4 << 20)
    return body, crc, len(prefix) + (mib << 20)


def zip_bomb(path: Path, name: str, mib: int = 1024) -> Path:
    body, crc, size = deflate_zeros(mib)
    n = name.encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(body), size, len(n), 0) + n)
        f.write(body)
        cd = f.tell()
        f.write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc, len(body), size,
                            len(n), 0, 0, 0, 0, 0o100644 << 16, 0) + n)
        end = f.tell()
        f.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, end - cd, cd, 0))
    return path


def test_zip_bomb_refused_quickly(tmp_path):
    p = zip_bomb(tmp_path / "bomb.zip", "docs/zeros.txt")
    with zipfile.ZipFile(p) as z:
        info = z.getinfo("docs/zeros.txt")
        assert info.file_size == 1 << 30 and info.compress_size < 1_100_000  # a real 1 GiB -> 1 MB bomb
    t0 = time.monotonic()  # by default the one 1 GiB line is refused first, at 64 MiB
    msg = error_of(lambda: read(p, row_for(p, split="line")))
    assert msg.startswith(f"{p}#docs/zeros.txt:1: line larger than [fetch].max_doc_bytes (67108864 bytes)")
    msg = error_of(lambda: read(p, row_for(p, split="line"), ReadLimits(max_doc_bytes=1 << 30, max_inflate_ratio=20)))
    assert msg.startswith(f"{p}#docs/zeros.txt: inflates past 21") and "max_inflate_ratio = 20," in msg
    assert time.monotonic() - t0 < 20
    msg = error_of(lambda: read(p, row_for(p, split="line"), ReadLimits(max_inflate_ratio=1000,
                                                                         max_inflate_bytes=50 << 20)))
    assert "inflates past 52428800 bytes" in msg


@pytest.mark.parametrize("kind", ["gz", "zst", "tar.gz"])
def test_compressed_stream_bombs_refused(tmp_path, kind):
    if kind == "zst":
        p = tmp_path / "zeros.txt.zst"
        p.write_bytes(zstandard.ZstdCompressor().compress(bytes(1 << 20)) * 1024)  # 1 GiB in ~50 KB
    else:  # a gzip stream of 1 GiB of zeros, after a tar header announcing one 1 GiB member for tar.gz
        prefix = b""
        if kind == "tar.gz":
            info = tarfile.TarInfo("zeros.txt")
            info.size = 1 << 30
            prefix = info.tobuf()
        body, crc, size = deflate_zeros(1024, prefix)
        p = tmp_path / ("zeros.txt.gz" if kind == "gz" else "zeros.tar.gz")
        p.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + body + struct.pack("<II", crc, size & 0xFFFFFFFF))
        assert p.stat().st_size < 1_100_000
    msg = error_of(lambda: read(p, row_for(p, split="line"), ReadLimits(max_doc_bytes=1 << 30, max_inflate_ratio=20)))
    assert msg.startswith(f"{p}: inflates past") and "possible decompression bomb" in msg


def test_zip_bomb_fetch_one_line_nothing_published(tmp_path):
    p = zip_bomb(tmp_path / "bomb.zip", "zeros.txt", mib=300)
    data = p.read_bytes()
    row = {"source_id": "bomb", "role": "corpus", "url": str(p), "sha256": hashlib.sha256(data).hexdigest(),
           "bytes": len(data), "license_spdx": "MIT", "format": "text", "split": "line"}
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", [row])
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["bomb"], artifacts=tmp_path / "art",
                       fetch={"max_inflate_ratio": 200, "max_doc_bytes": 1 << 30, "max_inflate_bytes": 1 << 40})
    line = error_line(run_corpus("--config", cfg, "fetch", "--workers", "1"))
    assert f"{p}#zeros.txt: inflates past" in line
    assert not [q for q in (tmp_path / "art" / "corpus" / "raw").glob("*/*") if not q.name.endswith(".incomplete")]


def first_over(docs, limit, size=lambda t: len(t.encode())):
    return next(loc for loc, text in docs if size(text) > limit)


def test_max_doc_bytes_regex_and_file_documents(tmp_path, wiki_head):
    p = tmp_path / "wiki.test.raw"
    p.write_bytes(wiki_head)
    row = row_for(p, split="regex", pattern=WIKI_ARTICLES)
    docs = list(reference.read_documents(p, row))
    sizes = sorted(len(t.encode()) for _, t in docs)
    limit = (sizes[-2] + sizes[-1]) // 2  # only the largest article is over
    want = first_over(docs, limit)
    for c in (1, 7, 4096):
        assert error_of(lambda: read(p, row, tiny(c, 64, max_doc_bytes=limit))).startswith(f"{want}: document larger")
    assert read(p, row, tiny(7, 64, max_doc_bytes=sizes[-1] + 8)) == docs  # + its surrounding CRLFs
    msg = error_of(lambda: read(p, row_for(p, split="file"), tiny(100, max_doc_bytes=len(wiki_head) - 1)))
    assert msg.startswith(f"{p}#1: document larger than [fetch].max_doc_bytes ({len(wiki_head) - 1} bytes)")
    frow = row_for(p, split="file")
    assert read(p, frow, tiny(100, max_doc_bytes=len(wiki_head))) == list(reference.read_documents(p, frow))


def test_max_doc_bytes_lines_jsonl_paragraphs(tmp_path, mirror):
    path = mirror_file("gsm8k-test")
    row = dict(ledger_rows()["gsm8k-test"])
    lines = path.read_bytes().splitlines(keepends=True)
    longest = max(len(line) for line in lines)
    n = next(i for i, line in enumerate(lines, 1) if len(line) > longest - 1)
    for c in (5, 64, 1 << 20):  # early (while the line is read) or late, the same error
        msg = error_of(lambda: read(path, row, tiny(c, max_doc_bytes=longest - 1)))
        assert msg == (f"{row['url']}#{n}: line larger than [fetch].max_doc_bytes ({longest - 1} bytes); refused "
                       f"(raise the limit or split the source)")
    assert len(read(path, row, tiny(64, max_doc_bytes=longest))) == len(lines)
    en = mirror_file("lingua-en").read_bytes().splitlines(keepends=True)[:400]
    paras = tmp_path / "paras.txt"  # paragraphs of 5 real sentences
    paras.write_bytes(b"".join(b"".join(en[i:i + 5]) + b"\n" for i in range(0, len(en), 5)))
    prow = row_for(paras, split="paragraph")
    docs = list(reference.read_documents(paras, prow))
    limit = max(len(line) for line in en)  # every line fits; paragraphs (their lines with the \n) may not
    want = next(loc for loc, t in docs if len(t.encode()) + 1 > limit)
    for c in (3, 4096):
        msg = error_of(lambda: read(paras, prow, tiny(c, max_doc_bytes=limit)))
        assert msg.startswith(f"{want}: document larger than [fetch].max_doc_bytes ({limit} bytes)")
    assert read(paras, prow, tiny(7, max_doc_bytes=max(len(t.encode()) for _, t in docs) + 1)) == docs
    items = json.loads(mirror_file("presidio-pii-sentences").read_text())
    pq.write_table(pa.table({"full_text": [i["full_text"] for i in items]}), tmp_path / "p.parquet")
    prow = row_for(tmp_path / "p.parquet", format="parquet", text_fields=["full_text"])
    longest = max(len(i["full_text"].encode()) for i in items)
    k = next(k for k, i in enumerate(items) if len(i["full_text"].encode()) == longest)
    assert error_of(lambda: read(tmp_path / "p.parquet", prow, ReadLimits(max_doc_bytes=longest - 1))).startswith(
        f"{tmp_path / 'p.parquet'}#row{k}: document larger")
    jpath = mirror_file("presidio-pii-sentences")
    msg = error_of(lambda: read(jpath, ledger_rows()["presidio-pii-sentences"], ReadLimits(max_doc_bytes=50_000)))
    assert "JSON array source is parsed whole" in msg and "max_doc_bytes (50000 bytes)" in msg


# ---------------------------------------------------------------- BOM and codecs

def test_utf8_bom_stripped(tmp_path, mirror, inaugural_members):
    text = head_lines(mirror_file("lingua-en").read_bytes(), 3000)
    plain, bom = tmp_path / "plain.txt", tmp_path / "bom.txt"
    plain.write_bytes(text)
    bom.write_bytes(b"\xef\xbb\xbf" + text)
    for split, extra in (("line", {}), ("paragraph", {}), ("file", {}), ("regex", {"pattern": r"\n"})):
        for c in (1, 2, 4096):
            got = read(bom, row_for(bom, split=split, **extra), tiny(c))
            want = read(plain, row_for(plain, split=split, **extra), tiny(c))
            assert [t for _, t in got] == [t for _, t in want] and not got[0][1].startswith("\ufeff")
    j = tmp_path / "bom.jsonl"
    j.write_bytes(b"\xef\xbb\xbf" + mirror_file("gsm8k-test").read_bytes()[:5000].rsplit(b"\n", 1)[0] + b"\n")
    assert read(j, row_for(j, format="jsonl", text_fields=["question"]))[0][1].startswith("Janet")
    z = tmp_path / "bom.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.txt", b"\xef\xbb\xbf" + text)
    assert not read(z, row_for(z, split="line"))[0][1].startswith("\ufeff")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"\xef\xbb\xbf" + text)  # not UTF-8: the bytes are text (three latin-1 characters)
    assert read(latin, row_for(latin, split="line", encoding="latin-1"))[0][1].startswith("ï»¿")


def test_unknown_encoding_named_when_the_ledger_is_read(tmp_path, mirror):
    from corpus.config.ledger import load_ledger
    rows = [json.loads(line) for line in LEDGER.read_text().splitlines()[:3]]
    rows[2]["encoding"] = "utf-9"
    ledger = write_ledger(tmp_path / "LEDGER.jsonl", rows)
    msg = error_of(lambda: load_ledger(ledger))
    assert msg == f"{ledger}:3: source '{rows[2]['source_id']}': unknown encoding 'utf-9'"
    rows[2]["encoding"] = "rot13"
    write_ledger(ledger, rows)
    assert "'rot13' is not a text encoding" in error_of(lambda: load_ledger(ledger))
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=[rows[0]["source_id"]], artifacts=tmp_path / "a")
    line = error_line(run_corpus("--config", cfg, "fetch"))
    assert f"{ledger}:3: source '{rows[2]['source_id']}'" in line


# ---------------------------------------------------------------- config and raw parts

def test_fetch_config_defaults_are_the_reader_defaults(tmp_path):
    from corpus.config import load_config
    cfg = load_config(write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["lee-background"], artifacts=tmp_path))
    assert ReadLimits.from_fetch(cfg["fetch"]) == ReadLimits()
    assert cfg["fetch"]["unit_bytes"] == 64 << 20
    cfg = load_config(write_config(tmp_path / "d.toml", ledger=LEDGER, sources=["lee-background"], artifacts=tmp_path,
                                   fetch={"max_doc_bytes": 4096, "max_inflate_ratio": 50, "max_inflate_bytes": 1 << 30}))
    assert ReadLimits.from_fetch(cfg["fetch"]) == ReadLimits(max_doc_bytes=4096, max_inflate_ratio=50,
                                                             max_inflate_bytes=1 << 30)


def test_raw_part_read_back_and_truncation(tmp_path, mirror):
    from corpus.formats.jsonl import ZstJsonlWriter, read_zst_jsonl
    docs = read(mirror_file("lee-background"), ledger_rows()["lee-background"])
    writer = ZstJsonlWriter(tmp_path, part_docs=10**6)
    for loc, text in docs:
        writer.write({"url": loc, "text": text})
    (part, rows), = writer.close()
    assert [(r["url"], r["text"]) for r in read_zst_jsonl(part)] == docs and rows == len(docs)
    data = part.read_bytes()
    part.write_bytes(data[: len(data) - 7])
    with pytest.raises(CorpusError, match=rf"^{part}:\d+: truncated or corrupt zstd data: zstd stream ends inside a frame"):
        list(read_zst_jsonl(part))
