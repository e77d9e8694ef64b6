"""Map a function over independent work units: in-process, a local process pool, or Ray tasks.

Results come back in unit order whatever the worker count, so callers stay deterministic. Work that
needs a model loads it through a cached function in the worker, once per worker process."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Callable, Sequence

from .errors import CorpusError
from .progress import Progress


def map_units(fn: Callable[[Any], Any], units: Sequence[Any], *, workers: int = 1, executor: str = "local",
              desc: str = "work", unit: str = "units", on_result: Callable[[Any], Any] | None = None) -> list[Any]:
    """fn over units; `on_result` runs in this process as each unit finishes (e.g. to checkpoint it)."""
    units = list(units)

    def finished(result):
        progress.update()
        return on_result(result) if on_result is not None else result

    with Progress(len(units), desc, unit) as progress:
        if executor == "ray":
            return _map_ray(fn, units, workers, finished)
        if executor != "local":
            raise CorpusError(f"unknown executor '{executor}' (local or ray)")
        if workers <= 1 or len(units) <= 1:
            return [finished(fn(u)) for u in units]
        return _map_pool(fn, units, workers, finished)


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie — killed but not yet reaped by its parent — does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


def _exit_with(parent: int) -> None:
    """Pool-worker initializer: exit when the parent dies (a SIGKILLed run must not leave workers
    behind, holding its output pipes and the forkserver open), and ignore SIGINT: Ctrl-C reaches the
    whole process group, and only the parent answers it (one line, "interrupted"; it then stops the
    workers), so no worker prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while _alive(parent):
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _map_pool(fn, units, workers, finished) -> list[Any]:
    # forkserver: workers start from a clean process, never from a parent holding threads or models.
    ctx = mp.get_context("forkserver")
    results: list[Any] = [None] * len(units)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(units)), mp_context=ctx, initializer=_exit_with,
                               initargs=(os.getpid(),))
    try:
        futures = {pool.submit(fn, u): i for i, u in enumerate(units)}
        pending = set(futures)
        while pending:  # each result is handed on (checkpointed) as soon as it arrives
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                exc = fut.exception()
                if exc is not None:
                    for p in pending:
                        p.cancel()
                    raise exc
                results[futures[fut]] = finished(fut.result())
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            _stop_workers(pool)  # interrupted: the units under way are lost (--resume redoes them)
        else:
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers at once (they ignore SIGINT) and drop the queued units, quietly."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        try:
            p.kill()
        except (OSError, AttributeError):
            pass
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except Exception:  # a broken pool after the kill: nothing left to stop
        pass
    for p in procs:
        try:
            p.join(timeout=5)
        except (OSError, AssertionError, AttributeError):
            pass


RAY_TASK_RETRIES = 3


def _map_ray(fn, units, workers, finished) -> list[Any]:
    try:
        import ray
    except ImportError:
        raise CorpusError("executor 'ray' needs Ray: pip install -e '.[ray]'") from None
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # Ray phones home unless told not to
        address = os.environ.get("RAY_ADDRESS")
        kwargs = {} if address else {"num_cpus": workers, "include_dashboard": False}
        ray.init(address=address, log_to_driver=False, configure_logging=False, **kwargs)
    # A task lost with its worker or node (a system failure, never an exception the unit raised) is run
    # again elsewhere: a unit is a pure function of its input whose files are rewritten whole, so a retry
    # gives the same bytes, and results are still gathered in unit order.
    remote = ray.remote(max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(fn)
    results: list[Any] = [None] * len(units)
    pending: dict[Any, int] = {}
    queue = list(enumerate(units))
    while queue or pending:
        while queue and len(pending) < workers:
            i, u = queue.pop(0)
            pending[remote.remote(u)] = i
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            i = pending.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                cause = e.as_instanceof_cause()
                raise (cause if isinstance(cause, CorpusError) else CorpusError(str(e).splitlines()[0])) from None
            except ray.exceptions.RayError as e:  # lost more often than RAY_TASK_RETRIES allows
                raise CorpusError(f"ray: a task failed {RAY_TASK_RETRIES + 1} times: {str(e).splitlines()[0]}") from None
            results[i] = finished(result)
    return results
