"""docs/relations.md and the docstrings of bodygraph.relations say what the code does."""

from __future__ import annotations

import doctest
import json
import shlex
from pathlib import Path

import pytest

from bodygraph.cli.main import main

from .doc_examples import json_examples, relations_doctests

DOC = Path(__file__).parents[2] / "docs" / "relations.md"


@pytest.mark.parametrize("module", ["connection", "penta", "transit"])
def test_docstring_examples(module: str) -> None:
    result = relations_doctests(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_doc_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.attempted >= 3
    assert result.failed == 0


def test_doc_json_is_what_the_commands_print(capsys: pytest.CaptureFixture[str]) -> None:
    examples = json_examples(DOC)
    assert len(examples) == 3
    for command, printed in examples:
        assert main(shlex.split(command)[1:]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(printed), command
