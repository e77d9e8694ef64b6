"""Microseconds per get_batch: corpus.tokens.loader's TokenStream vs a nanoGPT-style np.memmap get_batch.

Both read the same single .bin with the same offsets (same torch.Generator seed), so the figures differ
only in how windows are gathered and converted to int64. nanoGPT's version (train.py) reopens the
memmap on every call and stacks B per-window `torch.from_numpy(... .astype(np.int64))` tensors, twice
(x and y); ours gathers B windows of T + 1 into one int64 array and slices x and y from it.

    python bench/loader_bench.py                      # synthetic ~50M-token uint16 file in a temp dir
    python bench/loader_bench.py TOKENS_DIR --split train --json out.json

Not a test: timings depend on the machine and on the page cache (the file is warmed first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from common import sha256_of, write_results
from corpus.formats.megatron import MegatronWriter, manifest_file_entry
from corpus.tokens.loader import TokenStream, get_batch, read_manifest

SHAPES = [(8, 256), (32, 1024)]  # (B, T)
EOS = 0


def build_synthetic(root: Path, n_tokens: int, vocab: int = 50_257, seed: int = 0) -> Path:
    """A tokens dir with one uint16 train part of ~n_tokens: random documents, EOS-terminated."""
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "tokenizer.json").write_text("{}")
    prefix = root / "train" / "part-00000"
    written = 0
    with MegatronWriter(prefix, np.uint16) as writer:
        while written < n_tokens:
            lengths = np.minimum(rng.geometric(1 / 700, size=4096), n_tokens - written)
            ids = rng.integers(1, vocab, size=int(lengths.sum()), dtype=np.int64)
            for doc in np.split(ids, np.cumsum(lengths)[:-1]):
                writer.add_document(np.append(doc, EOS))
                written += len(doc) + 1
                if written >= n_tokens:
                    break
    entry = manifest_file_entry(prefix, root)
    h = "0" * 64
    manifest = {"dataset": "bench", "version": "v1", "tokenizer_id": "synthetic", "corpus_manifest_sha256": h,
                "config_sha256": h,
                "tokenizer": {"file": "tokenizer.json", "sha256": sha256_of(root / "tokenizer.json"),
                              "vocab_size": vocab, "eos_id": EOS, "eos_token": "<|endoftext|>", "dtype": "uint16",
                              "special_tokens": {"<|endoftext|>": EOS}},
                "seed": seed, "budgets": {"max_documents": None, "train_tokens": None, "max_tokens_per_file": n_tokens + 10**6},
                "splits": {"train": {"docs": entry["docs"], "tokens": entry["tokens"], "files": [entry]},
                           "val": {"docs": 0, "tokens": 0, "files": []}},
                "packages": {"corpus": "0.1.0", "numpy": np.__version__}}
    (root / "_MANIFEST.json").write_text(json.dumps(manifest, indent=2))
    return root


def nanogpt_get_batch(bin_path: Path, dtype: np.dtype, block_size: int, batch_size: int,
                      generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """nanoGPT train.py's get_batch (memmap recreated every call to avoid its memory leak), with an
    explicit generator so both sides draw the same offsets."""
    data = np.memmap(bin_path, dtype=dtype, mode="r")
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    return x, y


def time_per_call(fn: Callable[[torch.Generator], object], iters: int, repeats: int = 5) -> dict[str, float]:
    """Median and best µs per call over `repeats` runs of iters // repeats calls, after a warm-up."""
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        fn(generator)
    per_run = max(iters // repeats, 1)
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(per_run):
            fn(generator)
        runs.append((time.perf_counter() - t0) / per_run * 1e6)
    return {"median_us": statistics.median(runs), "min_us": min(runs)}


def open_single_part(tokens_dir: Path, split: str) -> tuple[TokenStream, Path, str]:
    stream = TokenStream.open(tokens_dir, split)
    if not stream.parts:
        sys.exit(f"split '{split}' of {tokens_dir} has no parts")
    note = ""
    if len(stream.parts) > 1:  # the baseline reads one file, so compare on the first part only
        stream = TokenStream.from_megatron([stream.parts[0].prefix])
        note = "split has several parts; both sides use the first"
    bin_path = stream.parts[0].prefix.with_name(stream.parts[0].prefix.name + ".bin")
    return stream, bin_path, note


def check_same_batches(stream: TokenStream, bin_path: Path) -> None:
    ours = get_batch(stream, 64, 4, torch.Generator().manual_seed(1))
    theirs = nanogpt_get_batch(bin_path, stream.dtype, 64, 4, torch.Generator().manual_seed(1))
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs)), "the two loaders disagree"


def run(tokens_dir: Path, split: str, iters: int) -> dict:
    stream, bin_path, note = open_single_part(tokens_dir, split)
    np.asarray(stream.read(0, len(stream))).sum()  # warm the page cache so both sides read from memory
    check_same_batches(stream, bin_path)
    rows = []
    for B, T in SHAPES:
        ours = time_per_call(lambda g: get_batch(stream, T, B, g), iters)
        ours_docs = time_per_call(lambda g: get_batch(stream, T, B, g, return_doc_info=True), iters)
        nano = time_per_call(lambda g: nanogpt_get_batch(bin_path, stream.dtype, T, B, g), iters)
        rows.append({"B": B, "T": T, "tokenstream": ours, "tokenstream_doc_info": ours_docs, "nanogpt_memmap": nano,
                     "speedup_median": nano["median_us"] / ours["median_us"]})
    return {"file": str(bin_path), "tokens": len(stream), "dtype": str(stream.dtype), "docs": stream.n_docs,
            "iters": iters, "note": note, "rows": rows,
            "env": {"torch": torch.__version__, "numpy": np.__version__, "threads": torch.get_num_threads()}}


def print_table(result: dict) -> None:
    print(f"file {result['file']}: {result['tokens']:,} {result['dtype']} tokens, {result['docs']:,} docs, "
          f"{result['iters']} calls per shape (median of 5 runs; min in brackets)")
    if result["note"]:
        print(f"note: {result['note']}")
    print(f"{'B':>4} {'T':>6} | {'TokenStream µs':>18} | {'+doc_info µs':>18} | {'nanoGPT memmap µs':>18} | {'speedup':>7}")
    print("-" * 84)
    for r in result["rows"]:
        cells = [f"{r[k]['median_us']:8.1f} [{r[k]['min_us']:7.1f}]"
                 for k in ("tokenstream", "tokenstream_doc_info", "nanogpt_memmap")]
        print(f"{r['B']:>4} {r['T']:>6} | {cells[0]:>18} | {cells[1]:>18} | {cells[2]:>18} | {r['speedup_median']:6.2f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tokens_dir", nargs="?", type=Path, help="a tokens dir (default: build a synthetic one)")
    parser.add_argument("--split", default="train")
    parser.add_argument("--synthetic-tokens", type=int, default=50_000_000)
    parser.add_argument("--iters", type=int, default=2000, help="get_batch calls per shape and loader")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="loader-bench-") as tmp:
        tokens_dir = args.tokens_dir
        if tokens_dir is None:
            t0 = time.perf_counter()
            tokens_dir = build_synthetic(Path(tmp) / "tokens", args.synthetic_tokens)
            print(f"built synthetic tokens dir in {time.perf_counter() - t0:.1f} s")
        read_manifest(tokens_dir)
        result = run(tokens_dir, args.split, args.iters)
        if args.tokens_dir is None:
            result["file"] = f"synthetic ({args.synthetic_tokens:,} tokens, removed after the run)"
    print_table(result)
    if args.json:
        write_results(args.json, result)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
