"""`corpus export`: the token streams in other trainers' formats, read from a verified tokens directory.

nanogpt    <out>/train.bin, <out>/val.bin: each split's parts concatenated (flat ids, manifest dtype)
llmc       <out>/<dataset>_<split>_<nnnnnn>.bin: one llm.c shard per part (256 x int32 header, then ids)
datatrove  <out>/<split>/part-<nnnnn>.ds (+ .ds.index, .ds.metadata): one datatrove file per part
mds        <out>/<split>/index.json + shard.<nnnnn>.mds: MosaicML Streaming, one sample per document (tokens/mds.py)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from corpus.store.atomic import atomic_open
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.tokens.directory import find_tokens_dir, verify_tokens_dir
from corpus.tokens.exports import write_datatrove, write_llmc_shard, write_nanogpt_meta
from corpus.tokens.mds import write_mds
from corpus.formats.megatron import MegatronIndex, check_range, memmap_tokens

FORMATS = ("nanogpt", "llmc", "datatrove", "mds")


def run_export(config: Config, fmt: str, *, tokens_dir: str | None = None, out: str | None = None) -> list[Path]:
    if fmt not in FORMATS:
        raise CorpusError(f"unknown export format '{fmt}' ({', '.join(FORMATS)})")
    src = find_tokens_dir(config, tokens_dir)
    manifest = verify_tokens_dir(src)
    dtype = np.dtype(manifest["tokenizer"]["dtype"])
    dest = Path(out) if out else src / f"export-{fmt}"
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    if fmt == "nanogpt":  # train.py reads vocab_size from meta.pkl
        write_nanogpt_meta(dest / "meta.pkl", manifest["tokenizer"], manifest["tokenizer_id"])
        written.append(dest / "meta.pkl")
    for split, info in manifest["splits"].items():
        parts = [src / f["bin"] for f in info["files"]]
        if fmt == "nanogpt":
            path = dest / f"{split}.bin"
            with atomic_open(path, "wb") as f:  # stream the parts: never the whole split in memory
                for p in parts:
                    tokens = memmap_tokens(p, dtype)
                    check_range(tokens, dtype)
                    f.write(tokens.astype(dtype.newbyteorder("<"), copy=False).tobytes())
            written.append(path)
        elif fmt == "llmc":
            for i, p in enumerate(parts):
                path = dest / f"{manifest['dataset']}_{split}_{i:06d}.bin"
                write_llmc_shard(memmap_tokens(p, dtype), path, dtype)
                written.append(path)
        elif fmt == "mds":
            indexes = [MegatronIndex(src / f["bin"].removesuffix(".bin")) for f in info["files"]]
            write_mds((ix.document(i) for ix in indexes for i in range(ix.n_docs)), dest / split, dtype)
            written.append(dest / split)
        else:
            for f in info["files"]:
                index = MegatronIndex(src / f["bin"].removesuffix(".bin"))
                path = dest / split / Path(f["bin"]).name.replace(".bin", ".ds")
                path.parent.mkdir(parents=True, exist_ok=True)
                write_datatrove((index.document(i) for i in range(index.n_docs)), path, dtype=dtype,
                                tokenizer_name=manifest["tokenizer_id"])
                written.append(path)
    return written
