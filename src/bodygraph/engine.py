"""What the chart pipeline needs from an ephemeris engine: the rows it returns and its
protocol. Free of Skyfield, so that importing it costs nothing."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from bodygraph.chart import NodeKind
from bodygraph.timescale import TT

FloatArray = npt.NDArray[np.float64]

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
