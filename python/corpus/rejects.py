"""Reading the filter stage's rejects back for people: counts and an even sample per (filter, rule)."""

from __future__ import annotations

import pyarrow.compute as pc

from .config import Config
from .manifest import load_manifest
from .parts import read_table
from .runner import require_stage

FILTER_DIR = "03-filter"


def sample_rejects(config: Config, *, filter_name=None, rule=None, source=None, per_rule=3):
    """[((filter, rule), count, [rows])] sorted by filter order then rule; rows spread evenly in id order."""
    from .stages.filter import FILTER_ORDER

    d = require_stage(config, FILTER_DIR, "filter")
    manifest = load_manifest(d, verify_parts="size")
    tables = [read_table(d / p["name"], p["sha256"]) for p in manifest["parts"] if p["name"].startswith("rejects/")]
    groups: dict[tuple[str, str], list[dict]] = {}
    for t in tables:
        mask = None
        for col, want in (("filter", filter_name), ("rule", rule), ("source_id", source)):
            if want is not None:
                m = pc.equal(t.column(col), want)
                mask = m if mask is None else pc.and_(mask, m)
        if mask is not None:
            t = t.filter(mask)
        for row in t.to_pylist():
            groups.setdefault((row["filter"], row["rule"]), []).append(row)
    out = []
    for key in sorted(groups, key=lambda k: (FILTER_ORDER.index(k[0]) if k[0] in FILTER_ORDER else 99, k[1])):
        rows = sorted(groups[key], key=lambda r: r["id"].encode())
        step = max(1, len(rows) // per_rule)
        out.append((key, len(rows), rows[::step][:per_rule]))
    return out
