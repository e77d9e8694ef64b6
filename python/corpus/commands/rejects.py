"""Reading dropped documents back for people: counts and an even sample per (filter, rule) of the filter
stage's rejects, or per reason of the dedup stage's dropped documents (the stages with a side output)."""

from __future__ import annotations

import pyarrow.compute as pc

from corpus.config import Config
from corpus.filters.registry import registry
from corpus.formats.parts import read_table
from corpus.engine.runner import published_stage
from corpus.stages import STAGE, STAGES

SIDE_STAGES = tuple(s.name for s in STAGES if s.side is not None)
DEDUP_ORDER = ("decontam", "exact", "near")


def sample_rejects(config: Config, *, stage="filter", filter_name=None, rule=None, source=None, per_rule=3):
    """[((filter, rule), count, [rows])] in pipeline order; rows spread evenly in id order.

    stage "filter": rows of rejects/ (filter, rule, value, text). stage "dedup": rows of dropped/, keyed
    ("dedup", reason), with duplicate_of or eval_source and matched_ngram."""
    st = STAGE[stage]
    d = st.path(config)
    manifest, _ = published_stage(config, d, stage)
    side = st.side.dirname + "/"
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in manifest["parts"]:
        if not p["name"].startswith(side):
            continue
        t = read_table(d / p["name"], p["sha256"])
        if source is not None:
            t = t.filter(pc.equal(t.column("source_id"), source))
        for row in t.to_pylist():
            key = (stage, row["reason"]) if "reason" in row else (row["filter"], row["rule"])
            if (filter_name is None or key[0] == filter_name) and (rule is None or key[1] == rule):
                groups.setdefault(key, []).append(row)
    order = tuple(registry()) + DEDUP_ORDER
    out = []
    for key in sorted(groups, key=lambda k: (order.index(k[0]) if k[0] in order else
                                             order.index(k[1]) if k[1] in order else 99, k[1])):
        rows = sorted(groups[key], key=lambda r: r["id"].encode())
        step = max(1, len(rows) // per_rule)
        out.append((key, len(rows), rows[::step][:per_rule]))
    return out
