"""docs/relations.md and the docstrings of bodygraph.relations say what the code does."""

from __future__ import annotations

import doctest
import json
import re
import shlex
from importlib import import_module
from pathlib import Path

import pytest

from bodygraph.cli.main import main

DOC = Path(__file__).parents[2] / "docs" / "relations.md"


@pytest.mark.parametrize("module", ["connection", "penta", "transit"])
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(import_module(f"bodygraph.relations.{module}"))
    assert result.attempted > 0
    assert result.failed == 0


def test_doc_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.attempted >= 3
    assert result.failed == 0


def test_doc_json_is_what_the_commands_print(capsys: pytest.CaptureFixture[str]) -> None:
    examples = re.findall(r"`(bodygraph [^`]+ --json)`:\n\n```json\n(.*?)```", DOC.read_text(),
                          re.S)
    assert len(examples) == 3
    for command, printed in examples:
        assert main(shlex.split(command)[1:]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(printed), command
