"""Apparent geocentric longitudes through Skyfield: the reference engine.

Positions are apparent (light time, aberration, gravitational deflection),
geocentric, in the true ecliptic and equinox of date. The lunar node is the
true (osculating) node from the Moon's geocentric state vector, or the mean
node, both referred to the true equinox of date.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from skyfield.framelib import ecliptic_frame
from skyfield.jpllib import SpiceKernel
from skyfield.nutationlib import iau2000a_radians
from skyfield.timelib import Time

from bodygraph._time import TT
from bodygraph._typing import FloatArray
from bodygraph.ephemeris.engine import ENGINE_BODIES, mean_node_of_mean_equinox
from bodygraph.model.chart import NodeKind

_TARGETS: dict[str, str] = {
    "sun": "sun",
    "moon": "moon",
    "mercury": "mercury",
    "venus": "venus",
    "mars": "mars barycenter",
    "jupiter": "jupiter barycenter",
    "saturn": "saturn barycenter",
    "uranus": "uranus barycenter",
    "neptune": "neptune barycenter",
    "pluto": "pluto barycenter",
}


def mean_node_longitude(tt: TT) -> FloatArray:
    """Mean ascending node of the Moon (Meeus 47.7) on the true equinox of date."""
    t = ((tt.whole - 2451545.0) + tt.fraction) / 36525.0
    omega = mean_node_of_mean_equinox(t)
    dpsi, _ = iau2000a_radians(tt.time())
    return np.asarray(np.mod(omega + np.degrees(dpsi), 360.0), dtype=np.float64)


class SkyfieldEngine:
    """The reference engine: one Skyfield call per body, vectorized over time."""

    def __init__(self, kernel_path: Path) -> None:
        self.kernel = SpiceKernel(str(kernel_path))
        self._earth = self.kernel["earth"]
        self._moon = self.kernel["moon"]
        self._targets = {name: self.kernel[target] for name, target in _TARGETS.items()}

    def close(self) -> None:
        """Release the kernel file."""
        self.kernel.close()

    def _apparent(self, name: str, t: Time) -> FloatArray:
        astrometric = self._earth.at(t).observe(self._targets[name])
        _, lon, _ = astrometric.apparent().frame_latlon(ecliptic_frame)
        return np.atleast_1d(np.asarray(lon.degrees, dtype=np.float64))

    def sun_longitude(self, tt: TT) -> FloatArray:
        """Apparent longitude of the Sun, degrees."""
        return self._apparent("sun", tt.time())

    def true_node_longitude(self, tt: TT) -> FloatArray:
        """Osculating ascending node of the geocentric lunar orbit, true ecliptic of date."""
        return self._true_node(tt.time())

    def _true_node(self, t: Time) -> FloatArray:
        state = (self._moon - self._earth).at(t)
        position, velocity = state.frame_xyz_and_velocity(ecliptic_frame)
        r = np.asarray(position.km, dtype=np.float64).reshape(3, -1)
        v = np.asarray(velocity.km_per_s, dtype=np.float64).reshape(3, -1)
        h = np.cross(r, v, axis=0)
        return np.asarray(np.mod(np.degrees(np.arctan2(h[0], -h[1])), 360.0), dtype=np.float64)

    def longitudes(self, tt: TT, node: NodeKind) -> FloatArray:
        """Apparent longitudes of ENGINE_BODIES, shape (11, N)."""
        # One Skyfield Time for every body: it keeps what it computes (the IAU 2000A
        # nutation, most of the work, and the frame matrices) for the next body. A Time
        # per body computed them eleven times, to the same numbers.
        t = tt.time()
        rows = [self._apparent(name, t) for name in ENGINE_BODIES[:-1]]
        nodes = self._true_node(t) if node == "true" else mean_node_longitude(tt)
        rows.append(nodes)
        return np.vstack(rows)
