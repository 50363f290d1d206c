"""Text in terminal columns: a wide (CJK) character takes two; padding and line wrapping
by that width (``textwrap``'s own wrapping for text of narrow characters only)."""

from __future__ import annotations

import re
import textwrap
import unicodedata
from typing import Final

#: Where a line may break in any text: a run of ASCII white space (a no-break space does
#: not break).
_SPACE: Final = re.compile(r"[ \t\n\r\f\v]+")
#: What a line may not start with (closing marks) or end with (opening marks).
_CLOSING: Final = ")]}>,.:;!?、。，．：；！？）」』】〕〉》…"  # noqa: RUF001
_OPENING: Final = "([{<（「『【〔〈《"  # noqa: RUF001


def _is_wide(char: str) -> bool:
    """Whether a character takes two terminal columns (East Asian wide or fullwidth)."""
    return unicodedata.east_asian_width(char) in "WF"


def display_width(text: str) -> int:
    """The columns a text takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if _is_wide(c) else 1 for c in text)


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (``f"{text:<width}"`` for
    texts of wide characters too)."""
    return text + " " * max(0, width - display_width(text))


def _pieces(word: str) -> list[str]:
    """The parts of a word with no space that a line may break between: each wide
    character (with the closing marks after it and the opening marks before it), each run
    of narrow ones."""
    pieces: list[str] = []
    for char in word:
        joins = bool(pieces) and (
            char in _CLOSING or pieces[-1][-1] in _OPENING
            or not (_is_wide(char) or _is_wide(pieces[-1][-1])))
        if joins:
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def wrap(text: str, width: int, initial_indent: str = "",
         subsequent_indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns (indents included), broken
    at spaces, and between wide characters where a text of them has none; a run of narrow
    characters longer than a line (a variable's name in a narrow column) is cut, as
    ``textwrap`` cuts a long word."""
    if display_width(text) == len(text):
        return textwrap.wrap(text, width, initial_indent=initial_indent,
                             subsequent_indent=subsequent_indent)
    lines: list[str] = []
    line, empty = initial_indent, True
    for word in _SPACE.split(text.strip(" \t\n\r\f\v")):
        for i, piece in enumerate(_pieces(word)):
            spaced = piece if empty or i else " " + piece
            if not empty and display_width(line + spaced) > width:
                lines.append(line)
                line, empty, spaced = subsequent_indent, True, piece
            while empty and display_width(line + spaced) > width > display_width(line) \
                    and len(spaced) > 1:  # a run longer than a line: cut, as textwrap does
                head = _fitting(spaced, width - display_width(line))
                lines.append(line + head)
                line, spaced = subsequent_indent, spaced[len(head):]
            line += spaced
            empty = False
    if not empty:
        lines.append(line)
    return lines


def _fitting(text: str, columns: int) -> str:
    """The longest start of ``text`` within ``columns`` terminal columns (one character at
    least)."""
    end = 1
    while end < len(text) and display_width(text[:end + 1]) <= columns:
        end += 1
    return text[:end]
