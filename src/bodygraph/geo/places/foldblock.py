"""Folding a block of many names at once, as :func:`bodygraph.geo.places.names.fold_lines`
folds them, for the gazetteer build (:mod:`bodygraph.geo.places.build`).

Most names are ASCII, where folding is byte by byte: upper-case letters become lower-case,
each run of separators (blanks, dashes, apostrophes, dots) becomes one space, and a space
is dropped at either end of a name. Those names are folded in NumPy, without a Python
string each. The others (and the rare ASCII names holding a blank that is no separator,
such as ``\\x1c``, which ``str.strip`` would also drop) are decomposed as one text by
``names``, then their marks are dropped, their separators collapsed and each line stripped
in NumPy, a code point at a time, before ``names`` makes special letters plain.
Every table here is read off ``str.lower``, ``str.isspace`` and ``names``' own patterns,
so the ways cannot drift apart.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bodygraph.geo.places.names import decompose, is_mark, is_separator, plain_letters

__all__ = ["fold_block"]

Array = npt.NDArray[Any]

_BYTES: Final = [chr(byte) for byte in range(128)]
#: Each ASCII byte in lower case (bytes from 128 on are left alone: never used).
_LOWER: Final = np.array([ord(char.lower()) for char in _BYTES] + list(range(128, 256)),
                         dtype=np.uint8)
#: The ASCII bytes that are separators: a run of them folds to one space.
_SEPARATOR: Final = np.array([is_separator(char) for char in _BYTES] + [False] * 128)
#: The bytes a name folded in NumPy may not hold: any outside ASCII, and the blanks that
#: are no separators (``str.strip`` drops them too; the newline ends the name).
_ELSEWHERE: Final = np.array([char.isspace() and char != "\n" and not is_separator(char)
                              for char in _BYTES] + [True] * 128)
#: About how many bytes are folded at a time.
_PIECE: Final = 1 << 18
#: How many code points there are.
_CODE_POINTS: Final = 0x110000
#: What :func:`_kinds` says of a code point.
_MARK: Final = 1
_SEPARATES: Final = 2
_BLANK: Final = 3
_SPACE: Final = ord(" ")
_NEWLINE: Final = ord("\n")


def fold_block(block: Array, starts: Array) -> tuple[bytes, Array]:
    """The lines of ``block`` (UTF-8 bytes, each line followed by a newline and starting
    at ``starts``) folded, as UTF-8, each followed by a newline; and the number of the
    line that each folded one comes from: first the lines folded in NumPy, then the
    others, each part in order.

    The lines are folded a piece of about :data:`_PIECE` bytes at a time: temporaries of
    the whole block cost more in fresh pages than the folding itself.
    """
    firsts = np.unique(np.searchsorted(starts, np.arange(0, len(block), _PIECE)))
    bounds = np.append(firsts[firsts < len(starts)], len(starts))  # each piece's lines
    ends = np.append(starts, len(block))
    folded, plain, others = [], [], []
    for first, last in itertools.pairwise(bounds.tolist()):
        begin, end = int(ends[first]), int(ends[last])
        piece = _fold_plain(block[begin:end], starts[first:last] - begin)
        folded.append(piece[0])
        plain.append(piece[1])
        others.append(piece[2])
    is_plain = np.concatenate([np.zeros(0, dtype=bool), *plain])
    numbers = np.concatenate([np.flatnonzero(is_plain), np.flatnonzero(~is_plain)])
    return b"".join(folded) + _fold_other(b"".join(others).decode("utf-8")), numbers


def _fold_plain(block: Array, starts: Array) -> tuple[bytes, Array, bytes]:
    """The lines of ``block`` (as for :func:`fold_block`, at least one) that can be folded
    byte by byte, folded; which lines those are; and the other lines as they are."""
    # (Each line's segment holds its newline, so none is empty.)
    plain = ~np.logical_or.reduceat(_ELSEWHERE[block], starts)
    in_plain = np.repeat(plain, np.diff(starts, append=len(block)))
    separator = _SEPARATOR[block]
    folded = np.where(separator, np.uint8(_SPACE), _LOWER[block])[
        in_plain & (_run_starts(separator) | ~separator)]
    stripped = (folded == _SPACE) & _line_edges(folded == _NEWLINE)
    return folded[~stripped].tobytes(), plain, block[~in_plain].tobytes()


def _fold_other(text: str) -> bytes:
    """The lines of ``text`` (each followed by a newline) folded as
    :func:`~bodygraph.geo.places.names.fold_lines` folds them, as UTF-8, each followed by
    a newline."""
    points = np.frombuffer(decompose(text).encode("utf-32-le"), dtype=np.uint32)
    kinds = _kinds(points)
    kept = kinds != _MARK
    points, kinds = points[kept], kinds[kept]
    separator = kinds == _SEPARATES
    kept = _run_starts(separator) | ~separator  # a run's first becomes a space
    points = np.where(separator, np.uint32(_SPACE), points)[kept]
    kinds = np.where(separator, np.uint8(_BLANK), kinds)[kept]
    while True:  # strip each line: blanks at either end go, one at a time
        stripped = _line_edges(points == _NEWLINE) & (kinds == _BLANK)
        if not stripped.any():
            break
        points, kinds = points[~stripped], kinds[~stripped]
    return plain_letters(points.tobytes().decode("utf-32-le")).encode("utf-8")


def _run_starts(mask: Array) -> Array:
    """Where ``mask`` holds the first of a run of True."""
    first = mask.copy()
    first[1:] &= ~mask[:-1]
    return first


def _line_edges(newline: Array) -> Array:
    """The positions at the start or the end of a line (beside a newline, or at either
    end of the whole), where stripping drops a blank."""
    at_edge = np.ones_like(newline)
    at_edge[1:] = newline[:-1]
    at_edge[:-1] |= newline[1:]
    return at_edge


def _kinds(points: Array) -> Array:
    """For each code point, whether it is a mark that folding drops (:data:`_MARK`), a
    separator (:data:`_SEPARATES`), another blank that stripping drops (:data:`_BLANK`),
    or none of these (0); each distinct one is asked once."""
    seen = np.zeros(_CODE_POINTS, dtype=bool)
    seen[points] = True
    table = np.zeros(_CODE_POINTS, dtype=np.uint8)
    for code in np.flatnonzero(seen).tolist():
        char = chr(code)
        table[code] = (_MARK if is_mark(char) else _SEPARATES if is_separator(char)
                       else _BLANK if char.isspace() and char != "\n" else 0)
    kinds: Array = table[points]
    return kinds
