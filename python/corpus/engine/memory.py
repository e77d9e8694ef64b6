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


# Below this many free bytes in malloc's heap a trim is skipped: those pages are reused by the next unit, and
# a trim walks the whole heap (0.07-0.3 ms a call; a takedown's ~150 small units spent 41 ms in it). What a
# process keeps is then bounded by this, whatever its input.
TRIM_ABOVE_BYTES = 64 << 20


class _MallInfo2(ctypes.Structure):  # glibc >= 2.33's struct mallinfo2, summed over every arena
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


@functools.cache
def _libc():
    """(malloc_trim, mallinfo2 or None) of the process's C library, or None when it is not glibc. The
    symbols already loaded into this process (never ctypes.util.find_library: it forks `ldconfig`)."""
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None
    info = getattr(libc, "mallinfo2", None)  # older glibc: none, and every call trims
    if info is not None:
        info.restype, info.argtypes = _MallInfo2, []
    return trim, info


def free_heap_bytes() -> int | None:
    """The bytes malloc holds free in its arenas (what a trim could hand back), or None when unknown."""
    libc = _libc()
    if libc is None or libc[1] is None:
        return None
    return int(libc[1]().fordblks)


def release_freed_memory(*, collect: bool = False, force: bool = False) -> None:
    """Arrow's unused pool memory and glibc's free pages back to the OS, when malloc holds more than
    TRIM_ABOVE_BYTES free (`force`: whatever it holds). `collect` first runs the cycle collector: worth
    it after a large object graph (the trainer's), not after every unit (a full collection walks the whole
    heap: ~85 ms a call in a process with presidio and pytest loaded)."""
    if collect:
        gc.collect()
    try:
        import pyarrow as pa

        pool = pa.default_memory_pool()
        if pool.backend_name != "system":  # the system pool's release is malloc_trim itself: done below
            pool.release_unused()
    except (ImportError, AttributeError):
        pass
    libc = _libc()
    if libc is None:
        return
    free = free_heap_bytes()
    if force or collect or free is None or free >= TRIM_ABOVE_BYTES:
        libc[0](0)
