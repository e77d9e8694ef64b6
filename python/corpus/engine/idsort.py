"""The partitioned sort of a stage's input by document id (byte order), shared by shard and dedup.

No task holds a text, and with `[run] partitions = P` none holds more than about 1/P of the ids:
  sample     map, one unit per part: the part's ids sorted, and a few evenly spaced ones;
  splitters  step: P-1 ids, the weighted quantiles of the samples, that cut the ids into P ranges;
  rank       map, one unit per id range: the range's ids from every part, sorted, and each row's rank
             within the range; an id held by two rows is an error naming it and both parts;
  offsets    step: `IdSort.offsets_step`, the prefix sum of the range sizes, so that a row's global rank
             is its range's base plus its rank in the range (`part_ranks`).
The ranks are a function of the ids alone: neither P nor the workers change one.

A rank unit's work files, under its prefix <out>:
  <out>.npy / <out>.off.npy   [row in part, rank in range] grouped by part (off: where each part starts);
and with `by_rank`, for a stage that looks rows up by rank (dedup, through corpus.dedup.rowindex):
  <out>.pos.npy               by rank: the row's position in concatenated part order (int64);
  <out>.ids.arrow             by rank: the ids (Arrow IPC, memory-mapped by readers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from corpus.engine.partitioning import partitions, range_ids, read_ids, work_entry
from corpus.errors import CorpusError

if TYPE_CHECKING:  # the rank and sample workers import this module: not the runner and all it imports
    from corpus.config import Config
    from corpus.engine.runner import PhaseContext

# Each part contributes about this many ids per partition to the splitter sample (the sample's total is
# about SAMPLES_PER_PARTITION * P + parts, whatever the corpus size).
SAMPLES_PER_PARTITION = 64


# ---------------------------------------------------------------- sample and splitters

@dataclass(frozen=True)
class SampleUnit:
    key: str
    path: Path
    rows: int
    samples: int            # how many evenly spaced ids of the part's sorted ids to return


def sample_part(u: SampleUnit) -> dict:
    """The part's ids sorted, and `samples` of them at evenly spaced ranks (each stands for rows/samples)."""
    ids = read_ids(u.path, u.rows)
    k = min(u.samples, len(ids))
    if not k:
        return {"key": u.key, "samples": [], "weight": 0.0}
    picks = ((np.arange(k) + 0.5) * len(ids) / k).astype(np.int64)
    order = pc.sort_indices(ids).to_numpy()
    return {"key": u.key, "samples": ids.take(pa.array(order[picks])).to_pylist(), "weight": len(ids) / k}


def pick_splitters(samples: list[tuple[list[str], float]], p: int) -> list[str]:
    """P-1 ascending splitters: the weighted quantiles j/P (j = 1..P-1) of the parts' samples."""
    pairs = sorted((s.encode("utf-8"), w) for ids, w in samples for s in ids)
    if p <= 1 or not pairs:
        return []
    cum = np.cumsum([w for _, w in pairs])
    targets = cum[-1] * np.arange(1, p) / p
    at = np.minimum(np.searchsorted(cum, targets, side="left"), len(pairs) - 1)
    return [pairs[int(i)][0].decode("utf-8") for i in at]


# ---------------------------------------------------------------- rank (per id range)

@dataclass(frozen=True)
class RangeUnit:
    key: str
    lo: str | None          # the range is [lo, hi) in byte order; None = unbounded
    hi: str | None
    parts: tuple[tuple[Path, int], ...]   # (path, rows) of every input part
    out: Path               # the range's work file prefix
    staging: Path
    by_rank: bool = False   # also write .pos.npy and .ids.arrow


def suffixed(prefix: Path, suffix: str) -> Path:
    return prefix.with_name(prefix.name + suffix)


def reject_repeated_id(sorted_ids: pa.Array, order: np.ndarray, offsets: list[int],
                       parts: tuple[tuple[Path, int], ...]) -> None:
    """Raise, naming the id and the parts of both rows, when two neighbours in id order are equal.
    `order` maps sorted positions to positions in the part-order concatenation `offsets` cuts into parts."""
    if len(sorted_ids) < 2:
        return
    same = pc.equal(sorted_ids.slice(1), sorted_ids.slice(0, len(sorted_ids) - 1))
    if not pc.any(same).as_py():
        return
    i = int(np.flatnonzero(same.to_numpy(zero_copy_only=False))[0])
    rows = sorted((int(order[i]), int(order[i + 1])))
    first, second = (parts[int(k)][0] for k in np.searchsorted(np.asarray(offsets), rows, side="right") - 1)
    where = f"is also in {first}" if first != second else "is in two of its rows"
    # repr: an id with a newline or a quote still makes one line that shows it exactly
    raise CorpusError(f"{second}: document id {sorted_ids[i].as_py()!r} {where} (duplicate ids in the input)")


def rank_range(u: RangeUnit) -> dict:
    ids, rows, offsets = range_ids(u.parts, u.lo, u.hi)
    order = pc.sort_indices(ids).to_numpy()  # stable: equal ids keep part order, so `first` is the earlier part
    sorted_ids = ids.take(pa.array(order))
    del ids
    reject_repeated_id(sorted_ids, order, offsets, u.parts)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    rows_in_part = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    files = {".npy": np.stack([rows_in_part, rank], axis=1), ".off.npy": np.asarray(offsets, dtype=np.int64)}
    if u.by_rank:
        starts = np.cumsum([0] + [n for _, n in u.parts[:-1]], dtype=np.int64)  # each part's first position
        positions = [picked + start for picked, start in zip(rows, starts)]
        files[".pos.npy"] = (np.concatenate(positions) if positions else np.zeros(0, np.int64))[order]
    u.out.parent.mkdir(parents=True, exist_ok=True)
    work = []
    for suffix, array in files.items():
        np.save(suffixed(u.out, suffix), array)
        work.append(work_entry(suffixed(u.out, suffix), u.staging))
    if u.by_rank:
        with pa.OSFile(str(suffixed(u.out, ".ids.arrow")), "wb") as f, \
                ipc.new_file(f, pa.schema([("id", pa.string())])) as w:
            w.write_table(pa.table({"id": sorted_ids}))
        work.append(work_entry(suffixed(u.out, ".ids.arrow"), u.staging))
    return {"key": u.key, "docs": len(order), "work": work}


def part_ranks(index: int, ranges: tuple[tuple[Path, int], ...], rows: int, where: Path | str) -> np.ndarray:
    """The global rank (position in id order) of each row of part `index`: its range's base plus its
    rank in the range. `ranges` is what `IdSort.offsets_step` left in ctx.state["ranges"]."""
    rank = np.full(rows, -1, dtype=np.int64)
    for prefix, base in ranges:
        off = np.load(suffixed(prefix, ".off.npy"))
        a, b = int(off[index]), int(off[index + 1])
        if b > a:
            table = np.load(suffixed(prefix, ".npy"), mmap_mode="r")[a:b]
            rank[table[:, 0]] = base + table[:, 1]
    if rows and rank.min() < 0:
        raise CorpusError(f"{where}: {int((rank < 0).sum())} rows in no id range")
    return rank


# ---------------------------------------------------------------- the phases of one run

@dataclass(frozen=True)
class IdSort:
    """One run's id sort: its input parts, P, and the folder of its range files under the job's work
    dir. A stage lists the phases under these names (the steps read ctx.results["sample"] and ["rank"]):
        Map("sample", sort.sample_units, sample_part), Step("splitters", sort.splitters_step),
        Map("rank", sort.range_units, rank_range, unit="ranges"), Step("offsets", sort.offsets_step)
    after which ctx.state["ranges"] holds (range file prefix, global rank of its first id) per range."""
    parts: tuple[tuple[str, Path, int], ...]   # (unit key, path, rows) of every input part, in order
    n_parts: int                               # P
    folder: str
    by_rank: bool = False

    @property
    def tag(self) -> str:
        return f"of-{self.n_parts:05d}"  # unit keys name P: a resume with another P never reuses these units

    @property
    def n_docs(self) -> int:
        return sum(rows for _, _, rows in self.parts)

    def sample_units(self, ctx: PhaseContext) -> list[SampleUnit]:
        if self.n_parts == 1:
            return []  # one range: no splitters to pick
        share = SAMPLES_PER_PARTITION * self.n_parts
        return [SampleUnit(f"{key}-{self.tag}", path, rows, max(1, -(-share * rows // max(1, self.n_docs))))
                for key, path, rows in self.parts]

    def splitters_step(self, ctx: PhaseContext) -> None:
        found = pick_splitters([(r["samples"], r["weight"]) for r in ctx.results["sample"]], self.n_parts)
        ctx.state["bounds"] = [None, *found, None] if found else [None] * (self.n_parts + 1)
        ctx.run_info["partitions"] = self.n_parts

    def range_prefixes(self, ctx: PhaseContext) -> list[tuple[str, Path]]:
        keys = [f"range-{r:05d}-{self.tag}" for r in range(self.n_parts)]
        return [(key, ctx.work / self.folder / key) for key in keys]

    def range_units(self, ctx: PhaseContext) -> list[RangeUnit]:
        bounds = ctx.state["bounds"]
        inputs = tuple((path, rows) for _, path, rows in self.parts)
        return [RangeUnit(key, bounds[r], bounds[r + 1], inputs, out, ctx.staging, self.by_rank)
                for r, (key, out) in enumerate(self.range_prefixes(ctx))]

    def offsets_step(self, ctx: PhaseContext) -> None:
        sizes = [r["docs"] for r in ctx.results["rank"]]
        if sum(sizes) != self.n_docs:
            raise CorpusError(f"{ctx.job.key}: the id ranges hold {sum(sizes)} documents, the input {self.n_docs}")
        bases = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64).tolist()
        ctx.state["ranges"] = tuple((out, base) for (_, out), base in zip(self.range_prefixes(ctx), bases))


def id_sort(config: Config, workers: int, parts: list[tuple[Path, dict]], folder: str, *,
            by_rank: bool = False) -> IdSort:
    """The id sort of a stage's (path, manifest entry) input parts, in `[run] partitions` ranges."""
    inputs = tuple((p["name"].removesuffix(".parquet"), path, p["rows"]) for path, p in parts)
    n_parts = partitions(config, sum(rows for _, _, rows in inputs), workers=workers)
    return IdSort(inputs, n_parts, folder, by_rank)


def ids_before(paths, bounds: list[str]) -> np.ndarray:
    """For each id of `bounds`, how many ids of the parts at `paths` are smaller (byte order, as the
    sort): where it would stand among them. Reads the id column only."""
    from corpus.formats.parts import read_parquet

    out = np.zeros(len(bounds), np.int64)
    if not bounds:
        return out
    for path in paths:
        col = read_parquet(path, columns=["id"]).column("id")
        for k, b in enumerate(bounds):
            out[k] += pc.sum(pc.less(col, pa.scalar(b, pa.string()))).as_py() or 0
    return out
