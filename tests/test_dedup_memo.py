"""dedup.memo through the signatures unit: a part that lost documents and gained two shingles only the two,
the others' signatures, shingle sets and decontamination matches read from the cache, and its work files
and matches are those of a unit without the cache, for both verify modes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pytest

from corpus.config import load_config
from corpus.dedup.decontam import EvalIndex, index_to_bytes
from corpus.formats.parts import write_table
from corpus.stages import dedup
from conftest import LEDGER, tinystories, write_config


def part(path: Path, texts: list[str]) -> tuple[Path, str]:
    n = len(texts)
    cols = {"id": [f"d{i}" for i in range(n)], "text": texts, "source_id": ["s"] * n, "url": [None] * n,
            "license_spdx": ["MIT"] * n, "meta": [None] * n, "lang": ["en"] * n, "lang_score": [0.9] * n,
            "cleaned": [None] * n}
    table = pa.table({k: pa.array(cols.get(k, [None] * n), t) for k, t in dedup.IN_COLUMNS.items()})
    return path, write_table(table, path)["sha256"]


def signed(tmp_path: Path, name: str, source: tuple[Path, str], settings: dict, index, memo: Path | None) -> tuple:
    staging = tmp_path / name
    (staging / "_work").mkdir(parents=True)
    res = dedup.sign_part(dedup.SignUnit("part-00000", *source, settings, index, staging,
                                         str(memo) if memo else None))
    return {w["name"].split("/")[-1]: w["sha256"] for w in res["work"]}, [tuple(m) for m in res["decontam"]], \
        res.get("cache")


@pytest.mark.slow  # ~1-2 s with the hasher's permutations: the full tier (make test-fast is at its 60 s)
@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_a_changed_part_signs_only_its_new_documents_with_the_same_results(tmp_path, verify):
    cfg = load_config(write_config(tmp_path / "c.toml", ledger=LEDGER, sources=["tinystories-train-head"],
                                   artifacts=tmp_path / "a"))
    settings = {**cfg["dedup"], "verify": verify}
    texts = list(tinystories())[:120]
    evals = EvalIndex(8)
    evals.add("eval", texts[3])  # a contaminated document, in both parts
    data = index_to_bytes(evals)
    (tmp_path / "eval.npz").write_bytes(data)
    index = (str(tmp_path / "eval.npz"), hashlib.sha256(data).hexdigest())
    memo = tmp_path / "a"
    first = part(tmp_path / "first.parquet", texts)
    assert signed(tmp_path, "cold", first, settings, index, memo)[2] == {"hits": 0, "computed": 120}
    kept = [t for i, t in enumerate(texts) if i % 7]
    second = part(tmp_path / "second.parquet", kept + ["A new story about a cat.", texts[3] + " The end."])
    files, matches, cache = signed(tmp_path, "warm", second, settings, index, memo)
    assert cache == {"hits": len(kept), "computed": 2}
    plain = signed(tmp_path, "plain", second, settings, index, None)
    assert (files, matches) == plain[:2] and len(matches) == 2
