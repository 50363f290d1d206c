"""Folding a block of many names at once, as :func:`bodygraph.geo.places.names.fold_lines`
folds them, for the gazetteer build (:mod:`bodygraph.geo.places.build`).

Most names are ASCII, where folding is byte by byte: upper-case letters become lower-case,
each run of separators (blanks, dashes, apostrophes, dots) becomes one space, and a space
is dropped at either end of a name. Those names are folded in NumPy, without a Python
string each; the others (and the rare ASCII names holding a blank that is no separator,
such as ``\\x1c``, which ``str.strip`` would also drop) go through ``fold_lines``. Every
table below is read off ``str.lower``, ``str.isspace`` and ``names``' own separator
pattern, so the two ways cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bodygraph.geo.places.names import fold_lines, is_separator

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
_SPACE: Final = ord(" ")
_NEWLINE: Final = ord("\n")


def fold_block(block: Array, starts: Array) -> tuple[bytes, Array]:
    """The lines of ``block`` (UTF-8 bytes, each line followed by a newline and starting
    at ``starts``) folded, as UTF-8, each followed by a newline; and the number of the
    line that each folded one comes from: first the lines folded in NumPy, then the
    others, each part in order."""
    if not len(starts):
        return b"", np.zeros(0, dtype=np.int64)
    # (Each line's segment holds its newline, so none is empty.)
    plain = ~np.logical_or.reduceat(_ELSEWHERE[block], starts)
    sizes = np.diff(starts, append=len(block))
    in_plain = np.repeat(plain, sizes)
    separator = _SEPARATOR[block]
    first = separator.copy()  # the first separator of each run
    first[1:] &= ~separator[:-1]
    folded = np.where(separator, np.uint8(_SPACE), _LOWER[block])[
        in_plain & (first | ~separator)]
    space = folded == _SPACE
    newline = folded == _NEWLINE
    at_edge = np.ones_like(space)  # a space at the start or the end of a line is stripped
    at_edge[1:] = newline[:-1]
    at_edge[:-1] |= newline[1:]
    other = block[~in_plain].tobytes().decode("utf-8")
    rest = "\n".join(fold_lines(other)).encode("utf-8")
    numbers = np.concatenate([np.flatnonzero(plain), np.flatnonzero(~plain)])
    return folded[~(space & at_edge)].tobytes() + rest, numbers
