"""docs/rectification.md and the docstrings of stability and rectification say what the
code does."""

from __future__ import annotations

import doctest
import json
import shlex
from pathlib import Path

import pytest

from bodygraph.cli.main import main

from .doc_examples import json_examples, relations_doctests

DOC = Path(__file__).parents[2] / "docs" / "rectification.md"


@pytest.mark.parametrize("module", ["stability", "rectification"])
def test_docstring_examples(module: str) -> None:
    result = relations_doctests(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_doc_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.attempted >= 5
    assert result.failed == 0


def test_doc_json_is_what_the_commands_print(capsys: pytest.CaptureFixture[str]) -> None:
    examples = json_examples(DOC)
    assert len(examples) == 2
    for command, printed in examples:
        assert main(shlex.split(command)[1:]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(printed), command


def test_doc_text_is_what_the_commands_print(capsys: pytest.CaptureFixture[str]) -> None:
    text = DOC.read_text()
    assert main(["rectify", "--date", "2024-10-27", "--tz", "Europe/London", "--from-time",
                 "01:15", "--to-time", "01:45", "--activation", "personality.moon=59"]) == 0
    assert capsys.readouterr().out in text
    assert main(["stability", "--utc", "1980-01-03T08:30:00Z"]) == 0
    shown = [line for line in text.split("```text\n")[1].split("```")[0].splitlines()
             if line.strip() != "..."]
    printed = capsys.readouterr().out.splitlines()
    assert all(line in printed for line in shown)
