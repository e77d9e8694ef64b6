"""The final shards' small columns (no text): documents and characters per source, split and licence, and
the columns the other sections need (ids, clusters, PII counts), in manifest shard order."""

from __future__ import annotations

import functools

import pyarrow as pa

from corpus.config import Config
from corpus.report.reading import read_shard, within
from corpus.report.sampling import Budget

SMALL = ["id", "source_id", "license_spdx", "lang", "n_chars", "minhash_cluster", "pii_redactions", "split"]


def collect_shards(config: Config, corpus: dict, budget: Budget) -> dict:
    sizes = [{"bytes": (config.dataset_dir / s["name"]).stat().st_size if (config.dataset_dir / s["name"]).is_file()
              else 0} for s in corpus["shards"]]
    verify = within(sizes, budget)  # above the budget: the small columns alone, unchecked
    tables = [read_shard(config, s, SMALL, verify=verify) for s in corpus["shards"]]
    table = pa.concat_tables(tables) if tables else pa.table({k: [] for k in SMALL})
    by_source: dict = {}
    by_licence: dict = {}
    cols = {k: table.column(k).to_pylist() for k in ("source_id", "license_spdx", "n_chars", "split")}
    for sid, lic, n, split in zip(cols["source_id"], cols["license_spdx"], cols["n_chars"], cols["split"]):
        s = by_source.setdefault(sid, {"docs": 0, "chars": 0, "train": 0, "val": 0, "licences": set()})
        s["docs"] += 1
        s["chars"] += n
        s[split] += 1
        s["licences"].add(lic)
        L = by_licence.setdefault(lic, {"docs": 0, "chars": 0, "sources": set()})
        L["docs"] += 1
        L["chars"] += n
        L["sources"].add(sid)
    shard_of = [i for i, t in enumerate(tables) for _ in range(t.num_rows)]
    row_of = [r for t in tables for r in range(t.num_rows)]
    return {"table": table, "by_source": by_source, "by_licence": by_licence, "shard_of": shard_of,
            "row_of": row_of, "verified": verify}


class ShardTexts:
    """Texts of shard rows, reading one shard's text column at a time (checked against its sha256)."""

    def __init__(self, config: Config, corpus: dict):
        self.config, self.corpus = config, corpus

    @functools.lru_cache(maxsize=2)
    def _texts(self, shard: int) -> list[str]:
        return read_shard(self.config, self.corpus["shards"][shard], ["text"]).column("text").to_pylist()

    def text(self, shard: int, row: int) -> str:
        return self._texts(shard)[row]
