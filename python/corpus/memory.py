"""Hand freed memory back to the operating system after a step that allocated a lot and is done with it
(tokenizer training in the driver): glibc's malloc and Arrow's pool both keep freed pages for reuse, so
without this the driver would carry the trainer's peak through every later phase of the stage.

Arrow allocates through glibc's malloc (see corpus/__init__.py), and `large_blocks_to_os()` (every
corpus process, at its start) keeps malloc from hoarding large blocks between those hand-backs."""

from __future__ import annotations

import ctypes
import functools
import gc


@functools.cache
def _libc_trim():
    # the symbols already loaded into this process (never ctypes.util.find_library: it forks `ldconfig`)
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None


M_MMAP_THRESHOLD = -3       # mallopt's parameter number (malloc.h)
MMAP_THRESHOLD = 1 << 20    # blocks of 1 MiB and more: mmapped, unmapped on free


def large_blocks_to_os() -> None:
    """Blocks of MMAP_THRESHOLD and more get their own mapping, returned to the OS when freed. glibc's
    default threshold rises to the largest block freed so far (up to 32 MiB), after which the 4 MiB
    pieces a shard row group is gathered from were carved from the heap and kept: a worker writing a
    66 MB row group peaked at 234 MB, 207 MB with the threshold fixed."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc: its own policy
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_freed_memory(*, collect: bool = False) -> None:
    """Arrow's unused pool memory and glibc's free pages back to the OS. `collect` first runs the cycle
    collector: worth it after a large object graph (the trainer's), not after every unit (a full
    collection walks the whole heap: ~85 ms a call in a process with presidio and pytest loaded)."""
    if collect:
        gc.collect()
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except (ImportError, AttributeError):
        pass
    trim = _libc_trim()
    if trim is not None:
        trim(0)
