"""Dedup inside documents (`[dedup.lines]`, `[dedup.spans]`): a line, paragraph or sentence span already
seen in an earlier document is removed from the later ones; a document left under `min_doc_chars` is
dropped. Exact keys (16-byte BLAKE2b of the unit, corpus.dedup.units), no Bloom filter.

Two map phases between the document-level decisions and `apply`, partitioned like the exact step:

- `unit-keys` (per part): the part's document-level decisions (corpus.dedup.decide: only the documents
  dedup keeps take part, so a unit is never kept by a document dropped anyway); every unit key of its
  kept documents as (key, row, position, local) into B buckets by the key's first word mod B.
- `units` (per bucket): sorted by (key, row, position), the first occurrence of each key is its keeper;
  every other occurrence is a copy, recorded with the keeper's row. Output grouped by part.

`apply` then edits each part's kept documents (`part_edits`). A key lives in exactly one bucket and the
keeper is the smallest (row, position), so the result does not depend on B, on P or on the workers.
Memory per bucket task: 40 bytes per unit of 1/B of the corpus; B = 8 P."""

from __future__ import annotations

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

BUCKETS_PER_PARTITION = 8  # unit buckets per dedup partition: documents hold tens of units each
UNIT_REC = np.dtype([("hi", "<u8"), ("lo", "<u8"), ("row", "<i8"), ("local", "<i8"), ("pos", "<i4")])
UNIT_OUT = np.dtype([("local", "<i8"), ("pos", "<i4"), ("keeper", "<i8")])
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
    parts: tuple[str, ...]
    out: Path
    staging: Path


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
    copy = keeper >= 0
    res = np.empty(int(copy.sum()), dtype=UNIT_OUT)
    res["local"], res["pos"], res["keeper"] = rec["local"][order][copy], rec["pos"][order][copy], keeper[copy]
    records, off = grouped(part[order][copy], res, len(u.parts))
    work = save_grouped(u.out / "units-out" / u.key, records, off, u.staging)
    return {"key": u.key, "work": work, "units": len(rec), "copies": int(copy.sum())}


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
               keep: np.ndarray) -> Edits:
    found = [s for key in bucket_keys if (s := slice_of(out / "units-out" / key, index)) is not None]
    copies = np.concatenate(found) if found else np.zeros(0, UNIT_OUT)
    copies = copies[np.lexsort((copies["pos"], copies["local"]))]
    kept_by = RowLookup(ranges).ids(copies["keeper"]) if len(copies) else []
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
