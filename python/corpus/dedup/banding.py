"""LSH banding: the probability that a pair becomes a candidate, and choosing bands x rows for a threshold.

A pair of Jaccard s agrees on one signature value with probability s, on a whole band of r rows with
s**r, and shares at least one of b bands' keys with P(candidate | s) = 1 - (1 - s**r)**b.
With exact verification (verify.py) the banding decides recall and cost only, never precision: a
candidate below the threshold is rejected exactly, so the aim is P(candidate | threshold) >= 0.995 at
the fewest false candidates and permutations.

    16 bands x 8 rows (128 perms, the old default): P(0.8) = 0.951, P(0.7) = 0.643
    20 bands x 5 rows (100 perms, the new default): P(0.8) = 0.9996, P(0.7) = 0.975, P(0.5) = 0.47
"""

from __future__ import annotations

import math
from typing import Iterable, NamedTuple

import numpy as np

DEFAULT_TARGET = 0.995


class Banding(NamedTuple):
    bands: int
    rows: int

    @property
    def num_perm(self) -> int:
        return self.bands * self.rows


def candidate_probability(similarity, bands: int, rows: int) -> np.ndarray | float:
    """P(candidate | s) = 1 - (1 - s**rows)**bands, elementwise for an array of similarities."""
    if bands < 1 or rows < 1:
        raise ValueError(f"bands and rows must be >= 1, got {bands} x {rows}")
    s = np.asarray(similarity, dtype=np.float64)
    if np.any((s < 0) | (s > 1)):
        raise ValueError("similarity must be in [0, 1]")
    # 1 - (1 - x)**b = -expm1(b * log1p(-x)): exact near 0 and 1 where the direct form cancels.
    with np.errstate(divide="ignore"):
        p = -np.expm1(bands * np.log1p(-(s**rows)))
    return float(p) if p.ndim == 0 else p


def min_bands(threshold: float, rows: int, target: float = DEFAULT_TARGET) -> int:
    """The fewest bands of `rows` rows giving P(candidate | threshold) >= target."""
    if not 0 < threshold <= 1 or not 0 < target < 1:
        raise ValueError(f"need 0 < threshold <= 1 and 0 < target < 1, got {threshold}, {target}")
    if threshold == 1:
        return 1
    band_hit = threshold**rows
    if band_hit < 1e-12:
        raise ValueError(f"{rows} rows at {threshold}: more than 10**12 bands needed")
    bands = max(1, math.ceil(math.log1p(-target) / math.log1p(-band_hit)))
    while candidate_probability(threshold, bands, rows) < target:  # guard against rounding in ceil
        bands += 1
    while bands > 1 and candidate_probability(threshold, bands - 1, rows) >= target:
        bands -= 1
    return bands


def false_candidate_area(bands: int, rows: int, threshold: float) -> float:
    """Integral of P(candidate | s) over s in [0, threshold): candidates below the threshold (which
    exact verification rejects, each at the cost of one Jaccard), for similarities spread uniformly."""
    s = np.linspace(0.0, threshold, 2001)
    return float(np.trapezoid(candidate_probability(s, bands, rows), s))


def banding_options(threshold: float, target: float = DEFAULT_TARGET, max_num_perm: int = 256) -> list[dict]:
    """For each rows count: the fewest bands meeting the target, with num_perm, P at the threshold,
    and the false-candidate area; only options within max_num_perm. Sorted by rows."""
    options = []
    for rows in range(1, max_num_perm + 1):
        if rows * math.log1p(-target) / math.log1p(-(threshold**rows)) > max_num_perm:
            break  # bands * rows only grows with rows from here (for any target < 1)
        bands = min_bands(threshold, rows, target)
        if bands * rows > max_num_perm:
            continue
        options.append({"bands": bands, "rows": rows, "num_perm": bands * rows,
                        "p_threshold": candidate_probability(threshold, bands, rows),
                        "false_candidate_area": false_candidate_area(bands, rows, threshold)})
    return options


def choose_banding(threshold: float, target: float = DEFAULT_TARGET, max_num_perm: int = 128) -> Banding:
    """The most selective banding (most rows, so fewest false candidates) meeting the target within
    max_num_perm permutations; signature time grows with num_perm, so the budget is the trade-off."""
    options = banding_options(threshold, target, max_num_perm)
    if not options:
        raise ValueError(f"no banding reaches {target} at {threshold} within {max_num_perm} permutations")
    best = min(options, key=lambda o: (o["false_candidate_area"], o["num_perm"]))
    return Banding(best["bands"], best["rows"])


def probability_table(bandings: Iterable[tuple[int, int]], similarities: Iterable[float]) -> str:
    """Markdown table of P(candidate | s): one row per similarity, one column per bands x rows."""
    bandings = [tuple(b) for b in bandings]
    similarities = list(similarities)
    head = "| s | " + " | ".join(f"{b}×{r} ({b * r} perms)" for b, r in bandings) + " |"
    lines = [head, "|---:|" + "---:|" * len(bandings)]
    for s in similarities:
        cells = " | ".join(_format_probability(candidate_probability(s, b, r)) for b, r in bandings)
        lines.append(f"| {s:.2f} | {cells} |")
    return "\n".join(lines)


def _format_probability(p: float) -> str:
    if p >= 0.9995 and p < 1:
        return f"1 − {1 - p:.1e}"
    return f"{p:.4f}" if p >= 0.001 else f"{p:.1e}"
