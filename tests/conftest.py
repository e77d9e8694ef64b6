"""Shared fixtures: the real-data mirror, a config writer, and a CLI runner that runs `corpus` as users do."""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# every schema check in the tests, in this process and in every corpus process they start, by both validators
# (corpus.config.schemas.validate): a document jsonschema-rs finds valid and python-jsonschema does not fails
os.environ["CORPUS_SCHEMA_CROSSCHECK"] = "1"

import corpus.pii._presidio  # noqa: F401,E402  # before a test module imports torch (test_loader): presidio then imports without transformers, ~9 s less collection per worker
from corpus.config import toml_value  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LEDGER = REPO / "corpus" / "LEDGER.jsonl"


def mirror_dir() -> Path | None:
    m = os.environ.get("CORPUS_MIRROR") or str(REPO.parent / "shared" / "data" / "mirror")
    return Path(m) if Path(m).is_dir() else None


@pytest.fixture(scope="session")
def mirror() -> Path:
    m = mirror_dir()
    if m is None:
        pytest.skip("real-data mirror not available (set CORPUS_MIRROR)")
    return m


def ledger_rows() -> dict[str, dict]:
    return {r["source_id"]: r for r in map(json.loads, LEDGER.read_text().splitlines()) if r}


@pytest.fixture(scope="session")
def demo_ledger() -> dict[str, dict]:
    return ledger_rows()


def mirror_file(source_id: str) -> Path:
    m = mirror_dir()
    if m is None:
        pytest.skip("real-data mirror not available (set CORPUS_MIRROR)")
    return m / ledger_rows()[source_id]["sha256"]


def mirror_sha(sha256: str) -> Path:
    """A mirror file by its sha256 (the test is skipped when the mirror or the file is absent)."""
    m = mirror_dir()
    if m is None or not (m / sha256).is_file():
        pytest.skip(f"mirror file {sha256[:12]}… absent (set CORPUS_MIRROR)")
    return m / sha256


@functools.cache
def tinystories() -> tuple[str, ...]:
    """The 1,097 TinyStories stories: separated by a single newline with text on both sides."""
    text = mirror_file("tinystories-train-head").read_text(encoding="utf-8")
    return tuple(s for s in re.split(r"(?<=[^\n])\n(?=[^\n])", text) if s.strip())


def arrow_mb_reading(path: Path, columns: list[str] | None = None) -> float:
    """The most Arrow memory (MB) held while a Parquet file is read a row at a time, as corpus reads it
    (page by page, corpus.formats.parts' read buffer): what a reader must hold, a page per column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats import parts

    peak = 0
    f = pq.ParquetFile(path, buffer_size=parts.READ_BUFFER, pre_buffer=parts.PRE_BUFFER)
    for _ in f.iter_batches(batch_size=1, columns=columns, use_threads=False):
        peak = max(peak, pa.total_allocated_bytes())
    return peak / 1e6


def write_config(path: Path, *, ledger: Path, sources, artifacts: Path, **tables) -> Path:
    """A TOML config; `tables` maps 'fetch' or 'filters.lang' to a dict of keys."""
    lines = ["[paths]", f"ledger = {toml_value(str(ledger))}", f"artifacts = {toml_value(str(artifacts))}", "",
             "[dataset]", 'name = "t"', 'version = "v1"', f"sources = {toml_value(list(sources))}", ""]
    for name, keys in tables.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in keys.items()]
        lines.append("")
    path.write_text("\n".join(lines))
    return path


def write_ledger(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_corpus(*args, env=None, cwd=None, check=False, timeout=None) -> subprocess.CompletedProcess:
    """Run the CLI in a subprocess, exactly as a user would (killed after `timeout` seconds when given)."""
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.run([sys.executable, "-m", "corpus.commands.launch", *map(str, args)], capture_output=True, text=True,
                          env=full_env, cwd=cwd or REPO, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"corpus {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The single error line of a failed run (log lines may precede it)."""
    assert proc.returncode != 0, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return errors[0]


@pytest.fixture(scope="session", autouse=True)
def _mirror_env():
    """Configs in tests find real data the way users' do: through CORPUS_MIRROR."""
    m = mirror_dir()
    old = os.environ.get("CORPUS_MIRROR")
    if m is not None:
        os.environ["CORPUS_MIRROR"] = str(m)
    yield
    if old is None:
        os.environ.pop("CORPUS_MIRROR", None)


@pytest.fixture(scope="session")
def reference(tmp_path_factory, mirror) -> Path:
    """The fault-injection reference run (tests/faults/conftest.py), built once for faults and badinput."""
    from faults.conftest import build_reference

    return build_reference(tmp_path_factory)


@pytest.fixture(scope="session")
def golden_run(tmp_path_factory, mirror) -> Path:
    """The golden run (tests/golden/golden.toml: `corpus run` + every export) built once in a fresh workspace;
    returns its artifacts root. test_golden.py compares it with tests/golden/SHA256SUMS, test_readers.py reads it
    with the trainers' own libraries."""
    from corpus.commands.golden import build

    return build(tmp_path_factory.mktemp("golden"))


# ---------------------------------------------------------------- test tiers (markers: pyproject.toml)

# Fixtures that make a test slow or need a service, by the file under tests/ that defines them (names recur:
# test_ngram_lm.py's cheap `reference` is not this file's). Every test that uses one, directly or through
# another fixture, gets the marker; `make test-fast` deselects slow, cluster, s3 and browser tests.
FIXTURE_MARKS = {
    # builds a real-data pipeline: stages, `corpus run`, the golden build
    "slow": {
        "conftest.py": {"reference", "golden_run"},       # the fault-injection reference run; the golden run
        "test_fetch.py": {"fetched"},                     # fetch, 2 workers
        "test_normalize.py": {"fetched"},                 # fetch, 2 workers
        "test_fetch_ranges.py": {"runs"},                 # fetch at four unit sizes
        "test_filter_stage.py": {"filtered"},             # fetch, normalize, filter
        "test_signals.py": {"measured"},                  # fetch, normalize, filter, then a filter run per value
        "test_quality.py": {"scored"},                    # fetch, normalize, filter with a trained classifier
        "test_partitions.py": {"base", "dedup_base"},     # run_all through pii; v1 and v2 through dedup
        "test_pipeline.py": {"runs"},                     # two whole `run_all`s
        "test_report.py": {"run"},                        # a whole `run_all`
        "test_s3.py": {"runs"},                           # every stage against the S3 server
        "test_why.py": {"workspace"},                     # a whole `run_all`
        "test_takedown.py": {"takedown_run"},             # a run_all, a takedown and a from-scratch run
        "test_mix.py": {"base"},                          # run_all through shard, then tokenize per mix
        "test_small_web.py": {"small_web"},               # `corpus run` of a small WARC source
        "badinput/test_catalogue.py": {"fetched_good"},   # `corpus fetch` in a subprocess
    },
    "s3": {"test_s3.py": {"server"}},                     # moto's ThreadedMotoServer
    "cluster": {"test_ray_cluster.py": {"cluster"}},      # `ray start --head` + a worker node
}
TESTS_DIR = Path(__file__).resolve().parent


def _defined_in(fixturedef) -> str | None:
    """The file under tests/ that defines a fixture (relative, posix), or None (a plugin's fixture)."""
    code = getattr(inspect.unwrap(fixturedef.func), "__code__", None)
    try:
        return Path(code.co_filename).resolve().relative_to(TESTS_DIR).as_posix() if code else None
    except ValueError:
        return None


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    """Mark every test whose fixture closure (item.fixturenames: transitive) holds a FIXTURE_MARKS fixture,
    as pytest resolves the name for that test (its closest definition)."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        for name in item.fixturenames:
            defs = info.name2fixturedefs.get(name)
            where = _defined_in(defs[-1]) if defs else None
            for mark, fixtures in FIXTURE_MARKS.items():
                if name in fixtures.get(where, ()):
                    item.add_marker(getattr(pytest.mark, mark))


# ---------------------------------------------------------------- one build of each session fixture

# `make test` distributes tests to workers by module (xdist's loadscope); a session fixture built by tests of
# two modules on two workers is built twice (the golden run, the fault reference: ~40 s each). The modules
# that use one go to one worker as one scope. pytest_collection_finish checks this table is complete.
SHARED_SCOPES = {
    "golden_run": ("test_golden.py", "test_readers.py"),
    "reference": ("faults/test_kill_points.py", "faults/test_run_and_signals.py", "faults/test_writer_lock.py",
                  "badinput/test_catalogue.py", "badinput/test_long_document.py", "badinput/test_sparse_tokenizer.py"),
}
_SCOPE_OF = {f"tests/{module}": name for name, modules in SHARED_SCOPES.items() for module in modules}


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest without xdist (-p no:xdist) must still load this file
def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _SCOPE_OF.get(nodeid.split("::", 1)[0]) or super()._split_scope(nodeid)

    return SharedFixtureScheduling(config, log)


def pytest_collection_finish(session):
    """Every module whose tests use a SHARED_SCOPES fixture must be listed with it."""
    missing = set()
    for item in session.items:
        module = Path(str(item.fspath)).resolve().relative_to(TESTS_DIR).as_posix()
        for name in SHARED_SCOPES.keys() & set(getattr(item, "fixturenames", ())):
            info = item._fixtureinfo.name2fixturedefs.get(name)
            if info and _defined_in(info[-1]) == "conftest.py" and module not in SHARED_SCOPES[name]:
                missing.add(f"{module} ({name})")
    if missing:
        raise pytest.UsageError(f"tests/conftest.py SHARED_SCOPES lacks {', '.join(sorted(missing))}")
