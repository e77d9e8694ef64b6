"""Back a large model's memory with 2 MiB pages once it is loaded (Linux): fewer TLB misses on random reads.

A fastText classifier is a (words + buckets) x dim matrix of floats (113 MB for the bench's quality model,
2.4 GB for DCLM's) read one random 400-byte row per word and word bigram: with 4 KiB pages nearly every row
costs a TLB miss (a nested page walk in a virtual machine) on top of the cache miss. fastText allocates the
matrix itself, so `huge_pages_for(...)` notes the process's anonymous mappings before the load and, after
it, asks the kernel to collapse the memory that appeared into transparent huge pages (madvise
MADV_COLLAPSE, Linux 6.1+; it works whatever the system's THP mode, unless that is `never`). Nothing
about the data changes — the kernel copies each 2 MiB range into one page — so every score is the same bit
for bit; only memory reads get cheaper. The collapse costs about 3 ms per MB, once per process that loads
the model. Anywhere it cannot be done (another OS, an older kernel, no /proc) nothing happens."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import sys
import time
from typing import Iterator

log = logging.getLogger(__name__)
HUGE = 2 << 20           # x86-64 and arm64 (4 KiB base pages): a PMD-sized transparent huge page
MADV_COLLAPSE = 25       # linux/mman-common.h
MAPS = "/proc/self/maps"


def anonymous_ranges() -> list[tuple[int, int]]:
    """[start, end) of this process's private anonymous read-write mappings: no file behind them (malloc's
    [heap] and its mmap'd chunks, not the stack)."""
    out = []
    try:
        with open(MAPS) as f:
            for line in f:
                fields = line.split(maxsplit=5)
                if fields[1] == "rw-p" and (len(fields) == 5 or fields[5].strip() == "[heap]"):  # no file
                    start, end = fields[0].split("-")
                    out.append((int(start, 16), int(end, 16)))
    except (OSError, ValueError, IndexError):
        return []
    return out


def new_ranges(before: list[tuple[int, int]], after: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of `after`'s ranges that no range of `before` covers (a mapping that grew into a
    neighbour's addresses counts only its new part)."""
    out = []
    for start, end in after:
        pieces = [(start, end)]
        for b0, b1 in before:
            if b1 <= start or b0 >= end:
                continue
            pieces = [p for s, e in pieces for p in ((s, min(e, b0)), (max(s, b1), e)) if p[0] < p[1]]
        out += pieces
    return out


@functools.cache
def _madvise():
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library already in the process
        fn = libc.madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
    return fn


def collapse(ranges: list[tuple[int, int]]) -> int:
    """Collapse every whole 2 MiB block inside `ranges` into a huge page; the bytes that were."""
    madvise = _madvise()
    if madvise is None:
        return 0
    done = 0
    for start, end in ranges:
        for block in range((start + HUGE - 1) & ~(HUGE - 1), end & ~(HUGE - 1), HUGE):
            if madvise(block, HUGE, MADV_COLLAPSE) == 0:
                done += HUGE
            elif ctypes.get_errno() == 22:  # EINVAL: this kernel has no MADV_COLLAPSE (or THP is `never`)
                return done
    return done


@contextlib.contextmanager
def huge_pages_for(what: str, min_bytes: int = 32 << 20) -> Iterator[dict]:
    """Around a load that allocates a large model: the anonymous memory the load added, when it is at
    least `min_bytes` (below that the TLB covers it anyway), is collapsed into huge pages afterwards. It
    yields a dict that then holds `added`, `huge` (bytes) and `seconds`."""
    info = {"added": 0, "huge": 0, "seconds": 0.0}
    if not sys.platform.startswith("linux"):
        yield info
        return
    before = anonymous_ranges()
    yield info
    added = new_ranges(before, anonymous_ranges())
    info["added"] = sum(e - s for s, e in added)
    if info["added"] < min_bytes:
        return
    t0 = time.perf_counter()
    info["huge"] = collapse(added)
    info["seconds"] = time.perf_counter() - t0
    log.debug("%s: %.1f of %.1f MB in huge pages (%.2f s)", what, info["huge"] / 1e6, info["added"] / 1e6,
              info["seconds"])
