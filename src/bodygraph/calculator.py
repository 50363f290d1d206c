"""The pipeline: instants -> positions -> activations -> charts."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from bodygraph._time import (
    TT,
    as_micros,
    aware_list,
    require_aware,
    to_aware,
    to_micros,
    tt_to_utc,
    tt_to_utc64,
    utc64_to_tt,
)
from bodygraph._typing import FloatArray, Micros
from bodygraph.ephemeris.design import solve_design
from bodygraph.ephemeris.engine import ENGINE_BODIES, PositionEngine
from bodygraph.ephemeris.kernel import kernel_info, resolve_kernel_path
from bodygraph.errors import InvalidOptionError, OutOfRangeError
from bodygraph.model.chart import BODIES, Body, Chart, NodeKind
from bodygraph.rules.activations import side_pairs
from bodygraph.rules.properties import build_chart

if TYPE_CHECKING:  # the columnar tables load with the first calculate_many
    from bodygraph.columnar import ChartTable

#: Instants per call of an engine's ``epochs`` (the fast engine sorts each call's births
#: by time, so that neighbours share the kernel's records in cache).
CHUNK = 8192
#: Births per table block in calculate_many (properties and strings are built per block).
TABLE_CHUNK = 8192


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


#: For each of the 13 BODIES, the engine row it comes from; and the rows that are the
#: exact opposites of the row before them (earth, south node).
_SOURCE_ROWS = np.array([_SOURCE[body][0] for body in BODIES], dtype=np.intp)
_FLIPPED = np.array([i for i, body in enumerate(BODIES) if _SOURCE[body][1]], dtype=np.intp)


def activation_longitudes(engine_rows: FloatArray) -> FloatArray:
    """(11, N) engine longitudes -> (13, N) longitudes in BODIES order (earth, south node
    added as exact opposites)."""
    rows = engine_rows[_SOURCE_ROWS]
    flipped = rows[_FLIPPED]
    flipped += 180.0
    rows[_FLIPPED] = np.mod(flipped, 360.0)
    out: FloatArray = rows
    return out


class Calculator:
    """Charts from one ephemeris kernel and one position engine.

    ``bodygraph.calculate`` uses a shared default instance; make your own to use
    another kernel or engine: ``engine`` is ``"fast"`` (the default,
    :class:`bodygraph.ephemeris.fast.engine.FastEngine`), ``"skyfield"`` (the reference,
    :class:`bodygraph.ephemeris.reference.SkyfieldEngine`) or any :class:`PositionEngine`.
    """

    def __init__(
        self,
        ephemeris: str | os.PathLike[str] | None = None,
        *,
        engine: PositionEngine | Literal['fast', 'skyfield'] | None = None,
    ) -> None:
        self.kernel = kernel_info(resolve_kernel_path(ephemeris))
        self.engine: PositionEngine = _make_engine(engine, self.kernel.path)
        first, last = tt_to_utc(TT(
            np.array([self.kernel.first_jd + DESIGN_MARGIN_DAYS, self.kernel.last_jd]),
            np.array([0.0, -END_MARGIN_DAYS]),
        ))
        self.first_birth = _midnight(first) + timedelta(days=1)
        self.last_birth = _midnight(last)
        self._first_us = np.datetime64(self.first_birth.replace(tzinfo=None), "us")
        self._last_us = np.datetime64(self.last_birth.replace(tzinfo=None), "us")

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
        self.check_range_micros(to_micros(instants))

    def in_range(self, utc: Micros) -> np.ndarray:
        """Which datetime64 UTC instants the kernel can serve (boolean array)."""
        micros = np.asarray(utc, dtype="datetime64[us]")
        result: np.ndarray = (micros >= self._first_us) & (micros <= self._last_us)
        return result

    def check_range_micros(self, utc: Micros) -> None:
        """:meth:`check_range` for a datetime64 array."""
        bad = ~self.in_range(utc)
        if np.any(bad):
            instant = to_aware(np.asarray(utc, dtype="datetime64[us]")[np.argmax(bad)])
            raise OutOfRangeError(instant, self.first_birth, self.last_birth)

    def epochs_micros(self, utc: Micros, node: NodeKind = "true") -> Epochs:
        """Both epochs of every chart in one pass, from datetime64[us] UTC instants."""
        if node not in ("true", "mean"):
            raise InvalidOptionError(f"node must be 'true' or 'mean', not {node!r}")
        self.check_range_micros(utc)
        birth = utc64_to_tt(utc)
        both = getattr(self.engine, "epochs", None)  # the fast engine does it in two passes
        if both is not None:
            size = birth.whole.shape[0]
            parts = [both(birth, node)] if size <= CHUNK else [
                both(TT(birth.whole[i:i + CHUNK], birth.fraction[i:i + CHUNK]), node)
                for i in range(0, size, CHUNK)]
            if len(parts) == 1:
                birth_rows, design, design_rows = parts[0]
            else:
                birth_rows = np.concatenate([part[0] for part in parts], axis=1)
                design = TT(np.concatenate([part[1].whole for part in parts]),
                            np.concatenate([part[1].fraction for part in parts]))
                design_rows = np.concatenate([part[2] for part in parts], axis=1)
        else:
            birth_rows = self.engine.longitudes(birth, node)
            design = solve_design(self.engine, birth, birth_rows[_ROW["sun"]])
            design_rows = self.engine.longitudes(design, node)
        return Epochs(
            birth, design, activation_longitudes(birth_rows), activation_longitudes(design_rows)
        )

    def epochs(self, instants: Sequence[datetime], node: NodeKind = "true") -> Epochs:
        """Both epochs of every chart in one pass."""
        return self.epochs_micros(to_micros(instants), node)

    def calculate_list(self, instants: Sequence[datetime], node: NodeKind = "true") -> list[Chart]:
        """Charts of several birth instants (aware datetimes), computed together."""
        if not instants:
            return []
        utc = [require_aware(i) for i in instants]
        e = self.epochs_micros(to_micros(utc), node)
        design_utc = aware_list(tt_to_utc64(e.design))
        pairs = side_pairs(np.stack([e.personality, e.design_longitudes]))
        return [
            build_chart(b, d, node, p, ds)
            for b, d, (p, ds) in zip(utc, design_utc, pairs, strict=True)
        ]

    def calculate(self, birth_utc: datetime, *, node: NodeKind = "true") -> Chart:
        """The chart of one birth instant."""
        return self.calculate_list([birth_utc], node)[0]

    def warm_up(self) -> None:
        """Load what large batches use (the compiled engine, where numba is installed,
        and the whole kernel), so that no later call pays for it; a long-running process
        calls it at start."""
        prepare = getattr(self.engine, "prepare", None)
        if prepare is not None:
            prepare()

    def calculate_many(
        self, instants: Sequence[datetime] | Micros, *, node: NodeKind = "true",
        workers: int = 1,
    ) -> ChartTable:
        """Charts of many births as a :class:`~bodygraph.columnar.ChartTable`, computed in
        blocks of at most ``TABLE_CHUNK`` births (the engine works on ``CHUNK`` at a
        time) from aware datetimes, or datetime64 read as UTC. ``workers`` > 1 computes
        the blocks on that many threads (the compiled engine runs without the GIL; the
        plain-Python engine of an install without numba holds it, so threads do not
        speed it up); the table is the same, bit for bit and in the same order."""
        from bodygraph.columnar import ChartTable, build_table

        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidOptionError(f"workers must be a whole number >= 1, not {workers!r}")
        utc = as_micros(instants)
        size = utc.shape[0]
        block = TABLE_CHUNK
        if workers > 1 and size:  # equal blocks, as many for every worker
            count = workers * -(-size // (workers * TABLE_CHUNK))
            block = max(1, -(-size // count))

        def table(start: int) -> ChartTable:
            part = utc[start:start + block]
            e = self.epochs_micros(part, node)
            return build_table(part, tt_to_utc64(e.design), e.personality,
                               e.design_longitudes, node)

        starts = range(0, size, block)
        if workers == 1 or len(starts) < 2:
            parts = [table(start) for start in starts]
        else:
            self.warm_up()  # once, here, rather than in every thread
            with ThreadPoolExecutor(min(workers, len(starts))) as pool:
                parts = list(pool.map(table, starts))  # in input order
        return ChartTable.concat(parts) if parts else ChartTable.empty(node)


def _midnight(instant: datetime) -> datetime:
    return instant.replace(hour=0, minute=0, second=0, microsecond=0)


def _make_engine(
    engine: PositionEngine | Literal['fast', 'skyfield'] | None, kernel: Path
) -> PositionEngine:
    if engine is None or engine == "fast":
        from bodygraph.ephemeris.fast.engine import FastEngine

        return FastEngine(kernel)
    if engine == "skyfield":
        from bodygraph.ephemeris.reference import SkyfieldEngine

        return SkyfieldEngine(kernel)
    if isinstance(engine, str):
        raise InvalidOptionError(f"unknown engine {engine!r}: use 'fast' or 'skyfield'")
    return engine


@cache
def default_calculator(ephemeris: str | None = None) -> Calculator:
    """A Calculator per kernel path, created on first use and then reused."""
    return Calculator(ephemeris)


def _calculator_for(ephemeris: str | os.PathLike[str] | None) -> Calculator:
    """The shared calculator of a kernel path (``$BODYGRAPH_EPHEMERIS`` or the shipped
    kernel when None)."""
    key = None if ephemeris is None else str(Path(ephemeris).expanduser().resolve())
    if key is None and os.environ.get("BODYGRAPH_EPHEMERIS"):
        key = str(resolve_kernel_path(None))
    return default_calculator(key)


def warm_up(ephemeris: str | os.PathLike[str] | None = None) -> None:
    """Load what makes later calls fast (the compiled engine, the whole kernel) now: for
    long-running processes (a service's workers). Without it the first few hundred
    charts of a process run as plain Python (about a millisecond each, with the same
    numbers), which spares a short script or one CLI call from loading the compiled
    code; then a thread loads it while the charts go on as plain Python, and they
    switch to it when it is ready. Without numba (the ``fast`` extra) every chart runs
    as plain Python."""
    _calculator_for(ephemeris).warm_up()


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
    return _calculator_for(ephemeris).calculate(birth_utc, node=node)


def calculate_many(
    instants: Sequence[datetime] | Micros,
    *,
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
    workers: int = 1,
) -> ChartTable:
    """Calculate the bodygraphs of many births at once, as a columnar
    :class:`~bodygraph.columnar.ChartTable`.

    ``instants`` is a sequence of aware datetimes or a numpy ``datetime64`` array (read
    as UTC). Iterating the table yields the charts ``calculate`` would return, in order.
    ``workers`` is the number of threads that compute it (1 by default; give
    ``len(os.sched_getaffinity(0))`` to use every core): the table is the same, bit for
    bit, whatever the number.

    >>> import numpy as np
    >>> table = calculate_many(np.array(["1980-01-03T08:30"], dtype="datetime64[us]"))
    >>> len(table), table.chart(0).profile
    (1, '3/5')
    """
    return _calculator_for(ephemeris).calculate_many(instants, node=node, workers=workers)
