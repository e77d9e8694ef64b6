"""Imported by the pool's forkserver only (corpus.commands.launch): pyarrow's pandas probe answered once
there (corpus.engine.pandas_probe), so that each worker forked from it starts with the answer instead of
importing pyarrow and asking again. A module of its own because importing it has that effect, which a
library user of corpus must never get."""

from corpus.engine.pandas_probe import skip_pandas_probe

skip_pandas_probe()

# built lazily on first use (corpus.dedup.units: not at import); built here, every worker inherits it
from corpus.dedup.units import accent_marks  # noqa: E402

accent_marks()

# imported on first use in a worker, ~45 ms each time a stage forks one: numpy.ma by pyarrow's first
# pa.array() of a numpy array (its masked-array check), phonenumbers by the pii settings' unpickling
import numpy.ma  # noqa: E402,F401
import corpus.pii.params  # noqa: E402,F401
