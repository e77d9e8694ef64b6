"""The stage table and the filter registry are the one place stage wiring lives: the CLI, the Makefile,
the config schema and the modules must agree with them."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import click
import click.testing

from corpus.commands.cli import cli
from corpus.filters.registry import build_params, registry, schema_filter_tables
from corpus.stages import FILTERS, NAMES, STAGE, STAGES, columns
from conftest import REPO

PACKAGE = REPO / "python" / "corpus"


def test_every_stage_has_a_command_and_a_make_target_that_runs_it():
    commands = set(cli.commands)
    makefile = (REPO / "Makefile").read_text()
    for stage in STAGES:
        assert stage.name in commands
        recipe = re.search(rf"^{re.escape(stage.make_target)}:.*\n\t(.+)$", makefile, re.M)
        assert recipe, f"Makefile has no target {stage.make_target}"
        assert recipe.group(1).split()[:2] == ["$(RUN)", stage.name], recipe.group(0)
        assert stage.make_target in re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split()


def test_run_through_offers_exactly_the_stage_table():
    through = next(p for p in cli.commands["run"].params if p.name == "through")
    assert isinstance(through.type, click.Choice) and tuple(through.type.choices) == NAMES


def test_config_schema_filter_tables_equal_the_registry():
    tables = schema_filter_tables()
    assert list(tables) == list(registry())  # the same filters, in the same (default) order
    for name, spec in registry().items():
        props = tables[name]["properties"]
        per_language = {"languages"} if spec.languages else set()  # filters.languages overrides, not a field
        assert set(props) == {f.name for f in dataclasses.fields(spec.params)} | {"enabled"} | per_language, name
        # the schema's defaults build exactly the dataclass's defaults; a key without a schema default (one
        # that must change no config hash when absent, e.g. quality's model_source) is absent from the table
        defaults = {k: v["default"] for k, v in props.items() if k != "enabled" and "default" in v}
        assert build_params(spec, defaults) == spec.params()
        assert [k for k, v in props.items() if "default" not in v and k not in ("enabled", "languages")] in ([], ["model_source"],
                                                                                 ["model_source", "max_chars", "labels"]), name


def test_the_filter_stage_summary_names_every_filter_of_the_registry():
    """`corpus --help` and `make help` (issue 47, item 9) list the filters without importing them."""
    assert FILTERS == tuple(registry())
    summary = STAGE["filter"].summary
    assert summary.startswith(f"filters {', '.join(registry())} ")
    assert f"## stage 03: {summary}" in (REPO / "Makefile").read_text()
    assert f"stage 03: {' '.join(summary.split())}" in " ".join(click.testing.CliRunner().invoke(cli, ["--help"]).output.split())


def test_filter_stage_columns_come_from_the_registry():
    added = {k for spec in registry().values() for k in spec.columns}
    assert set(columns("filter")) - set(columns("normalize")) == added | {"cleaned"} and added == {"lang", "lang_score", "quality_score"}


def _imports(path: Path) -> set[str]:
    """Modules a file imports, resolved to corpus.* names."""
    tree = ast.parse(path.read_text())
    pkg = ".".join(path.relative_to(REPO / "python").with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = pkg.rsplit(".", node.level - 1)[0] if node.level else ""
            mod = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_stage_module_imports_another_stage_module():
    stage_modules = {f"corpus.stages.{s.name}" for s in STAGES}
    for s in STAGES:
        path = PACKAGE / "stages" / f"{s.name}.py"
        others = (_imports(path) & stage_modules) - {f"corpus.stages.{s.name}"}
        assert not others, f"{path.name} imports {others}"


def test_comments_point_only_inside_the_repository():
    for path in list(PACKAGE.rglob("*.py")) + list((REPO / "tests").glob("*.py")) + list((REPO / "bench").glob("*.py")):
        assert "DESIGN" + " §" not in path.read_text(), path  # (spelt so this file does not match)
    assert (REPO / "docs" / "ARCHITECTURE.md").is_file()


def test_parquet_is_read_without_dataset_scans(tmp_path):
    """pq.read_table scans through pyarrow.dataset, whose threads abort the interpreter at exit about one
    run in three with pyarrow 26 ("terminate called without an active exception"): the pipeline reads
    Parquet through parts.read_parquet, which must keep meaning what pq.read_table's filters meant."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.parts import read_parquet

    calls = [(p, n) for p in PACKAGE.rglob("*.py") for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, ast.Attribute) and n.attr == "read_table" and getattr(n.value, "id", "") == "pq"]
    assert not calls, [f"{p.relative_to(REPO)}:{n.lineno}" for p, n in calls]
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": ["a", "b", "c", "d"], "filter": ["lang", "ppl", "lang", "lang"], "x": [1, 2, 3, 4]}),
                   path, row_group_size=2)
    for cols, filters in [(None, None), (["x"], [("filter", "=", "lang")]), (["id", "x"], [("id", "in", ["b", "d"])]),
                          (["x"], [("filter", "!=", "lang"), ("id", "in", ["a", "b"])])]:
        got = read_parquet(path, columns=cols, filters=filters)
        assert got.to_pydict() == pq.read_table(path, columns=cols, filters=filters).to_pydict(), (cols, filters)


# The layers, lowest first: a module may import its own layer and those below it, never one above.
LAYERS = [
    {"corpus", "corpus.errors", "corpus.faults"},
    {"corpus.store"},
    {"corpus.config"},
    {"corpus.formats", "corpus.tokens", "corpus.web"},
    {"corpus.engine"},
    {"corpus.filters", "corpus.dedup", "corpus.pii"},
    {"corpus.stages"},
    {"corpus.report"},
    {"corpus.commands"},
]


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO / "python").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int:
    """The layer of a corpus module: its package (corpus.<package>), or the base for top-level modules."""
    parts = module.split(".")
    top = ".".join(parts[:2]) if len(parts) > 1 else "corpus"
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"{module}: not in any layer of LAYERS (add its package there)")


def _corpus_graph() -> dict[str, set[str]]:
    """module -> the corpus modules it imports (at module level or inside functions), resolved to modules."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for imp in _imports(path):
            while imp and imp not in modules:  # `from corpus.x import name`: the module is corpus.x
                imp = imp.rpartition(".")[0]
            if imp.startswith("corpus") and imp != name:
                deps.add(imp)
        graph[name] = deps
    return graph


def test_every_package_is_a_layer_with_a_docstring():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        _layer(_module_name(init))
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init}: a one-paragraph docstring says what the layer is for"
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "errors.py", "faults.py"]  # everything else is in a layer


def test_no_module_imports_a_layer_above_its_own():
    upward = [f"{m} (layer {_layer(m)}) imports {d} (layer {_layer(d)})"
              for m, deps in sorted(_corpus_graph().items()) for d in sorted(deps)
              if _layer(d) > _layer(m) and not d == "corpus"]
    assert not upward, "\n".join(upward)


def test_no_import_cycles_between_modules():
    graph = _corpus_graph()
    seen: dict[str, int] = {}   # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for d in sorted(graph[m]):
            if d in ("corpus",) or d.rpartition(".")[0] == m or m.startswith(d + "."):
                continue  # a package's __init__ and its own submodules
            if seen.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(d):] + [d]))
            if d not in seen:
                visit(d, path + [d])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [m])


STAGE_FUNCTION_LINES = 80


def test_no_function_in_a_stage_module_is_over_80_lines():
    """A stage module declares its phases; what they compute lives in the layers below (tokens/, dedup/, ...)."""
    long = [f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in sorted((PACKAGE / "stages").glob("*.py")) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > STAGE_FUNCTION_LINES]
    assert not long, "\n".join(long)
