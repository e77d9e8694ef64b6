"""`corpus why <id>`: one document's path through every stage, read from the manifests and parts only.

For each stage in the stage table: where the document is (raw part and line, its locator), what the
filters measured and which rule dropped it (value and threshold), its duplicate (the kept id, the exact
Jaccard and the shared shingles) or the eval set and n-gram it shares, the PII placeholders inserted and the
rule (and context word) behind each,
its shard, row and split, and where its tokens are (part, document and token offset) in every token
directory. Every part read is checked against its manifest's sha256. Read-only: no lock, no writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus.config import Config
from corpus.errors import CorpusError
from corpus.formats.jsonl import read_zst_jsonl
from corpus.config.layout import CORPUS_MANIFEST, STAGE_FILE, TOKENS_MANIFEST, tokens_root
from corpus.config.ledger import load_ledger
from corpus.formats.parts import read_parquet, read_table
from corpus.engine.raw import document_parts, version_raw
from corpus.engine.runner import read_stage_manifest
from corpus.stages import STAGE
from corpus.formats.megatron import MegatronIndex
from corpus.tokens.plan import replay_order

PLACEHOLDERS = ("<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>")


def _find_row(directory: Path, manifest: dict, doc_id: str, prefix: str = "part-") -> tuple[str, int, dict] | None:
    """(part name, row, the row's columns) of `doc_id` among a stage's parts named `prefix`...; row-group
    statistics prune what is read, and a part that may hold it is read whole and checked by sha256."""
    for part in manifest["parts"]:
        if not (part["name"].startswith(prefix) and part["name"].endswith(".parquet")):
            continue
        path = directory / part["name"]
        meta = pq.ParquetFile(path).metadata
        col = meta.schema.names.index("id")
        maybe = False
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(col).statistics
            if stats is None or not stats.has_min_max or stats.min <= doc_id <= stats.max:
                maybe = True
                break
        if not maybe:
            continue
        table = read_table(path, part["sha256"])
        hit = pc.index(table.column("id"), pa.scalar(doc_id)).as_py()
        if hit >= 0:
            row = {k: v[0] for k, v in table.slice(hit, 1).to_pydict().items()}
            return part["name"], hit, row
    return None


def _thresholds(filters_cfg: dict) -> dict[str, object]:
    """'<filter>.<rule>' -> its threshold, from the filter stage's recorded parameters."""
    from corpus.report.filters import gopher_rules, repetition_rules

    out: dict[str, object] = {"lang.keep": list(filters_cfg["lang"]["keep"]),
                              "lang.min_score": filters_cfg["lang"]["min_score"],
                              "ppl.threshold": filters_cfg["ppl"]["threshold"]}
    for rule in gopher_rules(filters_cfg["gopher"]) + repetition_rules(filters_cfg["repetition"]):
        out[rule.key] = rule.threshold
    return out


def _masked(span: str) -> str:
    """A redacted span's shape, not its content: letters become x, digits #."""
    return "".join("#" if c.isdigit() else "x" if c.isalpha() else c for c in span)


def _pii_redactions(pii_cfg: dict, before: str, after: str, recorded: int) -> list[str]:
    """Why stage 05 made each redaction of this document: the scrub is run again on its input (the dedup
    stage's text) with the [pii] settings recorded in the pii manifest, and corpus.pii.scrub.explain names
    the rule and its trigger (context word, address cue, ...) for every span; the span itself is shown
    masked. A note is added if the result no longer matches the published text (other code or libraries)."""
    from corpus.pii.scrub import explain, params_from_config, scrub

    params = params_from_config(pii_cfg)
    out = []
    for e in explain(before, params):
        rules = "; ".join(r["rule"] + (f" ({r['trigger']})" if r["trigger"] else "") for r in e["rules"])
        where = f"{e['start']}-{e['end']}" + (f" (round {e['round']})" if e["round"] > 1 else "")
        out.append(f"{e['type']} {where} {_masked(e['text'])!r}: {rules}")
    if scrub(before, params)[0] != after or len(out) != recorded:
        out.append(f"note: scrubbing again gives other redactions than the {recorded} published "
                   "(the code or a library changed since the run)")
    return out


def _raw_step(config: Config, row: dict, k: int) -> dict:
    directory, manifest = version_raw(config, row, [STAGE["normalize"].path(config)])
    start = 0
    for part in document_parts(manifest):
        if k < start + part["rows"]:  # current_raw has verified every part's sha256 already
            for line, rec in enumerate(read_zst_jsonl(directory / part["name"]), 1):
                if line == k - start + 1:
                    step = {"stage": "fetch", "status": "read",
                            "raw_part": str(directory.relative_to(config.artifacts) / part["name"]),
                            "raw_line": line, "locator": rec["url"], "fetched_at": rec["fetched_at"],
                            "license_spdx": rec["license_spdx"], "chars": len(rec["text"])}
                    if "meta" in rec:  # a web page: its URL, and where its WARC record is
                        meta = rec["meta"]
                        step.update(url=rec["url"], locator=meta["locator"],
                                    **{k: meta[k] for k in ("record_id", "warc_date", "http_status", "charset",
                                                            "charset_from") if meta.get(k) is not None},
                                    extractor=manifest["params"]["extract"]["engine"])
                    return step
        start += part["rows"]
    raise CorpusError(f"'{row['source_id']}:{k}': the source has {start} documents (ids run from 0 to {start - 1})")


def _removed_rows(directory: Path, manifest: dict, doc_id: str) -> list[dict]:
    """A document's rows of a stage's removed/ parts (what its cleaning filters or dedup took out)."""
    out = []
    for part in manifest["parts"]:
        if part["name"].startswith("removed/"):
            t = read_table(directory / part["name"], part["sha256"])
            out += t.filter(pc.equal(t.column("id"), doc_id)).to_pylist()
    return out


def _removed_lines(directory: Path, manifest: dict, doc_id: str) -> list[str]:
    """The lines the cleaning filters removed from a document ("<filter>.<rule> line <n>: <text>")."""
    return [f"{r['filter']}.{r['rule']} line {r['line']}: {r['text']}"
            for r in _removed_rows(directory, manifest, doc_id)]


def _removed_units(directory: Path, manifest: dict, doc_id: str) -> list[str]:
    """The units dedup removed from a kept document as copies ("<unit> <n>: <text> (kept by <id>)")."""
    return [f"{r['unit']} {r['position']}: {r['text'].strip()} (kept by {r['kept_by']})"
            for r in _removed_rows(directory, manifest, doc_id)]


def _kept_or_side(found: tuple[Path, dict], stage: str, doc_id: str):
    """(the kept row, None) or (None, the row of the stage's side output that says why it was dropped)."""
    kept = _find_row(*found, doc_id)
    if kept is not None:
        return kept, None
    side = _find_row(*found, doc_id, prefix=STAGE[stage].side.dirname + "/")
    if side is None:
        raise CorpusError(f"{found[0] / STAGE_FILE}: '{doc_id}' is neither kept nor dropped (run `corpus audit`)")
    return None, side


def _stage_dir(config: Config, name: str) -> tuple[Path, dict] | None:
    d = STAGE[name].path(config)
    m = read_stage_manifest(d)
    return (d, m) if m is not None else None


def trace(config: Config, doc_id: str) -> list[dict]:
    """The document's steps, one dict per stage it reached (the last one says where it stopped)."""
    source_id, _, k = doc_id.rpartition(":")
    ledger = load_ledger(config.ledger_path)
    # ids are written f"{source_id}:{k}" with k in ASCII digits and no leading zero: `src:05` or `src:١`
    # (str.isdigit accepts other scripts' digits) name no document
    if not (k == "0" or (k[:1] in "123456789" and k.isascii() and k.isdigit())) \
            or source_id not in config["dataset"]["sources"]:
        raise CorpusError(f"unknown document id '{doc_id}': ids are <source_id>:<k> with a source of "
                          f"dataset {config.dataset}/{config.version} ({', '.join(config['dataset']['sources'])})")
    steps = [_raw_step(config, ledger[source_id], int(k))]

    found = _stage_dir(config, "normalize")
    if found is None:
        return steps + [{"stage": "normalize", "status": "not run"}]
    hit = _find_row(*found, doc_id)
    if hit is None:
        return steps + [{"stage": "normalize", "status": "dropped", "reason": "empty after normalisation"}]
    steps.append({"stage": "normalize", "status": "kept", "part": hit[0], "row": hit[1], "chars": len(hit[2]["text"])})

    found = _stage_dir(config, "filter")
    if found is None:
        return steps + [{"stage": "filter", "status": "not run"}]
    kept, side = _kept_or_side(found, "filter", doc_id)
    if kept is None:
        r = side[2]
        step = {"stage": "filter", "status": "dropped", "filter": r["filter"], "rule": r["rule"], "value": r["value"]}
        threshold = _thresholds(found[1]["params"]["filters"]).get(f"{r['filter']}.{r['rule']}")
        if threshold is not None:
            step["threshold"] = threshold
        if r["filter"] == "quality":  # the cut's threshold, absolute or keep_fraction's quantile
            step["threshold"] = found[1]["counts"]["quality"]["threshold"]
        if r.get("detail") is not None:  # what matched (the URL filter's list entry); quality: how its threshold was found
            step["detail"] = r["detail"]
        if r["filter"] == "takedown":  # which list entry removed it, and from which version on
            step["taken_down"] = (f"removed from {config.dataset}/{config.version} by entry {int(r['value'])} "
                                  f"({r['rule']}) of the takedown lists")
        return steps + [{**step, "part": side[0], "row": side[1]}]
    step = {"stage": "filter", "status": "kept", "lang": kept[2]["lang"], "lang_score": kept[2]["lang_score"],
            "part": kept[0], "row": kept[1]}
    if kept[2].get("quality_score") is not None:  # the classifier's score, and the threshold it passed
        q = found[1]["counts"]["quality"]
        step.update(quality_score=kept[2]["quality_score"], quality_threshold=q["threshold"], quality_how=q["how"])
    if kept[2].get("cleaned"):  # lines a cleaning filter (c4) removed: how many per rule, and the lines
        step["cleaned"] = json.loads(kept[2]["cleaned"])
        step["removed_lines"] = _removed_lines(*found, doc_id)
    steps.append(step)

    found = _stage_dir(config, "dedup")
    if found is None:
        return steps + [{"stage": "dedup", "status": "not run"}]
    kept, side = _kept_or_side(found, "dedup", doc_id)
    if kept is None:
        r = side[2]
        step = {"stage": "dedup", "status": "dropped", "reason": r["reason"], "part": side[0], "row": side[1]}
        if r["reason"] == "decontam":
            step.update(eval_source=r["eval_source"], matched_ngram=r["matched_ngram"])
        else:
            step.update(duplicate_of=r["duplicate_of"], jaccard=r.get("jaccard"), shared_shingles=r.get("shared_shingles"))
        return steps + [step]
    step = {"stage": "dedup", "status": "kept", "minhash_cluster": kept[2]["minhash_cluster"],
            "part": kept[0], "row": kept[1]}
    removed = _removed_units(*found, doc_id)
    if removed:  # [dedup.lines] / [dedup.spans]: the units removed as copies, and the document that kept each
        step["removed_units"] = removed
    steps.append(step)
    pii_input = kept[2]["text"]

    found = _stage_dir(config, "pii")
    if found is None:
        return steps + [{"stage": "pii", "status": "not run"}]
    hit = _find_row(*found, doc_id)
    text = hit[2]["text"]
    step = {"stage": "pii", "status": "kept", "pii_redactions": hit[2]["pii_redactions"],
            "placeholders": {p: text.count(p) for p in PLACEHOLDERS if p in text}, "part": hit[0], "row": hit[1]}
    if hit[2]["pii_redactions"]:
        step["redactions"] = _pii_redactions(found[1]["params"]["pii"], pii_input, text, hit[2]["pii_redactions"])
    steps.append(step)

    corpus_path = config.dataset_dir / CORPUS_MANIFEST
    if not corpus_path.is_file():
        return steps + [{"stage": "shard", "status": "not run"}]
    corpus = json.loads(corpus_path.read_text())
    shard = _find_row(config.dataset_dir, {"parts": corpus["shards"]}, doc_id, prefix="shard-")
    if shard is None:
        raise CorpusError(f"{corpus_path}: '{doc_id}' came out of stage 05 but is in no shard (run `corpus audit`)")
    name, row, cols = shard
    steps.append({"stage": "shard", "status": "kept", "shard": name, "row": row, "split": cols["split"],
                  "n_chars": cols["n_chars"], "minhash_cluster": cols["minhash_cluster"]})
    steps += _token_steps(config, corpus, name, row, cols["split"], cols["text"], doc_id, cols["source_id"])
    return steps


def _mix_steps(d: Path, m: dict, rel: str, text: str, doc_id: str, source_id: str) -> dict:
    """A train document in a mixed token directory: how many copies the mix's rule gives it (its source's
    weight and its keyed hash, tokens.mix) and how many the stream holds, found by their tokens (every
    document of its length compared), with where each one is."""
    from tokenizers import Tokenizer

    from corpus.tokens import mix as mixing

    info = m["mix"]["sources"][source_id]
    whole, threshold = mixing.weight_parts(info["weight"])  # exactly the rule's (tokens.mix_manifest)
    u_bits = int(mixing.doc_hashes(m["mix"]["config"]["seed"], [source_id], [doc_id])[0, 0])
    by_rule = whole + (u_bits < threshold)
    tok = Tokenizer.from_file(str(d / m["tokenizer"]["file"]))
    ids = np.asarray(tok.encode(text, add_special_tokens=False).ids + [m["tokenizer"]["eos_id"]])
    found = []
    for f in m["splits"]["train"]["files"]:
        index = MegatronIndex(d / f["bin"].removesuffix(".bin"))
        for doc in np.flatnonzero(np.asarray(index.lengths) == len(ids)).tolist():
            if np.array_equal(index.document(doc), ids):
                found.append(f"{f['bin']}#{doc}")
    status = "kept" if found else "dropped by the mix" if by_rule == 0 else "outside the budget"
    step = {"stage": "tokenize", "status": status, "tokens_dir": rel, "mix": m["mix"]["id"], "source": source_id,
            "weight": info["weight"], "u": round(mixing.u_of(u_bits), 6), "copies_by_rule": by_rule,
            "copies_in_stream": len(found)}
    if found:
        step["at"] = ", ".join(found)
    return step


def _token_steps(config: Config, corpus: dict, shard: str, row: int, split: str, text: str,
                 doc_id: str = "", source_id: str = "") -> list[dict]:
    """Where the document's tokens are in each token directory made from these shards: its position in
    the split's seeded order (replayed from the manifest's seed), its part, its document
    index in that part and its first token's offset — checked by encoding the text again. In a mixed
    directory's train split: its copies (_mix_steps)."""
    from tokenizers import Tokenizer

    root = tokens_root(config)
    corpus_sha = hashlib.sha256((config.dataset_dir / CORPUS_MANIFEST).read_bytes()).hexdigest()
    out = []
    # the document's index among its split's documents in shard order (the encode order), and how many
    # documents of the split each shard holds (what the seeded order is drawn from)
    before, per_shard = 0, []
    for s in corpus["shards"]:
        t = read_parquet(config.dataset_dir / s["name"], columns=["split"]).column("split")
        per_shard.append(int(pc.sum(pc.equal(t, split)).as_py() or 0))
        if s["name"] == shard:
            before = sum(per_shard[:-1]) + int(pc.sum(pc.equal(t.slice(0, row), split)).as_py() or 0)
    for d in sorted(root.glob("*")) if root.is_dir() else []:
        mpath = d / TOKENS_MANIFEST
        if not mpath.is_file():
            continue
        m = json.loads(mpath.read_text())
        if m["corpus_manifest_sha256"] != corpus_sha:
            continue  # made from other shards (stale): `corpus audit` flags it
        if "mix" in m and split == "train":
            out.append(_mix_steps(d, m, str(d.relative_to(config.artifacts)), text, doc_id, source_id))
            continue
        info = m["splits"][split]
        # the written documents are a prefix of the seeded order (the budgets cut it, never reorder it)
        where = np.flatnonzero(replay_order(m["seed"], split, per_shard)[: info["docs"]] == before)
        if not len(where):
            out.append({"stage": "tokenize", "status": "outside the budget", "tokens_dir": str(d.relative_to(config.artifacts))})
            continue
        pos, first = int(where[0]), 0
        for f in info["files"]:
            if pos < first + f["docs"]:
                index = MegatronIndex(d / f["bin"].removesuffix(".bin"))
                doc = pos - first
                tok = Tokenizer.from_file(str(d / m["tokenizer"]["file"]))
                ids = tok.encode(text, add_special_tokens=False).ids + [m["tokenizer"]["eos_id"]]
                if not np.array_equal(index.document(doc), ids):
                    raise CorpusError(f"{d / f['bin']}: document {doc} does not hold this document's tokens "
                                      f"(run `corpus audit`)")
                out.append({"stage": "tokenize", "status": "kept", "tokens_dir": str(d.relative_to(config.artifacts)),
                            "part": f["bin"], "document": doc,
                            "token_offset": int(index.pointers[doc]) // np.dtype(m["tokenizer"]["dtype"]).itemsize,
                            "tokens": int(index.lengths[doc]), "verified": True})
                break
            first += f["docs"]
    return out


MAX_LINES = 20  # removed or redacted lines shown per step: a cleaned page can lose hundreds


def _at_most(items: list[str], max_lines: int | None) -> list[str]:
    """The first max_lines items, then "… K more" for the rest (None: every item)."""
    if max_lines is None or len(items) <= max_lines:
        return items
    return items[:max_lines] + [f"… {len(items) - max_lines} more"]


def describe(steps: list[dict], max_lines: int | None = MAX_LINES) -> list[str]:
    """The steps as lines for people; of a step's removed and redacted lines, the first max_lines (None: all)."""
    lines = []
    for s in steps:
        fields = ", ".join(f"{k} {v!r}" if isinstance(v, str) else
                           f"{k} " + ", ".join(f"{r} {n[0]} lines/{n[1]} chars" for r, n in v.items())
                           if k == "cleaned" else f"{k} {v:.6g}" if isinstance(v, float) else
                           f"{k} {'yes' if v else 'no'}" if isinstance(v, bool) else f"{k} {v}"
                           for k, v in s.items() if k not in ("stage", "status", "removed_lines", "removed_units", "redactions"))
        lines.append(f"{s['stage']:<10} {s['status']:<10} {fields}")
        lines += [f"{'':<21}removed {x}" for x in _at_most(s.get("removed_lines", []), max_lines)]
        lines += [f"{'':<21}removed {x}" for x in _at_most(s.get("removed_units", []), max_lines)]
        lines += [f"{'':<21}redacted {x}" for x in _at_most(s.get("redactions", []), max_lines)]
    return lines
