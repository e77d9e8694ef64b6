"""Imported by the pool's forkserver only (corpus.commands.launch): pyarrow's pandas probe answered once
there (corpus.engine.pandas_probe), so that each worker forked from it starts with the answer instead of
importing pyarrow and asking again. A module of its own because importing it has that effect, which a
library user of corpus must never get."""

import atexit
import os

from corpus.commands.launch import flush_streams
from corpus.engine.pandas_probe import skip_pandas_probe

skip_pandas_probe()

# built lazily on first use (corpus.dedup.units: not at import); built here, every worker inherits it
from corpus.dedup.units import accent_marks  # noqa: E402

accent_marks()

# imported on first use in a worker, ~45 ms each time a stage forks one: numpy.ma by pyarrow's first
# pa.array() of a numpy array (its masked-array check), phonenumbers by the pii settings' unpickling
import numpy.ma  # noqa: E402,F401
import corpus.pii.params  # noqa: E402,F401


def _exit_at_once() -> None:
    """The forkserver's end (the command has exited: its pipe closed) without the interpreter's teardown of
    every module preloaded here (~50 ms during which it still held the command's stdout and stderr, so a
    caller reading them to their end waited). Its workers end by os._exit of their own and never run it."""
    flush_streams()
    os._exit(0)


atexit.register(_exit_at_once)
