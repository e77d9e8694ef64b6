"""Stage 03 filter: the registered filters (corpus.filters.registry) in their configured order.

Each kept document gets the filters' annotations (`lang`, `lang_score`); the first failing rule drops it
to `rejects/part-<n>.parquet` with the filter, the rule, the measured value and the text, so a user can
see exactly why. Models load once per worker process."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus.config import Config
from corpus.filters.memo import ChainMemo
from corpus.filters.signals import SignalsTable
from corpus.store.atomic import sha256_bytes, write_bytes
from corpus.engine.cache import cache_key, cache_root, cache_use_step
from corpus.store.checksums import read_verified
from corpus.filters.registry import Outcome, annotation_columns, chain_for, filter_order, registry
from corpus.filters import takedown
from corpus.filters.takedown import FILTER_NAME as TAKEDOWN
from corpus.store.atomic import canonical_json
from corpus.filters.quality import checked_score, find_threshold
from corpus.formats.parts import PartReader, PartWriter, read_table, schema_of, utf8_digests, validate_columns, write_table
from corpus.engine.runner import WORK_DIR, Job, Map, PhaseContext, RunOptions, Step, published_stage
from corpus.stages import STAGE, config_hash, columns, input_columns, reuse_sources

ME = STAGE["filter"]
OUT_COLUMNS = columns("filter")
IN_COLUMNS = input_columns("filter")
REJECT_COLUMNS = ME.side.columns
# a unit's result names its signals table (filters.signals) when the cache is on: a run with it reuses no
# result without one (made with the cache off, or before signals were kept)
SIGNALS_FORMAT = 1
REMOVED = "removed"  # the lines cleaning filters removed: removed/part-<n>.parquet
REMOVED_COLUMNS = {"id": pa.string(), "source_id": pa.string(), "filter": pa.string(), "rule": pa.string(),
                   "line": pa.int32(), "text": pa.string()}


def record_removed(lines: list, doc_id: str, source_id: str, removed: dict, by_rule: dict) -> None:
    """A document's removed lines into the removed/ columns and the per-rule counts (documents, lines,
    characters)."""
    seen = set()
    for name, rule, n, line in lines:
        for k, v in (("id", doc_id), ("source_id", source_id), ("filter", name), ("rule", rule), ("line", n),
                     ("text", line)):
            removed[k].append(v)
        c = by_rule.setdefault(f"{name}.{rule}", {"docs": 0, "lines": 0, "chars": 0})
        c["docs"] += (name, rule) not in seen
        c["lines"] += 1
        c["chars"] += len(line)
        seen.add((name, rule))


def cleaned_summary(lines: list) -> str | None:
    """The `cleaned` column: {"<filter>.<rule>": [lines, characters]} as canonical JSON, or null."""
    if not lines:
        return None
    out: dict[str, list[int]] = {}
    for name, rule, _, line in lines:
        c = out.setdefault(f"{name}.{rule}", [0, 0])
        c[0] += 1
        c[1] += len(line)
    return canonical_json(out)


def count_unknown_languages(chain, outcomes: list, counts: dict[str, int]) -> None:
    """Documents per language that reached the word rules with no settings for their language."""
    for out in outcomes:
        if (lang := chain.unknown_language(out)) is not None:
            counts[lang] = counts.get(lang, 0) + 1


@dataclass(frozen=True)
class FilterUnit:
    key: str
    in_path: Path
    in_sha256: str
    filters_json: str
    resources_json: str
    out_dir: Path
    cache_root: str | None = None  # where filters.memo keeps each filter's results per document ([run] cache)
    scored: bool = False  # the quality filter is on: kept documents go to _work/scored/, to be cut (quality_cut)
    # the takedown lists' file (takedown_lists, takedown_lists_sha256), apart from the resources: they are in
    # every filter's measuring identity, which the lists must not change (a takedown measures from the memo)
    takedown_json: str = "{}"


def takedown_matcher(takedown_json: str):
    """The takedown lists' matcher, or None without [takedown] lists."""
    res = json.loads(takedown_json)
    return takedown.load_matcher(res["takedown_lists"], res["takedown_lists_sha256"]) if "takedown_lists" in res \
        else None


@dataclass(frozen=True)
class MatchUnit:
    key: str
    in_path: Path
    in_sha256: str
    takedown_json: str
    cache_root: str | None = None   # where the parts' text sha256s are kept (filters.takedown.DIGESTS_KIND)


def match_part(u: MatchUnit) -> dict:
    """How many of the part's documents the takedown lists match (their ids, urls and sources; their texts
    only when a list names a text's sha256). A part with none is filtered as a run without the lists
    filters it, so a takedown reuses its unit from the version it takes documents out of."""
    matcher = takedown_matcher(u.takedown_json)
    reader = PartReader(u.in_path, u.in_sha256, columns=["id", "url", "source_id"])
    known = takedown.cached_digests(u.cache_root, u.in_sha256, reader.num_rows) if matcher.need_text else None
    if matcher.need_text and known is None:  # the texts, hashed here (and kept for the next takedown)
        reader.close()
        reader = PartReader(u.in_path, u.in_sha256, columns=["id", "url", "source_id", "text"])
    n, first, hashed = 0, 0, []
    for batch in reader.batches():
        digests = None
        if matcher.need_text:
            digests = known[first:first + batch.num_rows] if known is not None else \
                utf8_digests(pa.chunked_array([batch.column("text")]))
            if known is None:
                hashed.append(digests)
        n += int(matcher.matched(batch, digests).sum())
        first += batch.num_rows
    if hashed:
        takedown.keep_digests(u.cache_root, u.in_sha256, hashed)
    return {"key": u.key, "matches": n}


def takedown_counts_step(ctx: PhaseContext) -> None:
    """With takedown lists, the stage counts a `takedown` drop (0 when no part held a listed document:
    the parts without one are filtered, or reused, as without the lists)."""
    counts = ctx.counts if ctx.counts is not None else ctx.summed_counts()
    counts.setdefault("dropped", {}).setdefault(TAKEDOWN, 0)
    ctx.counts = counts


def taken_down(matcher, cols: dict, outcomes: list, digests: np.ndarray | None = None) -> tuple[list, list[int]]:
    """The batch's outcomes with each removed document's replaced by its takedown reject, and the
    positions of the others. A removed document is measured all the same (from the memo, in a takedown
    of a published version): its detail says what the filters would have done, " (filters: kept)" or
    " (filters: <filter>.<rule>)", which dedup reads to number rows as the version without the list did.
    `digests`: the texts' sha256s ((n, 32) uint8), when the caller has them."""
    if matcher is None:
        return outcomes, list(range(len(outcomes)))
    out, live = [], []
    for i, (doc_id, url, sid, text) in enumerate(zip(cols["id"], cols["url"], cols["source_id"], cols["text"])):
        m = matcher.match(doc_id, url, sid, text, digests[i].tobytes().hex() if digests is not None else None)
        if m is None:
            out.append(outcomes[i])
            live.append(i)
            continue
        failed = outcomes[i].failed
        then = "kept" if failed is None else f"{failed[0]}.{failed[1]}"
        out.append(Outcome((), (TAKEDOWN, m.kind, float(m.line), f"{m.detail} (filters: {then})"), text, []))
    return out, live


def signals_table(u: FilterUnit, chain, identities: list, lists: bool = True) -> SignalsTable:
    """The part's signals table (corpus signals export, tune), filed by the input part and everything
    measured (`identities`: chain.memo_identities); lists=False: the table of a run without the takedown
    lists (every document of the part)."""
    # the takedown lists change which documents the table holds (a run without them keeps its key)
    sha = json.loads(u.takedown_json).get("takedown_lists_sha256") if lists else None
    down = {"takedown": sha} if sha else {}
    return SignalsTable(chain.steps, Path(u.cache_root), cache_key({
        "signals": u.in_sha256, "identities": identities,
        "cleaning": [json.loads(u.filters_json)[s.name] for s in chain.steps if s.spec.cleans], **down}))


def stored_signals(chain, table: SignalsTable, rows: int) -> list | None:
    """Every document's signals in the part's order from its signals table, when the cache holds it and
    they alone decide: no cleaning filter (the table holds its failures, not the text it leaves). A
    threshold edit's run then neither hashes a document nor loads the memo."""
    if chain.cleans:
        return None
    stored = table.stored()
    return stored if stored is not None and len(stored) == rows else None


@dataclass
class Cached:
    """What the cache holds for a filter unit (cached_signals)."""
    table: SignalsTable | None = None    # the unit's signals table, None with the cache off
    stored: list | None = None           # every document's stored signals, when they alone decide
    memo: ChainMemo | None = None        # otherwise: the stored signals per filter and document
    # a takedown deciding from the table of the run without the lists: that table, whose rows this unit's
    # table takes for the documents not removed (SignalsTable.add_stored)
    whole: SignalsTable | None = None

    def add(self, cols: dict, live: list[int], measured: list, first: int) -> None:
        """The signals of a batch's documents not taken down (its first row the part's `first`)."""
        if self.whole is not None:
            self.table.add_stored(self.whole, [first + i for i in live])
        elif self.table is not None:
            self.table.add(*([cols[k][i] for i in live] for k in ("id", "source_id", "url")), [measured[i] for i in live])

    def finish(self, res: dict, docs: int, steps: int) -> dict:
        """The memo and the signals table saved, their entries in the unit's result `res`."""
        if self.memo is not None:
            self.memo.save()
        if self.table is not None:
            res["cache"] = ({"hits": self.memo.hits, "computed": self.memo.misses} if self.memo is not None
                            else {"hits": docs * steps, "computed": 0})
            res["signals"] = self.table.save()
        return res


def cached_signals(u: FilterUnit, chain, matcher, rows: int) -> Cached:
    """With the cache on: the part's signals table, its stored values when they alone decide
    (stored_signals), and otherwise the part's stored signals per filter (filters.memo), both filed under
    the chain's measuring identities. With takedown lists, the stored values are those of the version
    taken from (the table without the lists: every document of the part, the removed ones too)."""
    if u.cache_root is None:
        return Cached()
    identities = chain.memo_identities(json.loads(u.filters_json), json.loads(u.resources_json))
    table = signals_table(u, chain, identities)
    whole = signals_table(u, chain, identities, lists=False) if matcher is not None else None
    stored = stored_signals(chain, whole if whole is not None else table, rows)
    if stored is None:
        return Cached(table, None, ChainMemo(Path(u.cache_root), identities, chain.signal_columns(), u.key))
    return Cached(table, stored, None, whole)


def decide_batch(chain, cols: dict, stored: list | None, first: int, memo) -> tuple[list, list]:
    """A batch's Outcomes (its first row the part's `first`) and what was measured of each document:
    decided from the part's stored signals when given (the table is known: SignalsTable.add then only
    counts the documents), else measured (from the memo where it knows them)."""
    if stored is not None:
        n = len(cols["id"])
        return chain.decide_many(cols["text"], stored[first:first + n], cols["id"]), [None] * n
    measured: list = []
    return chain.check_many(cols["text"], cols["url"], cols["id"], memo, measured), measured


def filter_part(u: FilterUnit) -> dict:
    """Stream the part in batches of BATCH_ROWS documents (hashing it as it is read); kept documents and
    rejects are written a row group at a time: memory is a batch and a row group, not the part."""
    reader = PartReader(u.in_path, u.in_sha256, columns=list(IN_COLUMNS))
    validate_columns(reader.schema, IN_COLUMNS, u.in_path)
    chain = chain_for(u.filters_json, u.resources_json)
    matcher = takedown_matcher(u.takedown_json)
    cached = cached_signals(u, chain, matcher, reader.num_rows)
    annotations = list(annotation_columns())
    for folder in (ME.side.dirname, REMOVED):
        (u.out_dir / folder).mkdir(exist_ok=True)
    side, lines_side = f"{ME.side.dirname}/{u.key}.parquet", f"{REMOVED}/{u.key}.parquet"
    out_schema, rej_schema = schema_of(OUT_COLUMNS), schema_of(REJECT_COLUMNS)
    kept_name = f"{WORK_DIR}/{SCORED}/{u.key}.parquet" if u.scored else f"{u.key}.parquet"
    scores: list[float] = []  # the kept documents' quality scores (u.scored), for the quantile step
    model = json.loads(u.resources_json).get("quality_path") if u.scored else None
    (u.out_dir / kept_name).parent.mkdir(parents=True, exist_ok=True)
    kept_w, rej_w = PartWriter(u.out_dir / kept_name, out_schema), PartWriter(u.out_dir / side, rej_schema)
    rem_w = PartWriter(u.out_dir / lines_side, rem_schema := schema_of(REMOVED_COLUMNS))
    # lines cleaned per rule; documents dropped per filter, per rule, per language that got language-agnostic
    # word rules, and per source
    cleaned_by_rule, dropped, by_rule, agnostic, by_source = {}, {}, {}, {}, {}
    docs_in = 0
    digests: list[np.ndarray] = []  # the texts' sha256s, kept for a takedown's match (filters.takedown)
    hashed = u.cache_root is not None or (matcher is not None and matcher.need_text)
    for batch in reader.batches():
        batch_digests = utf8_digests(pa.chunked_array([batch.column("text")])) if hashed else None
        if u.cache_root is not None:
            digests.append(batch_digests)
        keep = {k: [] for k in OUT_COLUMNS}
        rej = {k: [] for k in REJECT_COLUMNS}
        removed = {k: [] for k in REMOVED_COLUMNS}
        cols = {k: batch.column(k).to_pylist() for k in IN_COLUMNS}
        decided, measured = decide_batch(chain, cols, cached.stored, docs_in, cached.memo)
        outcomes, live = taken_down(matcher, cols, decided, batch_digests)
        cached.add(cols, live, measured, docs_in)  # the signals table (tune, signals export)
        docs_in += batch.num_rows
        count_unknown_languages(chain, [outcomes[i] for i in live], agnostic)
        for i, (text, out) in enumerate(zip(cols["text"], outcomes)):
            sid = cols["source_id"][i]
            src = by_source.setdefault(sid, {"docs_in": 0, "docs_out": 0})
            src["docs_in"] += 1
            values, failed = out.annotations, out.failed
            if out.removed:
                record_removed(out.removed, cols["id"][i], sid, removed, cleaned_by_rule)
            if failed is None:
                src["docs_out"] += 1
                for k in IN_COLUMNS:
                    keep[k].append(out.text if k == "text" else cols[k][i])
                for k, v in zip(annotations, values):
                    keep[k].append(v)
                keep["cleaned"].append(cleaned_summary(out.removed))
                if u.scored:
                    scores.append(checked_score(keep["quality_score"][-1], model, cols["id"][i]))
                continue
            name, rule, value, detail = failed
            dropped[name] = dropped.get(name, 0) + 1
            by_rule[f"{name}.{rule}"] = by_rule.get(f"{name}.{rule}", 0) + 1
            for k, v in (("id", cols["id"][i]), ("source_id", sid), ("url", cols["url"][i]), ("filter", name),
                         ("rule", rule), ("value", float(value)), ("text", text), ("detail", detail)):
                rej[k].append(v)
        for w, cols_of, values_of, schema in ((kept_w, OUT_COLUMNS, keep, out_schema), (rej_w, REJECT_COLUMNS, rej, rej_schema),
                                              (rem_w, REMOVED_COLUMNS, removed, rem_schema)):
            w.write(pa.record_batch([pa.array(values_of[k], type=t) for k, t in cols_of.items()], schema=schema))
    parts = [kept_w.close(), rej_w.close(), rem_w.close()]
    takedown.keep_digests(u.cache_root, u.in_sha256, digests)
    parts[0]["name"], parts[1]["name"], parts[2]["name"] = kept_name, side, lines_side
    order = ([TAKEDOWN] if matcher is not None else []) + filter_order(json.loads(u.filters_json))
    counts = {"docs_in": docs_in, "docs_out": parts[0]["rows"],
              "dropped": {f: dropped.get(f, 0) for f in order}, "dropped_by_rule": by_rule, "by_source": by_source,
              "cleaned_by_rule": cleaned_by_rule, **({"language_agnostic": agnostic} if agnostic else {})}
    res = {"key": u.key, "parts": parts[1:] if u.scored else parts, "counts": counts}
    if u.scored:
        buf = io.BytesIO()
        np.save(buf, np.array(scores, dtype=np.float32))
        name = f"{WORK_DIR}/{SCORED}/{u.key}.scores.npy"
        write_bytes(u.out_dir / name, buf.getvalue())
        res["work"] = parts[:1] + [{"name": name, "sha256": sha256_bytes(buf.getvalue()), "bytes": buf.tell()}]
    return cached.finish(res, docs_in, len(chain.steps))


# ---------------------------------------------------------------- the quality cut
# The quality filter only scores inside the chain; once every other filter has decided, its threshold
# (absolute, or keep_fraction's exact quantile of the kept documents' scores) splits each scored part
# into the published part and rejects/<key>.quality.parquet.

SCORED = "scored"


def _scores(ctx: PhaseContext, r: dict) -> np.ndarray:
    entry = r["work"][1]
    return np.load(io.BytesIO(read_verified(ctx.staging / entry["name"], entry["sha256"])), allow_pickle=False)


def quantile_step(table: dict, ctx: PhaseContext) -> None:
    """The threshold (quality.find_threshold), over the scores of every part, one part at a time."""
    results = ctx.results["filter"]
    n = sum(r["work"][0]["rows"] for r in results)
    ctx.state["quality"] = find_threshold(table, n, lambda: (_scores(ctx, r) for r in results))


@dataclass(frozen=True)
class CutUnit:
    key: str
    scored: dict         # the scored part's work entry
    threshold: float
    rule: str
    note: str
    staging: Path


def cut_part(u: CutUnit) -> dict:
    """Split a scored part: score >= threshold is published, the rest are rejects of the quality filter."""
    table = read_table(u.staging / u.scored["name"], u.scored["sha256"])
    keep = pc.greater_equal(table.column("quality_score"), pa.scalar(u.threshold, pa.float32())).fill_null(False)
    kept, dropped = table.filter(keep), table.filter(pc.invert(keep))
    name = f"{ME.side.dirname}/{u.key}.quality.parquet"
    n = dropped.num_rows
    rejects = pa.table({"id": dropped.column("id"), "source_id": dropped.column("source_id"),
                        "url": dropped.column("url"), "filter": pa.array(["quality"] * n, pa.string()),
                        "rule": pa.array([u.rule] * n, pa.string()),
                        "value": dropped.column("quality_score").cast(pa.float64()), "text": dropped.column("text"),
                        "detail": pa.array([u.note] * n, pa.string())}, schema=schema_of(REJECT_COLUMNS))
    parts = [write_table(kept, u.staging / f"{u.key}.parquet"), write_table(rejects, u.staging / name)]
    parts[0]["name"], parts[1]["name"] = f"{u.key}.parquet", name
    by_source: dict[str, int] = {}
    for sid in dropped.column("source_id").to_pylist():
        by_source[sid] = by_source.get(sid, 0) + 1
    return {"key": u.key, "parts": parts, "cut": {"dropped": n, "by_source": by_source}}


def cut_units(ctx: PhaseContext) -> list[CutUnit]:
    q = ctx.state["quality"]
    return [CutUnit(r["key"], r["work"][0], q["threshold"], q["rule"], q["note"], ctx.staging)
            for r in ctx.results["filter"]]


def cut_counts_step(table: dict, ctx: PhaseContext) -> None:
    """The stage's counts: the chain's, with the quality cut's drops, and the threshold and how it was found."""
    counts = ctx.summed_counts()
    q = ctx.state["quality"]
    rule = f"quality.{q['rule']}"
    for r in ctx.results["quality-cut"]:
        n = r["cut"]["dropped"]
        counts["docs_out"] -= n
        counts["dropped"]["quality"] = counts["dropped"].get("quality", 0) + n
        if n:
            counts["dropped_by_rule"][rule] = counts["dropped_by_rule"].get(rule, 0) + n
        for sid, m in r["cut"]["by_source"].items():
            counts["by_source"][sid]["docs_out"] -= m
    counts["quality"] = {"threshold": q["threshold"], "rule": q["rule"], "keep_fraction": table["keep_fraction"],
                         "scored": q["scored"], "kept": q["scored"] - sum(r["cut"]["dropped"]
                                                                          for r in ctx.results["quality-cut"]),
                         "how": q["note"]}
    ctx.counts = counts


def quality_phases(table: dict) -> list:
    return [Step("quantile", partial(quantile_step, table)), Map("quality-cut", cut_units, cut_part),
            Step("counts", partial(cut_counts_step, table))]


def plan(config: Config, opts: RunOptions) -> list[Job]:
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads, upstream=config_hash(config, ME.reads))
    filters = config["filters"]
    order = filter_order(filters)
    params = {"filters": filters, "order": order}
    enabled = [registry()[n] for n in order if filters[n]["enabled"]]
    for spec in enabled:
        if spec.identity is not None:
            params.update(spec.identity(config))

    lists = takedown.list_rows(config) if takedown.list_ids(config) else []
    if lists:
        params["takedown"] = [{"source_id": r["source_id"], "sha256": r["sha256"]} for r in lists]

    def prepare(ctx: PhaseContext) -> None:
        resources: dict = {}
        ctx.state["takedown_json"] = "{}"
        if lists:
            part, res = takedown.write_resource(config, ctx.staging)
            ctx.add_part(part)
            ctx.state["takedown_json"] = json.dumps(res, sort_keys=True)
        for spec in enabled:
            if spec.prepare is not None:
                parts, res = spec.prepare(config, ctx.staging)
                for p in parts:
                    ctx.add_part(p)
                resources.update(res)
        ctx.state["resources_json"] = json.dumps(resources, sort_keys=True)

    filters_json = json.dumps(filters, sort_keys=True)
    root = cache_root(config)
    cache = str(root) if root is not None else None

    scored = bool(filters.get("quality", {}).get("enabled"))

    def match_units(ctx: PhaseContext) -> list[MatchUnit]:
        return [MatchUnit(p["name"].removesuffix(".parquet"), src / p["name"], p["sha256"], ctx.state["takedown_json"],
                          cache) for p in manifest["parts"]]

    def units(ctx: PhaseContext) -> list[FilterUnit]:
        # with lists, only the parts holding a listed document see them: the others are filtered (and
        # fingerprinted) as without the lists, the same bytes, so a takedown reuses them
        matches = {r["key"]: r["matches"] for r in ctx.results.get("match", [])}
        return [FilterUnit(key, src / p["name"], p["sha256"], filters_json, ctx.state["resources_json"], ctx.staging,
                           cache, scored, ctx.state["takedown_json"] if matches.get(key) else "{}")
                for p in manifest["parts"] for key in [p["name"].removesuffix(".parquet")]]

    def fingerprint(u: FilterUnit) -> dict:  # the input part, the filters, the resources by content
        resources = {k: v for k, v in json.loads(u.resources_json).items() if k.endswith("sha256")}
        sha = json.loads(u.takedown_json).get("takedown_lists_sha256")
        down = {"takedown": sha} if sha else {}
        unit_params = params if sha else {k: v for k, v in params.items() if k != "takedown"}
        return {"in_sha256": u.in_sha256, "filters": json.loads(u.filters_json), "resources": resources,
                "params": unit_params, "signals": SIGNALS_FORMAT if u.cache_root is not None else None, **down}

    from corpus.engine.raw import raw_refs
    from corpus.filters.registry import filter_sources

    inputs = [ref, *raw_refs(config, [sid for sid, _ in filter_sources(config)] + [r["source_id"] for r in lists])]
    return [Job("filter", ME.path(config), {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": inputs},
                [Step("prepare", prepare),
                 *([Map("match", match_units, match_part, unit="parts")]
                   if lists else []),
                 Map("filter", units, filter_part, fingerprint=fingerprint),
                 Step("cache", cache_use_step("filter", "filter_cache", "filter results"))]
                + (quality_phases(filters["quality"]) if scored else [])
                + ([Step("takedown-counts", takedown_counts_step)] if lists else []),
                dataset=config.dataset, version=config.version, reuse_from=reuse_sources(config, ME.name))]


def language_warnings(counts: dict) -> list[str]:
    """The run table's warning when documents of languages with no word rules got language-agnostic ones."""
    found = counts.get("language_agnostic") or {}
    if not found:
        return []
    langs = ", ".join(f"{lang} ({n} docs)" for lang, n in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))
    return [f"no word rules for {langs}: language-agnostic settings (no stop-word rule; add "
            "[filters.gopher.languages.<code>] or derive them: docs/quality.md)"]


def summary(result) -> str:
    c = result.manifest["counts"]
    return "; ".join([f"{c['docs_in']} docs in, {c['docs_out']} out",
                      *(f"WARNING: {w}" for w in language_warnings(c))])


def report(result) -> list[str]:
    c = result.manifest["counts"]
    lines = [f"  WARNING: {w}" for w in language_warnings(c)]
    dropped = c.get("dropped", {})
    for name in [n for n in registry() if n in dropped]:
        n = dropped[name]
        rules = {k.split(".", 1)[1]: v for k, v in c.get("dropped_by_rule", {}).items() if k.startswith(name + ".")}
        lines.append(f"  dropped by {name:<11} {n:>7}" + (f"   {rules}" if rules else ""))
    for sid, s in c.get("by_source", {}).items():
        lines.append(f"  {sid:<28} kept {s['docs_out']:>7} of {s['docs_in']:>7} "
                     f"({100 * s['docs_out'] / max(1, s['docs_in']):5.1f}%)")
    return lines
