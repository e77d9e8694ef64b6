"""`[run] partitions = P`: how many tasks a partitioned global step splits into (the shard stage's id
sort, the tokenize stage's shuffle). P decides memory per task and parallelism, never an output byte:
every partitioned step computes a result that is a function of the data alone."""

from __future__ import annotations

from .config import Config

# P = 0 (automatic): about this many documents per partition (a few tens of MB of per-document arrays).
DOCS_PER_PARTITION = 1_000_000
MAX_PARTITIONS = 4096


def partitions(config: Config, n_docs: int, *, cap: int = MAX_PARTITIONS) -> int:
    """The configured P, or for 0: ceil(n_docs / DOCS_PER_PARTITION), at least 1; never above `cap`."""
    p = int(config["run"].get("partitions", 0) or 0)
    if p <= 0:
        p = -(-max(0, n_docs) // DOCS_PER_PARTITION)
    return max(1, min(p, cap))


def ranges(n: int, p: int) -> list[tuple[int, int]]:
    """[lo, hi) of p contiguous, near-equal ranges of range(n) (some empty when p > n)."""
    return [(k * n // p, (k + 1) * n // p) for k in range(p)]
