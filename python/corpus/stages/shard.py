"""Stage 06 shard: the final, sorted, content-hash-split Parquet shards and `_MANIFEST.json`.

The global order is the partitioned id sort (corpus.engine.idsort: `sample`, `splitters`, `rank`,
`offsets`), which never holds the texts and with `[run] partitions = P` no more than about 1/P of the
ids in a task, and rejects an id held by two rows. A row's destination shard is its global rank //
shard_rows: `scatter` reads each input part once and spills its rows per destination shard; `write`
sorts each shard's rows by id and writes it. The bytes depend neither on P nor on the workers. The
shards and `_MANIFEST.json` share the dataset directory with `stages/`: they are published file by
file, the stage manifest last."""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from corpus import __version__
from corpus.engine.versions import output_packages
from corpus.store.atomic import canonical_json, dump_json, naming_enospc, sha256_bytes, sha256_file, write_bytes
from corpus.config import Config, config_slice, hashed_table
from corpus.errors import CorpusError
from corpus.config.layout import CORPUS_MANIFEST, CORPUS_SCHEMA
from corpus.config.ledger import load_ledger
from corpus.engine.memory import release_freed_memory
from corpus.formats import parts as parts_io
from corpus.formats.parts import fixed_binary_values, read_table, validate_columns
from corpus.filters import takedown
from corpus.engine.idsort import id_sort, ids_before, part_ranks, rank_range, sample_part
from corpus.engine.partitioning import work_entry
from corpus.engine.runner import Job, Map, PhaseContext, RunOptions, Step, Whole, published_stage, read_stage_manifest
from corpus.config.schemas import validate
from corpus.stages import STAGE, config_hash, config_keys, input_content, part_stages, reuse_sources

log = logging.getLogger(__name__)
ME = STAGE["shard"]
SHARD_COLUMNS = [("id", pa.string()), ("text", pa.string()), ("source_id", pa.string()), ("url", pa.string()),
                 ("license_spdx", pa.string()), ("lang", pa.string()), ("n_chars", pa.int32()),
                 ("sha256", pa.binary(32)), ("minhash_cluster", pa.int64()), ("pii_redactions", pa.int32()),
                 ("split", pa.string()), ("meta", pa.string())]
SHARD_SCHEMA = pa.schema(SHARD_COLUMNS)
# What a shard carries from its input parts (every input column but lang_score), with the shard's types
# (checked against input_columns("shard") by tests/test_bounded_units.py; taken from the shard schema so
# that importing this module does not build the filter registry, ~80 ms); the rest it computes.
COMPUTED = ("n_chars", "sha256", "split")
INPUT_COLUMNS = {k: v for k, v in SHARD_COLUMNS if k not in COMPUTED}
# A shard's row groups hold at most this much Arrow data: half the contract's 64 MiB (parts.ROW_GROUP_BYTES),
# because a row group is what the shard's readers (DuckDB, polars, HF datasets) hold at a
# time, and what its `write` unit holds whole (pyarrow writes a row group from memory), plus ~25 MB for
# gathering and encoding it. At 64 MiB the worker writing a full one grew from 64 MB idle to 150-160 MB,
# and shard's peak at 16x was 1.25-1.28x its 1x peak in ten runs (issue 13 asks at most 1.25x); at 32 MiB,
# 1.17-1.23x in five (bench/scale.py). Compression is per page: the 16x corpus's first shard has four row
# groups instead of two and is 0.4% larger.
ROW_GROUP_BYTES = 32 << 20
SCATTER_IN_DRIVER_BYTES = 16 << 20
# The stage's workers start when a phase first sends them a unit (engine.executor.pool_session): a small
# corpus's sort, scatter and one-shard write all run in the driver.
LAZY_POOL = True


def split_of(sha256: bytes, val_permille: int) -> str:
    """val when the first 8 bytes of the text's sha256, big-endian, mod 1000 < val_permille."""
    return "val" if int.from_bytes(sha256[:8], "big") % 1000 < val_permille else "train"


def shard_name(i: int, n: int) -> str:
    return f"shard-{i:05d}-of-{n:05d}.parquet"


@dataclass(frozen=True)
class ScatterUnit:
    key: str
    path: Path
    sha256: str
    index: int              # the part's position among the input parts
    ranges: tuple[tuple[Path, int], ...]   # (rank file prefix, global rank of the range's first id)
    starts: tuple[int, ...]  # the global rank of each shard's first row (shard_cuts)
    spill_dir: Path


POS = "_pos"  # a spilled row's position in its shard (the shard's rows in id order)
# What `write` needs of every row before it gathers any, computed here (per part, in parallel) and spilled
# with the row: the sha256 of its text, its characters and its UTF-8 bytes.
DIGEST, CHARS, TEXT_BYTES = "_sha256", "_n_chars", "_text_bytes"


def spill_table(rows: pa.Table, pos: np.ndarray) -> pa.Table:
    """A spill: the rows (sorted by position in the shard) with their position and DIGEST, CHARS and
    TEXT_BYTES."""
    texts = rows.column("text")
    digests = text_digests(texts)
    lengths = [f(texts) if rows.num_rows else pa.array([], pa.int32()) for f in (pc.utf8_length, pc.binary_length)]
    return (rows.append_column(POS, pa.array(pos, pa.int64()))
            .append_column(DIGEST, pa.FixedSizeBinaryArray.from_buffers(pa.binary(32), len(digests),
                                                                        [None, pa.py_buffer(digests.tobytes())]))
            .append_column(CHARS, lengths[0]).append_column(TEXT_BYTES, lengths[1]))


def shard_cuts(n_docs: int, shard_rows: int, first_ids: list[str], parts: list[tuple[Path, dict]]) -> list[int]:
    """The global rank of each shard's first row: every shard_rows rows, or, with [shard] first_ids, the
    number of ids before each of them (the ids of every input part counted, byte order as the id sort)."""
    if not first_ids:
        return list(range(0, max(1, n_docs), shard_rows))
    if sorted(first_ids, key=lambda x: x.encode("utf-8")) != first_ids:
        raise CorpusError("shard.first_ids: the ids must be in increasing byte order")
    # ids only (the scatter that follows reads each part whole, verified)
    before = ids_before([path for path, _ in parts], first_ids)
    return [0, *before.tolist()]


def scatter_part(u: ScatterUnit) -> dict:
    """Spill the part's rows per destination shard (shard_cuts: the shard whose first rank is the last at
    or before the row's), each spill sorted by its
    rows' position in the shard and carrying it, so `write` can cut a shard into row groups without
    holding or sorting the whole shard."""
    table = read_table(u.path, u.sha256)
    validate_columns(table, INPUT_COLUMNS, u.path)
    table = table.select(list(INPUT_COLUMNS))
    rank = part_ranks(u.index, u.ranges, table.num_rows, u.path)
    starts = np.asarray(u.starts, np.int64)
    dest = np.searchsorted(starts, rank, side="right") - 1
    pos = rank - starts[dest]
    work = []
    for shard in np.unique(dest):
        picked = np.flatnonzero(dest == shard)
        picked = picked[np.argsort(pos[picked], kind="stable")]
        rows = spill_table(table.take(pa.array(picked)), pos[picked])
        out = u.spill_dir / f"{int(shard):05d}" / f"{u.key}.arrow"
        out.parent.mkdir(parents=True, exist_ok=True)
        with pa.OSFile(str(out), "wb") as f, ipc.new_file(f, rows.schema) as w:
            w.write_table(rows)
        work.append(work_entry(out, u.spill_dir.parent.parent))
    return {"key": u.key, "rows": table.num_rows, "work": work}


@dataclass(frozen=True)
class ShardUnit:
    key: str
    index: int
    n_shards: int
    spill_dir: Path
    out_dir: Path
    val_permille: int
    spills: tuple[tuple[str, str], ...] = ()   # (name, sha256) of its spills, what its bytes are a function of


def text_digests(texts: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The sha256 of each text's UTF-8 bytes, (n, 32) uint8, hashed straight from the Arrow buffers."""
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    out = []
    for arr in chunks:
        if arr.null_count:
            raise CorpusError("a document without text reached the shard stage")
        if not len(arr):
            continue
        _, offsets, data = arr.buffers()
        off = np.frombuffer(offsets, dtype=np.int32)[arr.offset:arr.offset + len(arr) + 1].tolist()
        view = memoryview(data) if data is not None else memoryview(b"")
        out.append(b"".join(hashlib.sha256(view[a:b]).digest() for a, b in zip(off, off[1:])))
    return np.frombuffer(b"".join(out), dtype=np.uint8).reshape(-1, 32)


def splits_of(digests: np.ndarray, val_permille: int) -> np.ndarray:
    """split_of for every row: True where the row is in val."""
    first8 = digests[:, :8].copy().view(">u8").ravel()
    return (first8 % 1000) < val_permille


PROBE_ROWS = 64  # rows of the probe that learns the layout of pyarrow's take output (see _take_layout)


def _value_bytes(col, typ: pa.DataType) -> int:
    if pa.types.is_string(typ):
        return pc.sum(pc.binary_length(col)).as_py() or 0
    return len(col) * typ.bit_width // 8


def _take_layout(samples: list[pa.Array], typ: pa.DataType, nulls: bool) -> tuple[int, int]:
    """(validity bitmap 0/1, extra offsets) of what pyarrow's take gives for a column chunked like this:
    its `nbytes` is bitmap + 4 * (rows + extra) for strings + the values, and the layout depends on the
    kernel's path (several chunks give strings a bitmap even without nulls), so the same take is run on a
    few rows of each chunk and its size solved for the two unknowns."""
    probe = pa.chunked_array(samples, typ)
    idx = np.arange(len(probe))[::-1]
    if (len(idx) + 7) // 8 == 4:  # a 4-byte bitmap would look like one more offset: take 24 rows instead
        idx = idx[:24]
    taken = probe.take(pa.array(idx))
    m = len(taken)
    over = taken.nbytes - _value_bytes(taken, typ)
    offsets = (lambda c: 4 * (m + c)) if pa.types.is_string(typ) else (lambda c: 0)
    for bitmap in (0, 1):
        for extra in (0, 1):
            if over == bitmap * ((m + 7) // 8) + offsets(extra):
                return (1 if nulls else bitmap), extra  # nulls anywhere in the column: a bitmap for sure
    raise AssertionError(f"shard: unexpected Arrow layout of a taken {typ} column ({over} bytes over {m} rows)")


def arrow_nbytes(typ: pa.DataType, n: int, value_bytes: int, layout: tuple[int, int] = (0, 0)) -> int:
    """pyarrow's `nbytes` of a contiguous column of n rows with this layout (bitmap, extra offsets)."""
    bitmap, extra = layout
    offsets = 4 * (n + extra) if pa.types.is_string(typ) else 0
    return bitmap * ((n + 7) // 8) + offsets + (value_bytes if pa.types.is_string(typ) else n * typ.bit_width // 8)


@dataclass
class _Spill:
    path: Path
    pos: np.ndarray           # each row's position in the shard, ascending
    digests: np.ndarray       # (rows, 32) sha256 of each text
    n_chars: np.ndarray       # int32 characters of each text
    text_bytes: np.ndarray    # int32 UTF-8 bytes of each text (where it goes in the row group's buffer)
    sizes: dict               # column -> (value bytes, has nulls), for the shard's Arrow size
    samples: dict             # column -> the first rows of each of its chunks (copies), see _take_layout


def _read_spill(path: Path):
    """A spill, memory-mapped: only the pages read are resident, until the map is closed."""
    return ipc.open_file(pa.memory_map(str(path))).read_all()


def _open_spills(u: ShardUnit) -> list[_Spill]:
    """Pass 1, one spill at a time: positions, digests, character counts and column sizes (the texts'
    from TEXT_BYTES: their pages are not read here)."""
    spills = []
    for p in sorted((u.spill_dir / f"{u.index:05d}").glob("*.arrow")):
        t = _read_spill(p)
        # copies (np.array): a view would keep the map, and every page of it read, resident
        digests = np.zeros((0, 32), np.uint8)
        if t.num_rows:
            digests = np.array(fixed_binary_values(t.column(DIGEST)))
        n_chars, text_bytes = (np.array(t.column(c).to_numpy(), dtype=np.int32) if t.num_rows else np.zeros(0, np.int32)
                               for c in (CHARS, TEXT_BYTES))
        sizes = {name: (int(text_bytes.sum()) if name == "text" else _value_bytes(t.column(name), typ),
                        t.column(name).null_count > 0) for name, typ in INPUT_COLUMNS.items()}
        samples = {name: [pa.concat_arrays([c.slice(0, PROBE_ROWS)]) for c in t.column(name).chunks if len(c)]
                   for name in INPUT_COLUMNS}
        spills.append(_Spill(p, np.array(t.column(POS).to_numpy()), digests, n_chars, text_bytes, sizes, samples))
        del t
    return spills


def _shard_nbytes(spills: list[_Spill], n: int, val: np.ndarray) -> int:
    """The Arrow size of the whole shard table (what decides its row groups), without building it: the
    input columns as the take over the spills lays them out, the computed ones as pa.array does."""
    total = 0
    for name, typ in SHARD_COLUMNS:
        if name in ("n_chars", "sha256"):
            total += arrow_nbytes(typ, n, 0)
        elif name == "split":
            nval = int(val.sum())
            total += arrow_nbytes(typ, n, len("val") * nval + len("train") * (n - nval))
        else:
            nulls = any(s.sizes[name][1] for s in spills)
            layout = _take_layout([x for s in spills for x in s.samples[name]], typ, nulls)
            total += arrow_nbytes(typ, n, sum(s.sizes[name][0] for s in spills), layout)
    return total


PIECE_BYTES = 4 << 20  # a row group is gathered from the spills this many bytes of text at a time


def _row_group(u: ShardUnit, spills: list[_Spill], a: int, b: int) -> pa.Table:
    """The shard's rows [a, b) in id order, merged by position from each spill's slice of them (a spill's
    rows are sorted by position). Gathered a piece of PIECE_BYTES of text at a time, each spill mapped
    only while a piece is taken from it, and the texts copied straight into the row group's one buffer:
    memory is the row group plus a piece, where a take over the whole slices held the row group twice
    (the mapped spill pages and the taken copy): gathering a 66 MB row group peaked at 298 MB that way,
    217 MB this way."""
    slices, pos = [], []
    for s in spills:
        lo, hi = (int(x) for x in np.searchsorted(s.pos, [a, b]))
        if hi > lo:
            slices.append((s, lo, hi))
            pos.append(s.pos[lo:hi])
    order = np.argsort(np.concatenate(pos), kind="stable")       # row group row -> concatenated slice row
    which = np.repeat(np.arange(len(slices)), [hi - lo for _, lo, hi in slices])[order]  # its slice
    local = (order - np.concatenate([[0], np.cumsum([hi - lo for _, lo, hi in slices])[:-1]])[which])
    per_row = lambda f: np.concatenate([getattr(s, f)[lo:hi] for s, lo, hi in slices])[order]  # noqa: E731
    digests, n_chars, text_bytes = (np.ascontiguousarray(per_row(f)) for f in ("digests", "n_chars", "text_bytes"))
    offsets = np.zeros(len(order) + 1, np.int64)
    np.cumsum(text_bytes, out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise CorpusError(f"{u.out_dir}: a row group of {offsets[-1]:,} bytes of text does not fit a string column")
    text = np.empty(int(offsets[-1]), np.uint8)
    cuts = np.searchsorted(offsets, np.arange(0, offsets[-1], PIECE_BYTES), side="right") - 1
    bounds = [*sorted(set(cuts.tolist()) | {0}), len(order)]
    columns: dict[str, list] = {name: [] for name in ("id", "source_id", "url", "license_spdx", "lang",
                                                       "minhash_cluster", "pii_redactions", "meta")}
    for i, j in zip(bounds, bounds[1:]):
        if j <= i:
            continue
        w, loc = which[i:j], local[i:j]
        pieces, base, take = [], 0, np.empty(j - i, np.int64)
        for k in np.unique(w):  # each spill's rows in a piece are one run of its slice (rows sorted by position)
            s, lo, _ = slices[k]
            mine = w == k
            first, last = int(loc[mine].min()), int(loc[mine].max()) + 1
            pieces.append(_read_spill(s.path).slice(lo + first, last - first))
            take[mine] = loc[mine] - first + base
            base += last - first
        rows = pa.concat_tables(pieces).take(pa.array(take))
        del pieces  # the spills' maps close: their pages leave this process
        piece = rows.column("text").combine_chunks()
        _, poffs, pdata = piece.buffers()
        po = np.frombuffer(poffs, np.int32)[piece.offset:piece.offset + len(piece) + 1]
        if po[-1] - po[0] != offsets[j] - offsets[i]:
            raise CorpusError(f"{u.spill_dir / f'{u.index:05d}'}: a spill changed while its shard was written")
        text[offsets[i]:offsets[j]] = np.frombuffer(pdata, np.uint8)[po[0]:po[-1]]
        for name, col in columns.items():
            col.extend(rows.column(name).chunks)
        del rows, piece
        release_freed_memory(force=True)  # the piece's blocks: glibc would keep them, as heap, for the whole stage
    split = pa.array(["val" if v else "train" for v in splits_of(digests, u.val_permille).tolist()], pa.string())
    n = len(order)
    whole = {name: pa.chunked_array(chunks, SHARD_SCHEMA.field(name).type).combine_chunks()
             for name, chunks in columns.items()}
    return pa.table({
        "id": whole["id"],
        "text": pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(text)]),
        "source_id": whole["source_id"], "url": whole["url"], "license_spdx": whole["license_spdx"],
        "lang": whole["lang"], "n_chars": pa.array(n_chars, pa.int32()),
        "sha256": pa.FixedSizeBinaryArray.from_buffers(pa.binary(32), n, [None, pa.py_buffer(digests.tobytes())]),
        "minhash_cluster": whole["minhash_cluster"], "pii_redactions": whole["pii_redactions"],
        "split": split, "meta": whole["meta"],
    }, schema=SHARD_SCHEMA)


def row_group_cuts(text_bytes: np.ndarray, nbytes: int, limit: int | None = None) -> list[tuple[int, int]]:
    """[a, b) row ranges of a shard's row groups: consecutive rows, each group closed before the row that
    would take it past `limit` (ROW_GROUP_BYTES, 32 MiB) of Arrow data, a row counted as its text's bytes plus the
    shard's average of everything else (`nbytes` is the whole table's Arrow size); at least one row a group.
    A fixed row count (the shard's average row) let a group of long documents after short ones reach
    83 MB, and a shard of mixed sizes far more. The sums are exact in int64 and each share one IEEE
    product, so the cuts are the same on every machine."""
    n = len(text_bytes)
    if n == 0:
        return []
    limit = ROW_GROUP_BYTES if limit is None else limit
    share = max(0, nbytes - int(text_bytes.sum())) / n  # offsets, ids, urls, digests...: spread evenly
    cum = np.cumsum(text_bytes, dtype=np.int64) + share * np.arange(1, n + 1)  # Arrow bytes of rows [0, i]
    cuts, a, base = [], 0, 0.0
    while a < n:
        b = max(a + 1, int(np.searchsorted(cum, base + limit, side="right")))
        cuts.append((a, b))
        a, base = b, float(cum[b - 1])
    return cuts


def write_shard(u: ShardUnit) -> dict:
    """Write one shard a row group at a time: each row group's rows are sliced from the sorted spills and
    merged by position, so memory is one row group (at most ROW_GROUP_BYTES of Arrow data) and 36 bytes a
    row of the shard (digest, character count), never the whole shard's text. The row groups are
    `row_group_cuts` of the shard's texts and Arrow size, computed from the spills: writing the whole shard
    table in those row groups gives the same bytes."""
    spills = _open_spills(u)
    n = sum(len(s.pos) for s in spills)
    val = np.concatenate([splits_of(s.digests, u.val_permille) for s in spills]) if spills else np.zeros(0, bool)
    text_bytes = np.zeros(n, np.int64)  # in shard order
    for s in spills:
        text_bytes[s.pos] = s.text_bytes
    cuts = row_group_cuts(text_bytes, _shard_nbytes(spills, n, val))
    del text_bytes
    name = shard_name(u.index, u.n_shards)
    path = u.out_dir / name
    stats: dict = {}
    with naming_enospc(path, f"a shard of {n} rows"):
        writer = pq.ParquetWriter(path, SHARD_SCHEMA, **parts_io.PARQUET_WRITE_OPTIONS)
        if not n:
            writer.write_table(SHARD_SCHEMA.empty_table())
        for a, b in cuts:
            out = _row_group(u, spills, a, b)
            # what gathering freed (the pieces' columns before they were combined: 11 MB for a 67 MB row
            # group) goes back before the writer adds its own ~10 MB: the unit's peak is the row group + that
            release_freed_memory(force=True)
            writer.write_table(out, row_group_size=max(1, out.num_rows))
            # per (source, licence, split), in order of first appearance (use_threads=False keeps that
            # order): a few rows, where to_pylist made three Python strings a row (~20 MB a row group)
            keys = ["source_id", "license_spdx", "split"]
            groups = out.select(keys).group_by(keys, use_threads=False).aggregate([([], "count_all")])
            for sid, lic, split, count in zip(*(groups.column(c).to_pylist() for c in (*keys, "count_all"))):
                st = stats.setdefault(sid, {"license_spdx": [], "train": 0, "val": 0})
                if lic not in st["license_spdx"]:
                    st["license_spdx"].append(lic)
                st[split] += count
            del out
        writer.close()
        with open(path, "rb") as f:
            os.fsync(f.fileno())
    entry = {"name": name, "sha256": sha256_file(path), "rows": n, "bytes": path.stat().st_size}
    return {"key": u.key, "parts": [entry], "sources": stats}


def ledger_ref(config: Config, ledger: dict | None = None) -> dict:
    """The ledger by content: the sha256 of the rows the dataset uses (sources, then evals) and the
    ledger's path relative to the config file, so a manifest never depends on where the checkout is.
    `ledger`: its rows, when the caller has loaded it (each load validates every row)."""
    ledger = load_ledger(config.ledger_path) if ledger is None else ledger
    used = [ledger[s] for s in config["dataset"]["sources"]]
    evals = [ledger[s] for s in config["decontam"]["evals"] if s in ledger]
    rel = os.path.relpath(os.path.abspath(config.ledger_path), os.path.abspath(config.path.parent))
    return {"path": Path(rel).as_posix(), "sha256": sha256_bytes(canonical_json(used + evals).encode()),
            "sources": [r["source_id"] for r in used]}


def build_manifest(config: Config, shards: list[dict], sources: dict, stage_counts: dict,
                   ledger: dict | None = None) -> dict:
    ledger = load_ledger(config.ledger_path) if ledger is None else ledger
    used = [ledger[s] for s in config["dataset"]["sources"]]
    evals = [ledger[s] for s in config["decontam"]["evals"] if s in ledger]
    f, d, p = stage_counts["filter"], stage_counts["dedup"], stage_counts["pii"]
    dedup_cfg = config["dedup"]
    red = p.get("redactions", {})
    per_source = []
    for row in used:
        s = sources.get(row["source_id"], {"license_spdx": [], "train": 0, "val": 0})
        per_source.append({"source_id": row["source_id"], "license_spdx": row["license_spdx"], "url": row["url"],
                           "sha256": row["sha256"], "docs": s["train"] + s["val"], "train": s["train"],
                           "val": s["val"], "licenses_in_shards": sorted(s["license_spdx"])})
    splits = {"train": sum(s["train"] for s in per_source), "val": sum(s["val"] for s in per_source)}
    filtered = STAGE["filter"].path(config)
    down = takedown.manifest_record(config, filtered, read_stage_manifest(filtered))
    return {
        **({"takedown": down} if down is not None else {}),
        "dataset": config.dataset, "version": config.version,
        "n_docs": sum(s["rows"] for s in shards), "n_shards": len(shards), "shards": shards,
        "splits": splits, "val_permille": config["shard"]["val_permille"], "shard_rows": config["shard"]["shard_rows"],
        "sources": per_source, "licenses": sorted({r["license_spdx"] for r in used}),
        "filters": dict(f["dropped"]),
        "filters_by_rule": f.get("dropped_by_rule", {}),
        "dedup": {"exact_dropped": d["dropped"]["exact"], "near_dropped": d["dropped"]["near"],
                  "url_dropped": d["dropped"].get("url", 0),
                  "decontaminated": d["dropped"]["decontam"], "near_marked": d.get("near_marked", 0),
                  "mode": dedup_cfg["mode"], "jaccard_threshold": dedup_cfg["jaccard_threshold"],
                  "num_perm": dedup_cfg["num_perm"], "bands": dedup_cfg["bands"], "ngram": dedup_cfg["ngram_words"],
                  "decontam_ngram": config["decontam"]["ngram"],
                  "decontaminated_by_eval": d.get("decontam_by_eval", {}),
                  # [dedup.lines]/[dedup.spans]: per source, documents edited, units and characters removed
                  **({"units_removed": d["units_removed"]} if "units_removed" in d else {}),
                  "evals": [{"source_id": r["source_id"], "sha256": r["sha256"]} for r in evals]},
        "pii": {"emails": red.get("EMAIL", 0), "phones": red.get("PHONE", 0), "cards": red.get("CARD", 0),
                "ips": red.get("IP", 0), "keys": red.get("KEY", 0)},
        "docs_per_stage": {stage: {"in": c["docs_in"], "out": c["docs_out"]} for stage, c in stage_counts.items()},
        "ledger_ref": ledger_ref(config, ledger),
        "config_sha256": config_hash(config, ME.name),
        "corpus_version": __version__,
        "packages": output_packages(),  # the library versions that decide these bytes (corpus.engine.versions)
    }


def stage_counts(config: Config) -> dict:
    """The counts of every per-part stage, from their published manifests (in stage order)."""
    return {s.name: published_stage(config, s.path(config), s.name)[0]["counts"] for s in part_stages()}  # counts verified


def empty_corpus_message(config: Config) -> str:
    """An empty corpus is an error (never an empty dataset): name the stage that dropped the last documents."""
    for s in part_stages():
        c = read_stage_manifest(s.path(config))["counts"]
        if c["docs_in"] == 0 and s is part_stages()[0]:
            return (f"{s.path(config) / '_STAGE.json'}: the dataset's sources hold no documents; nothing to shard, "
                    f"nothing published")
        if c["docs_out"] == 0:
            why = {k: v for k, v in {**c.get("dropped", {}), "empty": c.get("dropped_empty", 0)}.items() if v}
            return (f"{s.path(config) / '_STAGE.json'}: stage {s.dirname} dropped all {c['docs_in']} documents it read"
                    + (f" ({', '.join(f'{k} {v}' for k, v in why.items())})" if why else "")
                    + "; the corpus is empty, nothing to shard (loosen its config), nothing published")
    return f"{STAGE[ME.reads].path(config)}: no documents to shard; nothing published"


def plan(config: Config, opts: RunOptions) -> list[Job]:
    src = STAGE[ME.reads].path(config)
    manifest, ref = published_stage(config, src, ME.reads, upstream=config_hash(config, ME.reads))
    parts = [(src / p["name"], p) for p in manifest["parts"] if p["name"].startswith("part-")]
    if not sum(p["rows"] for _, p in parts):
        raise CorpusError(empty_corpus_message(config))
    shard_rows, val_permille = config["shard"]["shard_rows"], config["shard"]["val_permille"]
    ledger = load_ledger(config.ledger_path)  # once: the params' ledger_ref and the manifest's

    # P as for one worker (ceil(documents / 1M), or [run] partitions): each rank unit reads every part's ids
    # and a second range adds the sample pass over them all, so below a million documents two ranges cost
    # more than they save (a 52,045-document corpus with 2 workers: sample + 2 ranks, 0.3 s of CPU, against
    # one rank, 0.05 s); P bounds a task's memory, the scatter and write phases are what run in parallel
    sort = id_sort(config, 1, parts, "rank")
    # a small corpus is scattered in the driver: 40 parts of the demo (5 MB) took 0.15 s of CPU in all,
    # and workers started for them cost more than they saved (LAZY_POOL: then none start at all)
    small = sum(p.get("bytes", 0) for _, p in parts) < SCATTER_IN_DRIVER_BYTES
    first_ids = config["shard"].get("first_ids", [])
    n_shards = len(first_ids) + 1 if first_ids else max(1, -(-sort.n_docs // shard_rows))

    def cuts_step(ctx: PhaseContext) -> None:
        ctx.state["starts"] = tuple(shard_cuts(sort.n_docs, shard_rows, first_ids, parts))

    def scatter_units(ctx: PhaseContext) -> list[ScatterUnit]:
        return [ScatterUnit(p["name"].removesuffix(".parquet"), path, p["sha256"], i, ctx.state["ranges"],
                            ctx.state["starts"], ctx.work / "spill") for i, (path, p) in enumerate(parts)]

    def shard_units(ctx: PhaseContext) -> list[ShardUnit]:
        spills: dict[int, list] = {}
        for r in ctx.results["scatter"]:
            for w in r["work"]:
                spills.setdefault(int(Path(w["name"]).parent.name), []).append((Path(w["name"]).name, w["sha256"]))
        return [ShardUnit(f"shard-{i:05d}", i, n_shards, ctx.work / "spill", ctx.staging, val_permille,
                          tuple(sorted(spills.get(i, [])))) for i in range(n_shards)]

    def write_fingerprint(u: ShardUnit) -> dict:  # a shard is a function of its spills' bytes: reused by them
        return {"index": u.index, "n_shards": u.n_shards, "val_permille": u.val_permille, "spills": u.spills}

    def manifest_step(ctx: PhaseContext) -> None:
        results = ctx.results["write"]
        sources: dict = {}
        for r in results:
            for sid, s in r["sources"].items():
                agg = sources.setdefault(sid, {"license_spdx": set(), "train": 0, "val": 0})
                agg["license_spdx"] |= set(s["license_spdx"])
                agg["train"] += s["train"]
                agg["val"] += s["val"]
        shards = [{k: r["parts"][0][k] for k in ("name", "sha256", "rows")} for r in results]
        result = build_manifest(config, shards, sources, stage_counts(config), ledger)
        validate(result, CORPUS_SCHEMA, what=str(ME.path(config) / CORPUS_MANIFEST))
        data = dump_json(result)
        write_bytes(ctx.staging / CORPUS_MANIFEST, data)
        ctx.add_part({"name": CORPUS_MANIFEST, "sha256": sha256_bytes(data), "rows": result["n_docs"],
                      "bytes": len(data)})
        ctx.counts = {"docs_in": manifest["counts"]["docs_out"], "docs_out": result["n_docs"],
                      "n_shards": result["n_shards"], "splits": result["splits"]}

    # the config the shards depend on, whole: `corpus run` names what a changed config would change in
    # this published version (commands.pipeline.version_changes)
    params = {"shard": hashed_table("shard", config["shard"]), "ledger_sha256": ledger_ref(config, ledger)["sha256"],
              "config": config_slice(config.data, config_keys(ME.name))}
    return [Job("shard", ME.path(config), {"config_sha256": config_hash(config, ME.name), "params": params, "inputs": [ref]},
                [Map("sample", sort.sample_units, sample_part), Step("splitters", sort.splitters_step),
                 Map("rank", sort.range_units, rank_range, unit="ranges"), Step("offsets", sort.offsets_step),
                 Step("cuts", cuts_step), Map("scatter", scatter_units, scatter_part, in_process=small),
                 Map("write", shard_units, write_shard, unit="shards", fingerprint=write_fingerprint),
                 Step("manifest", manifest_step)],
                shared_dir=True, owned=("shard-*-of-*.parquet", CORPUS_MANIFEST),
                dataset=config.dataset, version=config.version, reuse_from=reuse_sources(config, ME.name),
                # the shards are a function of the input parts and [shard]; _MANIFEST.json also names this
                # version, its config and every stage's counts: written again when the shards are reused
                whole=Whole({"shard": hashed_table("shard", config["shard"]), "parts": input_content(manifest)}, steps=("manifest",),
                            results=("write",), rebuilt=(CORPUS_MANIFEST,)))]


def summary(result) -> str:
    c = result.manifest["counts"]
    return f"{c['docs_out']} docs in {c['n_shards']} shards (train {c['splits']['train']}, val {c['splits']['val']})"


def report(result) -> list[str]:
    return [f"shard: {summary(result)} -> {result.path}"]
