"""corpus's command and its pool and Ray workers never import pandas through pyarrow's pandas probe (0.22 s and
53 MB a process where pandas is installed), and pandas still works when asked for explicitly."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from corpus.engine.executor import map_units
from corpus.engine.pandas_probe import pandas_loaded_after_an_array

# pandas comes with the test extra (datasets needs it); without it there is nothing to skip. Not imported
# here: the pool workers import this module to run its function
pytestmark = pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas is not installed")


def run_python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_without_it_pyarrow_imports_pandas_for_a_list():  # what the probe saves: the test can tell
    assert run_python("import sys, pyarrow as pa; pa.array(['x']); print('pandas' in sys.modules)") == "True"


def test_arrays_from_lists_do_not_import_pandas_and_pandas_still_works():
    out = run_python(
        "import sys, pyarrow as pa\n"
        "from corpus.engine.pandas_probe import skip_pandas_probe\n"
        "assert skip_pandas_probe()\n"
        "pa.array(['x']); pa.table({'a': [1, None]}); pa.record_batch([pa.array([1.5])], names=['f'])\n"
        "print('pandas' in sys.modules)\n"
        "df = pa.table({'a': [1, 2]}).to_pandas()\n"  # an explicit need imports it
        "print(df['a'].tolist(), pa.Table.from_pandas(df).column('a').to_pylist())\n")
    assert out.splitlines() == ["False", "[1, 2] [1, 2]"]


def test_the_command_skips_the_probe():
    out = run_python(
        "import sys, pyarrow as pa\n"
        "from corpus.commands import cli\n"
        "sys.argv = ['corpus', '--help']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "pa.array(['x']); print('pandas' in sys.modules)\n")
    assert out.splitlines()[-1] == "False"


def test_pool_workers_skip_the_probe():
    assert map_units(pandas_loaded_after_an_array, [0, 1, 2, 3], workers=2) == [False] * 4


def test_nothing_to_do_once_pandas_is_loaded():
    out = run_python("import pandas\nfrom corpus.engine.pandas_probe import skip_pandas_probe\nprint(skip_pandas_probe())")
    assert out == "False"


@pytest.mark.cluster  # starts Ray in a fresh driver
def test_ray_workers_skip_the_probe():
    pytest.importorskip("ray")
    # a fresh driver process, so that Ray starts and stops with it; the unit is a corpus function, so a
    # Ray worker imports corpus (not this module) to run it
    out = run_python(
        "import os; os.environ['RAY_USAGE_STATS_ENABLED'] = '0'\n"
        "from corpus.engine.executor import map_units\n"
        "from corpus.engine.pandas_probe import pandas_loaded_after_an_array\n"
        "print(map_units(pandas_loaded_after_an_array, [0, 1], workers=2, executor='ray'))\n")
    assert out.splitlines()[-1] == "[False, False]"
