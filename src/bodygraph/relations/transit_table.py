"""Transits of many instants as columns (:class:`TransitTable`), what
:func:`bodygraph.relations.transit_many` returns.

Columns are numpy arrays with time last, like :class:`~bodygraph.ChartTable`; the
channel sets and the overlay's properties use the same vectorized rules as the table
of charts. Indexing a table yields the :class:`Transit` that :func:`transit` returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bodygraph._time import to_aware
from bodygraph._typing import BoolArray, FloatArray, IntArray, Micros, SmallIntArray
from bodygraph.catalog.tables import CENTER_NAMES, Channel, tables
from bodygraph.columnar import side_at
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Chart, NodeKind, Side
from bodygraph.relations.columns import Rows, concat_blocks
from bodygraph.relations.transit_model import Transit, transit_of_side
from bodygraph.rules.activations import body_positions
from bodygraph.rules.vectorized import (
    ChannelSetProperties,
    channel_masks,
    channel_set_properties,
)


@dataclass(frozen=True, slots=True)
class TransitTable(Rows[Transit]):
    """N transits (over one natal chart, or none) as columns.

    ``longitude`` and the wheel columns are (13, N) in the order of
    :data:`bodygraph.model.chart.BODIES`; bit i of a channel mask is channel i of the
    tables (:func:`bodygraph.catalog.tables.tables`), bit i of a center mask is
    ``CENTER_NAMES[i]``. With a natal chart, ``overlay`` holds the overlay's type,
    authority and definition as indexes into the enums' member order, and its centers.
    """

    node: NodeKind
    at: Micros
    longitude: FloatArray
    gate: SmallIntArray
    line: SmallIntArray
    color: SmallIntArray
    tone: SmallIntArray
    base: SmallIntArray
    channel_mask: IntArray
    natal: Chart | None = None
    natal_mask: int = 0
    overlay_mask: IntArray | None = None
    overlay: ChannelSetProperties | None = None
    new_centers: SmallIntArray | None = None

    def __len__(self) -> int:
        return int(self.at.shape[0])

    def row(self, i: int) -> Transit:
        """The transit at index ``i``."""
        return transit_of_side(to_aware(self.at[i]), self.node, self.side(i), self.natal)

    @property
    def completed_mask(self) -> IntArray | None:
        """Channels each transit completes over the natal chart (None without one)."""
        if self.overlay_mask is None:
            return None
        out: IntArray = self.overlay_mask & ~np.int64(self.natal_mask)
        return out

    def completes(self, channel: Channel | str) -> BoolArray:
        """Whether each transit completes ``channel`` (a Channel or its short name, e.g.
        ``"34-57"``) over the natal chart, shape (N,)."""
        completed = self.completed_mask
        if completed is None:
            raise InvalidOptionError("completes() needs a table of transits over a natal chart")
        short = channel if isinstance(channel, str) else channel.short
        bits = [i for i, c in enumerate(tables().channels) if c.short == short]
        if not bits:
            raise InvalidOptionError(f"{short!r} is not a channel (write it like '34-57')")
        out: BoolArray = (completed >> bits[0]) & 1 == 1
        return out

    @staticmethod
    def concat(parts: Sequence[TransitTable]) -> TransitTable:
        """One table from blocks of the same node kind over the same natal chart."""
        return concat_blocks(parts)

    def side(self, i: int) -> Side:
        """The 13 activations of the i-th transit."""
        return side_at(self, (slice(None), i))


def _center_bits(names: tuple[str, ...]) -> int:
    return sum(1 << CENTER_NAMES.index(name) for name in names)


def build_transit_table(at: Micros, longitude: FloatArray, node: NodeKind,
                        natal: Chart | None) -> TransitTable:
    """A table from (13, N) longitudes in BODIES order (earth and south node are set to
    the exact opposites of sun and north node on the wheel, as in a chart)."""
    wheel = body_positions(longitude[None])
    gate = wheel.gate[0].astype(np.int16)
    own = channel_masks(gate.astype(np.int64))
    small = {name: getattr(wheel, name)[0].astype(np.int16)
             for name in ("line", "color", "tone", "base")}
    table = TransitTable(node, at, longitude, gate, channel_mask=own, **small)
    if natal is None:
        return table
    natal_gates = np.array(natal.gates, dtype=np.int64)[:, None]
    natal_mask = int(channel_masks(natal_gates)[0])
    both = np.concatenate([gate.astype(np.int64),
                           np.broadcast_to(natal_gates, (natal_gates.shape[0], len(at)))])
    overlay_mask = channel_masks(both)
    overlay = channel_set_properties(overlay_mask)
    new_centers = (overlay.centers & ~np.int16(_center_bits(natal.centers))).astype(np.int16)
    return TransitTable(node, at, longitude, gate, channel_mask=own, natal=natal,
                        natal_mask=natal_mask, overlay_mask=overlay_mask, overlay=overlay,
                        new_centers=new_centers, **small)
