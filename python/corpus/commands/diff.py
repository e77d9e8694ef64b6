"""`corpus diff A B`: what changed between two published versions of a dataset on one artifacts root.

Read from their manifests and shards only: the config keys that differ (the slices their shard stages
recorded), the ledger and the raw outputs they read; documents in and out of every stage and the drops per
rule; the documents in A's shards and not in B's (removed) and the other way round (added), per source, each
removed one with the reason B dropped it (its filter rule or dedup reason, from B's rejects and dropped
parts); and tokens per source and split, before and after (the unmixed token stream of each version)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

from corpus.config import Config
from corpus.config.layout import CORPUS_MANIFEST, STAGE_FILE
from corpus.errors import CorpusError
from corpus.formats.parts import read_parquet
from corpus.commands.pipeline import leaves
from corpus.engine.raw import raw_inputs
from corpus.stages import STAGE


def version_config(config: Config, name: str) -> Config:
    """This config's root and settings, named for the version `name` ("<dataset>/<version>")."""
    ds, _, ver = name.partition("/")
    if not ds or not ver or "/" in ver:
        raise CorpusError(f"{name!r}: give a dataset version as NAME/VERSION, e.g. {config.dataset}/{config.version}")
    data = {**config.data, "dataset": {**config.data["dataset"], "name": ds, "version": ver}}
    return dataclasses.replace(config, data=data)


def published_json(path: Path, what: str) -> dict:
    """A manifest of a published version, or one line saying it is missing or not JSON."""
    if not path.is_file():
        raise CorpusError(f"{path}: no {what} (is the version built? `corpus run` publishes it)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise CorpusError(f"{path}: invalid JSON ({e})") from None


def config_changes(a: Config, b: Config) -> list[dict]:
    """[{key, a, b}] of every config key the two shard stages recorded with another value, then the ledger
    rows and the raw outputs (a [fetch]/[extract] edit) their normalize read."""
    ma, mb = (published_json(STAGE["shard"].path(c) / STAGE_FILE, "shard stage manifest") for c in (a, b))
    was, now = leaves(ma["params"].get("config") or {}), leaves(mb["params"].get("config") or {})
    out = [{"key": k, "a": was.get(k), "b": now.get(k)} for k in sorted(set(was) | set(now)) if was.get(k) != now.get(k)]
    if ma["params"].get("ledger_sha256") != mb["params"].get("ledger_sha256"):
        out.append({"key": "ledger (rows of the sources and evals)", "a": ma["params"].get("ledger_sha256"),
                    "b": mb["params"].get("ledger_sha256")})
    raw_a, raw_b = (_raw_read(c) for c in (a, b))
    for sid in sorted(set(raw_a) | set(raw_b)):
        if raw_a.get(sid) != raw_b.get(sid):
            out.append({"key": f"raw output of {sid}", "a": raw_a.get(sid), "b": raw_b.get(sid)})
    return out


def _raw_read(config: Config) -> dict[str, str]:
    m = published_json(STAGE["normalize"].path(config) / STAGE_FILE, "normalize stage manifest")
    return {sid: str(Path(i["path"]).parent) for sid, i in raw_inputs(m).items()}


def _ids(config: Config, corpus: dict) -> dict[str, str]:
    """{document id: source_id} of every document in the version's shards."""
    out: dict[str, str] = {}
    for s in corpus["shards"]:
        t = read_parquet(config.dataset_dir / s["name"], columns=["id", "source_id"])
        out.update(zip(t.column("id").to_pylist(), t.column("source_id").to_pylist()))
    return out


def _drop_reasons(config: Config) -> dict[str, str]:
    """{document id: "<filter>.<rule>" or "dedup.<reason>"} of every document the version's filter or dedup
    dropped."""
    out: dict[str, str] = {}
    for p in sorted((STAGE["filter"].path(config) / "rejects").glob("*.parquet")):
        t = read_parquet(p, columns=["id", "filter", "rule"]).to_pydict()
        out.update((i, f"{f}.{r}") for i, f, r in zip(t["id"], t["filter"], t["rule"]))
    for p in sorted((STAGE["dedup"].path(config) / "dropped").glob("*.parquet")):
        t = read_parquet(p, columns=["id", "reason"]).to_pydict()
        out.update((i, f"dedup.{r}") for i, r in zip(t["id"], t["reason"]))
    return out


def _tokens_by_source(config: Config, corpus: dict) -> dict | None:
    from corpus.report.sampling import Budget
    from corpus.report.shards import collect_shards
    from corpus.report.tokens import collect_tokens

    tokens = collect_tokens(config, corpus, collect_shards(config, corpus, Budget()), Budget())
    if tokens is None:
        return None
    return {"splits": {s: v["tokens"] for s, v in tokens["splits"].items()}, "by_source": tokens["by_source"]}


def diff(config: Config, a_name: str, b_name: str) -> dict:
    a, b = version_config(config, a_name), version_config(config, b_name)
    ca, cb = (published_json(c.dataset_dir / CORPUS_MANIFEST, "corpus manifest") for c in (a, b))
    ids_a, ids_b = _ids(a, ca), _ids(b, cb)
    removed = sorted(set(ids_a) - set(ids_b), key=str.encode)
    added = sorted(set(ids_b) - set(ids_a), key=str.encode)
    reasons = _drop_reasons(b) if removed else {}
    b_sources = set(config_sources(cb))
    why = Counter()
    for i in removed:
        why[(ids_a[i], reasons.get(i) or ("source not in B" if ids_a[i] not in b_sources else "not in B's input"))] += 1
    per_source: dict[str, dict] = {}
    for sid in sorted(set(ids_a.values()) | set(ids_b.values())):
        per_source[sid] = {"a": sum(1 for s in ids_a.values() if s == sid), "b": sum(1 for s in ids_b.values() if s == sid),
                           "added": sum(1 for i in added if ids_b[i] == sid),
                           "removed": sum(1 for i in removed if ids_a[i] == sid),
                           "removed_by": {r: n for (s, r), n in sorted(why.items()) if s == sid}}
    stages = {st: {"a": ca["docs_per_stage"].get(st), "b": cb["docs_per_stage"].get(st)}
              for st in sorted(set(ca["docs_per_stage"]) | set(cb["docs_per_stage"]))}
    rules = {r: {"a": ca["filters_by_rule"].get(r, 0), "b": cb["filters_by_rule"].get(r, 0)}
             for r in sorted(set(ca["filters_by_rule"]) | set(cb["filters_by_rule"]))
             if ca["filters_by_rule"].get(r, 0) != cb["filters_by_rule"].get(r, 0)}
    return {"a": a_name, "b": b_name, "config": config_changes(a, b), "stages": stages, "rules": rules,
            "documents": {"a": len(ids_a), "b": len(ids_b), "added": len(added), "removed": len(removed)},
            "sources": per_source, "tokens": {"a": _tokens_by_source(a, ca), "b": _tokens_by_source(b, cb)}}


def config_sources(corpus: dict) -> list[str]:
    return [s["source_id"] for s in corpus["sources"]]


def describe(d: dict) -> list[str]:
    """The diff as lines for a terminal."""
    out = [f"{d['a']} -> {d['b']}"]
    out.append("config: " + ("unchanged" if not d["config"] else f"{len(d['config'])} difference(s)"))
    out += [f"  {c['key']}: {json.dumps(c['a'], ensure_ascii=False)} -> {json.dumps(c['b'], ensure_ascii=False)}"
            for c in d["config"]]
    out.append("documents per stage (in -> out):")
    for st, v in d["stages"].items():
        fmt = lambda x: f"{x['in']:,} -> {x['out']:,}" if x else "-"  # noqa: E731
        out.append(f"  {st:<10} {fmt(v['a']):>22}   {fmt(v['b']):>22}")
    if d["rules"]:
        out.append("drops per rule that differ:")
        out += [f"  {r:<40} {v['a']:>9,} -> {v['b']:,}" for r, v in d["rules"].items()]
    n = d["documents"]
    out.append(f"documents in the shards: {n['a']:,} -> {n['b']:,} ({n['added']:,} added, {n['removed']:,} removed)")
    for sid, s in d["sources"].items():
        by = ", ".join(f"{r} {k:,}" for r, k in s["removed_by"].items())
        out.append(f"  {sid:<28} {s['a']:>8,} -> {s['b']:<8,} +{s['added']:,} -{s['removed']:,}" + (f" ({by})" if by else ""))
    ta, tb = d["tokens"]["a"], d["tokens"]["b"]
    if ta is None or tb is None:
        out.append("tokens: " + ("no token stream in " + (d["a"] if ta is None else d["b"])))
        return out
    out.append("tokens: " + ", ".join(f"{s} {ta['splits'].get(s, 0):,} -> {tb['splits'].get(s, 0):,}"
                                       for s in sorted(set(ta["splits"]) | set(tb["splits"]))))
    for sid in sorted(set(ta["by_source"]) | set(tb["by_source"])):
        x, y = ta["by_source"].get(sid, {}), tb["by_source"].get(sid, {})
        out.append(f"  {sid:<28} train {x.get('train', 0):>10,} -> {y.get('train', 0):<10,} "
                   f"val {x.get('val', 0):,} -> {y.get('val', 0):,}")
    return out
