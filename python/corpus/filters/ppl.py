"""The perplexity filter: a word n-gram model (ngram_lm) trained on reference sources before the filter
stage's parts run; a document whose perplexity exceeds `threshold` is dropped. The perplexity is the
signal (measured once per document and model: the model's sha256 is in its identity); the threshold only
decides."""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.store.checksums import read_verified
from corpus.errors import CorpusError
from corpus.config.ledger import load_ledger
from corpus.filters.ngram_lm import NGramLM
from corpus.filters.registry import FilterSpec

log = logging.getLogger(__name__)
MODEL_FILE = "ppl-model.npz"


@dataclass(frozen=True)
class PplParams:
    reference: str | tuple[str, ...] = ""
    threshold: float = 1000.0
    order: int = 3
    discount: float = 0.75
    min_count: int = 2
    max_vocab: int | None = 50000


def references(config) -> list[str]:
    """The reference source ids, each checked against the ledger."""
    ref = config["filters"]["ppl"]["reference"]
    refs = list(ref) if isinstance(ref, list) else [ref]
    if not refs or not all(refs):
        raise CorpusError(f"{config.path}: filters.ppl.reference must name ledger sources when ppl is enabled")
    ledger = load_ledger(config.ledger_path)
    missing = [r for r in refs if r not in ledger]
    if missing:
        raise CorpusError(f"{config.path}: filters.ppl.reference: source '{missing[0]}' is not in the ledger")
    return refs


def identity(config) -> dict:
    ledger = load_ledger(config.ledger_path)
    return {"ppl_reference_sha256": {r: ledger[r]["sha256"] for r in references(config)}}


def model_facts(config) -> dict:
    """What the model's bytes depend on: its settings, the reference sources' sha256 and how their raw
    documents are read and normalised (the cache key; the code and library versions are added there)."""
    from corpus.config import config_slice

    ppl = config["filters"]["ppl"]
    return {"model": {k: ppl[k] for k in ("order", "discount", "min_count", "max_vocab")}, **identity(config),
            "read": config_slice(config.data, ("fetch", "extract", "normalize"))}


def train_model(config, staging: Path) -> tuple[list[dict], dict]:
    """Train the model on the reference sources' raw documents (normalised as stage 02 does), or take it
    from the cache when an earlier run trained it from the same references and settings."""
    from corpus.engine.raw import raw_texts
    from corpus.engine.cache import Cache, cache_key, cache_root

    ppl = config["filters"]["ppl"]
    key = cache_key(model_facts(config))
    models, counts = Cache(cache_root(config), "ppl-model", ".npz"), Cache(cache_root(config), "ppl-model", ".json")
    dest = staging / MODEL_FILE
    count = counts.get(key)
    # from the cache: linked, its sha256 checked (not read, written and fsynced again: 19 MB for the demo)
    sha256 = models.get_file(key, dest) if count is not None else None
    if sha256 is not None:
        documents = json.loads(count)["documents"]
        log.info("perplexity model: order %d, from the cache (trained on %d reference documents: %s)", ppl["order"],
                 documents, ", ".join(references(config)))
        entry = {"name": MODEL_FILE, "sha256": sha256, "rows": documents, "bytes": dest.stat().st_size}
        return [entry], {"lm_path": str(dest), "lm_sha256": sha256}
    ledger = load_ledger(config.ledger_path)
    texts = [t for sid in references(config) for t in raw_texts(config, ledger[sid])]
    lm = NGramLM.train(texts, order=ppl["order"], discount=ppl["discount"], min_count=ppl["min_count"],
                       max_vocab=ppl["max_vocab"])
    data, documents = lm.to_bytes(), len(texts)
    models.put(key, data)
    counts.put(key, json.dumps({"documents": documents}).encode())
    log.info("perplexity model: order %d, trained on %d reference documents (%s)", ppl["order"], documents,
             ", ".join(references(config)))
    write_bytes(dest, data)
    entry = {"name": MODEL_FILE, "sha256": sha256_bytes(data), "rows": documents, "bytes": len(data)}
    return [entry], {"lm_path": str(dest), "lm_sha256": entry["sha256"]}


@functools.cache
def load_lm(path: str, sha256: str) -> NGramLM:
    return NGramLM.from_bytes(read_verified(Path(path), sha256))


class PerplexityFilter:
    """Measures each document's perplexity under the model; `threshold` only decides (decide_perplexity)."""

    def __init__(self, params: PplParams, resources: dict):
        self.params = params
        self.lm = load_lm(resources["lm_path"], resources["lm_sha256"])

    def measure_many(self, texts: list[str]) -> list[tuple[float]]:
        """Each text's (perplexity,), scored together (the n-gram lookups of a whole batch at once)."""
        return [(float(ppl),) for ppl in self.lm.perplexities(texts)]

    def check(self, text: str) -> tuple[str, float] | None:
        return self.check_many([text])[0]

    def check_many(self, texts: list[str]) -> list[tuple[str, float] | None]:
        return [decide_perplexity(self.params, s, None)[1] for s in self.measure_many(texts)]


def decide_perplexity(p: PplParams, signals: tuple, decided) -> tuple[None, tuple[str, float] | None]:
    (ppl,) = signals
    return None, (("threshold", ppl) if ppl > p.threshold else None)


FILTER = FilterSpec("ppl", PplParams, PerplexityFilter, decide=decide_perplexity,
                    signals=lambda p: {"perplexity": pa.float64()}, thresholds=("threshold",),
                    prepare=train_model, identity=identity, rules=lambda p: ("threshold",))
