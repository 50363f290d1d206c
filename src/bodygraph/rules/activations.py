"""Activations from longitudes: the wheel positions of the 13 bodies of N charts, with the
earth and the south node on the exact opposite sub-units of the sun and the north node,
and the :class:`~bodygraph.model.chart.Side` objects built from them."""

from __future__ import annotations

from bodygraph._typing import FloatArray
from bodygraph.model.chart import BODIES, Activation, Body, Side
from bodygraph.rules.wheel import WheelPositions, opposite, positions, to_units

_EARTH_ROW = BODIES.index(Body.EARTH)
_SOUTH_NODE_ROW = BODIES.index(Body.SOUTH_NODE)


def body_positions(longitudes: FloatArray) -> WheelPositions:
    """Wheel positions of (S, 13, N) longitudes in BODIES order (S sides of N charts); the
    earth and the south node are the exact opposites of the row before them."""
    units = to_units(longitudes)
    units[:, _EARTH_ROW] = opposite(units[:, _EARTH_ROW - 1])
    units[:, _SOUTH_NODE_ROW] = opposite(units[:, _SOUTH_NODE_ROW - 1])
    return positions(units)


def side_pairs(longitudes: FloatArray) -> list[tuple[Side, ...]]:
    """Build the sides of N charts from (S, 13, N) longitudes (S sides per chart, for
    example personality and design), all in one pass over the wheel."""
    wheel = body_positions(longitudes)
    # (N, S, 13) plain ints and floats, converted once rather than per element
    gate, line, color, tone, base = (values.transpose(2, 0, 1).tolist() for values in (
        wheel.gate, wheel.line, wheel.color, wheel.tone, wheel.base))
    degrees = longitudes.transpose(2, 0, 1).tolist()
    return [
        tuple(
            Side(*[Activation(*values) for values in zip(
                BODIES, degrees[n][s], gate[n][s], line[n][s], color[n][s], tone[n][s],
                base[n][s], strict=True)])
            for s in range(len(degrees[n]))
        )
        for n in range(len(degrees))
    ]
