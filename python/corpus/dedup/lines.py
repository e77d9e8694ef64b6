"""Dedup inside documents (`[dedup.lines]`, `[dedup.spans]`): a line, paragraph or sentence span already
seen in an earlier document is removed from the later ones; a document left under `min_doc_chars` is
dropped. Exact keys (16-byte BLAKE2b of the unit, corpus.dedup.units), no Bloom filter.

Two map phases between the document-level decisions and `apply`, partitioned like the exact step:

- `unit-keys` (per part): the part's document-level decisions (corpus.dedup.decide: only the documents
  dedup keeps take part, so a unit is never kept by a document dropped anyway); every unit key of its
  kept documents as (key, row, position, local) into B buckets by the key's first word mod B.
- `units` (per bucket): sorted by (key, row, position), the first occurrence of each key is its keeper;
  every other occurrence is a copy, recorded with the keeper's row. Output grouped by part.

With `[dedup] against`, a first occurrence whose key a published version keeps (its `units-index/`
files) is a copy too, kept by that version's document. `apply` publishes the keys each part keeps.

`apply` then edits each part's kept documents (`part_edits`). A key lives in exactly one bucket and the
keeper is the smallest (row, position), so the result does not depend on B, on P or on the workers.
Memory per bucket task: 40 bytes per unit of 1/B of the corpus; B = 8 P."""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus.dedup.buckets import save_grouped
from corpus.dedup.decide import KEEP, PartInputs, part_decisions
from corpus.dedup.grouped import grouped, slice_of
from corpus.dedup.rowindex import RowLookup
from corpus.dedup.units import edited, keys_array, removed_segments, segments, unit_keys
from corpus.errors import CorpusError
from corpus.formats.parts import read_table
from corpus.store.atomic import sha256_bytes, write_bytes

BUCKETS_PER_PARTITION = 8  # unit buckets per dedup partition: documents hold tens of units each
UNIT_REC = np.dtype([("hi", "<u8"), ("lo", "<u8"), ("row", "<i8"), ("local", "<i8"), ("pos", "<i4")])
UNIT_OUT = np.dtype([("local", "<i8"), ("pos", "<i4"), ("keeper", "<i8"), ("index", "<i4"), ("old", "<i8")])
KEPT_REC = np.dtype([("local", "<i8"), ("pos", "<i4"), ("hi", "<u8"), ("lo", "<u8")])  # a unit this version keeps
UNITS_INDEX = "units-index"  # units-index/<part>.npz: the keys this version keeps and their documents' ids
REMOVED = "removed"  # removed/<part>.parquet: every unit removed from a kept document, and who kept it
REMOVED_COLUMNS = {"id": pa.string(), "source_id": pa.string(), "unit": pa.string(), "position": pa.int32(),
                   "chars": pa.int32(), "text": pa.string(), "kept_by": pa.string()}


@dataclass(frozen=True)
class UnitSpec:
    """What is deduplicated inside documents: `kind` is the config table (lines, spans)."""
    kind: str
    unit: str                  # line | paragraph | span
    min_chars: int
    n_sentences: int
    min_doc_chars: int

    @classmethod
    def of(cls, dedup: dict) -> UnitSpec | None:
        lines, spans = dedup.get("lines", {}), dedup.get("spans", {})
        if lines.get("enabled") and spans.get("enabled"):
            raise CorpusError("dedup.lines and dedup.spans are both enabled: enable one (their removals "
                              "would overlap, and a unit's keeper could lose it to the other)")
        if lines.get("enabled"):
            return cls("lines", lines["unit"], lines["min_chars"], 0, lines["min_doc_chars"])
        if spans.get("enabled"):
            return cls("spans", "span", 0, spans["n_sentences"], spans["min_doc_chars"])
        return None

    def keys(self, text: str) -> list[tuple[int, bytes]]:
        return unit_keys(text, self.unit, self.min_chars, self.n_sentences)


# ---------------------------------------------------------------- unit-keys (per part)

@dataclass(frozen=True)
class UnitKeysUnit:
    key: str
    part: str
    in_path: Path
    in_sha256: str
    inputs: PartInputs                        # the part's document-level decisions
    spec: UnitSpec
    buckets: int
    out: Path                                 # the global work dir: units/<part>...
    staging: Path


def unit_key_records(spec: UnitSpec, texts: list[str], rows: np.ndarray, live: np.ndarray) -> np.ndarray:
    """UNIT_REC of every unit key of the live documents."""
    chunks = []
    for local in np.flatnonzero(live).tolist():
        k = keys_array(spec.keys(texts[local]))
        rec = np.empty(len(k), dtype=UNIT_REC)
        rec["hi"], rec["lo"], rec["pos"] = k["hi"], k["lo"], k["pos"]
        rec["row"], rec["local"] = rows[local], local
        chunks.append(rec)
    return np.concatenate(chunks) if chunks else np.zeros(0, UNIT_REC)


def unit_keys_part(u: UnitKeysUnit) -> dict:
    dec = part_decisions(u.inputs)
    texts = read_table(u.in_path, u.in_sha256).column("text").to_pylist()
    if len(texts) != len(dec.rows):
        raise CorpusError(f"{u.in_path}: {len(texts)} rows, the dedup work files have {len(dec.rows)}")
    rec = unit_key_records(u.spec, texts, dec.rows, dec.reason == KEEP)
    dest = (rec["hi"] % np.uint64(u.buckets)).astype(np.int64)
    work = save_grouped(u.out / "units" / u.part, *grouped(dest, rec, u.buckets), u.staging)
    return {"key": u.key, "work": work, "units": len(rec)}


# ---------------------------------------------------------------- units (per bucket)

@dataclass(frozen=True)
class UnitBucketUnit:
    key: str
    r: int
    buckets: int
    parts: tuple[str, ...]
    ranges: tuple[tuple[Path, int], ...]      # the row lookup: the keepers' ids
    out: Path
    staging: Path
    against: tuple = ()                       # (name, ((path, sha256), ...)) of each published units index


@functools.lru_cache(maxsize=4)
def published_units(name: str, files: tuple[tuple[str, str], ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hi, lo, ids) of the keys a published version keeps, read (verified) once per worker process."""
    from corpus.store.checksums import read_verified

    parts = [np.load(io.BytesIO(read_verified(Path(p), sha))) for p, sha in files]
    if not parts:
        return np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0, str)
    return tuple(np.concatenate([x[k] for x in parts]) for k in ("hi", "lo", "ids"))


def published_label(against: tuple, index: int, old: int) -> str:
    name, files = against[index]
    return f"{name}:{published_units(name, files)[2][old]}"


def _published_matches(u: UnitBucketUnit, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(against index, published key) per key, -1 where no published version keeps it (the first one named)."""
    which = np.full(len(hi), -1, np.int32)
    old = np.full(len(hi), -1, np.int64)
    for j, (name, files) in enumerate(u.against):
        p_hi, p_lo, _ = published_units(name, files)
        mine = np.flatnonzero(p_hi % np.uint64(u.buckets) == np.uint64(u.r))
        found = {(int(a), int(b)): int(k) for a, b, k in zip(p_hi[mine], p_lo[mine], mine)}
        for i, key in enumerate(zip(hi.tolist(), lo.tolist())):
            if which[i] < 0 and key in found:
                which[i], old[i] = j, found[key]
    return which, old


def first_occurrences(rec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, keeper row per sorted record): sorted by (key, row, position); a key's first record keeps it."""
    order = np.lexsort((rec["pos"], rec["row"], rec["lo"], rec["hi"]))
    hi, lo = rec["hi"][order], rec["lo"][order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])
    keeper = rec["row"][order][np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))]
    return order, np.where(first, -1, keeper)


def unit_bucket(u: UnitBucketUnit) -> dict:
    found = [(k, slice_of(u.out / "units" / key, u.r)) for k, key in enumerate(u.parts)]
    found = [(k, s) for k, s in found if s is not None]
    rec = np.concatenate([s for _, s in found]) if found else np.zeros(0, UNIT_REC)
    part = np.concatenate([np.full(len(s), k, np.int64) for k, s in found]) if found else np.zeros(0, np.int64)
    order, keeper = first_occurrences(rec)
    s = rec[order]
    first = keeper < 0
    start = np.maximum.accumulate(np.where(first, np.arange(len(s)), 0))  # each record's first occurrence
    firsts = np.flatnonzero(first)
    which, old = np.full(len(s), -1, np.int32), np.full(len(s), -1, np.int64)
    which[firsts], old[firsts] = _published_matches(u, s["hi"][firsts], s["lo"][firsts])
    which, old = which[start], old[start]
    keeper[which >= 0] = -1  # a key a published version keeps: every copy here names that version's document
    copy = ~first | (which >= 0)
    res = np.empty(int(copy.sum()), dtype=UNIT_OUT)
    res["local"], res["pos"], res["keeper"] = s["local"][copy], s["pos"][copy], keeper[copy]
    res["index"], res["old"] = which[copy], old[copy]
    records, off = grouped(part[order][copy], res, len(u.parts))
    work = save_grouped(u.out / "units-out" / u.key, records, off, u.staging)
    kept = np.empty(int((~copy).sum()), dtype=KEPT_REC)
    kept["local"], kept["pos"], kept["hi"], kept["lo"] = (s[k][~copy] for k in ("local", "pos", "hi", "lo"))
    work += save_grouped(u.out / "units-kept" / u.key, *grouped(part[order][~copy], kept, len(u.parts)), u.staging)
    return {"key": u.key, "work": work, "units": len(rec), "copies": int(copy.sum())}


def against_units(spec: UnitSpec, names: list[str], directories: list[Path], manifests: list[dict]) -> tuple:
    """(name, ((path, sha256), ...)) of each `against` version's units index; it must have deduplicated
    inside documents with the same unit settings (else its keys mean something else)."""
    out = []
    for name, directory, manifest in zip(names, directories, manifests):
        theirs = UnitSpec.of(manifest["params"]["dedup"])
        same = ("unit", "min_chars", "n_sentences")
        if theirs is None or any(getattr(theirs, k) != getattr(spec, k) for k in same):
            raise CorpusError(f"{directory}: dedup.against '{name}' was not deduplicated inside documents with "
                              f"unit {spec.unit}, min_chars {spec.min_chars}, n_sentences {spec.n_sentences} "
                              f"(it has {'none' if theirs is None else (theirs.unit, theirs.min_chars, theirs.n_sentences)})")
        out.append((name, tuple((str(directory / p["name"]), p["sha256"]) for p in manifest["parts"]
                                if p["name"].startswith(UNITS_INDEX + "/"))))
    return tuple(out)


# ---------------------------------------------------------------- apply (per part)

@dataclass
class Edits:
    """One part's edits: {local: new text} for the kept documents that lost units, the locals dropped
    for falling under min_doc_chars, the removed/ rows and the counts per source."""
    texts: dict
    dropped: list
    removed: dict
    by_source: dict


def part_edits(spec: UnitSpec, out: Path, bucket_keys: tuple[str, ...], index: int, ranges, table: pa.Table,
               keep: np.ndarray, against: tuple = ()) -> Edits:
    found = [s for key in bucket_keys if (s := slice_of(out / "units-out" / key, index)) is not None]
    copies = np.concatenate(found) if found else np.zeros(0, UNIT_OUT)
    copies = copies[np.lexsort((copies["pos"], copies["local"]))]
    mine = copies["keeper"] >= 0
    kept_by: list = [None] * len(copies)
    for i, v in zip(np.flatnonzero(mine).tolist(), RowLookup(ranges).ids(copies["keeper"][mine]) if mine.any() else []):
        kept_by[i] = v
    for i in np.flatnonzero(~mine).tolist():  # kept by a published version's document
        kept_by[i] = published_label(against, int(copies["index"][i]), int(copies["old"][i]))
    ids, sources = table.column("id").to_pylist(), table.column("source_id").to_pylist()
    removed: dict[str, list] = {k: [] for k in REMOVED_COLUMNS}
    edits = Edits({}, [], removed, {})
    locals_ = copies["local"].tolist()
    starts = np.flatnonzero(np.r_[True, copies["local"][1:] != copies["local"][:-1]]).tolist() if len(copies) else []
    bounds = starts + [len(copies)]
    texts = table.column("text")
    for a, b in zip(bounds[:-1], bounds[1:]):
        local = locals_[a]
        if not keep[local]:
            raise CorpusError(f"dedup: unit copies recorded for '{ids[local]}', which dedup does not keep")
        text = texts[local].as_py()
        segs = segments(text, spec.unit)
        positions = copies["pos"][a:b].tolist()
        gone = removed_segments(len(segs), positions, spec.unit, spec.n_sentences)
        new = edited(text, segs, gone, spec.unit)
        s = edits.by_source.setdefault(sources[local], {"docs": 0, "units": 0, "chars": 0, "docs_dropped": 0})
        s["docs"] += 1
        for pos, keeper in zip(positions, kept_by[a:b]):
            width = spec.n_sentences if spec.unit == "span" else 1
            start, end = segs[pos][0], segs[min(pos + width, len(segs)) - 1][1]
            for k, v in (("id", ids[local]), ("source_id", sources[local]), ("unit", spec.unit), ("position", pos),
                         ("chars", end - start), ("text", text[start:end]), ("kept_by", keeper)):
                removed[k].append(v)
        s["units"] += b - a
        s["chars"] += len(text) - len(new)
        if len(new.strip()) < max(spec.min_doc_chars, 1):
            edits.dropped.append(local)
            s["docs_dropped"] += 1
        else:
            edits.texts[local] = new
    return edits


def units_index(out: Path, bucket_keys: tuple[str, ...], index: int, ids: list[str], dropped: list[int],
                out_dir: Path, part: str) -> dict:
    """units-index/<part>.npz: the keys the part's kept documents keep (hi, lo, the document's id), in
    (document, position) order: what a later version's `[dedup] against` compares with."""
    found = [s for key in bucket_keys if (s := slice_of(out / "units-kept" / key, index)) is not None]
    kept = np.concatenate(found) if found else np.zeros(0, KEPT_REC)
    kept = kept[~np.isin(kept["local"], np.asarray(dropped, dtype=np.int64))]
    kept = kept[np.lexsort((kept["pos"], kept["local"]))]
    buf = io.BytesIO()
    np.savez(buf, hi=kept["hi"], lo=kept["lo"], ids=np.array([ids[i] for i in kept["local"].tolist()], dtype=str))
    name = f"{UNITS_INDEX}/{part}.npz"
    (out_dir / UNITS_INDEX).mkdir(exist_ok=True)
    write_bytes(out_dir / name, buf.getvalue())
    return {"name": name, "sha256": sha256_bytes(buf.getvalue()), "rows": len(kept), "bytes": buf.tell()}


def edited_table(table: pa.Table, texts: dict) -> pa.Table:
    """The table with the edited texts in place."""
    if not texts:
        return table
    column = table.column("text").to_pylist()
    for local, text in texts.items():
        column[local] = text
    return table.set_column(table.schema.get_field_index("text"), "text", pa.array(column, pa.string()))


def removed_table(edits: Edits) -> pa.Table:
    return pa.table({k: pa.array(v, t) for (k, t), v in zip(REMOVED_COLUMNS.items(), edits.removed.values())},
                    schema=pa.schema(list(REMOVED_COLUMNS.items())))
