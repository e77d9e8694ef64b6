"""`corpus report`: one self-contained, deterministic HTML page about a dataset, built from its manifests
and parts only (no network, no script, no timestamp in the body).

Modules, one job each:
  sampling   which parts and rows the report reads (seeded; parts are sampled above a byte budget)
  reading    checked reads of stage manifests and parts
  funnel     documents and characters in/out of every stage, per source, with drop reasons
  licences   documents, characters and tokens per licence; research-only and unknown licences
  filters    per-rule measured values over kept (recomputed on a sample) and dropped documents; language mix
  dedup      cluster sizes, largest clusters, decontamination hits
  pii        placeholders per type and source, redacted snippets
  tokens     tokens per split and source, tokenizer facts, document lengths from the .idx files
  samples    seeded samples of kept documents and of rejects per rule
  text       snippets for the page (first lines, truncation, scrubbing pre-PII text)
  plots      matplotlib (Agg) figures as deterministic SVG data URIs
  render     the HTML page
  build      collect every section, render, write <artifacts>/reports/<dataset>/<version>/index.html
"""

from corpus.stages import STAGE, STAGES as _STAGE_TABLE

# The per-part stages the report walks, in pipeline order: (name, directory under stages/), from the table.
STAGES: tuple[tuple[str, str], ...] = tuple((s.name, s.dirname) for s in _STAGE_TABLE if s.kind == "parts")


def dirname(stage: str) -> str:
    return STAGE[stage].dirname


def side_prefix(stage: str) -> str:
    """The folder of a stage's dropped documents inside its directory ("rejects/", "dropped/")."""
    return STAGE[stage].side.dirname + "/"
