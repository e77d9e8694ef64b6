"""PII: placeholders per type and source, and a few redacted snippets (the placeholder in its context).

Stage 05 counts redactions per type only for the whole dataset; per source they are counted here as the
placeholders a document gained in stage 05 (its output part against its input part, row by row, so a
placeholder-like string already in the input is not counted). Snippets come from stage 05's output: they
never hold an original value."""

from __future__ import annotations

import re

from corpus.config import Config
from corpus.stages import STAGE
from corpus.stages.pii import TYPES
from corpus.report import dirname
from corpus.report.reading import parts_of, stage_manifest
from corpus.report.sampling import Budget, choose_parts, sample_indices
from corpus.report.scan import read_columns

_PLACEHOLDER = re.compile("<(" + "|".join(TYPES) + ")>")
DIRNAME, INPUT_DIR = dirname("pii"), dirname(STAGE["pii"].reads)
SNIPPETS = 8
CONTEXT = 70


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _counts(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in _PLACEHOLDER.finditer(text):
        out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


def collect_pii(config: Config, budget: Budget) -> dict:
    m = stage_manifest(config, DIRNAME)
    src = stage_manifest(config, INPUT_DIR)
    src_parts = {p["name"]: p for p in parts_of(src)}
    parts = parts_of(m)
    choice = choose_parts(parts, budget, "pii")
    by_source: dict[str, dict[str, int]] = {}
    candidates = []   # (id, source, type, snippet)
    for p in choice.parts:
        out = read_columns(config, DIRNAME, p, ["id", "source_id", "text", "pii_redactions"])
        red = out.column("pii_redactions").to_pylist()
        rows = [i for i, n in enumerate(red) if n]
        if not rows:
            continue
        before = read_columns(config, INPUT_DIR, src_parts[p["name"]], ["id", "text"]).take(rows).column("text").to_pylist()
        out = out.take(rows)
        for i, sid, text, old in zip(out.column("id").to_pylist(), out.column("source_id").to_pylist(),
                                     out.column("text").to_pylist(), before):
            now, was = _counts(text), _counts(old)
            s = by_source.setdefault(sid, {t: 0 for t in TYPES})
            for t in TYPES:
                s[t] += max(0, now.get(t, 0) - was.get(t, 0))
            for mt in _PLACEHOLDER.finditer(text):
                a, b = max(0, mt.start() - CONTEXT), min(len(text), mt.end() + CONTEXT)
                candidates.append({"id": i, "source_id": sid, "type": mt.group(1),
                                   "before": ("…" if a else "") + _flat(text[a:mt.start()]),
                                   "placeholder": mt.group(0), "after": _flat(text[mt.end():b]) + ("…" if b < len(text) else "")})
    # a few snippets: spread over the types present, seeded
    snippets = []
    by_type: dict[str, list[dict]] = {}
    for c in candidates:
        by_type.setdefault(c["type"], []).append(c)
    per_type = max(1, SNIPPETS // max(1, len(by_type)))
    for t in TYPES:
        cs = by_type.get(t, [])
        snippets += [cs[i] for i in sample_indices(len(cs), per_type, budget, f"pii:{t}")]
    return {"by_source": dict(sorted(by_source.items())), "totals": m["counts"].get("redactions", {}),
            "docs_redacted": m["counts"].get("docs_redacted", 0), "docs": m["counts"]["docs_out"],
            "snippets": snippets, "note": choice.note(), "entities": list(config["pii"]["entities"])}
