"""Finding folded names spelt like a query, without comparing the query with every name.

Each name gets a 128-bit signature: the set of its byte bigrams, with a start and an end
mark, hashed into 128 bits. A name spelt like the query shares most of the query's
bigrams, so the candidates are the names of about the query's length (two characters
either way) whose signatures share enough bits with the query's; that takes a few
vectorised passes over the signatures. The candidates' characters are then counted in
one more vectorised pass, which bounds each one's similarity ratio from above (as
:meth:`difflib.SequenceMatcher.quick_ratio` does); only the :data:`MAX_COMPARISONS` with
the highest bounds that reach the cut-off are compared with
:class:`difflib.SequenceMatcher`, and those whose similarity ratio reaches the cut-off
are the close matches. So the work per query is bounded whatever the text: one pass over
the signatures and at most :data:`MAX_COMPARISONS` exact comparisons.

The signatures are computed from the index's sorted name bytes when first needed
(a few tenths of a second for a million names, then cached per user like the index)
and take 19 bytes a name with the name's length and bit count.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bodygraph.geo.places.store import Bundle, BundleFileError

__all__ = [
    "CUTOFF", "MAX_COMPARISONS", "TABLES_VERSION", "Match", "Speller", "popcount", "signature",
    "spelling_tables",
]

#: The version of :func:`spelling_tables`' output; part of the name of its cache file.
TABLES_VERSION: Final = 2
#: The least :meth:`difflib.SequenceMatcher.ratio` of a close match.
CUTOFF: Final = 0.75
#: How many more or fewer characters a close match may have.
LENGTH_SLACK: Final = 2
#: The most candidates kept from the signatures (the ones with the most alike signatures).
MAX_CANDIDATES: Final = 1500
#: The most candidates compared exactly (those whose ratio can be highest).
MAX_COMPARISONS: Final = 100

_MULTIPLIER: Final = 2654435761  # Knuth's multiplicative hash constant, 2**32 / phi
_MARK: Final = 0x0A  # the newline that ends every name in the index marks both ends
_CHUNK: Final = 1 << 20  # bytes of names hashed at once (bounds the temporary arrays)


_BYTE_BITS: Final = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)


def popcount(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint8]:
    """The number of bits set in each value (``numpy.bitwise_count`` where numpy has it)."""
    counter = getattr(np, "bitwise_count", None)
    if counter is not None:
        counted: npt.NDArray[np.uint8] = counter(values).astype(np.uint8, copy=False)
        return counted
    flat = np.ascontiguousarray(values, dtype=np.uint64).reshape(-1)
    per_byte = _BYTE_BITS[flat.view(np.uint8)].reshape(-1, 8)
    summed: npt.NDArray[np.uint8] = per_byte.sum(axis=1, dtype=np.uint8)
    return summed.reshape(np.shape(values))


def _bit(first: int, second: int) -> int:
    """The signature bit (0..127) of one byte bigram."""
    return (((first * 257 + second) * _MULTIPLIER) & 0xFFFFFFFF) >> 25


def signature(key: str) -> tuple[int, int]:
    """The low and high 64 bits of ``key``'s bigram signature."""
    data = bytes([_MARK]) + key.encode("utf-8") + bytes([_MARK])
    low = high = 0
    for first, second in itertools.pairwise(data):
        bit = _bit(first, second)
        if bit < 64:
            low |= 1 << bit
        else:
            high |= 1 << (bit - 64)
    return low, high


def _bit_tables() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """For every bigram ``first * 256 + second``: its signature bit, low and high word."""
    pairs = np.arange(1 << 16, dtype=np.uint32)
    bits = (((pairs >> np.uint32(8)) * np.uint32(257) + (pairs & np.uint32(0xFF)))
            * np.uint32(_MULTIPLIER)) >> np.uint32(25)
    one = np.uint64(1)
    low = np.where(bits < 64, one << (bits.astype(np.uint64) & np.uint64(63)), np.uint64(0))
    high = np.where(bits >= 64, one << (bits.astype(np.uint64) & np.uint64(63)), np.uint64(0))
    return low.astype(np.uint64), high.astype(np.uint64)


def spelling_tables(block: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64]) -> Bundle:
    """Every name's signature (``low``, ``high``), its bits set and its character count.

    ``block`` holds the names' UTF-8 bytes, each followed by a newline, and ``starts``
    the offset of each name and, last, the block's length.
    """
    count = len(starts) - 1
    low = np.zeros(count, dtype=np.uint64)
    high = np.zeros(count, dtype=np.uint64)
    lengths = np.zeros(count, dtype=np.int16)
    low_bits, high_bits = _bit_tables()
    first_key = 0
    while first_key < count:
        last_key = int(np.searchsorted(starts, starts[first_key] + _CHUNK, side="right")) - 1
        last_key = min(max(last_key, first_key + 1), count)
        begin, end = int(starts[first_key]), int(starts[last_key])
        chunk = block[begin:end]
        pairs = np.empty(len(chunk), dtype=np.uint16)
        pairs[0] = _MARK
        pairs[1:] = chunk[:-1]
        pairs <<= 8
        pairs |= chunk
        marks = starts[first_key:last_key] - begin
        low[first_key:last_key] = np.bitwise_or.reduceat(low_bits[pairs], marks)
        high[first_key:last_key] = np.bitwise_or.reduceat(high_bits[pairs], marks)
        lead = (chunk & 0xC0) != 0x80  # a character's first byte (or the newline)
        lengths[first_key:last_key] = np.add.reduceat(lead, marks, dtype=np.int32) - 1
        first_key = last_key
    bits = popcount(low) + popcount(high)
    return Bundle({"low": low, "high": high, "length": lengths, "bits": bits},
                  {"bigram_bits": 128})


#: The resolution of the signature likeness that orders the candidates.
_ALIKE_STEPS: Final = 1 << 20
#: How many character codes :func:`_character_codes` has.
_CODES: Final = 1 << 14


def _character_ends(data: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Which bytes of UTF-8 ``data`` end a character (the next is no continuation byte)."""
    ends = np.ones(len(data), dtype=np.bool_)
    ends[:-1] = (data[1:] & 0xC0) != 0x80
    return ends


def _character_codes(data: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """One code (below :data:`_CODES`) per character of UTF-8 ``data``: its last two bytes.

    An ASCII character is its byte; any other its last byte's six low bits and the byte
    before, which tell apart every character of two bytes and most of three or four.
    """
    wide = data.astype(np.int64)
    previous = np.zeros_like(wide)
    previous[1:] = wide[:-1]
    tail = (wide & 0xC0) == 0x80
    codes = np.where(tail, (previous << 6) | (wide & 0x3F), wide)
    return codes[_character_ends(data)]


@dataclass(frozen=True, slots=True)
class Match:
    """A name spelt like the query: its position in the index and its similarity ratio."""

    position: int
    ratio: float


class Speller:
    """Close-spelling search over the sorted names of an index.

    ``block`` and ``starts`` are the names (see :func:`spelling_tables`), ``tables``
    what :func:`spelling_tables` made of them.
    """

    def __init__(
        self, block: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], tables: Bundle
    ) -> None:
        self._block = memoryview(block.data)
        self._starts = starts
        self.tables = tables
        self._low = tables.arrays["low"]
        self._high = tables.arrays["high"]
        self._lengths = tables.arrays["length"]
        self._bits = tables.arrays["bits"]
        if not len(self._low) == len(self._high) == len(self._lengths) == len(starts) - 1:
            raise BundleFileError("the spelling tables do not fit the names")
        self._longest = int(self._lengths.max()) if len(self._lengths) else 0

    def _name(self, position: int) -> str:
        start, end = int(self._starts[position]), int(self._starts[position + 1]) - 1
        return self._block[start:end].tobytes().decode("utf-8")

    def candidates(self, key: str) -> npt.NDArray[np.intp]:
        """Positions of the names that may be spelt like ``key`` (not in any order).

        A name qualifies when its length is within :data:`LENGTH_SLACK` characters of
        ``key``'s and its signature has at least ``n - 2 - n // 3`` of the ``n`` bits of
        the query's (one typo changes two or three bigrams). When more qualify, the
        :data:`MAX_CANDIDATES` whose signatures are most alike (Jaccard index) are kept.
        """
        size = len(key)
        if size - LENGTH_SLACK > self._longest:  # longer than any name: no pass needed
            return np.zeros(0, dtype=np.intp)
        low, high = signature(key)
        wanted = low.bit_count() + high.bit_count()
        shared = popcount(self._low & np.uint64(low)) + popcount(self._high & np.uint64(high))
        need = max(1, wanted - 2 - wanted // 3)
        lengths: npt.NDArray[Any] = self._lengths
        fits = (shared >= need) & (lengths >= size - LENGTH_SLACK) & (
            lengths <= size + LENGTH_SLACK)
        positions = np.flatnonzero(fits)
        if len(positions) <= MAX_CANDIDATES:
            return positions
        common = shared[positions].astype(np.float64)
        alike = common / (wanted + self._bits[positions] - common)
        # most alike first, ties by position: one distinct integer per candidate, so the
        # partial selection keeps the same names whatever the selection algorithm
        order = np.round((1.0 - alike) * _ALIKE_STEPS).astype(np.int64) * len(self._low)
        order += positions
        return positions[np.argpartition(order, MAX_CANDIDATES - 1)[:MAX_CANDIDATES]]

    def _bounds(self, key: str, positions: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """An upper bound of the similarity ratio of ``key`` with each candidate name.

        It is :meth:`difflib.SequenceMatcher.quick_ratio` (the characters both hold, as a
        multiset) with each character read as its last two UTF-8 bytes: characters that
        differ may then count as alike (never the reverse), so the bound never falls
        below the ratio.
        """
        values, wanted = np.unique(_character_codes(np.frombuffer(key.encode("utf-8"),
                                                                  dtype=np.uint8)),
                                   return_counts=True)
        slot = np.full(_CODES, len(values), dtype=np.int64)
        slot[values] = np.arange(len(values))
        starts = self._starts[positions]
        sizes = self._starts[positions + 1] - 1 - starts
        owner = np.repeat(np.arange(len(positions)), sizes)
        offsets = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes - starts, sizes)
        name_bytes = np.frombuffer(self._block, dtype=np.uint8)[offsets]
        ends = _character_ends(name_bytes)
        width = len(values) + 1
        counts = np.bincount(owner[ends] * width + slot[_character_codes(name_bytes)],
                             minlength=len(positions) * width)
        shared = np.minimum(counts.reshape(-1, width)[:, :-1], wanted).sum(axis=1)
        lengths = self._lengths[positions].astype(np.int64)
        bounds: npt.NDArray[np.float64] = 2.0 * shared / (lengths + len(key))
        return bounds

    def close(self, key: str, *, cutoff: float = CUTOFF) -> list[Match]:
        """The names whose similarity ratio with ``key`` is at least ``cutoff``, best first.

        At most :data:`MAX_COMPARISONS` names are compared exactly: the candidates whose
        upper bound is highest (ties: the index's order). Ties of the ratio keep the
        index's order (sorted names), so the result does not depend on anything but the
        index and ``key``.
        """
        positions = np.sort(self.candidates(key))
        if not len(positions):
            return []
        bounds = self._bounds(key, positions)
        hopeful = np.flatnonzero(bounds >= cutoff)
        best = hopeful[np.argsort(-bounds[hopeful], kind="stable")[:MAX_COMPARISONS]]
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        found: list[Match] = []
        for position in np.sort(positions[best]).tolist():
            name = self._name(position)
            if name == key:
                continue
            matcher.set_seq1(name)
            if (matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff
                    and matcher.ratio() >= cutoff):
                found.append(Match(position, matcher.ratio()))
        found.sort(key=lambda match: -match.ratio)
        return found
