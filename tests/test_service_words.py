"""Two house rules of the service's code, checked on its sources: module docstrings of one
to three lines, and keyword arguments where a call passes more than four."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[1] / "src" / "bodygraph_server"
MODULES = sorted(SERVICE.rglob("*.py"))
#: Calls whose positional arguments are data by nature: logging's format arguments.
FORMAT_CALLS = {"debug", "info", "warning", "error", "exception", "critical", "log"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _docstring_lines(tree: ast.Module) -> int:
    docstring = ast.get_docstring(tree, clean=False) or ""
    return len(docstring.strip("\n").splitlines())


def test_module_docstrings_are_one_to_three_lines() -> None:
    lines = {str(path.relative_to(SERVICE)): _docstring_lines(_tree(path)) for path in MODULES}
    assert {name: count for name, count in lines.items() if not 1 <= count <= 3} == {}


def _crowded_calls(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if len(positional) > 4 and name not in FORMAT_CALLS:
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
    return found


def test_calls_pass_at_most_four_positional_arguments() -> None:
    crowded = {str(path.relative_to(SERVICE)): calls for path in MODULES
               if (calls := _crowded_calls(_tree(path)))}
    assert not crowded


def test_the_checks_find_what_they_look_for() -> None:
    assert SERVICE / "__init__.py" in MODULES  # the checks above read the service's sources
    assert _docstring_lines(ast.parse('"""One.\n\nTwo.\nThree."""')) == 4
    tree = ast.parse("f(1, 2, 3, 4, 5)\nLOG.error('%s %s %s %s', 1, 2, 3, 4)\ng(*xs, 1)")
    assert _crowded_calls(tree) == ["line 1: f"]
