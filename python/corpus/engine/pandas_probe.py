"""Keep pyarrow from importing pandas in corpus's own processes (the command, its pool and Ray workers).

When pandas is installed, pyarrow imports it the first time it might meet a pandas object: `pa.array()` of a
Python list (its Python-side check, and the C++ converters' pd.NA/NaT lookup), `Array.to_numpy()`, a Python
scalar given to a compute function. That is 0.22 s and 53 MB in every process that builds an Arrow column,
which every stage's worker does on its first unit (two workers, two copies). corpus never hands pyarrow a
pandas object, so both probes are made once, up front, while `import pandas` is refused; pyarrow remembers
the answer and does not ask again. A later explicit need still works: `Table.to_pandas()` and
`Table.from_pandas()` import pandas when they are called, and `import pandas` is not refused afterwards.
Not applied when corpus is imported as a library (a trainer's process may hand pandas objects to pyarrow)."""

from __future__ import annotations

import functools
import sys


class _RefusePandas:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("corpus: pyarrow's pandas probe is answered without pandas")
        return None


@functools.cache  # once a process: the answer, once given, is pyarrow's for good
def skip_pandas_probe() -> bool:
    """Answer pyarrow's pandas probe without importing pandas; False if pandas is already loaded (nothing
    to save) or this pyarrow has no such probe."""
    if "pandas" in sys.modules:
        return False
    import pyarrow.lib

    shim = getattr(pyarrow.lib, "_pandas_api", None)
    if shim is None:
        return False
    refuse = _RefusePandas()
    sys.meta_path.insert(0, refuse)
    try:
        shim.have_pandas  # noqa: B018 - the Python-side probe: it tries `import pandas` once, keeps the answer
        pyarrow.lib.array(["x"])  # the C++ converters' probe (their pandas constants), also tried only once
    except Exception:  # noqa: BLE001 - a pyarrow whose probe behaves otherwise: it will import pandas itself
        return False
    finally:
        sys.meta_path.remove(refuse)
    return "pandas" not in sys.modules


def pandas_loaded_after_an_array(_unit=None) -> bool:
    """Whether pandas is loaded once this process has built an Arrow array from a list (a unit function for
    the tests of the pool and Ray workers)."""
    import pyarrow as pa

    pa.array(["x"])
    return "pandas" in sys.modules
