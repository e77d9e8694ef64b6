"""The partitioned id sort (corpus.engine.idsort) on small tables: the global ranks are the byte order of
the ids whatever P, the by-rank files list the ids in that order, and a repeated id is a one-line error
naming it and both parts."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from corpus.engine.idsort import IdSort, part_ranks, rank_range, sample_part, suffixed
from corpus.errors import CorpusError


def write_parts(root: Path, id_lists: list[list[str]]) -> tuple[tuple[str, Path, int], ...]:
    parts = []
    for i, ids in enumerate(id_lists):
        path = root / f"part-{i:05d}.parquet"
        pq.write_table(pa.table({"id": pa.array(ids, pa.string())}), path)
        parts.append((path.stem, path, len(ids)))
    return tuple(parts)


def run_sort(root: Path, parts, n_parts: int, by_rank: bool = False):
    """The four phases in order, as the runner runs them, in this process."""
    ctx = SimpleNamespace(work=root / f"work-{n_parts}", staging=root, state={}, results={}, run_info={},
                          job=SimpleNamespace(key="test"))
    sort = IdSort(parts, n_parts, "ranges", by_rank)
    ctx.results["sample"] = [sample_part(u) for u in sort.sample_units(ctx)]
    sort.splitters_step(ctx)
    ctx.results["rank"] = [rank_range(u) for u in sort.range_units(ctx)]
    sort.offsets_step(ctx)
    return ctx


def global_ranks(ctx, parts) -> list[list[int]]:
    return [part_ranks(i, ctx.state["ranges"], rows, path).tolist() for i, (_, path, rows) in enumerate(parts)]


def byte_order_ranks(id_lists: list[list[str]]) -> list[list[int]]:
    order = sorted((s for ids in id_lists for s in ids), key=lambda s: s.encode("utf-8"))
    rank = {s: r for r, s in enumerate(order)}
    return [[rank[s] for s in ids] for ids in id_lists]


@pytest.fixture
def id_lists():
    rng = random.Random(5)
    ids = [f"src:{rng.randrange(10**6):06d}" for _ in range(300)]
    ids += ["é-accented", "z", "Z", "\u4e2d\u6587", "a\nnewline", ""]  # byte order is not code point order
    ids = list(dict.fromkeys(ids))
    rng.shuffle(ids)
    return [ids[:120], [], ids[120:121], ids[121:]]  # an empty part and a one-row part


def test_global_ranks_are_the_byte_order_of_the_ids_for_every_partition_count(tmp_path, id_lists):
    parts = write_parts(tmp_path, id_lists)
    want = byte_order_ranks(id_lists)
    for p in (1, 2, 3, 8, 500):  # 500: more ranges than ids, most of them empty
        ctx = run_sort(tmp_path, parts, p)
        assert global_ranks(ctx, parts) == want, p
        assert len(ctx.results["rank"]) == p and ctx.run_info["partitions"] == p
        if p > 1:
            assert sum(1 for r in ctx.results["rank"] if r["docs"]) > 1, "the ids really were split"


def test_by_rank_files_list_the_ids_in_order_and_where_each_row_is(tmp_path, id_lists):
    parts = write_parts(tmp_path, id_lists)
    concatenated = [s for ids in id_lists for s in ids]
    for p in (1, 3):
        ctx = run_sort(tmp_path, parts, p, by_rank=True)
        ids, pos = [], []
        for prefix, _ in ctx.state["ranges"]:
            ids += ipc.open_file(pa.memory_map(str(suffixed(prefix, ".ids.arrow")))).read_all().column("id").to_pylist()
            pos += np.load(suffixed(prefix, ".pos.npy")).tolist()
        assert ids == sorted(concatenated, key=lambda s: s.encode("utf-8"))
        assert [concatenated[i] for i in pos] == ids
    plain = run_sort(tmp_path, parts, 2)  # shard's sort: no by-rank files
    assert not list(plain.work.rglob("*.ids.arrow")) and not list(plain.work.rglob("*.pos.npy"))


def same_id_in_parts_0_and_3(lists):
    lists[3][40] = lists[0][7]
    return lists[0][7], "is also in {part_0}"


def same_id_twice_in_part_3(lists):
    lists[3][40] = lists[3][41] = "twice\nwith a newline"  # the message stays one line
    return lists[3][40], "is in two of its rows"


@pytest.mark.parametrize("p", [1, 4])
@pytest.mark.parametrize("repeat", [same_id_in_parts_0_and_3, same_id_twice_in_part_3])
def test_a_repeated_id_is_one_line_naming_it_and_both_parts(tmp_path, id_lists, repeat, p):
    lists = [list(x) for x in id_lists]
    repeated, where = repeat(lists)
    parts = write_parts(tmp_path, lists)
    with pytest.raises(CorpusError) as e:
        run_sort(tmp_path, parts, p)
    message = str(e.value)
    assert "\n" not in message
    assert message == (f"{parts[3][1]}: document id {repeated!r} {where.format(part_0=parts[0][1])} "
                       f"(duplicate ids in the input)")
