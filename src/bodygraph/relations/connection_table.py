"""Connections of many pairs as columns (:class:`ConnectionTable`), what
:func:`connection_many` returns: one person against many, or many pairs side by side.

Gates travel as 64-bit masks (bit g - 1: gate g), so a channel's class is a handful of
array operations for all pairs at once; the composite's properties use the vectorized
rules of the table of charts. Indexing a table yields the :class:`Connection` that
:func:`connection` returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from bodygraph._typing import BoolArray, CodeArray, IntArray
from bodygraph.calculator import CHUNK
from bodygraph.catalog.tables import tables
from bodygraph.columnar import ChartTable
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Chart
from bodygraph.relations.columns import Rows, concat_blocks
from bodygraph.relations.connection import Connection, ConnectionKind, connection_of_gates
from bodygraph.rules.vectorized import ChannelSetProperties, channel_set_properties

GateMasks = npt.NDArray[np.uint64]
#: ``kind`` codes: 0 for no class, else 1 + the index in this tuple.
KINDS: tuple[ConnectionKind, ...] = tuple(ConnectionKind)


@dataclass(frozen=True, slots=True)
class ConnectionTable(Rows[Connection]):
    """N connections as columns. ``kind`` and ``person`` are (36, N), rows in the order
    of the tables' channels (bit i of a channel mask); ``kind`` is 0 (no class) or 1 +
    the index in :data:`KINDS`, ``person`` 1 or 2 for dominance and compromise, else 0.
    ``composite`` holds the composite's type, authority and definition as indexes into
    the enums' member order, and its centers as a bit mask."""

    gates_a: GateMasks
    gates_b: GateMasks
    kind: CodeArray
    person: CodeArray
    composite_mask: IntArray
    composite: ChannelSetProperties

    def __len__(self) -> int:
        return int(self.gates_a.shape[0])

    def row(self, i: int) -> Connection:
        """The connection at index ``i``."""
        return connection_of_gates(_gates(int(self.gates_a[i])), _gates(int(self.gates_b[i])))

    def count(self, kind: ConnectionKind) -> IntArray:
        """How many channels of each connection are in ``kind``, shape (N,)."""
        out: IntArray = (self.kind == KINDS.index(kind) + 1).sum(axis=0)
        return out


def _gates(mask: int) -> list[int]:
    return [g for g in range(1, 65) if mask >> (g - 1) & 1]


@cache
def _ends() -> tuple[GateMasks, GateMasks]:
    """Per channel (table order): the mask of its lower gate and of its higher gate."""
    channels = tables().channels
    return (np.array([1 << (c.gates[0] - 1) for c in channels], dtype=np.uint64),
            np.array([1 << (c.gates[1] - 1) for c in channels], dtype=np.uint64))


def gate_masks(charts: Chart | ChartTable) -> GateMasks:
    """The gates of each chart as a 64-bit mask (bit g - 1: gate g), shape (N,)."""
    if isinstance(charts, Chart):
        return np.array([sum(1 << (g - 1) for g in set(charts.gates))], dtype=np.uint64)
    gates = charts.gate.reshape(-1, len(charts)).astype(np.uint64)
    out: GateMasks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), gates - np.uint64(1)),
                                          axis=0)
    return out


def _channel_bits(masks: BoolArray) -> IntArray:
    weights = np.left_shift(np.int64(1), np.arange(masks.shape[0], dtype=np.int64))
    out: IntArray = (masks.astype(np.int64) * weights[:, None]).sum(axis=0)
    return out


def _block(first: GateMasks, second: GateMasks) -> ConnectionTable:
    low, high = _ends()
    a_low, a_high = (first & low[:, None]) != 0, (first & high[:, None]) != 0
    b_low, b_high = (second & low[:, None]) != 0, (second & high[:, None]) != 0
    in_a = a_low.astype(np.int8) + a_high
    in_b = b_low.astype(np.int8) + b_high
    kind = np.zeros(in_a.shape, dtype=np.int8)
    person = np.zeros(in_a.shape, dtype=np.int8)
    code = {k: np.int8(KINDS.index(k) + 1) for k in KINDS}
    kind[(in_a == 1) & (in_b == 1) & (a_low != b_low)] = code[ConnectionKind.ELECTROMAGNETIC]
    for who, whole, other in ((1, in_a, in_b), (2, in_b, in_a)):
        for count, which in ((0, ConnectionKind.DOMINANCE), (1, ConnectionKind.COMPROMISE)):
            chosen = (whole == 2) & (other == count)
            kind[chosen] = code[which]
            person[chosen] = who
    kind[(in_a == 2) & (in_b == 2)] = code[ConnectionKind.COMPANIONSHIP]
    composite_mask = _channel_bits((a_low | b_low) & (a_high | b_high))
    return ConnectionTable(first, second, kind, person, composite_mask,
                           channel_set_properties(composite_mask))


def connection_many(a: Chart | ChartTable, b: Chart | ChartTable) -> ConnectionTable:
    """Connections of person 1 ``a`` and person 2 ``b``: two tables of the same length
    (pair i is ``a[i]``, ``b[i]``), or one chart against every chart of a table."""
    first, second = gate_masks(a), gate_masks(b)
    if len(first) != len(second) and 1 not in (len(first), len(second)):
        raise InvalidOptionError(
            f"connection_many needs tables of the same length, not {len(first)} and "
            f"{len(second)} (or one chart against a table)")
    first, second = (np.ascontiguousarray(m) for m in np.broadcast_arrays(first, second))
    return concat_blocks([_block(first[i:i + CHUNK], second[i:i + CHUNK])
                          for i in range(0, max(len(first), 1), CHUNK)])
