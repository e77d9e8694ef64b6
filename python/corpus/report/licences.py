"""Licences: documents, characters and tokens per licence and per source, with the licences a user must
look at before training flagged: research-only / non-commercial ones, and unknown or custom ones
(LicenseRef-… terms that are not public domain, NOASSERTION, empty)."""

from __future__ import annotations

import re

from corpus.config import Config
from corpus.config.ledger import load_ledger

_RESEARCH = re.compile(r"research|non-?commercial|(^|-)NC(-|$)|academic", re.IGNORECASE)
_UNKNOWN = re.compile(r"^(|NOASSERTION|NONE|unknown|LicenseRef-unknown.*)$", re.IGNORECASE)
_SHARE_ALIKE = re.compile(r"(^|-)SA(-|$)|Sharing|GPL|ODbL", re.IGNORECASE)
PUBLIC_DOMAIN = {"LicenseRef-public-domain", "CC0-1.0", "Unlicense", "PDDL-1.0"}


def classify(licence: str) -> tuple[str, str]:
    """(flag, why): flag is "research-only", "unknown", "share-alike" or ""."""
    if _RESEARCH.search(licence or ""):
        return "research-only", "research or non-commercial use only"
    if _UNKNOWN.match(licence or ""):
        return "unknown", "no licence recorded"
    if licence.startswith("LicenseRef-") and licence not in PUBLIC_DOMAIN:
        return "unknown", "custom terms, not an SPDX licence: read them"
    if _SHARE_ALIKE.search(licence):
        return "share-alike", "derivatives must carry the same licence"
    return "", ""


def collect_licences(config: Config, shards: dict, tokens: dict | None) -> dict:
    tok_by_source = (tokens or {}).get("by_source") or {}
    rows = []
    for lic, L in sorted(shards["by_licence"].items()):
        flag, why = classify(lic)
        t = [tok_by_source[s]["train"] + tok_by_source[s]["val"] for s in L["sources"] if s in tok_by_source]
        rows.append({"licence": lic, "flag": flag, "why": why, "docs": L["docs"], "chars": L["chars"],
                     "tokens": sum(t) if tok_by_source else None, "sources": sorted(L["sources"])})
    rows.sort(key=lambda r: (["research-only", "unknown", "share-alike", ""].index(r["flag"]), -r["docs"]))
    # Models the pipeline trained on other data: their licences travel with what they decided.
    ledger = load_ledger(config.ledger_path)
    derived = []
    ppl = config["filters"].get("ppl", {})
    if ppl.get("enabled"):
        refs = ppl["reference"] if isinstance(ppl["reference"], list) else [ppl["reference"]]
        for sid in refs:
            lic = ledger[sid]["license_spdx"] if sid in ledger else "?"
            derived.append({"use": "perplexity model reference (03 filter)", "source_id": sid, "licence": lic,
                            "flag": classify(lic)[0]})
    return {"rows": rows, "flagged": [r for r in rows if r["flag"] in ("research-only", "unknown")],
            "derived": derived}
