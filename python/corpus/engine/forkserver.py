"""The local pool's forkserver, started once a process (by corpus.commands.launch before the CLI's imports, or by
the executor when a stage first needs workers)."""

from __future__ import annotations

import os

THREAD_POOL_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")  # Arrow reads OMP's too


def start_forkserver(workers: int, preload: list[str] | None = None) -> None:
    """Start the forkserver (once a process: later calls find it running) with each worker's share of the
    cores for the thread pools that numpy's BLAS, OpenMP and Arrow start as they load (one thread a core
    each, by default): two workers on two cores started eight threads and lost 5% to them (normalize on
    one 53 MB source: first unit 0.57 -> 0.51 s, per-unit time down 3%). A value the user set is kept;
    this process's environment is left as it was. `preload`: modules the forkserver imports once, so
    that every worker forked from it has them."""
    import multiprocessing as mp
    from multiprocessing import forkserver

    share = str(max(1, (os.cpu_count() or 1) // max(1, workers)))
    saved = {v: os.environ.get(v) for v in THREAD_POOL_VARS}
    for v in THREAD_POOL_VARS:
        os.environ.setdefault(v, share)
    try:
        if preload:
            mp.get_context("forkserver").set_forkserver_preload(list(preload))
        forkserver.ensure_running()
    finally:
        for v, old in saved.items():
            if old is None:
                os.environ.pop(v, None)
