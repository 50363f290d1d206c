"""The example of docs/testing.md, executed exactly as it is written there."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).parents[2] / "docs" / "testing.md"


def _doc_namespace() -> dict[str, Any]:
    code = re.search(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert code is not None, "docs/testing.md lost its example"
    namespace: dict[str, Any] = {"__name__": "docs_testing_example"}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", ["test_same_birth_same_chart", "test_my_report_mentions_the_type"])
def test_doc_example_runs(name: str) -> None:
    test: Callable[[], None] = _doc_namespace()[name]
    test()  # a Hypothesis test: runs all its examples, raises on a failing one
