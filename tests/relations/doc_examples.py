"""The examples a docs page and a module's docstrings show: doctests, and `bodygraph ... --json`
commands each followed by the JSON they print."""

from __future__ import annotations

import doctest
import re
from importlib import import_module
from pathlib import Path


def relations_doctests(module: str) -> doctest.TestResults:
    """Runs the docstring examples of bodygraph.relations.<module>."""
    return doctest.testmod(import_module(f"bodygraph.relations.{module}"))


def json_examples(doc: Path) -> list[tuple[str, str]]:
    """(command, printed JSON) for each `bodygraph ... --json` example of the page."""
    found: list[tuple[str, str]] = re.findall(
        r"`(bodygraph [^`]+ --json)`:\n\n```json\n(.*?)```", doc.read_text(), re.S)
    return found
