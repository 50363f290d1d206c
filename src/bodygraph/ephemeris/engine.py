"""What the chart pipeline needs from an ephemeris engine: the rows it returns and its
protocol. Free of Skyfield, so that importing it costs nothing."""

from __future__ import annotations

from typing import Protocol, TypeVar

from bodygraph._time import TT
from bodygraph._typing import FloatArray
from bodygraph.model.chart import NodeKind

Time = TypeVar("Time", float, FloatArray)


def mean_node_of_mean_equinox(t: Time) -> Time:
    """Mean ascending node of the Moon (Meeus 47.7), degrees on the mean equinox of date
    (not reduced to [0, 360)), ``t`` in Julian centuries of TT since J2000. Both engines
    add their nutation in longitude; the fast engine compiles this same function."""
    # Powers as products (numba compiles ``t**3`` to ``t * (t * t)``; Python would call
    # ``pow``), so that the compiled and the plain-Python fast engine agree bit for bit.
    t2 = t * t
    omega: Time = (125.0445479 - 1934.1362891 * t + 0.0020754 * t2 + (t * t2) / 467441.0
                   - (t2 * t2) / 60616000.0)
    return omega


#: Rows of a longitudes array, in this order.
ENGINE_BODIES: tuple[str, ...] = (
    "sun", "moon", "mercury", "venus", "mars", "jupiter", "saturn", "uranus", "neptune",
    "pluto", "node",
)


class PositionEngine(Protocol):
    """What the chart pipeline needs from an ephemeris engine."""

    def sun_longitude(self, tt: TT) -> FloatArray:
        """Apparent longitude of the Sun, degrees in [0, 360), shape (N,)."""
        ...

    def longitudes(self, tt: TT, node: NodeKind) -> FloatArray:
        """Apparent longitudes of ENGINE_BODIES, degrees in [0, 360), shape (11, N)."""
        ...

    def close(self) -> None:
        """Release the kernel file."""
        ...
