"""`corpus audit`: re-check everything a user must be able to trust, from the ledger to the token files.

Every manifest is validated against its schema and every file it lists is re-hashed; document counts
must add up within each stage (in = out + drops) and from stage to stage; every stage must name the
exact input manifest it read; every shard's (source, licence) pairs must be those of the ledger."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from .atomic import sha256_file
from .config import Config
from .errors import CorpusError
from .layout import CORPUS_MANIFEST, CORPUS_SCHEMA, STAGE_FILE, TOKENS_MANIFEST, tokens_root
from .ledger import load_ledger
from .raw import current_raw
from .runner import read_stage_manifest, verify_parts as verify_stage_parts
from .schemas import load_json
from .stages import part_stages
from .tokens.directory import verify_tokens_dir


@dataclass
class Check:
    ok: bool
    what: str
    path: str
    detail: str
    warn: bool = False


def _drops(counts: dict) -> int:
    """Every drop a stage counts: empty documents (normalize) and its `dropped` reasons."""
    return counts.get("dropped_empty", 0) + sum(counts.get("dropped", {}).values())


def load_manifest(directory: Path, *, verify_parts: bool) -> dict:
    manifest = read_stage_manifest(directory)
    if manifest is None:
        raise CorpusError(f"{directory / STAGE_FILE}: stage manifest not found (has the stage run?)")
    if verify_parts:
        verify_stage_parts(directory, manifest)
    return manifest


def _rows(manifest: dict, prefix: str) -> int:
    return sum(p["rows"] for p in manifest["parts"] if p["name"].startswith(prefix))


def audit(config: Config) -> list[Check]:
    checks: list[Check] = []

    def check(what: str, path, fn):
        try:
            detail = fn()
            checks.append(Check(True, what, str(path), detail or ""))
            return True
        except CorpusError as e:
            checks.append(Check(False, what, str(path), str(e)))
            return False

    ledger: dict = {}

    def ledger_ok():
        ledger.update(load_ledger(config.ledger_path))
        missing = [s for s in config["dataset"]["sources"] + config["decontam"]["evals"] if s not in ledger]
        if missing:
            raise CorpusError(f"{config.ledger_path}: source '{missing[0]}' of the config is not in the ledger")
        return f"{len(ledger)} rows valid"

    if not check("ledger", config.ledger_path, ledger_ok):
        return checks

    raw_docs = 0
    for sid in config["dataset"]["sources"] + config["decontam"]["evals"]:
        def raw_ok(sid=sid):
            nonlocal raw_docs
            d, m = current_raw(config, ledger[sid])
            if m["source"]["sha256"] != ledger[sid]["sha256"]:
                raise CorpusError(f"{d / STAGE_FILE}: made from sha256 {m['source']['sha256']}, ledger says "
                                  f"{ledger[sid]['sha256']}")
            c = m["counts"]
            if c["docs_in"] != c["docs_out"] + c["skipped_empty"] or _rows(m, "part-") != c["docs_out"]:
                raise CorpusError(f"{d / STAGE_FILE}: counts do not add up: {c}")
            if sid in config["dataset"]["sources"]:
                raw_docs += c["docs_out"]
            return f"{len(m['parts'])} parts verified, {c['docs_out']} docs"
        check(f"raw {sid}", config.raw_dir / sid, raw_ok)

    prev_out, prev_manifest_path = raw_docs, None
    for st in part_stages():
        d, dirname = st.path(config), st.dirname
        if not (d / STAGE_FILE).is_file():
            checks.append(Check(False, f"stage {dirname}", str(d / STAGE_FILE), "missing (stage has not run)"))
            return checks

        def stage_ok(st=st, d=d, expected_in=prev_out, prev=prev_manifest_path):
            m = load_manifest(d, verify_parts=True)
            c = m["counts"]
            where = d / STAGE_FILE
            if m["config_sha256"] != config.sha256:
                raise CorpusError(f"{where}: made with config {m['config_sha256'][:12]}…, current is {config.sha256[:12]}…")
            if c["docs_in"] != c["docs_out"] + _drops(c):
                raise CorpusError(f"{where}: docs_in {c['docs_in']} != docs_out {c['docs_out']} + drops {_drops(c)}")
            if c["docs_in"] != expected_in:
                raise CorpusError(f"{where}: docs_in {c['docs_in']} != {expected_in} documents out of the stage before")
            if _rows(m, "part-") != c["docs_out"]:
                raise CorpusError(f"{where}: parts hold {_rows(m, 'part-')} rows, docs_out is {c['docs_out']}")
            side = st.side.dirname + "/" if st.side else None
            if side and _rows(m, side) != _drops(c):
                raise CorpusError(f"{where}: {side} holds {_rows(m, side)} rows, {_drops(c)} drops counted")
            if prev is not None:
                recorded = {i["path"]: i["sha256"] for i in m["inputs"]}
                rel = str(prev.relative_to(config.artifacts))
                if recorded.get(rel) != sha256_file(prev):
                    raise CorpusError(f"{where}: its input {rel} changed since it was read (rerun the stage)")
            return f"{len(m['parts'])} files verified; {c['docs_in']} in = {c['docs_out']} out + {_drops(c)} dropped"

        if not check(f"stage {dirname}", d, stage_ok):
            return checks
        prev_out = load_manifest(d, verify_parts=False)["counts"]["docs_out"]
        prev_manifest_path = d / STAGE_FILE

    checks += audit_shards(config, ledger, prev_out)
    checks += audit_tokens(config)
    return checks


def audit_shards(config: Config, ledger: dict, expected_docs: int) -> list[Check]:
    path = config.dataset_dir / CORPUS_MANIFEST
    if not path.is_file():
        return [Check(False, "shards", str(path), "missing (run `corpus shard`)")]
    try:
        m = load_json(path, CORPUS_SCHEMA)
    except CorpusError as e:
        return [Check(False, "shards manifest", str(path), str(e))]
    out = []
    problems = []
    if m["n_docs"] != sum(s["rows"] for s in m["shards"]):
        problems.append(f"{path}: n_docs {m['n_docs']} != sum of shard rows")
    if m["n_docs"] != expected_docs:
        problems.append(f"{path}: n_docs {m['n_docs']} != {expected_docs} documents out of stage 05")
    if m["n_docs"] != m["splits"]["train"] + m["splits"]["val"]:
        problems.append(f"{path}: splits do not add up to n_docs")
    if m["config_sha256"] != config.sha256:
        problems.append(f"{path}: made with another config ({m['config_sha256'][:12]}…)")
    out.append(Check(not problems, "shards manifest", str(path), problems[0] if problems else
                     f"{m['n_docs']} docs in {m['n_shards']} shards; counts add up"))
    for s in m["shards"]:
        p = config.dataset_dir / s["name"]
        try:
            actual = sha256_file(p) if p.is_file() else "missing"
            if actual != s["sha256"]:
                raise CorpusError(f"{p}: sha256 mismatch: expected {s['sha256']}, got {actual}")
            t = pq.read_table(p, columns=["source_id", "license_spdx"])
            if t.num_rows != s["rows"]:
                raise CorpusError(f"{p}: {t.num_rows} rows, manifest says {s['rows']}")
            pairs = set(zip(t.column("source_id").to_pylist(), t.column("license_spdx").to_pylist()))
            for sid, lic in sorted(pairs):
                if sid not in ledger or ledger[sid]["license_spdx"] != lic:
                    raise CorpusError(f"{p}: source '{sid}' with licence '{lic}' is not in the ledger")
            out.append(Check(True, "shard", str(p), f"{s['rows']} rows, sha256 and licences verified"))
        except CorpusError as e:
            out.append(Check(False, "shard", str(p), str(e)))
    return out


def audit_tokens(config: Config) -> list[Check]:
    root = tokens_root(config)
    corpus_path = config.dataset_dir / CORPUS_MANIFEST
    corpus_sha = sha256_file(corpus_path) if corpus_path.is_file() else None
    out = []
    for d in sorted(root.glob("*")) if root.is_dir() else []:
        if not (d / TOKENS_MANIFEST).is_file():
            continue
        try:
            m = verify_tokens_dir(d)
            if m["corpus_manifest_sha256"] != corpus_sha:  # an older token set: intact, but not of these shards
                out.append(Check(True, "tokens (stale)", str(d), f"verified, but made from another corpus manifest "
                                 f"than {corpus_path}: re-tokenize or delete it", warn=True))
                continue
            corpus = json.loads(corpus_path.read_text())
            if m["splits"]["val"]["docs"] != corpus["splits"]["val"]:
                raise CorpusError(f"{d / TOKENS_MANIFEST}: val has {m['splits']['val']['docs']} docs, the shards {corpus['splits']['val']}")
            capped = m["budgets"]["max_documents"] is not None or m["budgets"]["train_tokens"] is not None
            if (m["splits"]["train"]["docs"] > corpus["splits"]["train"]
                    or (not capped and m["splits"]["train"]["docs"] != corpus["splits"]["train"])):
                raise CorpusError(f"{d / TOKENS_MANIFEST}: train has {m['splits']['train']['docs']} docs, the shards "
                                  f"{corpus['splits']['train']}")
            n_files = sum(len(s["files"]) for s in m["splits"].values())
            out.append(Check(True, "tokens", str(d), f"{n_files} parts + tokenizer verified; docs match the shards"))
        except CorpusError as e:
            out.append(Check(False, "tokens", str(d), str(e)))
    return out
