"""The pipeline: instants -> positions -> activations -> charts."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

import numpy as np

from bodygraph.astronomy import ENGINE_BODIES, FloatArray, PositionEngine, SkyfieldEngine
from bodygraph.chart import BODIES, Activation, Body, Chart, NodeKind, Side
from bodygraph.design import solve_design
from bodygraph.ephemeris import kernel_info, resolve_kernel_path
from bodygraph.errors import InvalidInstantError, OutOfRangeError
from bodygraph.properties import build_chart
from bodygraph.timescale import TT, require_aware, tt_to_utc, utc_to_tt
from bodygraph.wheel import opposite, positions, to_units

DESIGN_MARGIN_DAYS = 93.0  # the design instant lies at most 92 days before birth
END_MARGIN_DAYS = 0.5  # light time (Pluto: under 7 hours) at the far end of the kernel

_ROW = {name: index for index, name in enumerate(ENGINE_BODIES)}
#: For each Body: (row of the engine's output, whether it is the opposite point).
_SOURCE: dict[Body, tuple[int, bool]] = {
    Body.SUN: (_ROW["sun"], False),
    Body.EARTH: (_ROW["sun"], True),
    Body.NORTH_NODE: (_ROW["node"], False),
    Body.SOUTH_NODE: (_ROW["node"], True),
    **{b: (_ROW[b.value], False) for b in BODIES if b.value in _ROW},
}


@dataclass(frozen=True, slots=True)
class Epochs:
    """Positions of N charts: birth and design instants and their 13 longitudes each."""

    birth: TT
    design: TT
    personality: FloatArray  # (13, N) degrees, rows in BODIES order
    design_longitudes: FloatArray  # (13, N)


def activation_longitudes(engine_rows: FloatArray) -> FloatArray:
    """(11, N) engine longitudes -> (13, N) longitudes in BODIES order (earth, south node
    added as exact opposites)."""
    rows = []
    for body in BODIES:
        row, flip = _SOURCE[body]
        values = engine_rows[row]
        rows.append(np.mod(values + 180.0, 360.0) if flip else values)
    return np.vstack(rows)


def sides(longitudes: FloatArray) -> list[Side]:
    """Build N sides from (13, N) longitudes; earth and south node share the exact sub-units
    of sun and north node."""
    units = to_units(longitudes)
    for body in (Body.EARTH, Body.SOUTH_NODE):
        index = BODIES.index(body)
        units[index] = opposite(units[index - 1])
    wheel = positions(units)
    table = np.stack([wheel.gate, wheel.line, wheel.color, wheel.tone, wheel.base])
    out = []
    for n in range(longitudes.shape[1]):
        acts = [
            Activation(body, float(longitudes[i, n]), *(int(v) for v in table[:, i, n]))
            for i, body in enumerate(BODIES)
        ]
        out.append(Side(*acts))
    return out


class Calculator:
    """Charts from one ephemeris kernel and one position engine.

    ``bodygraph.calculate`` uses a shared default instance; make your own to use
    another kernel.
    """

    def __init__(
        self,
        ephemeris: str | os.PathLike[str] | None = None,
        *,
        engine: PositionEngine | None = None,
    ) -> None:
        self.kernel = kernel_info(resolve_kernel_path(ephemeris))
        self.engine: PositionEngine = engine or SkyfieldEngine(self.kernel.path)
        first, last = tt_to_utc(TT(
            np.array([self.kernel.first_jd + DESIGN_MARGIN_DAYS, self.kernel.last_jd]),
            np.array([0.0, -END_MARGIN_DAYS]),
        ))
        midnight = {"hour": 0, "minute": 0, "second": 0, "microsecond": 0}
        self.first_birth = first.replace(**midnight) + timedelta(days=1)
        self.last_birth = last.replace(**midnight)

    def close(self) -> None:
        """Release the kernel file."""
        self.engine.close()

    def __enter__(self) -> Calculator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def kernel_path(self) -> Path:
        """The kernel file in use."""
        return self.kernel.path

    def check_range(self, instants: Sequence[datetime]) -> None:
        """Raise :class:`OutOfRangeError` for the first instant the kernel cannot serve."""
        for instant in instants:
            if not self.first_birth <= instant <= self.last_birth:
                raise OutOfRangeError(instant, self.first_birth, self.last_birth)

    def epochs(self, instants: Sequence[datetime], node: NodeKind = "true") -> Epochs:
        """Both epochs of every chart in one pass."""
        if node not in ("true", "mean"):
            raise InvalidInstantError(f"node must be 'true' or 'mean', not {node!r}")
        utc = [require_aware(i) for i in instants]
        self.check_range(utc)
        birth = utc_to_tt(utc)
        birth_rows = self.engine.longitudes(birth, node)
        design = solve_design(self.engine, birth, birth_rows[_ROW["sun"]])
        design_rows = self.engine.longitudes(design, node)
        return Epochs(
            birth, design, activation_longitudes(birth_rows), activation_longitudes(design_rows)
        )

    def calculate_list(self, instants: Sequence[datetime], node: NodeKind = "true") -> list[Chart]:
        """Charts of several birth instants (aware datetimes), computed together."""
        if not instants:
            return []
        utc = [require_aware(i) for i in instants]
        e = self.epochs(utc, node)
        design_utc = tt_to_utc(e.design)
        return [
            build_chart(b, d, node, p, ds)
            for b, d, p, ds in zip(
                utc, design_utc, sides(e.personality), sides(e.design_longitudes), strict=True
            )
        ]

    def calculate(self, birth_utc: datetime, *, node: NodeKind = "true") -> Chart:
        """The chart of one birth instant."""
        return self.calculate_list([birth_utc], node)[0]


@cache
def default_calculator(ephemeris: str | None = None) -> Calculator:
    """A Calculator per kernel path, created on first use and then reused."""
    return Calculator(ephemeris)


def calculate(
    birth_utc: datetime,
    *,
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
) -> Chart:
    """Calculate the bodygraph of a birth instant.

    ``birth_utc`` must be an aware datetime (any zone; it is converted to UTC).
    ``node`` picks the true (osculating, default) or mean lunar node.
    ``ephemeris`` is a JPL ``.bsp`` kernel path; by default ``$BODYGRAPH_EPHEMERIS``
    or the DE440 excerpt shipped with the package (births 1800-04 to 2199-12).

    >>> from datetime import datetime, timezone
    >>> chart = calculate(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
    >>> chart.type.value, chart.profile
    ('Generator', '3/5')
    """
    key = None if ephemeris is None else str(Path(ephemeris).expanduser().resolve())
    if key is None and os.environ.get("BODYGRAPH_EPHEMERIS"):
        key = str(resolve_kernel_path(None))
    return default_calculator(key).calculate(birth_utc, node=node)
