"""Map a function over independent work units: in-process, a local process pool, or Ray tasks.

Results come back in unit order whatever the worker count, so callers stay deterministic. Work that
needs a model loads it through a cached function in the worker, once per worker process.

`pool_session(workers, warm)` (entered by `run_stage`) starts the local pool's workers at once, each
running `warm` (the stage's imports and model loads) as it starts, so that their start-up overlaps the
driver's planning and input verification; every map phase of the stage then reuses those workers
instead of starting a pool of its own."""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing as mp
import os
import signal
import socket
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence

from corpus.errors import CorpusError
from corpus.store.environment import seconds_from_env
from corpus.engine.forkserver import start_forkserver
from corpus.engine.pandas_probe import skip_pandas_probe
from corpus.store.proc import alive
from corpus.engine.memory import prefer_system_allocator, release_freed_memory
from corpus.store.progress import Progress

log = logging.getLogger(__name__)
WORKERS_PER_CPU = 8  # the most worker processes per CPU a run may start on this machine (check_workers)
_SESSION: list[_Session] = []   # the enclosing pool_session, if any
_USED: set[int] = set()         # id() of session pools a map phase has used


def machine_cpus() -> int:
    """The CPUs this process may run on (its affinity, not the host's count in a container)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def check_workers(workers: int, executor: str, where: str) -> int:
    """`workers` if this machine can run them: the local pool starts every worker at once (and a Ray
    started here gets as many CPUs), so 100,000 would fork until the machine fails. A Ray cluster
    (RAY_ADDRESS) schedules its tasks on its own CPUs: no bound here. `where` names the setting."""
    limit = WORKERS_PER_CPU * machine_cpus()
    on_this_machine = executor == "local" or not os.environ.get("RAY_ADDRESS")
    if on_this_machine and workers > limit:
        raise CorpusError(f"{where}: {workers} workers is more than this machine can run (at most {limit}: "
                          f"{WORKERS_PER_CPU} per CPU, {machine_cpus()} CPUs)")
    return workers


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
            return [finished(_release_after(fn, u)) for u in units]
        return _map_pool(fn, units, workers, finished)


def _noop() -> None:
    return None


def _release_after(fn: Callable[[Any], Any], unit: Any) -> Any:
    """fn(unit), then hand the memory it freed back to the OS: a worker (or the driver, in-process) runs
    many units, and glibc's and Arrow's allocators would otherwise keep the largest unit's peak, plus
    fragmentation, for the rest of the stage."""
    try:
        return fn(unit)
    finally:
        release_freed_memory()


def _ray_task(fn: Callable[[Any], Any], unit: Any) -> Any:
    """A unit in a Ray worker: a corpus process like a pool worker (see corpus.engine.pandas_probe)."""
    prefer_system_allocator()  # as the command's pool workers inherit it
    skip_pandas_probe()
    return _release_after(fn, unit)


def _worker_init(parent: int, warm: tuple | None) -> None:
    """Pool-worker initializer: `_exit_with`, then the session's warm-up (imports, model loads). A warm-up
    that fails is only logged: the unit that needs it raises the real error, with its file and place."""
    _exit_with(parent)
    skip_pandas_probe()  # saves each worker 0.22 s and 53 MB where pandas is installed
    if warm is not None:
        fn, args = warm
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - reported by the unit itself
            log.debug("worker warm-up %s failed: %s", getattr(fn, "__name__", fn), e)


def _new_pool(workers: int, warm: tuple | None = None) -> ProcessPoolExecutor:
    # forkserver: workers start from a clean process, never from a parent holding threads or models.
    start_forkserver(workers)
    return ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("forkserver"),
                               initializer=_worker_init, initargs=(os.getpid(), warm))


def warm_import(module: str) -> tuple:
    """A warm-up that only imports `module` (what unpickling a unit of it would do)."""
    return importlib.import_module, (module,)


class _Session:
    """A pool_session's pool: started at once, or (lazy) when a map phase first needs it."""

    def __init__(self, workers: int, warm: tuple | None):
        self.workers, self.warm = workers, warm
        self.pool: ProcessPoolExecutor | None = None

    def get(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = _new_pool(self.workers, self.warm)
            for _ in range(self.workers):  # one submit per worker: each starts a process (they start on demand)
                self.pool.submit(_noop)
        return self.pool


@contextlib.contextmanager
def pool_session(workers: int, warm: tuple | None = None, executor: str = "local", *, lazy: bool = False):
    """Within the block, map_units with this worker count reuses one local pool whose workers are started
    now (each running `warm` = (fn, args) once), or with `lazy` when a map phase first sends them a unit
    (a stage whose phases may all run in the driver: no worker started for nothing); the pool is shut
    down when the block ends."""
    if executor != "local" or workers <= 1:
        yield
        return
    session = _Session(workers, warm)
    if not lazy:
        session.get()
    _SESSION.append(session)
    try:
        yield
    finally:
        if session in _SESSION:
            _SESSION.remove(session)
        pool = session.pool  # None: lazy, and never needed
        if pool is not None and id(pool) in _USED:
            _USED.discard(id(pool))
            try:
                pool.shutdown(wait=True, cancel_futures=True)
            except Exception:  # a pool already broken by an interrupt: nothing left to stop
                pass
        elif pool is not None:  # nothing ran on it (the stage was current): no need to wait for the warm-up
            _stop_workers(pool)


def _exit_with(parent: int) -> None:
    """Pool-worker initializer: exit when the parent dies (a SIGKILLed run must not leave workers
    behind, holding its output pipes and the forkserver open), and ignore SIGINT: Ctrl-C reaches the
    whole process group, and only the parent answers it (one line, "interrupted"; it then stops the
    workers), so no worker prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while alive(parent):
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


WORKER_DIED = ("a worker process died (killed by a signal: out of memory?); nothing was published, and the "
               "units finished before it are kept: run the stage again with --resume")


def _map_pool(fn, units, workers, finished) -> list[Any]:
    results: list[Any] = [None] * len(units)
    session = next((s for s in _SESSION if s.workers == workers), None)
    shared = session.get() if session is not None else None
    pool = shared or _new_pool(min(workers, len(units)))
    if shared is not None:
        _USED.add(id(shared))
    futures: dict = {}
    try:
        for i, u in enumerate(units):
            futures[pool.submit(_release_after, fn, u)] = i
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
            _SESSION[:] = [s for s in _SESSION if s.pool is not pool]
        elif shared is None:
            pool.shutdown(wait=True, cancel_futures=True)
        else:  # the session's pool: drop this phase's queued units; the session waits for the rest
            for f in futures:
                f.cancel()
        if isinstance(e, BrokenProcessPool):  # a worker killed from outside: one line, not a traceback
            _SESSION[:] = [s for s in _SESSION if s.pool is not pool]
            raise CorpusError(WORKER_DIED) from None
        raise
    if shared is None:
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
RAY_CONNECT_ENV = "CORPUS_RAY_CONNECT_TIMEOUT_S"   # how long to wait for the head's port (default 10 s)
_RAY_HINT = (" (a cluster with token authentication needs RAY_AUTH_MODE=token and RAY_AUTH_TOKEN set as on "
             "its head; unset RAY_ADDRESS to run on this machine)")


# The HTTP/2 client preface and an empty SETTINGS frame: a gRPC server (Ray's GCS and its client server
# speak gRPC, in plain text unless RAY_USE_TLS) answers with a SETTINGS frame of its own.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_H2_SETTINGS = 4


def _check_ray_head(address: str) -> None:
    """Ray keeps retrying an address where nothing answers (minutes, printing only its own warnings), and
    one where something else listens (> 200 s, deaf to SIGTERM inside ray.init): a host:port head is first
    asked, with a deadline, for a TCP connection and a gRPC (HTTP/2) greeting, and refused in one line."""
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local": Ray's own resolution
    timeout = seconds_from_env(RAY_CONNECT_ENV, 10)
    try:
        conn = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
    except OSError as e:
        reason = "timed out" if isinstance(e, TimeoutError) else (e.strerror or type(e).__name__)
        raise CorpusError(f"RAY_ADDRESS={address}: no Ray head answers there ({reason} within {timeout:g} s; "
                          f"{RAY_CONNECT_ENV} sets the wait); start one with `ray start --head`, or unset "
                          f"RAY_ADDRESS to run on this machine") from None
    with conn:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return  # a TLS handshake comes first: Ray checks the rest
        reply = _greeting(conn, timeout)
    if len(reply) < 9 or reply[3] != _H2_SETTINGS:
        heard = "nothing" if not reply else repr(reply)
        raise CorpusError(f"RAY_ADDRESS={address}: something listens there but is no Ray head (no gRPC "
                          f"greeting within {timeout:g} s, it sent {heard}; {RAY_CONNECT_ENV} sets the wait); "
                          f"check the address, or unset RAY_ADDRESS to run on this machine")


def _greeting(conn: socket.socket, timeout: float) -> bytes:
    """The first 9 bytes (a frame header) the server sends after the HTTP/2 preface, or fewer: what came
    before it closed the connection or the deadline passed."""
    deadline = time.monotonic() + timeout
    got = b""
    try:
        conn.sendall(_H2_PREFACE)
        while len(got) < 9 and (left := deadline - time.monotonic()) > 0:
            conn.settimeout(left)
            chunk = conn.recv(9 - len(got))
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    return got


def _map_ray(fn, units, workers, finished) -> list[Any]:
    try:
        import ray
    except ImportError:
        raise CorpusError("executor 'ray' needs Ray: pip install -e '.[ray]'") from None
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # Ray phones home unless told not to
        address = os.environ.get("RAY_ADDRESS")
        if address:
            _check_ray_head(address)
        kwargs = {} if address else {"num_cpus": workers, "include_dashboard": False}
        try:
            ray.init(address=address, log_to_driver=False, configure_logging=False, **kwargs)
        except Exception as e:  # noqa: BLE001 - Ray raises many kinds; the user needs one line
            first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
            where = f"RAY_ADDRESS={address}" if address else "a local Ray"
            raise CorpusError(f"{where}: cannot start or join the Ray cluster: {first}{_RAY_HINT}") from None
    # A task lost with its worker or node (a system failure, never an exception the unit raised) is run
    # again elsewhere: a unit is a pure function of its input whose files are rewritten whole, so a retry
    # gives the same bytes, and results are still gathered in unit order.
    remote = ray.remote(max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(_ray_task)
    results: list[Any] = [None] * len(units)
    pending: dict[Any, int] = {}
    queue = list(enumerate(units))
    while queue or pending:
        while queue and len(pending) < workers:
            i, u = queue.pop(0)
            pending[remote.remote(fn, u)] = i
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
