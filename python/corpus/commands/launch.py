"""The `corpus` command's entry point: start the pool workers' forkserver, with corpus and the stage
module already imported in it, before this process imports them, then run the CLI (corpus.commands.cli).

A stage with N > 1 local workers forks them from the forkserver. Started here, the forkserver's imports
(pyarrow, numpy, the stage's libraries: ~0.2 s, and ~0.8 s of presidio for pii) run on the other core
while this process does the same imports, instead of in every worker after the stage has planned; on
one 53 MB source with 2 workers normalize took 1.69 -> 1.42 s, dedup 3.38 -> 3.12 s, pii 7.2 -> 6.4 s.
Best effort, standard library only: when the command, worker count or config cannot be told from the
arguments, nothing is started here and the stage starts its forkserver as before."""

from __future__ import annotations

import os
import sys
from pathlib import Path

GROUP_OPTIONS_WITH_VALUE = ("--config", "--artifacts")  # corpus.commands.cli's group options that take a value
# Twins of corpus.config.DEFAULT_CONFIG and the config schema's run.workers default (that module imports
# jsonschema, which this one must not); tests/test_bounded_units.py keeps them equal.
DEFAULT_CONFIG = "configs/demo.toml"
EVERY_STAGE = ("run", "takedown")  # commands that run every stage (takedown: a `corpus run` of the new version)
DEFAULT_WORKERS = 2
CONFIG_MAX_BYTES = 16 << 20  # corpus.config.schemas.USER_FILE_MAX_BYTES: a larger config is refused there


def planned_pool(argv: list[str]) -> tuple[str, int] | None:
    """(stage, workers) when argv runs one stage module (`corpus/stages/<name>.py`) or every stage (`run`,
    `takedown`) with more than one local worker, else None. The worker count is -j/--workers, else the config's [run]."""
    command, config, i = None, None, 0
    while i < len(argv):  # the group's options, then the command
        arg = argv[i]
        if arg in GROUP_OPTIONS_WITH_VALUE and i + 1 < len(argv):
            config = argv[i + 1] if arg == "--config" else config
            i += 2
            continue
        if arg.startswith("--config="):
            config = arg.split("=", 1)[1]
        elif not arg.startswith("-"):
            command = arg
            break
        i += 1
    stage_file = Path(__file__).parents[1] / "stages" / f"{command}.py"
    if command is None or (command not in EVERY_STAGE and (command.startswith("_") or not stage_file.is_file())):
        return None
    workers = None
    rest = argv[i + 1:]
    for k, arg in enumerate(rest):
        value = None
        if arg in ("-j", "--workers") and k + 1 < len(rest):
            value = rest[k + 1]
        elif arg.startswith("--workers="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-j") and len(arg) > 2:
            value = arg[2:]
        if value is not None:
            try:
                workers = int(value)
            except ValueError:
                return None  # the CLI reports it
    try:
        import stat
        import tomllib

        path = config or os.environ.get("CORPUS_CONFIG") or DEFAULT_CONFIG
        info = os.stat(path)  # a device or a FIFO is never opened here: it could be endless or never answer
        if not stat.S_ISREG(info.st_mode) or info.st_size > CONFIG_MAX_BYTES:
            return None  # the CLI reports it
        with open(path, "rb") as f:
            run = tomllib.load(f).get("run", {})
    except (OSError, ValueError):
        return None  # the CLI reports it
    if run.get("executor", "local") != "local":
        return None
    workers = workers if workers is not None else run.get("workers", DEFAULT_WORKERS)
    if not isinstance(workers, int) or workers <= 1:
        return None
    return command, workers


def prestart(argv: list[str]) -> None:
    planned = planned_pool(argv)
    if planned is None:
        return
    from corpus.engine.forkserver import start_forkserver

    stage, workers = planned
    # `run`, `takedown`: every stage's module, so that no stage's workers import their own (~0.1-0.25 s
    # each, per stage); the forkserver answers pyarrow's pandas probe once for all (corpus.engine.pandas_probe)
    stages = sorted(p.stem for p in (Path(__file__).parents[1] / "stages").glob("*.py")
                    if not p.stem.startswith("_")) if stage in EVERY_STAGE else [stage]
    start_forkserver(workers, preload=["corpus.commands.cli", "corpus.commands.worker_preload"]
                     + [f"corpus.stages.{s}" for s in stages])


def main() -> None:
    """The command, ending in SystemExit as any CLI does (a caller in this process, such as the bench's
    stage child, gets control back); `entry` is what the `corpus` script and `python -m` run."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")  # engine.memory.prefer_system_allocator's twin
    prestart(sys.argv[1:])
    from corpus.commands.cli import main as cli_main

    cli_main()


def entry() -> None:
    """The `corpus` command as a process: main(), then exit_now with its status."""
    try:
        main()
    except SystemExit as e:
        exit_now(e.code)
    exit_now(0)


def exit_now(code) -> None:
    """Leave as sys.exit(code) would, without the interpreter's teardown: the exit handlers run (the pool's
    workers and forkserver stopped, the logs flushed) and the streams are flushed, then the process ends.
    What is skipped is freeing every object and module one by one: ~0.1 s after a run, which a takedown
    of a few documents (~1.2 s) paid on every call. Every file the command writes is closed and renamed
    into place before it returns: nothing is left to a finalizer."""
    import atexit

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
        status = 1
    import threading

    # what the interpreter's own exit does first: wait for the threads that are not daemons (and the
    # executors' exit hooks), then the exit handlers
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    if not flush_streams():
        status = status or 1
    os._exit(status)


def flush_streams() -> bool:
    """Flush stdout and stderr; False when one could not be (a closed pipe, `corpus ... | head`: nothing
    more to say there)."""
    flushed = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            flushed = False
    return flushed


if __name__ == "__main__":
    entry()
