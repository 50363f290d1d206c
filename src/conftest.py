"""Collecting the doctests of ``src`` (``--doctest-modules``, pyproject.toml).

Collecting a module's doctests means importing it, and every pytest worker collects every
module: only the modules whose text holds a doctest prompt are collected, so a new doctest
is still found without being listed anywhere, while the other modules cost a file read.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out the modules without ``>>>`` (``None``: pytest decides as usual)."""
    if collection_path.name == "conftest.py":
        # This file: importing it as a module named ``conftest`` again would clash with
        # tests/conftest.py, which pytest has loaded under that name too.
        return True
    if collection_path.suffix != ".py":
        return None
    return ">>>" not in collection_path.read_text(encoding="utf-8") or None
