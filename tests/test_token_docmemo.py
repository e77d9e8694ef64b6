"""tokens.docmemo through the encode unit: a shard that lost some documents and gained two (one long
enough to be encoded in pieces) encodes only the two, the others' ids read from the per-document cache,
and its work files are byte for byte those of an encode without the cache."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pytest
import pyarrow.parquet as pq

from corpus.stages import tokenize
from corpus.tokens import encode
from corpus.tokens.tokenizer import tokenizer_facts
from test_bounded_units import tiny_shard


def encode_with(tmp_path: Path, name: str, shard: Path, tok: Path, cache: Path | None) -> tuple[dict, dict]:
    work = tmp_path / name
    work.mkdir()
    eos = tokenizer_facts(tok.read_bytes(), "<|endoftext|>")["eos_id"]
    unit = encode.EncodeUnit("shard-00000", 0, shard, hashlib.sha256(shard.read_bytes()).hexdigest(), tok, eos,
                             "uint16", work, 1, 7, hashlib.sha256(tok.read_bytes()).hexdigest(), cache)
    res = tokenize.encode_shard(unit)
    return {e["name"].split("/")[-1]: e["sha256"] for e in res["work"]}, res


@pytest.mark.slow  # ~2-4 s: the full tier
def test_a_changed_shard_encodes_only_its_new_documents_and_gives_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(encode, "ENCODE_BATCH_CHARS_PER_THREAD", 2000)  # the long document goes in pieces
    first, _, tok = tiny_shard(tmp_path)
    cache = tmp_path / "artifacts"
    _, res = encode_with(tmp_path, "first", first, tok, cache)
    assert res["docs_cache"] == {"hits": 0, "computed": 400}
    t = pq.read_table(first)
    keep = [i for i in range(t.num_rows) if i % 10]
    texts = t.column("text").to_pylist()
    new = ["A story that was not there before, about a dog and a ball.", " ".join(texts[:40])]
    changed = pa.table({"text": [texts[i] for i in keep] + new,
                        "split": [t.column("split")[i].as_py() for i in keep] + ["train", "val"]})
    second = tmp_path / "second.parquet"
    pq.write_table(changed, second, compression="zstd")
    files, res = encode_with(tmp_path, "cached", second, tok, cache)
    assert res["cache"] == "computed" and res["docs_cache"] == {"hits": len(keep), "computed": 2}
    assert files == encode_with(tmp_path, "plain", second, tok, None)[0]
    # the entry now holds the second shard's documents only: the dropped ones are gone from it
    pq.write_table(pq.read_table(first).slice(0, 399), tmp_path / "third.parquet", compression="zstd")
    _, res = encode_with(tmp_path, "third", tmp_path / "third.parquet", tok, cache)
    known = len([i for i in keep if i < 399])
    assert res["docs_cache"] == {"hits": known, "computed": 399 - known}


def with_digests(table: pa.Table) -> pa.Table:
    """The table with the shard stage's `sha256` column: each text's UTF-8 sha256."""
    digests = [hashlib.sha256(t.encode("utf-8")).digest() for t in table.column("text").to_pylist()]
    return table.append_column("sha256", pa.array(digests, pa.binary(32)))


@pytest.mark.slow  # ~2-4 s: the full tier
def test_a_shard_with_its_sha256_column_is_looked_up_by_it(tmp_path, monkeypatch):
    """A shard carrying `sha256` (as the shard stage writes it) is looked up by that column: when the
    cache knows every document, neither its texts nor the tokenizer are read; with some new documents,
    only those are encoded. Either way the bytes are an encode without the cache's."""
    monkeypatch.setattr(encode, "ENCODE_BATCH_CHARS_PER_THREAD", 2000)
    first, _, tok = tiny_shard(tmp_path)
    t = with_digests(pq.read_table(first))
    keyed = tmp_path / "keyed.parquet"
    pq.write_table(t, keyed, compression="zstd")
    cache = tmp_path / "artifacts"
    encode_with(tmp_path, "first", keyed, tok, cache)
    fewer = tmp_path / "fewer.parquet"  # a takedown's shard: documents gone, none new
    pq.write_table(t.filter(pa.array([i % 7 != 3 for i in range(t.num_rows)])), fewer, compression="zstd")
    plain = encode_with(tmp_path, "plain", fewer, tok, None)[0]

    def no_tokenizer(path):
        raise AssertionError("the tokenizer was loaded for a shard the cache knows whole")

    with monkeypatch.context() as m:
        m.setattr(encode, "_tokenizer", no_tokenizer)
        m.setattr(encode.pieces, "cuttable", no_tokenizer)
        files, res = encode_with(tmp_path, "known", fewer, tok, cache)
    assert res["docs_cache"] == {"hits": pq.read_metadata(fewer).num_rows, "computed": 0}
    assert files == plain
    texts = t.column("text").to_pylist()
    new = pa.table({"text": ["A new story about a cat.", " ".join(texts[:40])], "split": ["train", "val"]})
    more = tmp_path / "more.parquet"
    kept = pq.read_table(fewer, columns=["text", "split"]).slice(0, 100)  # what the entry now holds
    pq.write_table(with_digests(pa.concat_tables([kept, new])), more, compression="zstd")
    files, res = encode_with(tmp_path, "more", more, tok, cache)
    assert res["docs_cache"]["computed"] == 2
    assert files == encode_with(tmp_path, "more-plain", more, tok, None)[0]
