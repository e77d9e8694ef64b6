"""`corpus export`: the token streams in other trainers' formats, read from a verified tokens directory.

nanogpt    <out>/train.bin, <out>/val.bin: each split's parts concatenated (flat ids, manifest dtype)
llmc       <out>/<dataset>_<split>_<nnnnnn>.bin: one llm.c shard per part (256 x int32 header, then ids)
datatrove  <out>/<split>/part-<nnnnn>.ds (+ .ds.index, .ds.metadata): one datatrove file per part
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..config import Config
from ..errors import CorpusError
from ..tokens.exports import write_datatrove, write_llmc_shard
from ..tokens.megatron import MegatronIndex, check_range, memmap_tokens
from .tokenize import MANIFEST, tokens_root, verify_tokens_dir

FORMATS = ("nanogpt", "llmc", "datatrove")


def find_tokens_dir(config: Config, tokens_dir: str | None) -> Path:
    if tokens_dir:
        return Path(tokens_dir)
    root = tokens_root(config)
    found = sorted(p for p in root.glob("*") if (p / MANIFEST).is_file()) if root.is_dir() else []
    if not found:
        raise CorpusError(f"{root}: no token streams (run `corpus tokenize` first)")
    if len(found) > 1:
        raise CorpusError(f"{root}: several token streams ({', '.join(p.name for p in found)}); choose one with --tokens")
    return found[0]


def run_export(config: Config, fmt: str, *, tokens_dir: str | None = None, out: str | None = None) -> list[Path]:
    if fmt not in FORMATS:
        raise CorpusError(f"unknown export format '{fmt}' ({', '.join(FORMATS)})")
    src = find_tokens_dir(config, tokens_dir)
    manifest = verify_tokens_dir(src)
    dtype = np.dtype(manifest["tokenizer"]["dtype"])
    dest = Path(out) if out else src / f"export-{fmt}"
    dest.mkdir(parents=True, exist_ok=True)
    written = []
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
        else:
            for f in info["files"]:
                index = MegatronIndex(src / f["bin"].removesuffix(".bin"))
                path = dest / split / Path(f["bin"]).name.replace(".bin", ".ds")
                path.parent.mkdir(parents=True, exist_ok=True)
                write_datatrove((index.document(i) for i in range(index.n_docs)), path, dtype=dtype,
                                tokenizer_name=manifest["tokenizer_id"])
                written.append(path)
    return written
