"""The bad-input catalogue: every case is one table row. Each gives one error line (`error: ...`) naming
the file and the place, a non-zero exit, no traceback, nothing newly published, and every earlier output
byte-identical.

Two families: SOURCE cases build a small workspace whose source `good` was fetched earlier and add a bad
source, ledger or config (`corpus fetch`); ARTIFACT cases clone the fault-injection reference run, damage
one published file and run the stage (or audit) that reads it."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard

from conftest import LEDGER, error_line, mirror_file, run_corpus, write_config, write_ledger
from faults.conftest import clone, published

from .conftest import CASES as CASES_RUN


# ---------------------------------------------------------------- source cases

def stories_bytes() -> bytes:
    return b"".join(mirror_file("tinystories-train-head").read_bytes().splitlines(keepends=True)[:40])


def row_for(path: Path, source_id: str, **kw) -> dict:
    data = path.read_bytes()
    row = {"source_id": source_id, "role": "corpus", "url": str(path), "sha256": hashlib.sha256(data).hexdigest(),
           "bytes": len(data), "license_spdx": "MIT", "format": "text", "split": "paragraph"}
    row.update(kw)
    return row


@pytest.fixture(scope="session")
def fetched_good(tmp_path_factory, mirror) -> Path:
    """A workspace whose source `good` is fetched and published (the earlier output every case keeps)."""
    root = tmp_path_factory.mktemp("badinput-base")
    good = root / "good.txt"
    good.write_bytes(stories_bytes())
    ledger = write_ledger(root / "LEDGER.jsonl", [row_for(good, "good")])
    cfg = write_config(root / "c.toml", ledger=ledger, sources=["good"], artifacts=root / "art")
    proc = run_corpus("--config", cfg, "fetch")
    assert proc.returncode == 0, proc.stderr
    return root


def _compress(kind: str, data: bytes) -> bytes:
    return {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
            "zst": zstandard.ZstdCompressor().compress}[kind](data)


def truncated(kind):
    def make(d: Path):
        p = d / f"bad.txt.{kind}"
        packed = _compress(kind, stories_bytes() * 4)
        p.write_bytes(packed[: len(packed) // 2])
        return [row_for(p, "bad")], {}, [str(p)]
    return make


def corrupt(kind):
    def make(d: Path):
        p = d / f"bad.txt.{kind}"
        packed = bytearray(_compress(kind, stories_bytes() * 4))
        mid = len(packed) // 2
        packed[mid:mid + 16] = bytes(16)  # zeroed bytes inside the stream; the ledger sha256 matches them
        p.write_bytes(bytes(packed))
        return [row_for(p, "bad")], {}, [str(p)]
    return make


def archive_slip(kind):
    def make(d: Path):
        p = d / f"evil.{kind}"
        if kind == "zip":
            with zipfile.ZipFile(p, "w") as z:
                z.writestr("docs/ok.txt", stories_bytes())
                z.writestr("../../evil.txt", b"owned")
        else:
            with tarfile.open(p, "w") as t:
                for name, payload in [("docs/ok.txt", stories_bytes()), ("docs/../../evil.txt", b"owned")]:
                    info = tarfile.TarInfo(name)
                    info.size = len(payload)
                    t.addfile(info, io.BytesIO(payload))
        return [row_for(p, "bad", split="file")], {}, [str(p), "escapes its folder"]
    return make


def tar_link(kind):
    def make(d: Path):
        p = d / "links.tar"
        with tarfile.open(p, "w") as t:
            info = tarfile.TarInfo("docs/ok.txt")
            data = stories_bytes()
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("docs/passwd.txt")
            link.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
            link.linkname = "/etc/passwd" if kind == "sym" else "docs/ok.txt"
            t.addfile(link)
        return [row_for(p, "bad", split="file", members="docs/*")], {}, [str(p), "docs/passwd.txt"]
    return make


def jsonl(text: str, want: list[str], **kw):
    def make(d: Path):
        p = d / "bad.jsonl"
        p.write_text(text)
        return [row_for(p, "bad", format="jsonl", split=None, **kw) | ({} if "split" in kw else {})], {}, \
            [s.replace("{p}", str(p)) for s in want]
    return make


def _no_split(rows):
    for r in rows:
        if r.get("split") is None:
            r.pop("split", None)
    return rows


def invalid_utf8(d: Path):
    p = d / "bad.txt"
    lines = stories_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:10] + b"\xff\xfe" + lines[2][10:]
    p.write_bytes(b"".join(lines))
    return [row_for(p, "bad")], {}, [f"{p}:3: invalid utf-8 at column 11"]


def plain(d: Path) -> Path:
    p = d / "bad.txt"
    p.write_bytes(stories_bytes())
    return p


def ledger_change(fn, want):
    def make(d: Path):
        row = row_for(plain(d), "bad")
        rows, cfg = fn(row)
        return rows, cfg, want
    return make


SOURCE_CASES = {
    "gz truncated": truncated("gz"), "bz2 truncated": truncated("bz2"), "xz truncated": truncated("xz"),
    "zst truncated": truncated("zst"), "gz corrupt": corrupt("gz"), "bz2 corrupt": corrupt("bz2"),
    "xz corrupt": corrupt("xz"), "zst corrupt": corrupt("zst"),
    "zip slip": archive_slip("zip"), "tar slip": archive_slip("tar"),
    "tar symlink member": tar_link("sym"), "tar hard link member": tar_link("hard"),
    "invalid utf-8": invalid_utf8,
    "jsonl invalid json": jsonl('{"text": "fine"}\n{"text": "cut\n', ["{p}:2: invalid JSON"]),
    "jsonl text not a string": jsonl('{"text": "fine"}\n{"text": 42}\n', ["{p}:2: field 'text' is not a string"]),
    "jsonl missing field": jsonl('{"text": "fine"}\n{"body": "x"}\n', ["{p}:2: missing field 'text'"]),
    "jsonl line not an object": jsonl('{"text": "fine"}\n["a list"]\n', ["{p}:2"]),
    "json top level not an array": lambda d: (
        [row_for((d / "bad.json").resolve() if (d / "bad.json").write_text('{"text": "x"}') else d, "bad",
                 format="json", split=None)], {}, [str(d / "bad.json")]),
    "ledger duplicate source_id": ledger_change(lambda r: ([r, dict(r)], {}), ["LEDGER.jsonl:3", "duplicate source_id 'bad'"]),
    "ledger row schema (no licence)": ledger_change(
        lambda r: ([{k: v for k, v in r.items() if k != "license_spdx"}], {}), ["LEDGER.jsonl:2", "license_spdx"]),
    "ledger unknown encoding": ledger_change(lambda r: ([r | {"encoding": "utf-9"}], {}), ["LEDGER.jsonl:2", "utf-9"]),
    "ledger invalid json line": ledger_change(lambda r: (["{not json"], {}), ["LEDGER.jsonl:2"]),
    "ledger sha256 mismatch": ledger_change(lambda r: ([r | {"sha256": "0" * 64}], {}), ["bad.txt", "sha256 mismatch"]),
    "ledger size mismatch": ledger_change(lambda r: ([r | {"bytes": r["bytes"] + 1}], {}), ["bad.txt", "size mismatch"]),
    "ledger unsupported url scheme": ledger_change(lambda r: ([r | {"url": "ftp://example.org/x.txt"}], {}),
                                                   ["unsupported URL scheme 'ftp'"]),
    "config unknown key": ledger_change(lambda r: ([r], {"fetch": {"part_doc": 10}}), ["c.toml", "fetch.part_doc"]),
    "config schema violation": ledger_change(lambda r: ([r], {"fetch": {"part_docs": 0}}), ["c.toml", "part_docs"]),
    "config source not in ledger": ledger_change(lambda r: ([], {}), ["c.toml", "dataset.sources", "'bad'"]),
}


@pytest.mark.parametrize("case", list(SOURCE_CASES))
def test_source_case(case, fetched_good, tmp_path):
    shutil.copytree(fetched_good / "art", tmp_path / "art")
    before = published(tmp_path / "art")
    made = SOURCE_CASES[case](tmp_path)
    rows, tables, want = made
    good = json.loads((fetched_good / "LEDGER.jsonl").read_text())
    ledger = tmp_path / "LEDGER.jsonl"
    ledger.write_text(json.dumps(good) + "\n" + "".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                                                        for r in _no_split([r for r in rows if not isinstance(r, str)])
                                                        + [r for r in rows if isinstance(r, str)]))
    cfg = write_config(tmp_path / "c.toml", ledger=ledger, sources=["good", "bad"], artifacts=tmp_path / "art",
                       **tables)
    line = error_line(run_corpus("--config", cfg, "fetch"))
    for s in want:
        assert s in line, (case, line)
    assert published(tmp_path / "art") == before, case
    assert not [p for p in (tmp_path / "art/corpus/raw").glob("bad/*") if not p.name.endswith(".incomplete")]
    assert not (tmp_path.parent / "evil.txt").exists()
    CASES_RUN.append(case)


# ---------------------------------------------------------------- artifact cases (a damaged published file)

DS = "corpus/t/v1"
NORM, FILT, PII = f"{DS}/stages/02-normalize", f"{DS}/stages/03-filter", f"{DS}/stages/05-pii"


def _json(root: Path, rel: str):
    return json.loads((root / rel).read_text())


def _put(root: Path, rel: str, obj) -> None:
    (root / rel).write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


def refresh_entry(root: Path, stage_dir: str, name: str) -> None:
    """Make the stage manifest agree with a file changed on purpose (so only a recount can catch it)."""
    m = _json(root, f"{stage_dir}/_STAGE.json")
    data = (root / stage_dir / name).read_bytes()
    for p in m["parts"]:
        if p["name"] == name:
            p["sha256"], p["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    _put(root, f"{stage_dir}/_STAGE.json", m)


def tokens_dir(root: Path) -> str:
    (d,) = [p for p in (root / "tokens/t/v1").iterdir() if p.is_dir()]
    return str(d.relative_to(root))


def flip(rel):
    def go(root):
        p = root / rel
        data = bytearray(p.read_bytes())
        data[len(data) // 2] ^= 0xFF
        p.write_bytes(bytes(data))
        return [str(p), "sha256 mismatch"]
    return go


def truncate(rel):
    def go(root):
        p = root / rel
        p.write_bytes(p.read_bytes()[:-10])
        return [str(p), "size mismatch"]
    return go


def edit_json(rel, fn, want, fix_in=None):
    def go(root):
        obj = _json(root, rel)
        fn(obj)
        _put(root, rel, obj)
        if fix_in:
            refresh_entry(root, fix_in, Path(rel).name)
        return [w.replace("{root}", str(root)) for w in want]
    return go


def licence_changed(m):
    m["sources"][0]["license_spdx"] = "CC0-1.0"


def document_moved(m):
    m["sources"][0]["docs"] -= 1
    m["sources"][0]["train"] -= 1
    m["sources"][1]["docs"] += 1
    m["sources"][1]["train"] += 1


def duplicate_part(root):
    m = _json(root, f"{PII}/_STAGE.json")
    first = m["parts"][0]
    shutil.copy(root / PII / first["name"], root / PII / "part-00099.parquet")
    m["parts"].append({**first, "name": "part-00099.parquet"})
    m["counts"]["docs_out"] += first["rows"]
    m["counts"]["docs_in"] += first["rows"]
    _put(root, f"{PII}/_STAGE.json", m)
    return [str(root / PII / "part-00099.parquet"), "document id", "is also in", "part-00000.parquet"]


def unlisted_copy(src_rel, dest_rel):
    def go(root):
        shutil.copy(root / src_rel, root / dest_rel)
        return [str(root / dest_rel), "not listed in"]
    return go


def token_count_plus_one(root):
    t = tokens_dir(root)
    m = _json(root, f"{t}/_MANIFEST.json")
    m["splits"]["train"]["files"][0]["tokens"] += 1
    m["splits"]["train"]["tokens"] += 1
    _put(root, f"{t}/_MANIFEST.json", m)
    refresh_entry(root, t, "_MANIFEST.json")
    return [str(root / t / "_MANIFEST.json"), "splits.train.files[0]", "tokens"]


def unlisted_token_part(root):
    t = tokens_dir(root)
    shutil.copy(root / t / "train/part-00000.bin", root / t / "train/part-00099.bin")
    return [str(root / t / "train/part-00099.bin"), "not listed in"]


def docs_out(rel, delta=1):
    return edit_json(rel, lambda m: m["counts"].__setitem__("docs_out", m["counts"]["docs_out"] + delta),
                     [f"{{root}}/{rel}", "counts.docs_out"])


def part_rows_edited(m):
    m["parts"][0]["rows"] += 1
    m["counts"]["docs_out"] += 1


def bad_part_name(m):
    m["parts"][0]["name"] = "../escape.parquet"


ARTIFACT_CASES = {  # name: (command, damage(root) -> substrings the error line must hold)
    "normalize part flipped": (["filter", "--replace", "--recompute"], flip(f"{NORM}/part-00002.parquet")),
    "normalize part truncated": (["filter", "--replace", "--recompute"], truncate(f"{NORM}/part-00001.parquet")),
    "normalize manifest invalid json": (["filter", "--replace", "--recompute"], lambda r: (
        (r / NORM / "_STAGE.json").write_text('{"stage": "normalize",\n  "parts": [\n'),
        [str(r / NORM / "_STAGE.json") + ":3"])[1]),
    "filter manifest schema violation": (["dedup", "--force"], edit_json(
        f"{FILT}/_STAGE.json", lambda m: m.pop("counts"), [f"{{root}}/{FILT}/_STAGE.json", "counts"])),
    "stage part name escapes": (["filter", "--replace", "--recompute"], edit_json(
        f"{NORM}/_STAGE.json", bad_part_name, [f"{{root}}/{NORM}/_STAGE.json", "parts[0].name"])),
    "pii docs_out edited (shard)": (["shard", "--force"], docs_out(f"{PII}/_STAGE.json")),
    "pii part rows edited (shard)": (["shard", "--force"], edit_json(
        f"{PII}/_STAGE.json", part_rows_edited, [f"{{root}}/{PII}/part-00000.parquet", "holds"])),
    "duplicate document ids": (["shard", "--force"], duplicate_part),
    "filter docs_out edited (run: current check)": (["run"], docs_out(f"{FILT}/_STAGE.json", -1)),
    "corpus manifest invalid json": (["tokenize", "--force"], lambda r: (
        (r / DS / "_MANIFEST.json").write_text("{\n  \"dataset\": \n"), [str(r / DS / "_MANIFEST.json") + ":3"])[1]),
    "shard flipped": (["tokenize", "--force"], flip(f"{DS}/shard-00001-of-00004.parquet")),
    "shard missing": (["tokenize", "--force"], lambda r: (
        (r / DS / "shard-00003-of-00004.parquet").unlink(), [str(r / DS / "shard-00003-of-00004.parquet"), "missing"])[1]),
    "audit: licence changed in _MANIFEST.json": (["audit"], edit_json(
        f"{DS}/_MANIFEST.json", licence_changed, [f"{{root}}/{DS}/_MANIFEST.json"])),
    "audit: licence changed, stage manifest refreshed": (["audit"], edit_json(
        f"{DS}/_MANIFEST.json", licence_changed, [f"{{root}}/{DS}/_MANIFEST.json", "licence", "CC0-1.0"], fix_in=DS)),
    "audit: a document moved between sources": (["audit"], edit_json(
        f"{DS}/_MANIFEST.json", document_moved, [f"{{root}}/{DS}/_MANIFEST.json", "sources[0].docs", "recomputed"],
        fix_in=DS)),
    "audit: +1 on a token file's count": (["audit"], token_count_plus_one),
    "audit: unlisted shard": (["audit"], unlisted_copy(f"{DS}/shard-00000-of-00004.parquet",
                                                       f"{DS}/shard-00009-of-00004.parquet")),
    "audit: unlisted token part": (["audit"], unlisted_token_part),
    "audit: unlisted stage part": (["audit"], unlisted_copy(f"{NORM}/part-00000.parquet", f"{NORM}/part-00077.parquet")),
    "audit: pii docs_out edited": (["audit"], docs_out(f"{PII}/_STAGE.json")),
}


@pytest.mark.parametrize("case", list(ARTIFACT_CASES))
def test_artifact_case(case, reference, tmp_path):  # noqa: F811
    cfg = clone(reference, tmp_path)
    root = tmp_path / "a"
    args, damage = ARTIFACT_CASES[case]
    want = damage(root)
    before = published(root)
    line = error_line(run_corpus("--config", cfg, *args, "--workers", "1") if args[0] != "audit"
                      else run_corpus("--config", cfg, *args))
    for s in want:
        assert s in line, (case, s, line)
    assert published(root) == before, case
    CASES_RUN.append(case)


# ---------------------------------------------------------------- cases that need a rebuilt or full disk

def test_empty_corpus_names_the_stage_that_emptied_it(reference, tmp_path):  # noqa: F811
    """Every document filtered out: shard refuses with one line naming stage 03 (never an empty dataset)."""
    from corpus.config import load_config
    from corpus.engine.runner import RunOptions
    from corpus.stages import run_stage
    from faults.conftest import SOURCES, TABLES

    clone(reference, tmp_path)
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "a",
                       **TABLES, **{"filters.lang": {"keep": ["zz"]}})
    for stage in ("normalize", "filter", "dedup", "pii"):  # every stage that records the config, in order
        run_stage(stage, load_config(cfg), RunOptions(workers=1, force=True))
    before = published(tmp_path / "a")
    line = error_line(run_corpus("--config", cfg, "shard", "--force"))
    assert f"{tmp_path / 'a' / FILT / '_STAGE.json'}: stage 03-filter dropped all 1157 documents" in line, line
    assert "lang 1157" in line and "nothing published" in line
    assert published(tmp_path / "a") == before
    CASES_RUN.append("empty corpus")


def test_disk_full_names_the_file_and_the_bytes(reference, tmp_path):  # noqa: F811
    """A tmpfs just larger than the artifacts: normalize --force runs out of space in its staging dir."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    used = sum(p.stat().st_size for p in (reference / "a").rglob("*") if p.is_file())
    size = used + 200 * 1024 + 4096 * len(list((reference / "a").rglob("*")))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copytree(reference / "a", mnt / "a", symlinks=True)
        from faults.conftest import SOURCES, TABLES

        cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=mnt / "a", **TABLES)
        before = published(mnt / "a")
        line = error_line(run_corpus("--config", cfg, "normalize", "--replace", "--recompute", "--workers", "1"))
        assert f"{mnt / 'a' / DS}/stages/02-normalize.incomplete/" in line and "no space left on device" in line, line
        assert "bytes" in line and "free on its filesystem" in line, line
        assert published(mnt / "a") == before
    finally:
        subprocess.run(["umount", "-l", str(mnt)])
    CASES_RUN.append("disk full")
