"""corpus: a staged, auditable, deterministic pipeline that prepares LLM pretraining data."""

import os

__version__ = "0.1.0"

# Arrow's allocations through glibc malloc, not its bundled mimalloc, unless the user chose a pool: mimalloc
# kept what a stage had freed (a driver that had read a 16x corpus's shards held 221 MB, 155 MB with the
# system pool), so memory followed the input; glibc's is handed back by memory.release_freed_memory.
# Set before pyarrow is first imported (Arrow reads it once); pool workers inherit it.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
