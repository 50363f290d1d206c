"""What the ``--help`` tests of both commands share (``bodygraph``'s in test_help.py,
``bodygraph-server``'s in test_admin_help.py): asking for a help in a language, and the
texts they compare it with."""

from __future__ import annotations

import re
from collections.abc import Callable
from string import Formatter

import pytest

#: The three ways to ask for a language: ``--lang`` before the command, after it (after
#: ``--help`` even), ``$BODYGRAPH_LANG``.
WAYS = ("before", "after", "environment")


def run_help(main: Callable[[list[str]], object], command: list[str],
             capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             lang: str | None = None, way: str = "before", columns: int = 80) -> str:
    """``main([*command, "--help"])`` in ``lang`` asked ``way``, at ``columns``: its output
    (the exit status must be 0, nothing on stderr)."""
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("BODYGRAPH_LANG", raising=False)
    args = [*command, "--help"]
    if lang is not None and way == "before":
        args = ["--lang", lang, *args]
    elif lang is not None and way == "after":
        args = [*args, "--lang", lang]
    elif lang is not None:
        monkeypatch.setenv("BODYGRAPH_LANG", lang)
    with pytest.raises(SystemExit) as exited:
        main(args)
    out, err = capsys.readouterr()
    assert (exited.value.code, err) == (0, ""), err
    return out


def squeezed(text: str) -> str:
    """``text`` without its white space (where lines break, in a text with spaces or
    without)."""
    return re.sub(r"\s+", "", text)


def pseudo(text: str) -> str:
    """A text of wide characters and no spaces in place of an English one (its
    placeholders kept), ending in a percent sign."""
    parts = []
    for literal, field, _, _ in Formatter().parse(text):
        parts.append(re.sub(r"[A-Za-z]", "字", literal).replace(" ", ""))
        if field is not None:
            parts.append(f"{{{field}}}")
    return "".join(parts) + "%"
