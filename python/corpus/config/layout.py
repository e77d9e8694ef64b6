"""Where artifacts live under the artifacts root, and the names of the files every stage shares.

    corpus/raw/<source_id>/<key>/part-<nnnnn>.jsonl.zst           01 fetch (key: engine.raw.raw_key)
    corpus/<dataset>/<version>/stages/<nn>-<stage>/part-<nnnnn>.parquet   02–05
    corpus/<dataset>/<version>/shard-<iiiii>-of-<nnnnn>.parquet + _MANIFEST.json   06 shard
    tokens/<dataset>/<version>/<tokenizer_id>/<split>/part-<nnnnn>.{bin,idx}   07 tokenize

Each published output directory holds a `_STAGE.json` (schemas/stage-manifest.schema.json) and a
`_RUN.json` (what varies between runs); shard and tokenize also write the `_MANIFEST.json` that users
and trainers read."""

from __future__ import annotations

from pathlib import Path

from corpus.config import Config

from corpus.store.root import RUN_FILE as RUN_FILE, STAGE_FILE as STAGE_FILE  # defined where the store needs them
STAGE_SCHEMA = "stage-manifest.schema.json"
CORPUS_MANIFEST = "_MANIFEST.json"
CORPUS_SCHEMA = "corpus-manifest.schema.json"
TOKENS_MANIFEST = "_MANIFEST.json"
TOKENS_SCHEMA = "tokens-manifest.schema.json"
TOKENIZER_FILE = "tokenizer.json"
WORK_DIR = "_work"  # a job's scratch files, in its staging directory: never published


def tokens_root(config: Config) -> Path:
    """tokens/<dataset>/<version>: one directory per tokenizer below it."""
    return config.artifacts / "tokens" / config.dataset / config.version
