"""The layers hold: the import-linter contracts in pyproject.toml catch a forbidden import,
and no module of the packages they cover (``bodygraph``, ``bodygraph_server``, ...) takes part
in an import cycle.

``scripts/test.sh`` runs ``lint-imports`` on the real tree; the test here proves that the
contracts bite, by adding forbidden imports to a copy of the sources and reading the
report. The cycle check counts every import a module executes, at module level or inside a
function; imports under ``TYPE_CHECKING`` (annotations only) do not count.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grimp

REPO = Path(__file__).resolve().parents[1]
#: The packages the contracts cover (``bodygraph``, ``bodygraph_server``, ...).
PACKAGES: tuple[str, ...] = tuple(
    tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"])


# -- the contracts bite -----------------------------------------------------------------------

# (module to edit, line added, the line of the report it must cause)
FORBIDDEN = [
    # A lower layer importing a higher one (a function-level import counts).
    ("bodygraph/model/chart.py",
     "def _sneak() -> object:\n    import bodygraph.calculator\n    return bodygraph.calculator\n",
     "bodygraph.model is not allowed to import bodygraph.calculator"),
    # The library importing the service.
    ("bodygraph/rules/wheel.py", "import bodygraph_server\n",
     "bodygraph is not allowed to import bodygraph_server"),
    # Two layers of one level importing each other.
    ("bodygraph/rules/graph.py", "import bodygraph.ephemeris.kernel\n",
     "bodygraph.rules is not allowed to import bodygraph.ephemeris"),
    # A service layer importing a higher one.
    ("bodygraph_server/store/base.py", "import bodygraph_server.http.errors\n",
     "bodygraph_server.store is not allowed to import bodygraph_server.http"),
    # The service importing the MCP server outside its MCP family.
    ("bodygraph_server/http/gate.py", "import bodygraph_mcp.tools\n",
     "bodygraph_server is not allowed to import bodygraph_mcp"),
]
# An annotation-only import is allowed even where the same import at run time is not.
ALLOWED = (
    "bodygraph/catalog/tables.py",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import bodygraph.columnar\n",
    "bodygraph.catalog is not allowed to import bodygraph.columnar",
)


def _copy_sources(target: Path) -> Path:
    """The Python files of the packages (no data) under ``target/src``."""
    src = target / "src"
    for package in PACKAGES:
        shutil.copytree(REPO / "src" / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__", "data", "schemas", "*.bin"))
    shutil.copy(REPO / "pyproject.toml", target / "pyproject.toml")
    return src


def _lint_imports(root: Path) -> str:
    """The report of ``lint-imports`` over the copy at ``root`` (no cache)."""
    code = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    done = subprocess.run(
        [sys.executable, "-c", code, "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root, env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert "Contracts:" in done.stdout, done.stdout + done.stderr
    return done.stdout


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + "\n" + text)


def test_the_contracts_catch_forbidden_imports(tmp_path: Path) -> None:
    src = _copy_sources(tmp_path)
    before = _lint_imports(tmp_path)
    for _module, _line, message in [*FORBIDDEN, ALLOWED]:
        assert message not in before, f"the tree already breaks {message!r}"

    for module, line, _message in [*FORBIDDEN, ALLOWED]:
        _append(src / module, line)
    after = _lint_imports(tmp_path)
    for module, _line, message in FORBIDDEN:
        assert message in after, f"lint-imports let an import in {module} pass:\n{after}"
    assert ALLOWED[2] not in after, f"an annotation-only import was counted:\n{after}"


# -- no import cycle --------------------------------------------------------------------------


def _strongly_connected(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round about (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(edges[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in edges[module]:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


def _describe(graph: grimp.ImportGraph, group: list[str]) -> str:
    """Every import inside one group of modules that import each other, with its lines."""
    lines = [f"  {' <-> '.join(group)}:"]
    for importer in group:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & set(group)):
            details = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(f"l.{detail['line_number']}" for detail in details)
            lines.append(f"    {importer} -> {imported} ({where})")
    return "\n".join(lines)


def test_no_import_cycle() -> None:
    import grimp

    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)
    edges = {module: graph.find_modules_directly_imported_by(module) & graph.modules
             for module in graph.modules}
    cycles = _strongly_connected(edges)
    assert not cycles, "import cycles (function-level imports count):\n" + "\n".join(
        _describe(graph, group) for group in cycles)
