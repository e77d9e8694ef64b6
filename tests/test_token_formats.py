"""Token file formats: Megatron MMIDIDX v1 .bin/.idx, nanoGPT, llm.c and datatrove exports.

Each format is also decoded here independently (struct / np.frombuffer from the published layout), so a
writer and its own reader cannot agree on a wrong format."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from corpus.config.schemas import load_schema
from corpus.tokens.exports import (read_datatrove, read_llmc_shard, read_nanogpt, write_datatrove,
                                   write_llmc_shard, write_nanogpt)
from corpus.formats.megatron import (MegatronIndex, MegatronWriter, check_range, choose_dtype,
                                    manifest_file_entry)

RNG = np.random.default_rng(0)


def random_docs(n: int, high: int, max_len: int = 40) -> list[np.ndarray]:
    return [RNG.integers(0, high, size=int(RNG.integers(1, max_len))) for _ in range(n)]


def write_megatron(prefix: Path, docs: list[np.ndarray], dtype) -> tuple[int, int]:
    with MegatronWriter(prefix, dtype) as w:
        for d in docs:
            w.add_document(d)
    return w.close()


def decode_idx(path: Path) -> dict:
    """MMIDIDX v1 straight from the layout: magic, u64 version, u8 code, u64 N, u64 N+1,
    i32 lengths[N], i64 pointers[N], i64 doc_idx[N+1]."""
    raw = path.read_bytes()
    magic, version, code, n_seq, n_doc = struct.unpack_from("<9sQBQQ", raw, 0)
    off = 9 + 8 + 1 + 8 + 8
    lengths = np.frombuffer(raw, dtype="<i4", count=n_seq, offset=off)
    off += 4 * n_seq
    pointers = np.frombuffer(raw, dtype="<i8", count=n_seq, offset=off)
    off += 8 * n_seq
    doc_idx = np.frombuffer(raw, dtype="<i8", count=n_doc, offset=off)
    off += 8 * n_doc
    return {"magic": magic, "version": version, "code": code, "n_seq": n_seq, "n_doc": n_doc,
            "lengths": lengths, "pointers": pointers, "doc_idx": doc_idx, "trailing": len(raw) - off}


# ---- dtype choice and the range check

def test_choose_dtype_boundaries():
    assert choose_dtype(0) == np.uint16
    assert choose_dtype(65_535) == np.uint16
    assert choose_dtype(65_536) == np.uint32
    assert choose_dtype(2**31 - 1) == np.uint32
    for bad in (-1, 2**31):
        with pytest.raises(ValueError):
            choose_dtype(bad)


def test_range_check_refuses_70000_into_uint16(tmp_path):
    big = np.array([5, 70_000])
    assert int(big.astype(np.uint16)[1]) == 4_464  # what an unchecked cast would store
    with pytest.raises(ValueError, match="70000"):
        check_range(big, np.uint16)
    w = MegatronWriter(tmp_path / "p", np.uint16)
    w.add_document(np.array([1, 2, 3]))
    with pytest.raises(ValueError):
        w.add_document(big)
    with pytest.raises(ValueError):
        w.add_document(np.array([-1]))
    assert w.close() == (1, 3)  # the refused documents left nothing behind
    assert MegatronIndex(tmp_path / "p").document(0).tolist() == [1, 2, 3]


def test_range_check_rejects_non_integers_and_32bit_overflow():
    with pytest.raises(ValueError, match="integers"):
        check_range(np.array([1.0, 2.0]), np.uint16)
    with pytest.raises(ValueError):
        check_range(np.array([2**31]), np.uint32)  # Megatron reads code 4 as int32
    with pytest.raises(ValueError):
        check_range(np.array([1]), np.int64)
    check_range(np.array([0, 65_535], dtype=np.int64), np.uint16)
    check_range(np.array([], dtype=np.int64), np.uint16)


# ---- Megatron .bin/.idx

@pytest.mark.parametrize("dtype,high,code", [(np.uint16, 65_536, 8), (np.uint32, 200_000, 4)])
def test_megatron_layout_decoded_independently(tmp_path, dtype, high, code):
    docs = random_docs(25, high) + [np.array([high - 1, 0])]
    n_docs, n_tokens = write_megatron(tmp_path / "part-00000", docs, dtype)
    assert (n_docs, n_tokens) == (26, sum(map(len, docs)))

    idx = decode_idx(tmp_path / "part-00000.idx")
    assert idx["magic"] == b"MMIDIDX\x00\x00" and idx["version"] == 1 and idx["code"] == code
    assert idx["n_seq"] == 26 and idx["n_doc"] == 27 and idx["trailing"] == 0
    assert idx["lengths"].tolist() == [len(d) for d in docs]
    itemsize = np.dtype(dtype).itemsize
    assert idx["pointers"].tolist() == (np.concatenate([[0], np.cumsum([len(d) for d in docs])[:-1]]) * itemsize).tolist()
    assert idx["doc_idx"].tolist() == list(range(27))

    flat = np.fromfile(tmp_path / "part-00000.bin", dtype=np.dtype(dtype).newbyteorder("<"))
    assert np.array_equal(flat, np.concatenate(docs))
    for i, d in enumerate(docs):
        start = idx["pointers"][i] // itemsize
        assert np.array_equal(flat[start:start + idx["lengths"][i]], d)


@pytest.mark.parametrize("dtype,high", [(np.uint16, 65_536), (np.uint32, 1_000_000)])
def test_megatron_reader_round_trip(tmp_path, dtype, high):
    docs = random_docs(30, high)
    write_megatron(tmp_path / "p", docs, dtype)
    index = MegatronIndex(tmp_path / "p")
    assert index.dtype == dtype and len(index) == 30 and index.n_tokens == sum(map(len, docs))
    assert index.lengths.dtype == np.int32 and index.pointers.dtype == np.int64
    assert index.doc_idx.tolist() == list(range(31))
    assert index.bin_bytes == (tmp_path / "p.bin").stat().st_size
    for i, d in enumerate(docs):
        assert np.array_equal(index.document(i), d)
    assert isinstance(index.tokens(), np.memmap)
    if dtype == np.uint32:
        assert int(index.tokens().max()) > 65_535  # ids past uint16 survive


def test_add_raw_moves_bytes_like_a_shuffle(tmp_path):
    docs = random_docs(20, 50_000)
    write_megatron(tmp_path / "unshuffled", docs, np.uint16)
    source = MegatronIndex(tmp_path / "unshuffled")
    order = RNG.permutation(20)
    with MegatronWriter(tmp_path / "shuffled", np.uint16) as w:
        for i in order:
            w.add_raw(source.document(int(i)).tobytes(), int(source.lengths[i]))
    moved = MegatronIndex(tmp_path / "shuffled")
    for j, i in enumerate(order):
        assert np.array_equal(moved.document(j), docs[i])
    with pytest.raises(ValueError, match="bytes"):
        MegatronWriter(tmp_path / "x", np.uint16).add_raw(b"\x00\x00\x00", 2)


def test_add_raw_range_checks_32bit_bytes(tmp_path):
    w = MegatronWriter(tmp_path / "x", np.uint32)
    with pytest.raises(ValueError):
        w.add_raw(np.array([2**31], dtype="<u4").tobytes(), 1)
    with pytest.raises(ValueError):
        w.add_raw_documents(np.array([1, 2**31], dtype="<u4").tobytes(), np.array([1, 1]))
    w.abort()


def test_add_raw_documents_is_add_raw_for_each(tmp_path):
    """Several documents in one write (the tokenize stage's write_part): the same .bin and .idx bytes."""
    docs = random_docs(30, 50_000)
    with MegatronWriter(tmp_path / "one", np.uint16) as w:
        for d in docs:
            w.add_raw(d.astype("<u2").tobytes(), len(d))
    with MegatronWriter(tmp_path / "many", np.uint16) as w:
        w.add_raw_documents(b"".join(d.astype("<u2").tobytes() for d in docs[:7]), [len(d) for d in docs[:7]])
        w.add_raw_documents(b"", [])
        w.add_raw_documents(b"".join(d.astype("<u2").tobytes() for d in docs[7:]), np.array([len(d) for d in docs[7:]]))
    for suffix in (".bin", ".idx"):
        assert (tmp_path / f"many{suffix}").read_bytes() == (tmp_path / f"one{suffix}").read_bytes()
    with pytest.raises(ValueError, match="bytes"):
        MegatronWriter(tmp_path / "x", np.uint16).add_raw_documents(b"\x00" * 6, [1, 1])


def test_writer_is_atomic(tmp_path):
    w = MegatronWriter(tmp_path / "p", np.uint16)
    w.add_document(np.arange(10))
    assert not (tmp_path / "p.bin").exists() and not (tmp_path / "p.idx").exists()
    w.close()
    assert (tmp_path / "p.bin").exists() and (tmp_path / "p.idx").exists()

    with pytest.raises(RuntimeError):
        with MegatronWriter(tmp_path / "q", np.uint16) as w2:
            w2.add_document(np.arange(5))
            raise RuntimeError("crash mid-part")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.bin", "p.idx"]  # no q files, no temps
    with pytest.raises(ValueError, match="aborted"):
        w2.close()


def test_empty_part(tmp_path):
    assert write_megatron(tmp_path / "e", [], np.uint16) == (0, 0)
    idx = decode_idx(tmp_path / "e.idx")
    assert idx["n_seq"] == 0 and idx["doc_idx"].tolist() == [0]
    index = MegatronIndex(tmp_path / "e")
    assert len(index) == 0 and len(index.tokens()) == 0 and index.bin_bytes == 0


def test_reader_rejects_bad_files(tmp_path):
    write_megatron(tmp_path / "p", random_docs(3, 100), np.uint16)
    raw = bytearray((tmp_path / "p.idx").read_bytes())
    (tmp_path / "bad.bin").write_bytes(b"")
    for name, data, message in [("magic", b"X" + raw[1:], "magic"), ("code", raw[:17] + b"\x05" + raw[18:], "code"),
                                ("short", raw[:-8], "bytes")]:
        (tmp_path / "bad.idx").write_bytes(bytes(data))
        with pytest.raises(ValueError, match=message):
            MegatronIndex(tmp_path / "bad")


def test_manifest_file_entry(tmp_path):
    docs = random_docs(4, 1000)
    write_megatron(tmp_path / "train" / "part-00000", docs, np.uint16)
    entry = manifest_file_entry(tmp_path / "train" / "part-00000", tmp_path)
    assert entry["bin"] == "train/part-00000.bin" and entry["idx"] == "train/part-00000.idx"
    assert entry["docs"] == 4 and entry["tokens"] == sum(map(len, docs)) and entry["bin_bytes"] == 2 * entry["tokens"]
    assert len(entry["bin_sha256"]) == 64 and len(entry["idx_sha256"]) == 64


# ---- exports

@pytest.mark.parametrize("high,dtype", [(50_257, np.uint16), (128_256, np.uint32)])
def test_nanogpt_round_trip(tmp_path, high, dtype):
    tokens = RNG.integers(0, high, size=1000)
    tokens[0] = high - 1
    assert write_nanogpt(tokens, tmp_path / "train.bin") == dtype
    assert (tmp_path / "train.bin").stat().st_size == 1000 * np.dtype(dtype).itemsize  # no header
    assert np.array_equal(np.memmap(tmp_path / "train.bin", dtype=dtype, mode="r"), tokens)  # as nanoGPT reads it
    assert np.array_equal(read_nanogpt(tmp_path / "train.bin", dtype), tokens)


def test_nanogpt_refuses_forced_narrow_dtype(tmp_path):
    with pytest.raises(ValueError):
        write_nanogpt(np.array([70_000]), tmp_path / "t.bin", dtype=np.uint16)
    assert not (tmp_path / "t.bin").exists()


@pytest.mark.parametrize("high,dtype,magic,version", [(50_257, np.uint16, 20240520, 1),
                                                      (128_256, np.uint32, 20240801, 7)])
def test_llmc_round_trip(tmp_path, high, dtype, magic, version):
    tokens = RNG.integers(0, high, size=777)
    tokens[3] = high - 1
    assert write_llmc_shard(tokens, tmp_path / "s.bin") == dtype
    raw = (tmp_path / "s.bin").read_bytes()
    header = np.frombuffer(raw[:1024], dtype="<i4")  # 256 int32 header, decoded from the layout
    assert header[:3].tolist() == [magic, version, 777] and not header[3:].any()
    assert np.array_equal(np.frombuffer(raw[1024:], dtype=np.dtype(dtype).newbyteorder("<")), tokens)
    assert np.array_equal(read_llmc_shard(tmp_path / "s.bin"), tokens)


def test_llmc_reader_checks_header(tmp_path):
    write_llmc_shard(np.arange(10), tmp_path / "s.bin")
    raw = bytearray((tmp_path / "s.bin").read_bytes())
    (tmp_path / "bad.bin").write_bytes(struct.pack("<i", 123) + raw[4:])
    with pytest.raises(ValueError, match="magic"):
        read_llmc_shard(tmp_path / "bad.bin")
    (tmp_path / "bad.bin").write_bytes(raw[:-2])
    with pytest.raises(ValueError, match="claims"):
        read_llmc_shard(tmp_path / "bad.bin")


@pytest.mark.parametrize("high,dtype", [(50_257, np.uint16), (128_256, np.uint32)])
def test_datatrove_round_trip(tmp_path, high, dtype):
    docs = random_docs(12, high) + [np.array([high - 1])]
    assert write_datatrove(docs, tmp_path / "x.ds", tokenizer_name="bpe") == (13, sum(map(len, docs)))
    # independent decode: .ds flat ids, .ds.index uint64 document ends in tokens
    ends = np.frombuffer((tmp_path / "x.ds.index").read_bytes(), dtype="<u8")
    assert ends.tolist() == np.cumsum([len(d) for d in docs]).tolist()
    flat = np.frombuffer((tmp_path / "x.ds").read_bytes(), dtype=np.dtype(dtype).newbyteorder("<"))
    starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
    for d, s, e in zip(docs, starts, ends.astype(np.int64)):
        assert np.array_equal(flat[s:e], d)
    meta = (tmp_path / "x.ds.metadata").read_text().splitlines()
    assert meta[0] == f"bpe|{np.dtype(dtype).itemsize}" and meta[1] == str(len(flat))
    tokens, ends2 = read_datatrove(tmp_path / "x.ds")
    assert np.array_equal(tokens, np.concatenate(docs)) and np.array_equal(ends2, ends)


def test_datatrove_refuses_out_of_range_before_writing(tmp_path):
    with pytest.raises(ValueError):
        write_datatrove([np.array([1]), np.array([70_000])], tmp_path / "x.ds", dtype=np.uint16)
    assert list(tmp_path.iterdir()) == []


# ---- the tokens manifest schema

def example_manifest() -> dict:
    h = "ab" * 32
    return {"dataset": "demo", "version": "v1", "tokenizer_id": "bpe-8192-1a2b3c4d5e6f",
            "corpus_manifest_sha256": h, "config_sha256": h,
            "tokenizer": {"file": "tokenizer.json", "sha256": h, "vocab_size": 8192, "eos_id": 0,
                          "eos_token": "<|endoftext|>", "dtype": "uint16",
                          "special_tokens": {"<|endoftext|>": 0, "<EMAIL>": 1}},
            "seed": 1337, "budgets": {"max_documents": None, "train_tokens": None, "max_tokens_per_file": 100000000},
            "splits": {"train": {"docs": 10, "tokens": 1234, "files": [
                {"bin": "train/part-00000.bin", "idx": "train/part-00000.idx", "bin_sha256": h, "idx_sha256": h,
                 "bin_bytes": 2468, "docs": 10, "tokens": 1234}]},
                "val": {"docs": 0, "tokens": 0, "files": []}},
            "packages": {"corpus": "0.1.0", "tokenizers": "0.23.3", "numpy": "2.4.6"}}


def test_schema_accepts_the_documented_manifest():
    schema = load_schema("tokens-manifest.schema.json")
    jsonschema.Draft202012Validator(schema).validate(example_manifest())


@pytest.mark.parametrize("mutate", [
    lambda m: m["tokenizer"].update(dtype="int32"),
    lambda m: m.pop("splits"),
    lambda m: m["splits"].pop("val"),
    lambda m: m.update(extra=1),
    lambda m: m["splits"]["train"]["files"][0].update(bin="../etc/part.bin"),
    lambda m: m["splits"]["train"]["files"][0].update(bin_sha256="XYZ"),
    lambda m: m["budgets"].update(max_tokens_per_file=0),
    lambda m: m["splits"]["train"]["files"][0].pop("idx"),
])
def test_schema_rejects_bad_manifests(mutate):
    manifest = json.loads(json.dumps(example_manifest()))
    mutate(manifest)
    validator = jsonschema.Draft202012Validator(load_schema("tokens-manifest.schema.json"))
    assert list(validator.iter_errors(manifest))
