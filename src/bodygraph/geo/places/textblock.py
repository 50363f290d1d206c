"""Many short texts as one block of bytes, each text followed by a newline, in NumPy.

The gazetteer build (:mod:`bodygraph.geo.places.build`) folds a million and a half names
into keys; as one block, the keys are split, sorted by their bytes and picked out without
a Python object each.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

__all__ = ["gather", "sort_by_bytes", "split"]

Array = npt.NDArray[Any]

#: For 0 to 7 bytes at the top of a 64-bit word: the mask that keeps just them.
_MASKS: Final = np.array([2**64 - 2 ** (64 - 8 * size) for size in range(8)], dtype=np.uint64)
#: How many texts :func:`gather` picks out at a time.
_GATHERED: Final = 1 << 14


def split(blob: bytes) -> tuple[Array, Array, Array]:
    """UTF-8 texts, each followed by a newline (and holding none): the bytes, each text's
    start and its length."""
    block = np.frombuffer(blob, dtype=np.uint8)
    ends = np.flatnonzero(block == ord("\n"))
    starts = np.zeros_like(ends)
    starts[1:] = ends[:-1] + 1
    return block, starts, ends - starts


def gather(block: Array, starts: Array, sizes: Array) -> Array:
    """The bytes ``block[starts[n]:starts[n] + sizes[n]]`` one after another, gathered a
    few thousand texts at a time: NumPy maps large arrays in huge pages, and mapping the
    index of all the bytes at once took longer than gathering them."""
    pieces = [block[:0]]
    for first in range(0, len(starts), _GATHERED):
        begins, counts = starts[first:first + _GATHERED], sizes[first:first + _GATHERED]
        ends = np.cumsum(counts)
        pieces.append(block[np.arange(ends[-1]) + np.repeat(begins - (ends - counts), counts)])
    return np.concatenate(pieces)


def sort_by_bytes(blob: bytes, starts: Array, lengths: Array) -> tuple[Array, Array]:
    """The texts ``blob[starts[n]:starts[n] + lengths[n]]`` by their bytes: their numbers
    ``n`` in that order and, for each place, whether its text differs from the one before.

    A few bytes are compared at a time. Each text gets one number: its run of texts equal
    so far, then the next bytes (big-endian, zeros past its end), then how many of them it
    has (so that a text that ends comes before its continuations). After each round only
    the runs still equal that go on are sorted again.
    """
    windows = np.ndarray((len(blob) + 1,), np.dtype(">u8"), blob + bytes(8), 0, (1,))
    order = np.arange(len(starts))
    distinct = np.zeros(len(starts), dtype=bool)
    distinct[:1] = True
    tied = order.copy()  # the places still in a run of texts equal so far
    offset = 0
    while tied.size:
        numbers = order[tied]
        runs = np.cumsum(distinct[tied]) - 1
        size = (61 - int(runs[-1]).bit_length()) // 8  # bytes that fit beside the run
        left = np.clip(lengths[numbers] - offset, 0, size).astype(np.uint64)
        head = (windows[starts[numbers] + offset] & _MASKS[left]) >> np.uint64(64 - 8 * size)
        keys = runs.astype(np.uint64) << np.uint64(8 * size + 3) | head << np.uint64(3) | left
        ranking = np.argsort(keys)
        order[tied] = numbers[ranking]
        keys = keys[ranking]
        distinct[tied[1:]] |= keys[1:] != keys[:-1]
        runs = np.cumsum(distinct[tied])
        tied = tied[(np.bincount(runs)[runs] > 1) & (keys & np.uint64(7) == size)]
        offset += size
    return order, distinct
