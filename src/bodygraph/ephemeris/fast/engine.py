"""The fast engine: apparent geocentric longitudes straight from the kernel's Chebyshev
coefficients, compiled (numba), for N instants at once.

The physics is the same as the Skyfield reference
(:class:`bodygraph.ephemeris.reference.SkyfieldEngine`):

1. barycentric positions from the SPK type 2 segments at TDB (``chebyshev``);
2. light time, solved exactly on the target's straight path through its state at the
   instant, then one evaluation of the kernel at the retarded instant (the path's
   curvature over the light time moves the result by under a centimetre for Mercury,
   far less for the others, so further iterations change nothing that shows);
3. gravitational light deflection by the Sun, Jupiter and Saturn (the deflector taken
   where it was when the light passed closest to it) of every body but the Sun;
4. annual aberration with the relativistic formula and the Earth's barycentric velocity;
5. frame bias, IAU 2006 precession and IAU 2000B nutation to the true ecliptic and
   equinox of date (``frames``);
6. the true (osculating) lunar node from the Moon's geometric geocentric state vector,
   or the mean node (``engine.mean_node_of_mean_equinox``, Meeus 47.7) plus
   the nutation in longitude.

A chart (:meth:`FastEngine.epochs`) takes the bodies at birth, the apparent Sun at three
instants around a low-precision guess of the design instant (the parabola through their
longitudes gives the design instant, with no iteration), then the bodies at design, with
the frames of date interpolated on the same parabola.

The numbers are computed by loops over the instants (``loops``, over the apparent places
of ``apparent`` and the design instant of ``design_instant``), one instant at a time in a
fixed order of operations: a chart's numbers are bit for bit the same whatever else is
computed with it, and one code serves one chart and a million. The loops run compiled
(numba) or, for a few instants while the compiled code is not loaded yet in the process,
as plain Python over the same code, with the same numbers (see
:mod:`bodygraph.ephemeris.fast.jit`); once a process has computed a few hundred instants
that way, a thread loads the compiled code while the calls go on in plain Python
(:mod:`bodygraph.ephemeris.fast.background`), and they switch to it when it is ready.
Inputs and outputs are arrays with time last. The engine holds only immutable arrays
and thread-safe switches, so one instance may serve many threads (the compiled kernels
release the GIL).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from threading import Event, Lock
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from bodygraph._time import TT
from bodygraph._typing import FloatArray
from bodygraph.ephemeris.fast import apparent, loops
from bodygraph.ephemeris.fast.background import BackgroundLoad
from bodygraph.ephemeris.fast.chebyshev import (
    MappedRecords,
    load_segments,
    pack_coefficients,
    segment_table,
)
from bodygraph.ephemeris.fast.design_instant import design_offsets
from bodygraph.ephemeris.fast.frames import nutation_table
from bodygraph.ephemeris.fast.jit import can_compile, compiled, fastest
from bodygraph.errors import EphemerisError, InvalidOptionError
from bodygraph.model.chart import NodeKind

_Chain = tuple[tuple[int, int], ...]
EARTH: _Chain = ((0, 3), (3, 399))
#: Segment chains from the solar-system barycenter, in the order of ENGINE_BODIES.
CHAINS: dict[str, _Chain] = {
    "sun": ((0, 10),),
    "moon": ((0, 3), (3, 301)),
    "mercury": ((0, 1), (1, 199)),
    "venus": ((0, 2), (2, 299)),
    "mars": ((0, 4),),
    "jupiter": ((0, 5),),
    "saturn": ((0, 6),),
    "uranus": ((0, 7),),
    "neptune": ((0, 8),),
    "pluto": ((0, 9),),
}
TARGETS: tuple[str, ...] = tuple(CHAINS)
#: The Moon and the Earth about their barycenter: the Moon's geocentric state.
MOON_STATE: _Chain = ((3, 301), (3, 399))
_PAIRS: tuple[tuple[int, int], ...] = tuple(
    sorted({pair for chain in (EARTH, MOON_STATE, *CHAINS.values()) for pair in chain})
)
_NODES: dict[str, int] = {"true": apparent.TRUE_NODE, "mean": apparent.MEAN_NODE}
#: How the engine runs its loops: ``"auto"`` (plain Python for calls of up to
#: ``PLAIN_CALL`` instants until the compiled code is loaded for the engine, compiled
#: otherwise, or plain Python where numba is not installed), ``"compiled"`` (needs
#: numba) or ``"plain"``. The numbers are the same.
Mode = Literal["auto", "compiled", "plain"]
#: Plain Python costs about a millisecond per instant, loading the compiled code about
#: a CPU-second once per process, compiling it some seconds once per machine, and a
#: process that ends while the load runs waits for the step it is in (docs/performance.md).
#: In ``"auto"`` mode a thread starts loading (or compiling) the compiled code once
#: ``LOAD_AFTER`` instants have been computed as plain Python: a process that has come
#: that far is likely to compute many more.
PLAIN_CALL = 16
LOAD_AFTER = 256
#: The loops whose compiled forms the engine calls (each compiles the kernels it calls).
ENTRY_LOOPS = (loops.positions, loops.epochs, design_offsets)


def _node_code(node: NodeKind | None) -> int:
    if node is None:
        return apparent.NO_NODE
    if node not in _NODES:
        raise InvalidOptionError(f"node must be 'true' or 'mean', not {node!r}")
    return _NODES[node]


def _split(tt: TT) -> tuple[FloatArray, FloatArray]:
    """Writeable, contiguous float64 (N,) arrays of a TT's whole and fraction parts: the
    one array type the kernels are compiled for (numba compiles a new version, for
    seconds, for each new type, read-only arrays included)."""
    whole = np.atleast_1d(np.asarray(tt.whole, dtype=np.float64))
    fraction = np.atleast_1d(np.asarray(tt.fraction, dtype=np.float64))
    whole, fraction = np.broadcast_arrays(whole, fraction)
    return np.array(whole, order="C"), np.array(fraction, order="C")


class FastEngine:
    """Compiled :class:`~bodygraph.ephemeris.engine.PositionEngine` over a JPL type 2
    kernel: arrays of N instants in, arrays out."""

    def __init__(self, kernel_path: Path, *, mode: Mode = "auto") -> None:
        if mode not in ("auto", "compiled", "plain"):
            raise InvalidOptionError(f"mode must be 'auto', 'compiled' or 'plain', not {mode!r}")
        self.kernel_path = Path(kernel_path)
        self.mode: Mode = mode
        segments = load_segments(self.kernel_path, _PAIRS)
        starts = [s.first_jd for s in segments.values()]
        ends = [s.first_jd + s.records * s.interval for s in segments.values()]
        self.first_jd = max(starts)
        self.last_jd = min(ends)
        # Segments that are identically zero (Mercury and Venus inside their barycenters)
        # cost time and add nothing.
        kept = [pair for pair in _PAIRS if not segments[pair].is_zero()]
        self._kept = [segments[p] for p in kept]
        self.segments = segment_table(self._kept)
        self._mapped = MappedRecords(self._kept)
        self._packed: FloatArray | None = None
        self._lock = Lock()
        self._counting = Lock()
        self._plain_instants = 0
        #: Set once the compiled loops are loaded for this engine's arrays, or about to
        #: be by a call that waits for them: from then on every call runs compiled.
        self._compiled_ready = Event()
        self._background = BackgroundLoad(self._load_steps, "bodygraph-load-compiled")
        index = {pair: i for i, pair in enumerate(kept)}

        def chain(pairs: _Chain) -> list[int]:
            found = [index[pair] for pair in pairs if pair in index]
            return found + [-1] * (2 - len(found))

        rows = [chain(CHAINS[name]) for name in TARGETS] + [chain(EARTH), chain(MOON_STATE)]
        self.chains = np.array(rows, dtype=np.int64)
        self.every = np.arange(len(kept), dtype=np.int64)
        self.sun = np.array(sorted({s for s in (*rows[apparent.EARTH], *rows[0]) if s >= 0}),
                            dtype=np.int64)
        self.span = np.array([self.first_jd, self.last_jd])
        self.nutation = nutation_table()
        self._nutation_rows = self.nutation.tolist()
        for array in (self.chains, self.every, self.sun, self.span):
            array.flags.writeable = False

    @property
    def coefficients(self) -> FloatArray:
        """Every record of the kernel's segments in one array (read on first use)."""
        with self._lock:
            if self._packed is None:
                self._packed = pack_coefficients(self._kept)
            return self._packed

    def prepare(self) -> None:
        """Load the compiled kernels (from numba's cache, or compile them) and read the
        whole kernel, so that no later call pays for it: run each loop, compiled, once.
        Where numba is not installed this only runs each loop once, as plain Python.
        A background load under way is waited for (its thread then ends at once): no
        thread of the engine's is left running (a batch forks its workers only from a
        process with one thread)."""
        self._compiled_ready.set()
        for _ in self._run_each_loop():
            pass
        self._background.wait()

    def serves_compiled(self) -> bool:
        """Whether calls of any size now run compiled (in ``"auto"`` mode: the compiled
        code is loaded, or being loaded by a call that waits for it)."""
        return self.mode == "compiled" or (
            self.mode == "auto" and self._compiled_ready.is_set() and can_compile())

    def wait_for_compiled(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` seconds) for the background load of the compiled
        code, if one was started; whether calls now run compiled."""
        self._background.wait(timeout)
        return self.serves_compiled()

    def _run_each_loop(self) -> Iterator[None]:
        """Run each loop once on one instant (a step per loop)."""
        middle = TT(np.array([np.floor((self.first_jd + self.last_jd) / 2.0)]),
                    np.array([0.5]))
        _, _, _ = self.epochs(middle, "true")
        yield
        sun = self.sun_longitude(middle)
        yield
        self.solve_design(middle, sun)
        yield

    def _load_steps(self) -> Iterator[None]:
        """The background load: import numba (plain Python stays where it cannot be
        imported), load or compile each loop for the engine's arrays, then switch."""
        if fastest(loops.epochs) is loops.epochs:
            return
        yield
        yield from self._run_each_loop()
        self._compiled_ready.set()

    def _count_plain(self, size: int) -> None:
        """Count instants computed as plain Python; start the background load when
        there have been enough of them."""
        with self._counting:
            self._plain_instants += size
            if (not self._background.started and self._plain_instants >= LOAD_AFTER
                    and can_compile()):
                self._background.start()

    def _loop(self, function: Callable[..., None],
              size: int) -> tuple[Callable[..., None], Any, Any]:
        """The form of a loop to run over ``size`` instants, and the coefficients and the
        nutation table it takes (for plain Python, as lists of Python floats: faster to
        read there than numpy's scalars, and the same numbers)."""
        if self.mode == "auto":
            self._background.raise_failure()
            plain = (size <= PLAIN_CALL and not self._compiled_ready.is_set()
                     and not self._background.in_thread())
            if not plain and not self._background.in_thread() and can_compile():
                self._compiled_ready.set()  # this call loads it; the others may use it
        else:
            plain = self.mode == "plain"
        if plain:
            if self.mode == "auto":
                self._count_plain(size)
            return function, self._mapped, self._nutation_rows
        if self.mode == "compiled":
            return compiled(function), self.coefficients, self.nutation
        run = fastest(function)  # plain Python where numba is not installed
        if run is function:
            return run, self._mapped, self._nutation_rows
        return run, self.coefficients, self.nutation

    def close(self) -> None:
        """Nothing to release: the file's memory map goes with the engine."""

    def _raise(self, status: npt.NDArray[np.uint8]) -> None:
        if not status.any():
            return
        if (status == apparent.OUTSIDE).any():
            raise EphemerisError(
                f"an instant lies outside the kernel {self.kernel_path} "
                f"(TDB JD {self.first_jd + 1.0} to {self.last_jd})"
            )
        raise EphemerisError("the design instant did not converge")

    def _positions(self, tt: TT, bodies: int, node: NodeKind | None, *,
                   vectors: bool = False) -> tuple[FloatArray, FloatArray]:
        """Longitudes (11, N) and vectors (3, 10, N or 0)."""
        code = _node_code(node)
        whole, fraction = _split(tt)
        n = whole.shape[0]
        longitudes = np.zeros((11, n))
        vector_out = np.zeros((3, 10, n if vectors else 0))
        status = np.zeros(n, dtype=np.uint8)
        needed = self.sun if bodies <= 1 and code != apparent.TRUE_NODE else self.every
        run, coefficients, table = self._loop(loops.positions, n)
        run(coefficients, self.segments, self.chains, table, self.span, needed, whole,
            fraction, bodies, code, longitudes, vector_out, status)
        self._raise(status)
        return longitudes, vector_out

    def apparent(self, tt: TT) -> FloatArray:
        """Apparent geocentric positions (GCRS, km) of the ten bodies of CHAINS, in that
        order: shape (3, 10, N)."""
        return self._positions(tt, len(TARGETS), None, vectors=True)[1]

    def sun_longitude(self, tt: TT) -> FloatArray:
        """Apparent longitude of the Sun, degrees in [0, 360), shape (N,)."""
        longitudes: FloatArray = self._positions(tt, 1, None)[0][0]
        return longitudes

    def solve_design(self, birth: TT, birth_sun: FloatArray) -> TT:
        """Design instants: when the apparent Sun stood ``design.SOLAR_ARC_DEG`` behind
        ``birth_sun``. The Sun is evaluated at the three instants ``design_instant.DESIGN_SAMPLES``
        around the low-precision guess and the parabola through them solved: each
        chart's answer depends on its own birth only."""
        whole, fraction = _split(birth)
        sun = np.ascontiguousarray(np.broadcast_to(
            np.asarray(birth_sun, dtype=np.float64), whole.shape))
        offsets = np.zeros(whole.shape[0])
        status = np.zeros(whole.shape[0], dtype=np.uint8)
        run, coefficients, table = self._loop(design_offsets, whole.shape[0])
        run(coefficients, self.segments, self.chains, table, self.span, self.sun, whole,
            fraction, sun, offsets, status)
        self._raise(status)
        return TT(whole, fraction + offsets)

    def epochs(self, birth: TT, node: NodeKind) -> tuple[FloatArray, TT, FloatArray]:
        """Both epochs of N charts: longitudes of ENGINE_BODIES at birth (11, N), the
        design instants, and the longitudes at design (11, N)."""
        code = _node_code(node)
        if code == apparent.NO_NODE:
            raise InvalidOptionError("node must be 'true' or 'mean', not None")
        whole, fraction = _split(birth)
        n = whole.shape[0]
        # In time order, neighbouring charts read the same records of the kernel (a
        # chart's numbers do not depend on the order; only the cache does).
        order = np.argsort(whole + fraction, kind="stable") if n > 1 else None
        if order is not None:
            whole, fraction = whole[order], fraction[order]
        rows = np.zeros((2, 11, n))
        design = np.zeros(n)
        status = np.zeros(n, dtype=np.uint8)
        run, coefficients, table = self._loop(loops.epochs, n)
        run(coefficients, self.segments, self.chains, table, self.span, self.every,
            self.sun, whole, fraction, code, rows[0], design, rows[1], status)
        self._raise(status)
        if order is None:
            return rows[0], TT(whole, design), rows[1]
        unsorted = np.empty_like(rows)
        unsorted[..., order] = rows
        design_whole, design_fraction = np.empty_like(whole), np.empty_like(design)
        design_whole[order] = whole
        design_fraction[order] = design
        return unsorted[0], TT(design_whole, design_fraction), unsorted[1]

    def true_node_longitude(self, tt: TT) -> FloatArray:
        """Osculating ascending node of the geocentric lunar orbit, true ecliptic of date."""
        node: FloatArray = self._positions(tt, 0, "true")[0][10]
        return node

    def mean_node_longitude(self, tt: TT) -> FloatArray:
        """Mean ascending node (Meeus 47.7) on the true equinox of date (IAU 2000B)."""
        node: FloatArray = self._positions(tt, 0, "mean")[0][10]
        return node

    def longitudes(self, tt: TT, node: NodeKind) -> FloatArray:
        """Apparent longitudes of ENGINE_BODIES, degrees in [0, 360), shape (11, N)."""
        if node is None:
            raise InvalidOptionError("node must be 'true' or 'mean', not None")
        return self._positions(tt, len(TARGETS), node)[0]
