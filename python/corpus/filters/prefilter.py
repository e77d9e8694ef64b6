"""[extract] prefilter_lang: reject before extraction the pages the language filter will surely drop.

trafilatura is ~95% of a web page's cost, and an English-only dataset drops most of a crawl's pages for
their language after paying it. The gate reads a fast plain-text pass of the page (resiliparse's main
content, ~2 ms; corpus.web.extract.FAST_PASS, in the extractor's sandbox child, which keeps the page for its
extraction: corpus.web.sandbox) with [filters.lang]'s model, and
rejects the page (reason `prefilter_lang`) only when the kept languages are far from winning there:

- without `und` in keep: their summed probability is below `min_score - margin` (the filter keeps a
  document whose top language is kept with at least min_score);
- with `und` kept (a low-confidence document is kept): another language wins with at least
  `min_score + margin`.

The model reads the pass's first `max_chars` characters (a bounded cost a page). A pass with fewer than
`min_chars` characters, or one that fails (timeout, crash, parser error), decides
nothing: the page is extracted as without the gate. Every decision is deterministic (the same model and
text give the same probabilities), and the settings are in the raw output's identity (engine.raw)."""

from __future__ import annotations

import json

from corpus.filters.lang import bundled_model_path, language_code, load_model, model_line, UNDETERMINED

REASON = "prefilter_lang"


class LangGate:
    """`gate(html, url, box)` -> None (extract the page) or (REASON, detail) (reject it unextracted); `box`
    is the sandbox that extracts the page (made with the fast pass: web.records)."""

    def __init__(self, prefilter: dict):
        lang = prefilter["lang"]
        self.keep = frozenset(lang["keep"])
        self.min_score, self.labels = lang["min_score"], lang["labels"]
        self.margin, self.min_chars, self.max_chars = prefilter["margin"], prefilter["min_chars"], prefilter["max_chars"]
        self.model = load_model(prefilter["model_path"] or str(bundled_model_path()))

    def _kept(self, label: str) -> bool:
        label = label.removeprefix("__label__")
        return label in self.keep or language_code(label, self.labels) in self.keep

    def verdict(self, text: str) -> str | None:
        """Why a page whose fast pass is `text` cannot be kept (None: it may be)."""
        line = model_line(text, self.max_chars)
        if len(line) < self.min_chars:
            return None
        labels, scores = self.model.predict(line, k=-1)
        if not labels:
            return None
        probs = [min(1.0, float(s)) for s in scores]
        top, top_p = labels[0].removeprefix("__label__"), probs[0]
        if UNDETERMINED in self.keep:
            if self._kept(top) or top_p < min(1.0, self.min_score + self.margin):
                return None
            return (f"fast pass: {top} {top_p:.3f} >= min_score + margin {self.min_score + self.margin:.3f} "
                    f"(a language not kept)")
        kept = sum(p for label, p in zip(labels, probs) if self._kept(label))
        if kept >= self.min_score - self.margin:
            return None
        return (f"fast pass: kept languages {kept:.3f} < min_score - margin {self.min_score - self.margin:.3f} "
                f"(top {top} {top_p:.3f})")

    def __call__(self, html: str, url: str, box) -> tuple[str, str] | None:
        text, failure = box.fast_pass(html, url)
        if failure is not None:  # the fast pass decides nothing; the extractor meets the page as it is
            return None
        why = self.verdict(text)
        return None if why is None else (REASON, why)


_GATES: dict[str, LangGate] = {}


def lang_gate(extract: dict) -> LangGate | None:
    """The worker's gate for an [extract] table of engine.raw.extract_table (None: prefilter_lang off)."""
    prefilter = extract.get("prefilter")
    if not prefilter:
        return None
    key = json.dumps(prefilter, sort_keys=True)
    if key not in _GATES:
        _GATES[key] = LangGate(prefilter)
    return _GATES[key]
