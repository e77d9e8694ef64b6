"""`corpus signals export` and `corpus tune`: the filter signals of a published version as data.

The filter stage keeps every document's signals per part in the cache (corpus.filters.signals) and names
each part's entry in its _RUN.json. `export` writes them as Parquet files for DuckDB/polars/pyarrow;
`tune KEY VALUE...` decides the version's filter chain again for each value of one threshold key, from
the signals only (registry.decide_document, then the quality cut of quality.find_threshold: what the
filter stage does), and counts the documents and characters each value keeps per source."""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

from corpus.commands.diff import version_config
from corpus.config import Config
from corpus.config.layout import RUN_FILE, STAGE_FILE
from corpus.errors import CorpusError
from corpus.filters import signals
from corpus.filters.quality import find_threshold
from corpus.filters.registry import annotation_columns, build_params, chain_steps, decide_document, registry, \
    schema_filter_tables
from corpus.commands.diff import published_json
from corpus.formats.parts import write_table
from corpus.stages import STAGE


def published_signals(config: Config) -> tuple[dict, list[dict], Path]:
    """(the version's [filters] table, its filter units' signals entries in part order, the stage dir)."""
    d = STAGE["filter"].path(config)
    manifest, run = published_json(d / STAGE_FILE, "filter stage manifest"), published_json(d / RUN_FILE, "filter run record")
    units = list(run.get("units", {}).get("filter", {}).values())
    missing = [u["key"] for u in units if "signals" not in u]
    if missing or not units:
        raise CorpusError(f"{d / RUN_FILE}: part {missing[0] if missing else '?'} has no signals recorded (built with "
                          f"[run] cache = false, or before corpus kept signals): build it again with the cache on, "
                          f"as a new [dataset] version or with `corpus run --replace`")
    return manifest["params"]["filters"], units, d


def export(config: Config, name: str, out: Path) -> list[dict]:
    """Every document's signals of version `name`, one Parquet file per part in `out` (which must not hold
    files): written in a staging dir beside it, then moved into place."""
    vc = version_config(config, name)
    _, units, d = published_signals(vc)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CorpusError(f"{out}: exists and is not an empty directory (give a new --out)")
    staging = out.with_name(out.name + ".incomplete")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    entries = []
    for u in units:
        table = signals.load(config.artifacts, u["signals"], f"{d} part {u['key']}")
        entries.append({**write_table(table, staging / f"{u['key']}.parquet"), "name": f"{u['key']}.parquet"})
    if out.exists():
        out.rmdir()
    os.replace(staging, out)
    return entries


def parse_value(raw: str, current, key: str, prop: dict):
    """A value given on the command line, as the key's type (its current value's), checked by the schema."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if isinstance(current, bool) != isinstance(value, bool):
        raise CorpusError(f"{key}: {raw!r} is not true or false")
    if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(current, list) and isinstance(value, str):
        value = [v for v in value.split(",") if v]
    import jsonschema  # the one-off check of a value the user typed; validate() is for whole documents

    errors = list(jsonschema.Draft202012Validator(prop).iter_errors(value))
    if errors:
        raise CorpusError(f"{key}: {raw!r}: {errors[0].message}")
    return value


def tune(config: Config, name: str, key: str, raw_values: list[str]) -> dict:
    """For each value of `key` (filters.<filter>.<threshold>): the documents and characters the version's
    filter stage keeps per source, decided from its stored signals alone."""
    t0 = time.perf_counter()
    vc = version_config(config, name)
    filters, units, d = published_signals(vc)
    parts = key.split(".")
    if len(parts) != 3 or parts[0] != "filters" or parts[1] not in registry():
        raise CorpusError(f"{key}: give a filter threshold as filters.<filter>.<key>, e.g. filters.gopher.min_words")
    fname, param = parts[1], parts[2]
    spec = registry()[fname]
    if not filters[fname]["enabled"]:
        raise CorpusError(f"{key}: the {fname} filter is not enabled in {name}")
    if param not in spec.thresholds:
        known = ", ".join(spec.thresholds) or ("none: a cleaning filter changes the text the later filters measure"
                                                if spec.cleans else "none")
        raise CorpusError(f"{key}: not a threshold (decided from stored signals) of filters.{fname}; its thresholds: "
                          f"{known}")
    prop = schema_filter_tables()[fname]["properties"][param]
    values = [parse_value(v, filters[fname][param], key, prop) for v in raw_values]
    variants = []
    for v in values:
        table = copy.deepcopy(filters)
        table[fname][param] = v
        build_params(spec, table[fname])
        variants.append(table)
    steps = [chain_steps(t) for t in variants]
    counts: list[dict[str, list[int]]] = [{} for _ in values]   # per value: source -> [docs, chars]
    scored: list[list[tuple]] = [[] for _ in values]   # per value and part, with the quality filter on
    docs_in: dict[str, int] = {}
    for u in units:  # one part's signals in memory at a time
        t = signals.load(config.artifacts, u["signals"], f"{d} part {u['key']}")
        sids, chars, ids = (t.column(c).to_pylist() for c in ("source_id", "chars", "id"))
        for sid in sids:
            docs_in[sid] = docs_in.get(sid, 0) + 1
        measured = signals.step_values(t, steps[0])  # the same columns whatever the threshold
        for j, (table, (kept, scores)) in enumerate(zip(variants, _decided(measured, steps, ids, fname))):
            if table["quality"]["enabled"]:  # cut below, once every part's scores are known
                scored[j].append((np.array([sids[i] for i in kept], dtype=object),
                                  np.array([chars[i] for i in kept], dtype=np.int64), scores))
                continue
            for i in kept:
                c = counts[j].setdefault(sids[i], [0, 0])
                c[0] += 1
                c[1] += chars[i]
    results = []
    for j, (v, table) in enumerate(zip(values, variants)):
        if table["quality"]["enabled"]:
            parts_scores = [s for _, _, s in scored[j]]
            q = find_threshold(table["quality"], sum(len(s) for s in parts_scores), lambda p=parts_scores: iter(p))
            cut = np.float32(q["threshold"])
            for part_sids, part_chars, s in scored[j]:
                keep = s >= cut
                for sid, n in zip(part_sids[keep], part_chars[keep]):
                    c = counts[j].setdefault(sid, [0, 0])
                    c[0] += 1
                    c[1] += int(n)
        by_source = {sid: {"docs": c[0], "chars": c[1]} for sid, c in sorted(counts[j].items())}
        results.append({"value": v, "by_source": by_source, "docs": sum(c["docs"] for c in by_source.values()),
                        "chars": sum(c["chars"] for c in by_source.values())})
    return {"version": name, "key": key, "now": filters[fname][param], "docs_in": dict(sorted(docs_in.items())),
            "unit": "chars: characters of the text the filter stage keeps (tokens are counted at the tokenize stage)",
            "values": results, "seconds": round(time.perf_counter() - t0, 3)}


def _decided(rows: list, variants: list, ids: list, tuned: str) -> list[tuple[list[int], np.ndarray]]:
    """Per chain of `variants` (the same chain, one filter's thresholds apart): the rows of a part's signals
    table it keeps, and their quality scores (float32; NaN when the quality filter is off). A document a
    filter before the tuned one drops is dropped by every variant alike: decided once."""
    slot = list(annotation_columns()).index("quality_score")
    at_tuned = [s.name for s in variants[0]].index(tuned)
    kept: list[list[int]] = [[] for _ in variants]
    scores: list[list[float]] = [[] for _ in variants]
    for i, measured in enumerate(rows):
        for j, steps in enumerate(variants):
            values, failed, at = decide_document(steps, measured, ids[i])
            if failed is None:
                kept[j].append(i)
                scores[j].append(values[slot] if values[slot] is not None else np.nan)
            elif at < at_tuned:  # before the filter whose thresholds differ: the same for every variant
                break
    return [(k, np.array(sc, dtype=np.float32)) for k, sc in zip(kept, scores)]


def describe(r: dict) -> list[str]:
    lines = [f"{r['key']} (now {json.dumps(r['now'])}) on {r['version']}, decided from stored signals in "
             f"{r['seconds']:.2f} s; {r['unit']}"]
    head = f"{'source':<28} {'docs in':>9}" + "".join(f" | {json.dumps(v['value']):>22}" for v in r["values"])
    lines += [head, f"{'':<28} {'':>9}" + "".join(f" | {'docs':>9} {'chars':>12}" for _ in r["values"])]
    for sid, n in r["docs_in"].items():
        row = f"{sid:<28} {n:>9,}"
        for v in r["values"]:
            c = v["by_source"].get(sid, {"docs": 0, "chars": 0})
            row += f" | {c['docs']:>9,} {c['chars']:>12,}"
        lines.append(row)
    lines.append(f"{'total':<28} {sum(r['docs_in'].values()):>9,}"
                 + "".join(f" | {v['docs']:>9,} {v['chars']:>12,}" for v in r["values"]))
    return lines
