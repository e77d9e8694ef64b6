"""Hand freed memory back to the operating system after a step that allocated a lot and is done with it
(tokenizer training in the driver): glibc's malloc and Arrow's pool both keep freed pages for reuse, so
without this the driver would carry the trainer's peak through every later phase of the stage.

Arrow allocates through glibc's malloc (see corpus/__init__.py), so this reaches its buffers too."""

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
