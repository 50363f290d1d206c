"""A Griffe extension for the docs site (``mkdocs.yml`` loads it by path): the docstrings
of this project are written in reStructuredText habits, the site renders Markdown.

* Sphinx roles (``:class:`~bodygraph.Chart```, ``:func:`calculate```) become inline code
  showing what Sphinx would show (the last part after ``~``, the title of
  ``:role:`title <target>```);
* doctest blocks (``>>>`` lines and their output, up to a blank line) become fenced
  ``pycon`` code blocks instead of Markdown block quotes;
* a paragraph ending in ``::`` (a reST literal block follows) ends in ``:``.

Only the text shown on the site changes; the docstrings and their doctests stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`<]+?)(?:\s*<([^>`]+)>)?`")


def _role(match: re.Match[str]) -> str:
    short, text, target = match.group(1), match.group(2).strip(), match.group(3)
    if target is None and short:
        text = text.rsplit(".", 1)[-1]
    return f"`{text}`"


def _doctests(text: str) -> str:
    lines, out, inside = text.split("\n"), [], False
    for line in lines:
        starts = line.lstrip().startswith(">>>")
        if starts and not inside:
            out += ["", "```pycon"]
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


def markdown(text: str) -> str:
    """The Markdown shown for a docstring written with reST habits."""
    text = ROLE.sub(_role, text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)
    return _doctests(text)


class ReStructuredTextHabits(griffe.Extension):
    """Rewrite every docstring's text for Markdown (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
