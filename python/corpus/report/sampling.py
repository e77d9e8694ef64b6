"""What the report reads: every part of a stage while the stage's parts fit a byte budget, else a seeded
sample of whole parts up to the budget (the page says which). Row samples are seeded by name, so every
render of the same dataset picks the same documents."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Budget:
    part_bytes: int = 512 << 20   # bytes of parts read per stage before parts are sampled
    kept_sample: int = 400        # kept documents whose filter values are recomputed
    samples_per_rule: int = 3     # rejected documents shown per rule
    kept_samples: int = 8         # kept documents shown
    seed: int = 0


def rng(budget: Budget, name: str) -> np.random.Generator:
    """A generator for one named use: independent of every other use and of call order."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([budget.seed, zlib.crc32(name.encode())])))


@dataclass
class PartChoice:
    parts: list[dict]     # the parts to read, in manifest order
    total: int            # parts the stage has
    total_bytes: int

    @property
    def sampled(self) -> bool:
        return len(self.parts) < self.total

    def note(self) -> str:
        return (f"{len(self.parts)} of {self.total} parts ({sum(p['bytes'] for p in self.parts) / 1e6:,.1f} of "
                f"{self.total_bytes / 1e6:,.1f} MB, seeded sample)" if self.sampled else "")


def choose_parts(parts: list[dict], budget: Budget, name: str) -> PartChoice:
    total = sum(p["bytes"] for p in parts)
    if total <= budget.part_bytes:
        return PartChoice(list(parts), len(parts), total)
    order = rng(budget, f"parts:{name}").permutation(len(parts))
    chosen, used = set(), 0
    for i in order.tolist():
        if chosen and used + parts[i]["bytes"] > budget.part_bytes:
            continue
        chosen.add(i)
        used += parts[i]["bytes"]
    return PartChoice([p for i, p in enumerate(parts) if i in chosen], len(parts), total)


def sample_indices(n: int, k: int, budget: Budget, name: str) -> list[int]:
    """k distinct indices of range(n), sorted, seeded by name (all of them when n <= k)."""
    if n <= k:
        return list(range(n))
    return sorted(rng(budget, f"rows:{name}").choice(n, size=k, replace=False).tolist())
