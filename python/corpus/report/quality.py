"""The quality classifier's section: its score distribution per source and per language, and the keep rate
per source, so a classifier that sorts by source or by language rather than by quality shows at a glance.

Scores are counted into BINS equal bins of [0, 1] part by part (memory: one part's three small columns).
Kept documents carry their language (the lang column); the quality filter's rejects do not, so their
language is found again with the language model on a seeded sample of them (LANG_DOCS)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from corpus.config import Config
from corpus.filters import lang as lang_id
from corpus.report import dirname, side_prefix
from corpus.report.reading import parts_of, stage_manifest, within
from corpus.report.sampling import Budget, sample_indices
from corpus.report.scan import read_columns

DIRNAME = dirname("filter")
BINS = 50
LANG_DOCS = 5000


def _hist(scores) -> np.ndarray:
    s = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
    return np.bincount(np.minimum((s * BINS).astype(np.int64), BINS - 1), minlength=BINS)


def _add(groups: dict, key: str, side: str, scores) -> None:
    g = groups.setdefault(key, {"kept": np.zeros(BINS, np.int64), "cut": np.zeros(BINS, np.int64)})
    g[side] += _hist(scores)


def collect_quality(config: Config, budget: Budget) -> dict | None:
    m = stage_manifest(config, DIRNAME)
    q = m["counts"].get("quality")
    if not m["params"]["filters"].get("quality", {}).get("enabled") or q is None:
        return None
    by_source: dict = {}
    by_lang: dict = {}
    kept = parts_of(m)
    verify = within(kept, budget)
    for p in kept:
        t = read_columns(config, DIRNAME, p, ["source_id", "lang", "quality_score"], verify=verify)
        sid, lang = np.array(t.column("source_id").to_pylist()), np.array(t.column("lang").to_pylist())
        score = t.column("quality_score").to_numpy(zero_copy_only=False)
        for key in np.unique(sid):
            _add(by_source, str(key), "kept", score[sid == key])
        for key in np.unique(lang):
            _add(by_lang, str(key), "kept", score[lang == key])
    cut = [p for p in parts_of(m, side_prefix("filter")) if p["name"].endswith(".quality.parquet")]
    verify = within(cut, budget)
    total = sum(p["rows"] for p in cut)
    picks = sample_indices(total, LANG_DOCS, budget, "quality-lang")  # global row numbers, sorted
    scale = total / len(picks) if picks else 1.0
    model = lang_id.load_model(lang_id.model_path(config)) if picks else None
    found: dict[str, list[float]] = {}
    start = 0
    for p in cut:
        t = read_columns(config, DIRNAME, p, ["source_id", "value", "text"], verify=verify)
        sid, score = np.array(t.column("source_id").to_pylist()), t.column("value").to_numpy()
        for key in np.unique(sid):
            _add(by_source, str(key), "cut", score[sid == key])
        mine = [i - start for i in picks if start <= i < start + p["rows"]]
        start += p["rows"]
        texts = t.column("text").take(pa.array(mine, pa.int64())).to_pylist() if mine else []
        for i, text in zip(mine, texts):
            found.setdefault(lang_id.detect(text, model, config["filters"]["lang"].get("max_chars", 0))[0],
                             []).append(float(score[i]))
    if found:
        for key, scores in found.items():
            _add(by_lang, key, "cut", scores)
            by_lang[key]["cut"] = np.round(by_lang[key]["cut"] * scale).astype(np.int64)
    return {"threshold": q["threshold"], "how": q["how"], "rule": q["rule"], "scored": q["scored"],
            "kept": q["kept"], "by_source": by_source, "by_lang": by_lang, "lang_estimated": scale != 1.0}


def median_of(hist: np.ndarray) -> float | None:
    """The median score of a histogram (the middle of its bin), or None when it is empty."""
    total = int(hist.sum())
    if not total:
        return None
    b = int(np.searchsorted(np.cumsum(hist), (total + 1) / 2))
    return (b + 0.5) / BINS
