"""Which tokenizer a token directory is made with: the pinned tokenizer.json (checked against its sha256),
the one a published token directory trained with the same settings, or a byte-level BPE trained on the
corpus (tokens.train on tokens.sample); and the facts about it the tokens manifest records."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import numpy as np

from corpus.config import Config
from corpus.config.layout import STAGE_FILE, TOKENIZER_FILE, TOKENS_MANIFEST, tokens_root
from corpus.errors import CorpusError
from corpus.formats.megatron import choose_dtype
from corpus.store.atomic import sha256_bytes
from corpus.tokens import hf
from corpus.tokens.sample import CountedText, sample_arrays, sample_bytes
from corpus.tokens.train import PLACEHOLDERS, TRAIN_MAX_WORD, train_tokenizer

log = logging.getLogger(__name__)


def resolve_tokenizer(config: Config, manifest: dict, trained_from: dict | None = None,
                      timing: dict | None = None, train=None) -> tuple[bytes, str, int | None]:
    """(tokenizer.json bytes, tokenizer_id, bytes of text it was trained on): the pinned file (None: not
    trained here), or one trained on the train split (or the same one a published token directory
    trained with `trained_from`). `timing` gets the training's seconds, only when it trains: `sample_s`
    (the pass that sizes the train split) and `train_s` (reading the sample and training, which overlap).
    `train(config, manifest, timing)`: what trains (default train_on_corpus; the stage's goes through the
    cache)."""
    if config["tokenize"]["tokenizer"]:
        return (*pinned_tokenizer(config), None)
    reused = trained_before(config, trained_from)
    if reused is not None:  # the same corpus and training settings: the same bytes, without training
        data, tokenizer_id, trained_on = reused
        log.info("tokenizer: the one trained on this corpus with these settings (%s)", tokenizer_id)
        # a directory written before manifests recorded it: counted again (the same sample, so the same number)
        return data, tokenizer_id, trained_on if trained_on is not None else sample_bytes(config, manifest)
    return (train or train_on_corpus)(config, manifest, {} if timing is None else timing)


def pinned_tokenizer(config: Config) -> tuple[bytes, str]:
    """`[tokenize] tokenizer`'s bytes, checked against `tokenizer_sha256`, and its id (stem + sha256)."""
    tcfg = config["tokenize"]
    path = Path(tcfg["tokenizer"])
    if not tcfg["tokenizer_sha256"]:
        raise CorpusError(f"{config.path}: tokenize.tokenizer_sha256 must pin {path}")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{path}: tokenizer not found") from None
    if sha256_bytes(data) != tcfg["tokenizer_sha256"]:
        raise CorpusError(f"{path}: sha256 mismatch: expected {tcfg['tokenizer_sha256']} (tokenize."
                          f"tokenizer_sha256), got {sha256_bytes(data)}")
    stem = "".join(c if c.isalnum() or c in "._-" else "-" for c in path.stem)
    return data, f"{stem}-{sha256_bytes(data)[:12]}"


def train_on_corpus(config: Config, manifest: dict, timing: dict) -> tuple[bytes, str, int]:
    """A byte-level BPE trained on the train split's sample, its id and the bytes of text it was trained
    on, and its seconds in `timing`."""
    tcfg = config["tokenize"]
    t0 = time.monotonic()
    arrays, sampled = sample_arrays(config, manifest)
    t1 = time.monotonic()
    counted = CountedText(arrays)
    data = train_tokenizer(counted, tcfg["vocab_size"], tcfg["eos_token"], arrays=True)
    timing.update(sample_s=round(t1 - t0, 3), train_s=round(time.monotonic() - t1, 3))
    log.info("trained a byte-level BPE tokenizer (vocab %d) on %s in %.1fs (sizing the sample %.1fs of it)",
             tcfg["vocab_size"], sampled, time.monotonic() - t0, t1 - t0)
    return data, trained_id(config, data), counted.bytes


def trained_id(config: Config, data: bytes) -> str:
    """A trained tokenizer's id: `bpe<vocab_size>-<first 12 hex of its sha256>`."""
    return f"bpe{config['tokenize']['vocab_size']}-{sha256_bytes(data)[:12]}"


def training_settings(config: Config, corpus_sha: str) -> dict:
    """What a trained tokenizer is a deterministic function of: the corpus, the [tokenize] keys training
    reads and the trainer's version (recorded as `trained_from` in the tokens _STAGE.json params)."""
    from importlib import metadata

    t = config["tokenize"]
    return {"corpus_manifest_sha256": corpus_sha, "vocab_size": t["vocab_size"], "eos_token": t["eos_token"],
            "train_sample_bytes": t["train_sample_bytes"], "seed": t["seed"], "max_word": TRAIN_MAX_WORD,
            "tokenizers": metadata.version("tokenizers")}


def trained_before(config: Config, trained_from: dict) -> tuple[bytes, str, int | None] | None:
    """The tokenizer.json a published token directory trained with exactly these settings, verified by
    its sha256, its id and the bytes of text it was trained on (None: that manifest does not say): a run
    whose training inputs did not change (a no-op, new budgets) trains nothing."""
    from corpus.store.checksums import read_verified

    root = tokens_root(config)
    # the local copies only: on an s3 root, reading a manifest through the store refreshes the local copy,
    # which must stay as it is until the runner has finished any interrupted upload of it
    for d in sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        part = _trained_tokenizer_part(root / d / STAGE_FILE, trained_from)
        if part is not None:
            try:
                data = read_verified(root / d / TOKENIZER_FILE, part["sha256"])
            except CorpusError:
                continue
            # the id training gives, not the directory's name (a mixed stream's is `<id>-mix-<hash>`)
            return data, trained_id(config, data), _trained_on_bytes(root / d / TOKENS_MANIFEST)
    return None


def _trained_on_bytes(manifest_file: Path) -> int | None:
    """A token directory's tokenizer.trained_on_bytes (None: absent, or no readable manifest)."""
    try:
        return json.loads(manifest_file.read_text())["tokenizer"].get("trained_on_bytes")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _trained_tokenizer_part(stage_file: Path, trained_from: dict) -> dict | None:
    """The tokenizer.json entry of a token directory's _STAGE.json that trained with `trained_from`."""
    if not stage_file.is_file():
        return None
    try:
        m = json.loads(stage_file.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if m.get("params", {}).get("trained_from") != trained_from:
        return None
    return next((p for p in m["parts"] if p["name"] == TOKENIZER_FILE), None)


def tokenizer_facts(data: bytes, eos: str) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(data.decode("utf-8"))
    eos_id = tok.token_to_id(eos)
    if eos_id is None:
        raise CorpusError(f"tokenizer has no EOS token '{eos}' (tokenize.eos_token)")
    vocab = tok.get_vocab_size(with_added_tokens=True)
    # The dtype holds the largest id, not the entry count: a sparse vocabulary (ids above 65,535 with
    # fewer than 65,536 entries) needs uint32.
    max_id = max([vocab - 1, *tok.get_vocab(with_added_tokens=True).values()])
    return {"vocab_size": vocab, "eos_id": eos_id, "eos_token": eos, "dtype": np.dtype(choose_dtype(max_id)).name,
            **hf.token_roles(data, eos, PLACEHOLDERS)}
