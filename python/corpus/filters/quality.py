"""A learned quality classifier: fastText supervised, trained from labelled ledger sources, scored on every
document the filter sees (`quality_score`, the probability of the positive label).

Training (`train`, run by `corpus quality train` and by the filter's `prepare` when the model is missing)
reads the positive and negative sources' raw documents (normalised as stage 02 does), samples each
source down to its cap by a hash of (seed, source, document number), holds out a share by another hash,
writes one line per document in an order also set by a hash, and trains with floret (fastText's trainer)
on one thread with the seed: the same sources and settings give the same model bytes. floret's model is
fastText's with two more header fields (its mode and hash count); they are dropped, so the model is a
plain fastText file that fasttext-predict scores (and the scores of the held-out documents are checked
to be floret's own). Models are content-addressed: <artifacts>/models/quality/<sha256>.bin beside
<sha256>.json, the training manifest (sources and their sha256, counts per label, every hyperparameter,
the floret version, the preprocessing, held-out precision, recall, F1 and AUC).

Scoring (QualityFilter, a batch at a time): a softmax model without character n-grams, as trained here, is
scored by filters.fasttext_linear from its rows projected through the output layer (fastText's scores
within float rounding, the same for any batch); any other model by fastText's predictor.

`classifier_text` is the one preprocessing, at training and at scoring: newlines (fastText reads one
line per example) become spaces, and a word that begins with fastText's label prefix loses one
underscore, so no document text can pose as a label. A document of any length is scored
whole (fastText has no line limit for supervised models)."""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import logging
import math
import re
import struct
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus.config.ledger import load_ledger, select
from corpus.errors import CorpusError
from corpus.filters.registry import FilterSpec
from corpus.store.atomic import canonical_json, sha256_bytes, write_bytes
from corpus.store.checksums import verify_file

log = logging.getLogger(__name__)
POSITIVE, NEGATIVE = "__label__hq", "__label__lq"
MODELS_DIR = "models/quality"
PREPROCESSING = "classifier_text v2: newlines -> spaces; a word-initial __label__ -> _label_"
_LABEL_PREFIX = re.compile(r"(?<!\S)__label__")
FASTTEXT_MAGIC, FASTTEXT_VERSION = 793712314, 12
_FLORET_EXTRA = slice(52, 60)  # floret's mode and hashCount, after fastText's maxn
# how scores are computed, in the stage identity and the memo's: outputs scored another way show as stale
SCORING = "fasttext_linear v1 (softmax, no character n-grams, not quantized), else fastText's predictor"
AGREEMENT = 1e-4  # the linear scorer's float64 sums against fastText's float32 ones (3e-6 measured)


@dataclass(frozen=True)
class QualityParams:
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    caps: dict = field(default_factory=dict)
    model: str = ""
    model_sha256: str = ""
    model_source: str = ""
    label: str = POSITIVE
    threshold: float = 0.5
    keep_fraction: float = 0.0
    seed: int = 0
    heldout: float = 0.1
    dim: int = 100
    word_ngrams: int = 2
    lr: float = 0.1
    epoch: int = 5
    min_count: int = 1
    bucket: int = 200000


def classifier_text(text: str) -> str:
    """The one line fastText sees of a document, at training and at scoring: newlines (fastText's end of an
    example) become spaces, and a word that starts with the label prefix loses one underscore. fastText
    splits words at whitespace itself."""
    line = text.replace("\n", " ")
    return _LABEL_PREFIX.sub("_label_", line) if "__label__" in line else line


def _unit(seed: int, *parts) -> float:
    """A uniform number in [0, 1) from a keyed hash: the same for the same (seed, parts), whatever the order."""
    h = hashlib.blake2b(canonical_json(list(parts)).encode(), key=str(seed).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64


# ---------------------------------------------------------------- training

HYPERPARAMETERS = ("dim", "word_ngrams", "lr", "epoch", "min_count", "bucket", "seed", "heldout", "caps")


def training_facts(config) -> dict:
    """What a trained model's bytes depend on: the labelled sources' sha256, the hyperparameters, how
    the raw documents are read, the preprocessing and the trainer's version."""
    from importlib import metadata

    from corpus.config import config_slice

    q = config["filters"]["quality"]
    ledger = load_ledger(config.ledger_path)
    labelled = {}
    for label in ("positive", "negative"):
        if not q[label]:
            raise CorpusError(f"{config.path}: filters.quality.{label} names no source "
                              f"(or give a pretrained model: filters.quality.model_source or model)")
        rows = select(ledger, q[label], "corpus", what=f"{config.path}: filters.quality.{label}")
        labelled[label] = {r["source_id"]: r["sha256"] for r in rows}
    both = set(labelled["positive"]) & set(labelled["negative"])
    if both:
        raise CorpusError(f"{config.path}: filters.quality: source '{sorted(both)[0]}' is both positive and negative")
    unknown = sorted(set(q["caps"]) - set(labelled["positive"]) - set(labelled["negative"]))
    if unknown:
        raise CorpusError(f"{config.path}: filters.quality.caps: '{unknown[0]}' is not a positive or negative source")
    return {"sources": labelled, "hyperparameters": {k: q[k] for k in HYPERPARAMETERS},
            "read": config_slice(config.data, ("fetch", "extract", "normalize")), "preprocessing": PREPROCESSING,
            "floret": metadata.version("floret")}


def labelled_documents(config, facts: dict) -> tuple[list[tuple[str, str]], list[tuple[str, str]], dict]:
    """(training lines as (label, text), held-out (label, text), counts per source and label): each
    source sampled to its cap, the held-out share split off, the training lines in hashed order."""
    from corpus.engine.raw import raw_texts

    hp = facts["hyperparameters"]
    seed, caps = hp["seed"], hp["caps"]
    ledger = load_ledger(config.ledger_path)
    train, held, counts = [], [], {}
    for label, name in (("positive", POSITIVE), ("negative", NEGATIVE)):
        for sid in facts["sources"][label]:
            c = counts.setdefault(sid, {"label": label, "documents": 0, "train": 0, "heldout": 0})

            def drawn(sid=sid, c=c):  # (hash, number, text) of each document, counted as it streams by
                for i, t in enumerate(raw_texts(config, ledger[sid])):
                    c["documents"] += 1
                    yield _unit(seed, "sample", sid, i), i, t
            # the documents of smallest hash; with a cap only `cap` of them are ever held (heapq.nsmallest)
            chosen = heapq.nsmallest(caps[sid], drawn()) if sid in caps else sorted(drawn())
            for _, i, t in chosen:
                text = classifier_text(t)
                if not text:
                    continue
                if _unit(seed, "heldout", sid, i) < hp["heldout"]:
                    held.append((name, text))
                    c["heldout"] += 1
                else:
                    train.append((_unit(seed, "order", sid, i), name, text))
                    c["train"] += 1
    for label in ("positive", "negative"):
        sources = facts["sources"][label]
        trained, held_out = (sum(counts[s][k] for s in sources) for k in ("train", "heldout"))
        if not trained and not held_out:
            raise CorpusError(f"{config.path}: filters.quality.{label}: no documents to train on "
                              f"({', '.join(sources)} {'holds' if len(sources) == 1 else 'hold'} none after sampling)")
        if not trained or not held_out:
            # one document (or a few, all on one side): fastText trains a model that has never seen the
            # class, or one that nothing measures (the held-out metrics are the only check of it)
            raise CorpusError(f"{config.path}: filters.quality.{label}: {trained + held_out} document"
                              f"{'s' if trained + held_out > 1 else ''} in {', '.join(sources)}, {trained} to train "
                              f"on and {held_out} held out: a class needs both (filters.quality.heldout "
                              f"{hp['heldout']:g} of its documents are held out); add documents to it")
    train.sort()
    return [(n, t) for _, n, t in train], held, counts


def to_fasttext(floret_bytes: bytes) -> bytes:
    """floret's model file as fastText's: its two extra header fields (mode, hash count) dropped."""
    magic, version = struct.unpack_from("<ii", floret_bytes)
    if (magic, version) != (FASTTEXT_MAGIC, FASTTEXT_VERSION) or \
            struct.unpack_from("<ii", floret_bytes, _FLORET_EXTRA.start) != (1, 1):
        raise CorpusError("quality: floret wrote a model this version of corpus cannot convert "
                          "(not a fastText-mode model with one hash)")
    return floret_bytes[: _FLORET_EXTRA.start] + floret_bytes[_FLORET_EXTRA.stop:]


def metrics(labels: np.ndarray, scores: np.ndarray, threshold: float = 0.5) -> dict:
    """Precision, recall and F1 of `score >= threshold` for the positive class, and the ROC AUC (ties
    count one half)."""
    pred = scores >= threshold
    tp, fp, fn = int(np.sum(pred & labels)), int(np.sum(pred & ~labels)), int(np.sum(~pred & labels))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    pos, neg = int(labels.sum()), int((~labels).sum())
    auc = None
    if pos and neg:
        order = np.argsort(scores, kind="stable")
        ranks = np.empty(len(scores))
        sorted_scores = scores[order]
        i = 0
        while i < len(scores):  # average ranks over ties
            j = i
            while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
                j += 1
            ranks[order[i:j + 1]] = (i + j) / 2 + 1
            i = j + 1
        auc = (ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg)
    return {"documents": len(scores), "positive": pos, "negative": neg, "threshold": threshold,
            "precision": round(precision, 6), "recall": round(recall, 6), "f1": round(f1, 6),
            "auc": round(float(auc), 6) if auc is not None else None}


def train(config) -> tuple[Path, dict]:
    """The model of this config's [filters.quality], trained now unless the models directory has it:
    (its path, its training manifest)."""
    facts = training_facts(config)
    key = hashlib.sha256(canonical_json(facts).encode()).hexdigest()
    directory = config.artifacts / MODELS_DIR
    found = find_trained(directory, key)
    if found is not None:
        return found
    import floret

    q = config["filters"]["quality"]
    lines, held, counts = labelled_documents(config, facts)
    with tempfile.TemporaryDirectory(prefix="quality-") as tmp:
        data = Path(tmp) / "train.txt"
        data.write_text("".join(f"{n} {t}\n" for n, t in lines), encoding="utf-8")
        try:
            model = floret.train_supervised(str(data), dim=q["dim"], wordNgrams=q["word_ngrams"], lr=q["lr"],
                                            epoch=q["epoch"], minCount=q["min_count"], bucket=q["bucket"], thread=1,
                                            seed=q["seed"], verbose=0, mode="fasttext")
        except RuntimeError as e:  # fastText stops with "Encountered NaN." when the loss diverges
            if "NaN" not in str(e):
                raise
            raise CorpusError(f"{config.path}: filters.quality: training diverged (fastText: {e}): lower "
                              f"filters.quality.lr ({q['lr']:g})") from None
        model.save_model(str(Path(tmp) / "floret.bin"))
        floret_scores = [_floret_score(model, t) for _, t in held]
        converted = to_fasttext((Path(tmp) / "floret.bin").read_bytes())
    sha = sha256_bytes(converted)
    path = directory / f"{sha}.bin"
    write_bytes(path, converted)
    ft = load_model(str(path), sha)
    predicted = np.array([score(ft, t, POSITIVE) for _, t in held], dtype=np.float64)
    if [float(np.float32(s)) for s in floret_scores] != [float(np.float32(s)) for s in predicted]:
        raise CorpusError(f"quality: {path} does not score the held-out documents as floret's own model does")
    scores = load_scorer(str(path), sha).scores([t for _, t in held], POSITIVE)  # as the filter scores
    if len(held) and float(np.max(np.abs(scores - predicted))) > AGREEMENT:
        raise CorpusError(f"quality: {path}: the filter's scores differ from fastText's by more than {AGREEMENT}")
    labels = np.array([n == POSITIVE for n, _ in held], dtype=bool)
    manifest = {"sha256": sha, "bytes": len(converted), "key": key, **facts, "counts": counts,
                "labels": {"positive": POSITIVE, "negative": NEGATIVE},
                "train_lines": len(lines), "heldout_metrics": metrics(labels, scores)}
    write_bytes(directory / f"{sha}.json", (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    log.info("quality: trained %s on %d documents (held out %d: F1 %.3f, AUC %s)", path.name, len(lines), len(held),
             manifest["heldout_metrics"]["f1"], manifest["heldout_metrics"]["auc"])
    return path, manifest


def _floret_score(model, text: str) -> float:
    probs = dict((label, p) for p, label in model.f.predict(text + "\n", -1, 0.0, "strict"))
    return float(probs.get(POSITIVE, 0.0))


def find_trained(directory: Path, key: str) -> tuple[Path, dict] | None:
    """A model trained earlier from the same facts whose bytes still match their name, or None."""
    for m in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            manifest = json.loads(m.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        path = m.with_suffix(".bin")
        if manifest.get("key") == key and path.is_file():
            try:
                verify_file(path, manifest["sha256"])
            except CorpusError as e:
                log.warning("quality: %s; training again", e)
                continue
            return path, manifest
    return None


# ---------------------------------------------------------------- scoring


LOADED: dict[str, dict] = {}  # model path -> what engine.hugepages did when it loaded (bench/quality_classifier.py)


@functools.cache
def _verified(path: str, sha256: str) -> None:
    """verify_file once per process and model (streamed: the file is what its sha256 says before it is read)."""
    verify_file(path, sha256)


@functools.cache
def load_model(path: str, sha256: str):
    """The fastText model, verified, loaded once per process, its matrix in 2 MiB pages where Linux allows
    (engine.hugepages: scoring reads one random row per word; the scores do not change). The filter scores
    with it only a model that filters.fasttext_linear does not cover."""
    import fasttext

    from corpus.engine.hugepages import huge_pages_for

    _verified(path, sha256)
    fasttext.FastText.eprint = lambda *a, **k: None
    try:
        with huge_pages_for(path) as pages:  # filled in as the block ends
            LOADED[path] = pages
            return fasttext.load_model(path)
    except ValueError as e:
        raise CorpusError(f"{path}: not a fastText model ({e})") from None


class PredictorScorer:
    """Scores lines one at a time with fastText's predictor: for models the linear scorer does not cover."""

    def __init__(self, path: str, sha256: str):
        self.model = load_model(path, sha256)
        self.labels = list(self.model.predict("", k=-1)[0])  # fasttext-predict has no get_labels: all, scored

    def scores(self, lines: list[str], label: str) -> np.ndarray:
        return np.array([score(self.model, line, label) for line in lines], dtype=np.float64)


@functools.cache
def load_scorer(path: str, sha256: str):
    """The model's scorer, once per process: filters.fasttext_linear's (a softmax classifier without
    character n-grams, as `corpus quality train` makes and DCLM's is), else fastText's predictor."""
    from corpus.filters.fasttext_linear import LinearScorer, Unsupported

    _verified(path, sha256)
    try:
        return LinearScorer(path)
    except Unsupported as e:
        log.info("quality: %s; scoring with fastText's predictor", e)
    except (ValueError, struct.error, OSError) as e:  # fastText loaded it (check_model): let fastText score it
        log.warning("quality: %s: the linear scorer cannot read it (%s); scoring with fastText's predictor", path, e)
    return PredictorScorer(path, sha256)


def score(model, text: str, label: str) -> float:
    """P(label | document) of a preprocessed text (classifier_text), over every label of the model. The
    predictor is called directly with the line's end, as fastText's wrapper does (the end is a word of
    every training line too); a text Python cannot encode as UTF-8 (a lone surrogate) has it replaced."""
    try:
        pairs = _predict(model, text)
    except (UnicodeEncodeError, TypeError):  # pybind11 refuses a str it cannot encode with a TypeError
        pairs = _predict(model, text.encode("utf-8", "replace").decode("utf-8"))
    if pairs is None:
        return math.nan
    for p, lab in pairs:
        if lab == label:
            return min(1.0, p)
    return 0.0


def _predict(model, text: str) -> list | None:
    """fastText's (probability, label) pairs for a line, or None when its sums are nan (the model's weights
    hold nan or inf: fastText raises), which score() reports as a nan score for the filter to refuse."""
    try:
        return model.f.predict(text + "\n", -1, 0.0, "strict")
    except RuntimeError as e:
        if "NaN" not in str(e):
            raise
        return None


def checked_score(value: float, model: str, doc_id: str) -> float:
    """A score the cut can use: nan fails every comparison, so a threshold drops the document and
    keep_fraction's quantile is nonsense; inf cannot be a probability."""
    if not math.isfinite(value):
        raise CorpusError(f"{model}: the quality model scores document {doc_id} {value}, not a finite number "
                          f"(its weights hold nan or inf): train it again or give another model; nothing published")
    return value


def pretrained(config) -> str:
    """How the config gives a pretrained model: "model_source" (a ledger row), "model" (a path and its
    sha256) or "" (trained from positive and negative)."""
    q = config["filters"]["quality"]
    if q["model"] and q.get("model_source"):  # model_source has no default: absent, it changes no hash
        raise CorpusError(f"{config.path}: filters.quality: model and model_source both name a model (give one)")
    return "model_source" if q.get("model_source") else "model" if q["model"] else ""


def model_row(config) -> dict:
    """The ledger row of filters.quality.model_source: role model (format binary)."""
    (row,) = select(load_ledger(config.ledger_path), [config["filters"]["quality"]["model_source"]], "model",
                    what=f"{config.path}: filters.quality.model_source")
    return row


def model_of(config) -> tuple[Path, str]:
    """(the model file, its sha256): the ledger row's file as fetch published it, or the configured path,
    each verified against its sha256 (the ledger row's, or model_sha256), or the trained model."""
    q = config["filters"]["quality"]
    how = pretrained(config)
    if how == "model_source":
        from corpus.engine.raw import raw_file

        row = model_row(config)
        return raw_file(config, row), row["sha256"]
    if how == "model":
        if not q["model_sha256"]:
            raise CorpusError(f"{config.path}: filters.quality.model needs model_sha256")
        path = Path(q["model"])
        path = path if path.is_absolute() else (config.path.parent / path).resolve()
        verify_file(path, q["model_sha256"])
        return path, q["model_sha256"]
    path, manifest = train(config)
    return path, manifest["sha256"]


def identity(config) -> dict:
    """What the filter's output depends on beyond its table: the pretrained model's sha256 (the ledger
    row's, for model_source: a new row re-runs the filter), or the facts the model is trained from."""
    how = pretrained(config)
    if how == "model_source":
        return {"quality_model": model_row(config)["sha256"], "scoring": SCORING}
    return {"quality_model": config["filters"]["quality"]["model_sha256"] if how == "model" else training_facts(config),
            "scoring": SCORING}


PROBE_TIMEOUT_S = 300


def _probe(path: str, label: str) -> None:  # in a forked child: exit 0 when fastText loads and scores it
    import os
    import resource

    import faulthandler

    faulthandler.disable()  # a loader killed by a signal is reported in one line by the parent, not a dump
    try:  # a damaged header can make fastText's loader allocate without end: bound the child's memory
        in_use = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = in_use + 4 * os.path.getsize(path) + (1 << 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (OSError, ValueError):
        pass
    try:
        import fasttext

        fasttext.FastText.eprint = lambda *a, **k: None
        labels = fasttext.load_model(path).predict("", k=-1)[0]
        os._exit(0 if label in labels else 3)
    except BaseException:
        os._exit(2)


def check_model(path: Path, label: str) -> None:
    """fastText's loader aborts the process on a damaged file, or allocates without end: try it in a forked
    child first (its memory bounded to what the file can need, its time to PROBE_TIMEOUT_S), so a bad model is
    one line here, never a worker killed by a signal or a machine out of memory."""
    import multiprocessing

    child = multiprocessing.get_context("fork").Process(target=_probe, args=(str(path), label))
    child.start()
    child.join(PROBE_TIMEOUT_S)
    if child.is_alive():
        child.kill()
        child.join()
        raise CorpusError(f"{path}: truncated, or not a fastText model (the loader did not finish in {PROBE_TIMEOUT_S} s)")
    if child.exitcode == 3:
        raise CorpusError(f"{path}: the model has no label '{label}' (filters.quality.label)")
    if child.exitcode != 0:
        how = f"the loader failed (exit {child.exitcode})" if child.exitcode > 0 else \
            f"the loader was killed by signal {-child.exitcode}"
        # a cut-off file kills fastText's loader too (SIGFPE on a zero-sized matrix): say both
        raise CorpusError(f"{path}: truncated, or not a fastText model ({how})")


def prepare(config, staging: Path) -> tuple[list[dict], dict]:
    path, sha = model_of(config)
    check_model(path, config["filters"]["quality"]["label"])
    return [], {"quality_path": str(path), "quality_sha256": sha}


class QualityFilter:
    """Annotates `quality_score`. It never drops a document itself: the filter stage drops those below
    the threshold (absolute, or keep_fraction's quantile) once every other filter has decided, so a
    threshold edit rescores nothing (filters.memo keeps the scores). The chain hands it a batch of
    documents at a time (annotate_many), which the linear scorer scores at once."""

    def __init__(self, params: QualityParams, resources: dict):
        self.scorer = load_scorer(resources["quality_path"], resources["quality_sha256"])
        if params.label not in self.scorer.labels:
            raise CorpusError(f"{resources['quality_path']}: the model has no label '{params.label}' "
                              f"(its labels: {', '.join(sorted(self.scorer.labels))})")
        self.label = params.label

    def measure_many(self, texts: list[str]) -> list[tuple[float]]:
        """Each text's (score,): the signal; the chain annotates it and never drops on it (decide_quality)."""
        scores = self.scorer.scores([classifier_text(t) for t in texts], self.label).astype(np.float32)
        return [(float(s),) for s in scores.tolist()]

    def annotate_many(self, texts: list[str]) -> list[tuple]:
        return [decide_quality(None, s, None) for s in self.measure_many(texts)]

    def annotate(self, text: str):
        return self.annotate_many([text])[0]


def decide_quality(p, signals: tuple, decided) -> tuple[tuple, None]:
    """The score is the annotation; the cut comes after the chain (stages.filter's quality phases)."""
    return signals, None


def memo_table(table: dict) -> dict:
    """The part of the table a document's score depends on: not the threshold or keep_fraction (a new
    threshold rescores nothing), and how scores are computed (results of another scorer are not reused)."""
    return {**{k: v for k, v in table.items() if k not in ("keep_fraction", "threshold")}, "scoring": SCORING}


def cut_threshold(table: dict) -> float | None:
    """The absolute threshold, as float32 like the scores, or None when keep_fraction derives it."""
    return None if table["keep_fraction"] > 0 else float(np.float32(table["threshold"]))


def quality_sources(config) -> list[str]:
    """What fetch fetches for the filter: the model's ledger row, or the labelled sources to train on."""
    q = config["filters"]["quality"]
    how = pretrained(config)
    return [q["model_source"]] if how == "model_source" else [] if how else list(q["positive"]) + list(q["negative"])


FILTER = FilterSpec("quality", QualityParams, QualityFilter, decide=decide_quality, prepare=prepare, identity=identity,
                    signals=lambda p: {"score": pa.float64()}, thresholds=("threshold", "keep_fraction"),
                    columns={"quality_score": pa.float32()}, defaults=(None,),
                    rules=lambda p: ("keep_fraction",) if p.keep_fraction > 0 else ("threshold",),
                    sources=quality_sources, memo_table=memo_table)

# keep_fraction's exact quantile: scores are float32 in [0, 1], whose bit patterns sort as the numbers
# do; a histogram of the high 16 bits finds the bin of the k-th best score, one of the low 16 bits in
# that bin finds the score. Memory: two 65,536-bin histograms, and one part's scores at a time.
HIGH_BITS = 16


def score_bits(scores: np.ndarray) -> np.ndarray:
    return np.asarray(scores, dtype=np.float32).view(np.uint32)


def kth_best(histogram_high: np.ndarray, k: int) -> tuple[int, int]:
    """(the high-16-bit bin holding the k-th best score, the rank k within that bin from the top)."""
    from_top = np.cumsum(histogram_high[::-1])
    b = int(np.searchsorted(from_top, k))  # the first bin (from the top) whose running count reaches k
    above = int(from_top[b - 1]) if b else 0
    return len(histogram_high) - 1 - b, k - above


def threshold_note(t: float, k: int, n: int, fraction: float) -> str:
    return f"threshold {t:.6g}: the score ranked {k:,} of {n:,} (keep_fraction {fraction:g})"


def find_threshold(table: dict, n: int, scores: Callable[[], Iterable[np.ndarray]]) -> dict:
    """{threshold, rule, scored, note}: absolute, or the score of the ceil(keep_fraction x N)-th best of
    the `n` scores, found exactly with two 65,536-bin histograms of their float32 bits; `scores()` gives
    them again a part at a time (one part in memory at a time). The filter stage's quality cut and
    `corpus tune` both take it from here."""
    fixed = cut_threshold(table)
    if fixed is not None:
        return {"threshold": fixed, "rule": "threshold", "scored": n, "note": f"threshold {fixed:g} (absolute)"}
    k = keep_count(n, table["keep_fraction"])
    if k == 0:
        return {"threshold": 1.0, "rule": "keep_fraction", "scored": 0,  # nothing to cut
                "note": "no document reached the quality filter"}
    high = np.zeros(1 << HIGH_BITS, dtype=np.int64)
    for part in scores():
        high += np.bincount(score_bits(part) >> HIGH_BITS, minlength=1 << HIGH_BITS)
    top, rank = kth_best(high, k)
    low = np.zeros(1 << HIGH_BITS, dtype=np.int64)
    for part in scores():
        bits = score_bits(part)
        low += np.bincount(bits[(bits >> HIGH_BITS) == top] & 0xFFFF, minlength=1 << HIGH_BITS)
    bottom, _ = kth_best(low, rank)
    t = float(np.array([(top << HIGH_BITS) | bottom], dtype=np.uint32).view(np.float32)[0])
    return {"threshold": t, "rule": "keep_fraction", "scored": n, "note": threshold_note(t, k, n, table["keep_fraction"])}


def keep_count(n: int, fraction: float) -> int:
    return min(n, max(1, math.ceil(fraction * n))) if n else 0
