"""Reading dropped documents back for people: counts and an even sample per (filter, rule) of the filter
stage's rejects, per reason of the dedup stage's dropped documents (the stages with a side output), or
per reason of the web records fetch rejected (a warc source's raw rejects/ parts)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pyarrow.compute as pc

from corpus.config import Config
from corpus.errors import UsageError
from corpus.filters.registry import build_params, registry
from corpus.formats.parts import read_table
from corpus.engine.runner import published_stage
from corpus.stages import STAGE, STAGES

SIDE_STAGES = tuple(s.name for s in STAGES if s.side is not None)
REJECT_STAGES = SIDE_STAGES + ("fetch",)
DEDUP_ORDER = ("decontam", "url", "exact", "near", "lines", "spans")  # lines/spans: left too short by dedup inside documents


def _unknown(option: str, value: str, known: list[str], what: str) -> UsageError:
    close = difflib.get_close_matches(value, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return UsageError(f"{option} '{value}': no such {what} (one of: {', '.join(known)}){hint}")


def check_selection(config: Config, stage: str, filter_name: str | None, rule: str | None,
                    source: str | None) -> None:
    """A filter, rule or source that cannot match is a usage error, never an empty answer."""
    sources = list(config["dataset"]["sources"])
    if source is not None and source not in sources:
        raise _unknown("--source", source, sources, f"source in dataset {config.dataset}/{config.version}")
    if stage == "fetch":
        from corpus.web.records import REASONS

        if filter_name not in (None, "fetch"):
            raise UsageError(f"--filter '{filter_name}': fetch's rejects have reasons, not filters "
                             f"(use --rule {'|'.join(REASONS)})")
        if rule is not None and rule not in REASONS:
            raise _unknown("--rule", rule, list(REASONS), "fetch reject reason")
        return
    if stage == "dedup":
        if filter_name not in (None, "dedup"):
            raise UsageError(f"--filter '{filter_name}': the dedup stage's drops have reasons, not filters "
                             f"(use --rule {'|'.join(DEDUP_ORDER)})")
        if rule is not None and rule not in DEDUP_ORDER:
            raise _unknown("--rule", rule, list(DEDUP_ORDER), "dedup reason")
        return
    specs = registry()
    if filter_name is not None and filter_name not in specs:
        raise _unknown("--filter", filter_name, list(specs), "filter")
    chosen = [filter_name] if filter_name else list(specs)
    rules = [r for name in chosen for r in specs[name].rules(build_params(specs[name], config["filters"][name]))]
    if rule is not None and rule not in rules:
        if rule in DEDUP_ORDER:
            raise UsageError(f"--rule '{rule}' is a dedup reason: add --stage dedup")
        raise _unknown("--rule", rule, rules, f"rule of {filter_name or 'any filter'}")


def nothing_found(stage: str, filter_name: str | None, rule: str | None, source: str | None) -> str:
    """What `corpus rejects` says when nothing matches, naming every selection (an empty answer is never
    silence, nor a sentence that reads as "this stage dropped nothing")."""
    picked = [f"filter {filter_name}"] if filter_name not in (None, stage) else []
    picked += [f"rule {rule}"] if rule else []
    return (f"no {stage} {'drops' if stage == 'dedup' else 'rejects'}" + (f" for {' and '.join(picked)}" if picked else "")
            + (f" in source {source}" if source else "")
            + (" (fetch rejects records of web sources, format warc, only)" if stage == "fetch" else ""))


def labelled_detail(row: dict) -> str:
    """A filter reject's detail with its label: what matched (a URL list entry, a bad word, a symbol), or
    for the quality filter how its threshold was found (cut=)."""
    if row.get("detail") is None:
        return ""
    return f" {'cut' if row['filter'] == 'quality' else 'matched'}={row['detail']!r}"


def sample_rejects(config: Config, *, stage="filter", filter_name=None, rule=None, source=None, per_rule=3):
    """[((filter, rule), count, [rows])] in pipeline order; rows spread evenly in id order.

    stage "filter": rows of rejects/ (filter, rule, value, text). stage "dedup": rows of dropped/, keyed
    ("dedup", reason), with duplicate_of or eval_source and matched_ngram."""
    if stage == "fetch":
        return fetch_rejects(config, filter_name=filter_name, rule=rule, source=source, per_rule=per_rule)[1]
    check_selection(config, stage, filter_name, rule, source)
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


def units_removed(config: Config, source: str | None = None) -> list[str]:
    """One line per source of what dedup inside documents ([dedup.lines], [dedup.spans]) removed from the
    documents it kept: units and characters (the rows are in the stage's removed/ parts)."""
    manifest, _ = published_stage(config, STAGE["dedup"].path(config), "dedup")
    unit = "span" if manifest["params"]["dedup"].get("spans", {}).get("enabled") else \
        manifest["params"]["dedup"].get("lines", {}).get("unit", "line")
    return [f"removed {c['units']} {unit} copies ({c['chars']} characters) from {c['docs']} documents of {sid}"
            + (f", {c['docs_dropped']} of them dropped as too short" if c["docs_dropped"] else "")
            for sid, c in sorted(manifest["counts"].get("units_removed", {}).items()) if source in (None, sid)]


def _web_raw_outputs(config: Config, source: str | None) -> list[tuple[str, Path, dict]]:
    """[(source_id, directory, manifest)]: the raw output this dataset version read of each web source."""
    from corpus.config.ledger import load_ledger
    from corpus.engine.raw import WEB_FORMATS, version_raw

    ledger = load_ledger(config.ledger_path)
    out = []
    for sid in config["dataset"]["sources"]:
        row = ledger.get(sid)
        if row is None or row["format"] not in WEB_FORMATS or source not in (None, sid):
            continue
        out.append((sid, *version_raw(config, row, [STAGE["normalize"].path(config)])))
    return out


def fetch_rejects(config: Config, *, filter_name: str | None = None, rule: str | None = None,
                  source: str | None = None, per_rule: int = 3) -> tuple[str | None, list]:
    """(summary, groups): the line of what became of every WARC record the web sources hold (None: the
    dataset has no web source), and [(("fetch", reason), count, [rows])]: the records fetch rejected (url,
    locator, record_id, reason, detail, source_id), in the reasons' order, rows spread evenly in file order."""
    from corpus.engine.raw import REJECTS
    from corpus.formats.jsonl import read_zst_jsonl
    from corpus.web.records import REASONS, records_line

    check_selection(config, "fetch", filter_name, rule, source)
    raws = _web_raw_outputs(config, source)
    groups: dict[str, list[dict]] = {}
    for sid, directory, manifest in raws:
        for p in manifest["parts"]:
            if p["name"].startswith(REJECTS + "/"):
                for rec in read_zst_jsonl(directory / p["name"]):
                    if rule in (None, rec["reason"]):
                        groups.setdefault(rec["reason"], []).append({**rec, "source_id": sid})
    out = []
    for r in sorted(groups, key=lambda r: REASONS.index(r) if r in REASONS else 99):
        rows = groups[r]
        step = max(1, len(rows) // per_rule)
        out.append((("fetch", r), len(rows), rows[::step][:per_rule]))
    return records_line([m["counts"] for _, _, m in raws]), out
