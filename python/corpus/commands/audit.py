"""`corpus audit`: re-check everything a user must be able to trust, from the ledger to the token files.

Audit recomputes, it never trusts a manifest's numbers. Every manifest is validated against its schema
and every file it lists is re-hashed; every part's rows are recounted from the file (corpus.engine.recount) and
every stage's counts (docs_out, per-source counts) recomputed from its parts; document counts must add
up within each stage (in = out + drops) and from stage to stage; every stage must name the exact input
manifest it read. The corpus `_MANIFEST.json` is rebuilt from the shards on disk (per-source, per-split
and per-licence counts from their columns), the stage manifests, the ledger and the config, and must
equal the one published (the package versions aside); a token directory's counts are recomputed from
every `.idx`. Every file under a published directory must be listed by its manifest: an unlisted file
is a failure. `corpus export` output (`<tokens>/export-<format>/`) is derived from a verified token
directory and is outside its manifest: audit lists it as a separate line, and an interrupted run's
staging directory (`*.incomplete`) is a warning."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.store.atomic import sha256_file
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.config.layout import CORPUS_MANIFEST, CORPUS_SCHEMA, STAGE_FILE, TOKENS_MANIFEST, tokens_root
from corpus.config.ledger import load_ledger
from corpus.engine.raw import version_raw
from corpus.engine.recount import idx_tokens, part_rows, unlisted, verify_counts
from corpus.formats.parts import read_parquet
from corpus.engine.runner import read_stage_manifest
from corpus.store.root import verify_entries
from corpus.config.schemas import load_json
from corpus.stages import STAGE, config_hash, part_stages
from corpus.tokens.directory import verify_tokens_dir


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
        # the published view (cli's published_view(fresh=True)): every part is a local file checked here
        verify_entries(directory, manifest["parts"], sha=True)
        verify_counts(directory, manifest)
    return manifest


def check_listed(directory: Path, manifest: dict, *, skip_dirs: tuple[str, ...] = ()) -> None:
    """Every file under a published directory is listed by its _STAGE.json."""
    extra = unlisted(directory, {p["name"] for p in manifest["parts"]}, skip_dirs=skip_dirs)
    if extra:
        raise CorpusError(f"{directory / extra[0]}: not listed in {directory / STAGE_FILE}"
                          + (f" (and {len(extra) - 1} more unlisted files)" if len(extra) > 1 else ""))


def first_difference(published, recomputed, path: str = "") -> str | None:
    """Where two JSON values first differ, as `key[i].key: A published, B recomputed`; None if equal."""
    if isinstance(published, dict) and isinstance(recomputed, dict):
        for k in sorted(set(published) | set(recomputed)):
            sub = f"{path}.{k}" if path else k
            if k not in recomputed:
                return f"{sub}: published but not recomputed"
            if k not in published:
                return f"{sub}: missing (recomputed {json.dumps(recomputed[k])[:80]})"
            d = first_difference(published[k], recomputed[k], sub)
            if d:
                return d
        return None
    if isinstance(published, list) and isinstance(recomputed, list):
        for i, (a, b) in enumerate(zip(published, recomputed)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        if len(published) != len(recomputed):
            return f"{path}: {len(published)} entries published, {len(recomputed)} recomputed"
        return None
    if published != recomputed or type(published) is not type(recomputed):
        return f"{path}: {json.dumps(published)[:80]} published, {json.dumps(recomputed)[:80]} recomputed"
    return None


def _by_source(directory: Path, manifest: dict) -> dict[str, int]:
    """Documents per source_id in a stage's main parts, read from their source_id column."""
    out: dict[str, int] = {}
    for p in manifest["parts"]:
        if "/" in p["name"] or not p["name"].startswith("part-"):
            continue
        col = read_parquet(directory / p["name"], columns=["source_id"]).column("source_id").to_pylist()
        for sid in col:
            out[sid] = out.get(sid, 0) + 1
    return out


def _rows(manifest: dict, prefix: str) -> int:
    return sum(p["rows"] for p in manifest["parts"] if p["name"].startswith(prefix))


def check_pins(config: Config, sid: str, directory: Path, manifest: dict) -> int:
    """A listing row's raw output was made of the files pinned beside the ledger (corpus.web.pins):
    each file it read has a pin with its sha256 and size. How many."""
    from corpus.web.pins import load_pins, pins_path

    path = pins_path(config.ledger_path)
    pins = load_pins(path, sid)
    for f in manifest["files"]["read"]:
        pin = pins.get((sid, f["url"]))
        if pin is None:
            raise CorpusError(f"{directory / STAGE_FILE}: read {f['url']}, which {path} does not pin")
        if (pin["sha256"], pin["bytes"]) != (f["sha256"], f["bytes"]):
            raise CorpusError(f"{directory / STAGE_FILE}: read {f['url']} with sha256 {f['sha256']} ({f['bytes']} "
                              f"bytes), {path} pins {pin['sha256']} ({pin['bytes']} bytes)")
    return len(manifest["files"]["read"])


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
    # the raw output the version read: its normalize (a corpus source) or dedup (an eval set) records it
    readers = [STAGE["normalize"].path(config), STAGE["dedup"].path(config)]
    for sid in config["dataset"]["sources"] + config["decontam"]["evals"]:
        def raw_ok(sid=sid):
            nonlocal raw_docs
            # a corpus source: the raw output the version read (its normalize manifest says which)
            d, m = version_raw(config, ledger[sid], readers)
            if m["source"]["sha256"] != ledger[sid]["sha256"]:
                raise CorpusError(f"{d / STAGE_FILE}: made from sha256 {m['source']['sha256']}, ledger says "
                                  f"{ledger[sid]['sha256']}")
            c = m["counts"]
            rejected = sum(c.get("rejected", {}).values())  # a web source's rejected records
            if c["docs_in"] != c["docs_out"] + c["skipped_empty"] + rejected or _rows(m, "part-") != c["docs_out"] \
                    or _rows(m, "rejects/") != rejected:
                raise CorpusError(f"{d / STAGE_FILE}: counts do not add up: {c}")
            check_listed(d, m)
            if sid in config["dataset"]["sources"]:
                raw_docs += c["docs_out"]
            pinned = f", {check_pins(config, sid, d, m)} files match their pins" if "files" in m else ""
            return f"{len(m['parts'])} parts verified and recounted, {c['docs_out']} docs{pinned}"
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
            want = config_hash(config, st.name)
            if m["config_sha256"] != want:
                raise CorpusError(f"{where}: made with config {m['config_sha256'][:12]}…, current is {want[:12]}…")
            if c["docs_in"] != c["docs_out"] + _drops(c):
                raise CorpusError(f"{where}: docs_in {c['docs_in']} != docs_out {c['docs_out']} + drops {_drops(c)}")
            if c["docs_in"] != expected_in:
                raise CorpusError(f"{where}: docs_in {c['docs_in']} != {expected_in} documents out of the stage before")
            if _rows(m, "part-") != c["docs_out"]:
                raise CorpusError(f"{where}: parts hold {_rows(m, 'part-')} rows, docs_out is {c['docs_out']}")
            side = st.side.dirname + "/" if st.side else None
            if side and _rows(m, side) != _drops(c):
                raise CorpusError(f"{where}: {side} holds {_rows(m, side)} rows, {_drops(c)} drops counted")
            if "by_source" in c:
                found = _by_source(d, m)
                recorded = {k: v["docs_out"] for k, v in c["by_source"].items() if v["docs_out"]}
                if recorded != found:
                    raise CorpusError(f"{where}: counts.by_source docs_out {recorded} != {found}, the source_id "
                                      f"column of its parts")
                if sum(v["docs_in"] for v in c["by_source"].values()) != c["docs_in"]:
                    raise CorpusError(f"{where}: counts.by_source docs_in do not add up to docs_in {c['docs_in']}")
            check_listed(d, m)
            recorded = {i["path"]: i["sha256"] for i in m["inputs"]}
            if prev is not None:
                rel = str(prev.relative_to(config.artifacts))
                if recorded.get(rel) != sha256_file(prev):
                    raise CorpusError(f"{where}: its input {rel} changed since it was read (rerun the stage)")
            for rel, sha in recorded.items():  # raw outputs, eval sets, lists, another version's index
                if Path(rel).parts[0] not in ("corpus", "tokens"):
                    continue  # not a file under the root (a ledger by content)
                path = config.artifacts / rel
                if not path.is_file() or sha256_file(path) != sha:
                    raise CorpusError(f"{where}: its input {rel} is {'gone' if not path.is_file() else 'changed'} "
                                      f"since it was read")
            return (f"{len(m['parts'])} files verified and recounted; {c['docs_in']} in = {c['docs_out']} out + "
                    f"{_drops(c)} dropped")

        if not check(f"stage {dirname}", d, stage_ok):
            return checks
        prev_out = load_manifest(d, verify_parts=False)["counts"]["docs_out"]
        prev_manifest_path = d / STAGE_FILE

    checks += audit_shards(config, ledger, prev_out)
    checks += audit_tokens(config)
    checks += audit_takedown(config)
    return checks


def audit_takedown(config: Config) -> list[Check]:
    """With [takedown] lists: no shard and no token file holds a removed document (commands.takedown_proof)."""
    from corpus.commands import takedown_proof as proof

    path = config.dataset_dir / CORPUS_MANIFEST
    if not path.is_file() or "takedown" not in (m := json.loads(path.read_text())):
        return []
    out = []
    try:
        texts = proof.removed_texts(config, m)
    except CorpusError as e:
        return [Check(False, "takedown", str(path), str(e))]
    for what, fn in (("takedown: shards", lambda: proof.check_shards(config, m, texts)),
                     ("takedown: tokens", lambda: proof.check_tokens(config, texts))):
        try:
            out.append(Check(True, what, str(config.dataset_dir), fn()))
        except CorpusError as e:
            out.append(Check(False, what, str(config.dataset_dir), str(e)))
    return out


def _staging_warnings(directory: Path) -> list[Check]:
    return [Check(True, "staging (interrupted run)", str(p), f"{p}: an interrupted run's staging directory, not "
                  f"published (rerun the stage with --resume to finish it, or delete it)", warn=True)
            for p in sorted(directory.glob(".*.incomplete")) + sorted(directory.glob("*.incomplete"))]


def recompute_corpus_manifest(config: Config, published: dict) -> dict:
    """The corpus _MANIFEST.json rebuilt from the shard files on disk, the stage manifests (counts verified
    against their parts), the ledger and the config — nothing taken from the published manifest but the
    package versions that wrote it."""
    from corpus.stages.shard import build_manifest, stage_counts

    d = config.dataset_dir
    files = sorted(p.name for p in d.glob("shard-*-of-*.parquet"))
    n = len(files)
    shards, sources = [], {}
    for p in files:
        t = read_parquet(d / p, columns=["source_id", "license_spdx", "split"])
        shards.append({"name": p, "sha256": sha256_file(d / p), "rows": t.num_rows})
        for sid, lic, split in zip(t.column("source_id").to_pylist(), t.column("license_spdx").to_pylist(),
                                   t.column("split").to_pylist()):
            agg = sources.setdefault(sid, {"license_spdx": set(), "train": 0, "val": 0})
            agg["license_spdx"].add(lic)
            agg[split] = agg.get(split, 0) + 1
    from corpus.stages.shard import shard_name

    if files != [shard_name(i, n) for i in range(n)]:
        raise CorpusError(f"{d}: shard files {files} are not shard-00000-of-{n:05d} … shard-{n - 1:05d}-of-{n:05d}")
    unknown = sorted(set(sources) - set(config["dataset"]["sources"]))
    if unknown:
        raise CorpusError(f"{d / files[0]}: documents of source '{unknown[0]}', which is not a source of the dataset")
    recomputed = build_manifest(config, shards, sources, stage_counts(config))
    recomputed["packages"] = published.get("packages")
    recomputed["corpus_version"] = published.get("corpus_version")
    return recomputed


def audit_shards(config: Config, ledger: dict, expected_docs: int) -> list[Check]:
    d = config.dataset_dir
    path = d / CORPUS_MANIFEST
    if not path.is_file():
        return [Check(False, "shards", str(path), "missing (run `corpus shard`)")]
    out = []

    def stage_ok():  # the shard stage's own manifest: every file listed, verified, recounted
        m = load_manifest(d, verify_parts=True)
        check_listed(d, m, skip_dirs=("stages",) + tuple(p.name for p in d.glob("*.incomplete"))
                     + tuple(p.name for p in d.glob(".*.incomplete")))
        return f"{len(m['parts'])} files verified and recounted; no unlisted file"

    try:
        out.append(Check(True, "shards stage", str(d / STAGE_FILE), stage_ok()))
    except CorpusError as e:
        out.append(Check(False, "shards stage", str(d / STAGE_FILE), str(e)))
    out += _staging_warnings(d)
    try:
        m = load_json(path, CORPUS_SCHEMA)
    except CorpusError as e:
        return out + [Check(False, "shards manifest", str(path), str(e))]
    problems = []
    if m["n_docs"] != expected_docs:
        problems.append(f"{path}: n_docs {m['n_docs']} != {expected_docs} documents out of stage 05")
    if m["config_sha256"] != config_hash(config, "shard"):
        problems.append(f"{path}: made with another config ({m['config_sha256'][:12]}…)")
    for s in m["sources"]:
        row = ledger.get(s["source_id"])
        if row is None or row["license_spdx"] != s["license_spdx"]:
            problems.append(f"{path}: source '{s['source_id']}' has licence '{s['license_spdx']}', the ledger "
                            f"{row['license_spdx'] if row else 'has no such source'!r}")
    if not problems:
        try:
            diff = first_difference(m, recompute_corpus_manifest(config, m))
            if diff:
                problems.append(f"{path}: {diff} (from the shards, stage manifests, ledger and config)")
        except CorpusError as e:
            problems.append(str(e))
    out.append(Check(not problems, "shards manifest", str(path), problems[0] if problems else
                     f"{m['n_docs']} docs in {m['n_shards']} shards; every count and licence recomputed from the "
                     f"shards"))
    for s in m["shards"]:
        p = d / s["name"]
        try:
            actual = sha256_file(p) if p.is_file() else "missing"
            if actual != s["sha256"]:
                raise CorpusError(f"{p}: sha256 mismatch: expected {s['sha256']}, got {actual}")
            t = read_parquet(p, columns=["source_id", "license_spdx"])
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


def recount_tokens(d: Path, m: dict) -> None:
    """Every docs/tokens/bin_bytes figure of a tokens _MANIFEST.json recomputed from its .idx files."""
    path = d / TOKENS_MANIFEST
    itemsize = np.dtype(m["tokenizer"]["dtype"]).itemsize
    for split, info in m["splits"].items():
        docs = tokens = 0
        for i, f in enumerate(info["files"]):
            n_docs, n_tokens = part_rows(d / f["idx"]), idx_tokens(d / f["idx"])
            from corpus.formats.megatron import MegatronIndex

            idx_dtype = np.dtype(MegatronIndex(d / f["idx"].removesuffix(".idx")).dtype)
            where = f"{path}: splits.{split}.files[{i}] ({f['idx']})"
            if idx_dtype != np.dtype(m["tokenizer"]["dtype"]):
                raise CorpusError(f"{where}: the index says {idx_dtype}, the manifest {m['tokenizer']['dtype']}")
            if f["docs"] != n_docs or f["tokens"] != n_tokens:
                raise CorpusError(f"{where}: docs {f['docs']} / tokens {f['tokens']} recorded, the .idx indexes "
                                  f"{n_docs} / {n_tokens}")
            actual_bytes = (d / f["bin"]).stat().st_size
            if f["bin_bytes"] != actual_bytes or actual_bytes != n_tokens * itemsize:
                raise CorpusError(f"{d / f['bin']}: {actual_bytes} bytes, {n_tokens} tokens of {itemsize} bytes "
                                  f"and bin_bytes {f['bin_bytes']} recorded")
            docs, tokens = docs + n_docs, tokens + n_tokens
        if info["docs"] != docs or info["tokens"] != tokens:
            raise CorpusError(f"{path}: splits.{split} records {info['docs']} docs / {info['tokens']} tokens, its "
                              f"files index {docs} / {tokens}")


def check_mix(path: Path, m: dict, shard_train_docs: int, capped: bool) -> None:
    """A mixed token directory's `mix` against the shards and its own splits: the documents before mixing
    are the shards' train split, and the stream's documents and tokens per source sum to the train split's
    (all the mixed documents unless a budget cut them)."""
    src = m["mix"]["sources"].values()
    before = sum(s["before"]["train_docs"] for s in src)
    if before != shard_train_docs:
        raise CorpusError(f"{path}: mix counts {before} train docs before mixing, the shards {shard_train_docs}")
    for key in ("docs", "tokens"):
        stream = sum(s["stream"][f"train_{key}"] for s in src)
        after = sum(s["after"][f"train_{key}"] for s in src)
        if stream != m["splits"]["train"][key] or stream > after or (not capped and stream != after):
            raise CorpusError(f"{path}: mix counts {stream} train {key} in the stream and {after} after mixing, the "
                              f"train split holds {m['splits']['train'][key]}")


def audit_tokens(config: Config) -> list[Check]:
    root = tokens_root(config)
    corpus_path = config.dataset_dir / CORPUS_MANIFEST
    corpus_sha = sha256_file(corpus_path) if corpus_path.is_file() else None
    out = []
    for d in sorted(root.glob("*")) if root.is_dir() else []:
        if d.name.endswith(".incomplete"):
            out += [Check(True, "staging (interrupted run)", str(d), f"{d}: an interrupted run's staging "
                          f"directory, not published (rerun with --resume, or delete it)", warn=True)]
            continue
        if not (d / TOKENS_MANIFEST).is_file():
            continue
        exports = sorted(p for p in d.glob("export-*") if p.is_dir())
        try:
            m = verify_tokens_dir(d)
            recount_tokens(d, m)
            stage = load_manifest(d, verify_parts=True)
            check_listed(d, stage, skip_dirs=tuple(p.name for p in exports))
            listed = {p["name"] for p in stage["parts"]}
            in_manifest = {m["tokenizer"]["file"], *m["tokenizer"].get("hf_files", {}), TOKENS_MANIFEST,
                           *(f[k] for s in m["splits"].values() for f in s["files"] for k in ("bin", "idx"))}
            if listed != in_manifest:
                raise CorpusError(f"{d / STAGE_FILE}: lists {sorted(listed ^ in_manifest)[0]!r}, which "
                                  f"{TOKENS_MANIFEST} {'does not' if sorted(listed ^ in_manifest)[0] in listed else 'does'}")
            if m["corpus_manifest_sha256"] != corpus_sha:  # an older token set: intact, but not of these shards
                out.append(Check(True, "tokens (stale)", str(d), f"{d.name}: verified, but made from another corpus "
                                 f"manifest than {corpus_path}: re-tokenize, or `corpus gc --delete` removes it",
                                 warn=True))
                continue
            corpus = json.loads(corpus_path.read_text())
            if m["splits"]["val"]["docs"] != corpus["splits"]["val"]:
                raise CorpusError(f"{d / TOKENS_MANIFEST}: val has {m['splits']['val']['docs']} docs, the shards {corpus['splits']['val']}")
            capped = m["budgets"]["max_documents"] is not None or m["budgets"]["train_tokens"] is not None
            if "mix" in m:  # a mixed train split: the mix's counts add up to the shards' and to the stream's
                check_mix(d / TOKENS_MANIFEST, m, corpus["splits"]["train"], capped)
            elif (m["splits"]["train"]["docs"] > corpus["splits"]["train"]
                    or (not capped and m["splits"]["train"]["docs"] != corpus["splits"]["train"])):
                raise CorpusError(f"{d / TOKENS_MANIFEST}: train has {m['splits']['train']['docs']} docs, the shards "
                                  f"{corpus['splits']['train']}")
            n_files = sum(len(s["files"]) for s in m["splits"].values())
            out.append(Check(True, "tokens", str(d), f"{n_files} parts + tokenizer verified; docs and tokens "
                             f"recounted from every .idx; docs match the shards"))
        except CorpusError as e:
            out.append(Check(False, "tokens", str(d), str(e)))
        for e in exports:
            n = sum(1 for p in e.rglob("*") if p.is_file())
            out.append(Check(True, "export (not in manifest)", str(e), f"{n} files written by `corpus export` from "
                             f"this token directory; outside its manifest, not verified"))
    return out
