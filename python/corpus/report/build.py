"""Collect every section of the report and write `<artifacts>/reports/<dataset>/<version>/index.html`."""

from __future__ import annotations

import logging
from pathlib import Path

# presidio (imported for the scrub of pre-PII snippets) announces its device and every recognizer at INFO
logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)

from corpus.store.atomic import write_bytes  # noqa: E402
from corpus.config import Config  # noqa: E402
from corpus.config.ledger import load_ledger  # noqa: E402
from corpus.config.layout import CORPUS_MANIFEST as MANIFEST  # noqa: E402
from corpus.report.dedup import collect_dedup  # noqa: E402
from corpus.report.filters import collect_filters  # noqa: E402
from corpus.report.funnel import collect_funnel  # noqa: E402
from corpus.report.licences import collect_licences  # noqa: E402
from corpus.report.pii import collect_pii  # noqa: E402
from corpus.report.quality import collect_quality  # noqa: E402
from corpus.report.reading import load_json_file  # noqa: E402
from corpus.report.render import render  # noqa: E402
from corpus.report.samples import collect_samples  # noqa: E402
from corpus.report.sampling import Budget  # noqa: E402
from corpus.report.shards import collect_shards  # noqa: E402
from corpus.report.text import Redactor  # noqa: E402
from corpus.report.tokens import collect_tokens  # noqa: E402

log = logging.getLogger(__name__)


def report_path(config: Config) -> Path:
    return config.artifacts / "reports" / config.dataset / config.version / "index.html"


def collect(config: Config, budget: Budget) -> tuple[dict, Redactor]:
    corpus = load_json_file(config.dataset_dir / MANIFEST, "corpus manifest")
    redactor = Redactor(config)
    shards = collect_shards(config, corpus, budget)
    tokens = collect_tokens(config, corpus, shards, budget)
    funnel = collect_funnel(config, corpus, shards, budget)
    filters = collect_filters(config, budget)
    rule_order = [r.key for group in filters["rules"].values() for r in group]
    data = {
        "corpus": corpus, "seed": budget.seed, "shards": shards, "tokens": tokens,
        "funnel": funnel, "licences": collect_licences(config, shards, tokens), "filters": filters,
        "quality": collect_quality(config, budget),
        "dedup": collect_dedup(config, redactor, budget), "pii": collect_pii(config, budget),
        "samples": collect_samples(config, corpus, shards, budget, redactor, rule_order),
        "ledger_licence": {sid: row["license_spdx"] for sid, row in load_ledger(config.ledger_path).items()},
    }
    notes = [f"{s['label']}: {s['note']}" for s in funnel["stages"] if s.get("note")]
    if filters["sample_note"]:
        notes.append(f"filters: {filters['sample_note']}")
    if not shards["verified"]:
        notes.append("shards: small columns read without checksums (over the budget)")
    if data["pii"]["note"]:
        notes.append(f"pii: {data['pii']['note']}")
    data["notes"] = notes
    redactor.run()
    return data, redactor


def write_report(config: Config, budget: Budget | None = None) -> tuple[Path, dict]:
    """The page written, and the data it shows (the text of `corpus report` reads some of it)."""
    budget = budget or Budget()
    path = report_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)  # first: a root it cannot write to fails before the work
    data, redactor = collect(config, budget)
    page = render(data, redactor)
    write_bytes(path, page.encode("utf-8"))
    path.chmod(0o644)  # a page to open and share, not a secret
    return path, data


def build_report(config: Config, budget: Budget | None = None) -> Path:
    return write_report(config, budget)[0]
