"""The published files read by the trainers' and data tools' own libraries, on the golden run (real data).

Each reader is the library's public entry point, installed from requirements-test.lock: megatron-core's
IndexedDataset, datatrove's DatatroveFileDataset, HF datasets, polars, transformers' AutoTokenizer, nanoGPT's
meta.pkl as its train.py reads it, and mosaicml-streaming's StreamingDataset. Every comparison is against
our own reader (corpus.formats.megatron.MegatronIndex) or the manifests, so a regression in either shows."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from corpus.formats.megatron import MegatronIndex

PLACEHOLDERS = ["<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>"]


@pytest.fixture(scope="module")
def run(golden_run):
    corpus = golden_run / "corpus" / "golden" / "v1"
    (tokens,) = [p for p in (golden_run / "tokens" / "golden" / "v1").iterdir() if (p / "_MANIFEST.json").is_file()]
    return {"corpus": corpus, "tokens": tokens,
            "corpus_manifest": json.loads((corpus / "_MANIFEST.json").read_text()),
            "tokens_manifest": json.loads((tokens / "_MANIFEST.json").read_text())}


def split_docs(run, split) -> list[np.ndarray]:
    """Every document of a split, in stream order, by our own Megatron reader."""
    docs = []
    for f in run["tokens_manifest"]["splits"][split]["files"]:
        index = MegatronIndex(run["tokens"] / f["bin"].removesuffix(".bin"))
        docs += [np.array(index.document(i)) for i in range(index.n_docs)]
    return docs


# ---------------------------------------------------------------- Megatron-LM

def test_megatron_core_indexed_dataset_reads_every_part(run):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Transformer Engine and Apex are not installed"
        from megatron.core.datasets.indexed_dataset import IndexedDataset

    files = [f for s in run["tokens_manifest"]["splits"].values() for f in s["files"]]
    assert len(files) >= 3
    for f in files:
        prefix = str(run["tokens"] / f["bin"].removesuffix(".bin"))
        theirs, ours = IndexedDataset(prefix, multimodal=False, mmap=True), MegatronIndex(prefix)
        assert len(theirs) == len(ours) == f["docs"]
        assert theirs.index.dtype == ours.dtype
        assert np.array_equal(theirs.sequence_lengths, ours.lengths)
        assert np.array_equal(theirs.document_indices, ours.doc_idx)
        assert int(theirs.sequence_lengths.sum()) == f["tokens"]
        for i in range(len(theirs)):
            assert np.array_equal(theirs[i], ours.document(i)), (f["bin"], i)
        last = len(theirs) - 1  # a partial read, as Megatron's GPTDataset does across documents
        n = int(ours.lengths[last])
        assert np.array_equal(theirs.get(last, offset=n // 2), ours.document(last)[n // 2:])


# ---------------------------------------------------------------- datatrove

def test_datatrove_file_dataset_reads_the_datatrove_export(run):
    import torch
    from datatrove.utils.dataset import DatatroveFileDataset

    seq = 255
    for split, info in run["tokens_manifest"]["splits"].items():
        docs = split_docs(run, split)
        stream = np.concatenate(docs).astype(np.int64)
        ds_files = sorted((run["tokens"] / "export-datatrove" / split).glob("*.ds"))
        assert len(ds_files) == len(info["files"])
        flat = []
        for path in ds_files:
            ds = DatatroveFileDataset(str(path), seq_len=seq, token_size=2, return_positions=True)
            tokens = np.fromfile(path, "<u2").astype(np.int64)
            ends = np.fromfile(f"{path}.index", "<u8").astype(np.int64)
            assert len(ds) == len(tokens) // (seq + 1)
            pos = np.zeros(len(tokens), np.int64)  # position of each token inside its document
            for start, end in zip(np.concatenate([[0], ends[:-1]]), ends):
                pos[start:end] = np.arange(end - start)
            for i in range(len(ds)):
                item = ds[i]
                window = slice(i * (seq + 1), (i + 1) * (seq + 1))
                assert torch.equal(item["input_ids"], torch.from_numpy(tokens[window]))
                # positions restart at every document start and at the window's first token
                expected = np.minimum(pos[window], np.arange(seq + 1))
                assert torch.equal(item["positions"].long(), torch.from_numpy(expected)), (path.name, i)
            flat.append(tokens)
        assert np.array_equal(np.concatenate(flat), stream)
        assert sum(len(np.fromfile(f"{p}.index", "<u8")) for p in ds_files) == info["docs"]


# ---------------------------------------------------------------- shards: HF datasets, polars

def test_hf_datasets_and_polars_count_what_the_manifest_says(run, tmp_path):
    import datasets
    import polars as pl

    m = run["corpus_manifest"]
    shards = [str(run["corpus"] / s["name"]) for s in m["shards"]]
    datasets.disable_progress_bars()
    ds = datasets.load_dataset("parquet", data_files=shards, split="train",
                               cache_dir=str(tmp_path / "hf-cache"))
    assert ds.num_rows == m["n_docs"] == sum(s["rows"] for s in m["shards"])
    assert {"id", "text", "split", "source_id", "sha256"} <= set(ds.column_names)
    splits = ds.to_pandas()["split"].value_counts().to_dict()
    assert splits == {k: v for k, v in m["splits"].items() if v}

    df = pl.scan_parquet(shards).group_by("split", "source_id").agg(pl.len().alias("n")).collect()
    per = {(r["split"], r["source_id"]): r["n"] for r in df.iter_rows(named=True)}
    for s in m["sources"]:
        assert per.get(("train", s["source_id"]), 0) == s["train"] and per.get(("val", s["source_id"]), 0) == s["val"]
    ids = pl.read_parquet(shards, columns=["id"])["id"].to_list()
    assert ids == sorted(ids, key=lambda x: x.encode()) and len(set(ids)) == len(ids)  # sorted by id in byte order


# ---------------------------------------------------------------- transformers

def test_auto_tokenizer_loads_the_tokenizer_dir_with_the_eos_and_keeps_placeholders(run):
    import pyarrow.parquet as pq
    from transformers import AutoTokenizer

    m = run["tokens_manifest"]["tokenizer"]
    tok = AutoTokenizer.from_pretrained(str(run["tokens"]))
    assert tok.eos_token == m["eos_token"] and tok.eos_token_id == m["eos_id"]
    assert tok.bos_token is None and tok.pad_token is None and tok.unk_token is None
    assert tok.all_special_tokens == [m["eos_token"]]  # no other token is claimed special
    assert len(tok) == m["vocab_size"]

    for p in PLACEHOLDERS:  # one id each, and decode keeps them even when skipping special tokens
        assert tok.encode(p, add_special_tokens=False) == [m["placeholder_tokens"][p]]
    text = "Reach me at <EMAIL> or <PHONE>, card <CARD>, from <IP> with <KEY>."
    ids = tok.encode(text, add_special_tokens=False) + [tok.eos_token_id]
    assert tok.decode(ids, skip_special_tokens=True) == text
    assert tok.decode(ids) == text + m["eos_token"]

    # AutoTokenizer gives the stage's ids: every train document encodes to one of the published sequences.
    shard_texts = [t for s in run["corpus_manifest"]["shards"]
                   for t, sp in zip(*pq.read_table(run["corpus"] / s["name"], columns=["text", "split"]).columns)
                   if sp.as_py() == "train"]
    published = {d.tobytes() for d in split_docs(run, "train")}
    redacted = [t.as_py() for t in shard_texts if "<EMAIL>" in t.as_py() or "<PHONE>" in t.as_py()]
    sample = [t.as_py() for t in shard_texts[:200]] + redacted
    assert redacted
    for t in sample:
        ids = tok(t, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        assert np.array(ids, "<u2").tobytes() in published
    assert all(tok.decode(tok.encode(t, add_special_tokens=False), skip_special_tokens=True) == t for t in redacted)


# ---------------------------------------------------------------- nanoGPT

def test_nanogpt_meta_pkl_as_train_py_reads_it(run):
    out = run["tokens"] / "export-nanogpt"
    with open(out / "meta.pkl", "rb") as f:  # nanoGPT train.py: meta = pickle.load(f); meta['vocab_size']
        meta = pickle.load(f)
    meta_vocab_size = meta["vocab_size"]
    m = run["tokens_manifest"]
    assert meta_vocab_size == m["tokenizer"]["vocab_size"] != 50304
    assert meta["dtype"] == m["tokenizer"]["dtype"] == "uint16" and meta["eos_id"] == m["tokenizer"]["eos_id"]
    data = np.memmap(out / "train.bin", dtype=np.uint16, mode="r")  # nanoGPT get_batch
    assert len(data) == m["splits"]["train"]["tokens"] and int(data.max()) < meta_vocab_size
    assert np.array_equal(data, np.concatenate(split_docs(run, "train")))


# ---------------------------------------------------------------- MosaicML Streaming

def test_streaming_dataset_reads_the_mds_export(run, tmp_path):
    from corpus.tokens.mds import streaming_base

    base = streaming_base()
    base.util.clean_stale_shared_memory()
    for split, info in run["tokens_manifest"]["splits"].items():
        local = run["tokens"] / "export-mds" / split
        before = sorted(p.name for p in local.iterdir())
        ds = base.StreamingDataset(local=str(local), split=None, shuffle=False, batch_size=1)
        assert ds.num_samples == len(ds) == info["docs"]
        docs = split_docs(run, split)
        total = 0
        for i, d in enumerate(docs):
            sample = ds[i]["tokens"]
            assert sample.dtype == np.uint16 and np.array_equal(sample, d), (split, i)
            total += len(sample)
        assert total == info["tokens"]
        assert sorted(p.name for p in local.iterdir()) == before  # the reader wrote nothing into the export
        del ds
    base.util.clean_stale_shared_memory()
