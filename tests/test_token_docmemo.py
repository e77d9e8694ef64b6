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
