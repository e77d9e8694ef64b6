"""Hand freed memory back to the operating system after a step that allocated a lot and is done with it
(tokenizer training in the driver): glibc's malloc and Arrow's pool both keep freed pages for reuse, so
without this the driver would carry the trainer's peak through every later phase of the stage.

The corpus command makes Arrow allocate through glibc's malloc (`prefer_system_allocator`), so this reaches
its buffers too."""

from __future__ import annotations

import ctypes
import functools
import gc
import os

ARROW_POOL_ENV = "ARROW_DEFAULT_MEMORY_POOL"


def prefer_system_allocator() -> None:
    """Arrow's allocations through glibc malloc, not its bundled mimalloc, unless the user chose a pool:
    mimalloc keeps what a stage has freed, so a driver's memory followed its input; glibc's is handed back
    by `release_freed_memory`. Arrow reads the variable when it first allocates, so the command calls this
    before anything else (pool workers inherit it); importing corpus as a library (a trainer's loader)
    leaves the process's allocator alone."""
    os.environ.setdefault(ARROW_POOL_ENV, "system")


@functools.cache
def _libc_trim():
    # the symbols already loaded into this process (never ctypes.util.find_library: it forks `ldconfig`)
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None


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
