"""The fast engine against the Skyfield reference: every body and both nodes within
0.05 arcsecond on random instants over 1800-2200."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from bodygraph._time import TT
from bodygraph.calculator import _ROW as CALCULATOR_ROWS
from bodygraph.ephemeris.fast.engine import CHAINS, FastEngine
from bodygraph.ephemeris.fast.frames import centuries, nutation_longitude
from bodygraph.ephemeris.kernel import shipped_kernel
from bodygraph.ephemeris.reference import ENGINE_BODIES, SkyfieldEngine, mean_node_longitude
from bodygraph.errors import EphemerisError

from .helpers import random_tt

TOLERANCE_ARCSEC = 0.05


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[FastEngine, SkyfieldEngine]]:
    kernel = shipped_kernel()
    reference = SkyfieldEngine(kernel)
    yield FastEngine(kernel, mode="compiled"), reference
    reference.close()


def _arcsec(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.abs((a - b + 180.0) % 360.0 - 180.0) * 3600.0
    return out


def test_rows_are_the_engine_bodies() -> None:
    assert tuple(CALCULATOR_ROWS) == ENGINE_BODIES
    assert (*CHAINS, "node") == ENGINE_BODIES


@pytest.mark.parametrize("node", ["true", "mean"])
def test_every_body_agrees_with_skyfield(engines: tuple[FastEngine, SkyfieldEngine],
                                         node: str) -> None:
    fast, reference = engines
    tt = random_tt(300, seed=11 if node == "true" else 12)
    ours = fast.longitudes(tt, node)  # type: ignore[arg-type]
    theirs = reference.longitudes(tt, node)  # type: ignore[arg-type]
    assert ours.shape == theirs.shape == (11, 300)
    error = _arcsec(ours, theirs)
    worst = dict(zip(ENGINE_BODIES, error.max(axis=1).round(4).tolist(), strict=True))
    assert error.max() < TOLERANCE_ARCSEC, worst
    assert np.all((ours >= 0.0) & (ours < 360.0))


def test_sun_longitude_agrees(engines: tuple[FastEngine, SkyfieldEngine]) -> None:
    fast, reference = engines
    tt = random_tt(300, seed=13)
    assert _arcsec(fast.sun_longitude(tt), reference.sun_longitude(tt)).max() < TOLERANCE_ARCSEC
    # ... and with the Sun row of ``longitudes`` to the microarcsecond.
    assert _arcsec(fast.sun_longitude(tt), fast.longitudes(tt, "true")[0]).max() < 1e-6


def test_what_remains_is_the_nutation_model(engines: tuple[FastEngine, SkyfieldEngine]) -> None:
    """Take away the difference between IAU 2000B and Skyfield's full IAU 2000A and the
    engines agree to well under a milliarcsecond: light time, deflection, aberration,
    precession and the node are the same physics."""
    from skyfield.nutationlib import iau2000a_radians

    fast, reference = engines
    tt = random_tt(200, seed=14)
    full, _ = iau2000a_radians(tt.time())
    model = np.degrees(nutation_longitude(centuries(tt.whole, tt.fraction)) - full)
    residual = _arcsec(fast.longitudes(tt, "true") - model, reference.longitudes(tt, "true"))
    assert residual.max() < 0.001


def test_mean_node_is_the_reference_formula(engines: tuple[FastEngine, SkyfieldEngine]) -> None:
    fast, _ = engines
    tt = random_tt(100, seed=15)
    assert _arcsec(fast.mean_node_longitude(tt), mean_node_longitude(tt)).max() < 0.01


def test_apparent_vectors_have_the_right_shape(
    engines: tuple[FastEngine, SkyfieldEngine],
) -> None:
    fast, _ = engines
    vectors = fast.apparent(random_tt(5, seed=16))
    assert vectors.shape == (3, 10, 5)
    distance_au = np.sqrt((vectors**2).sum(axis=0)) / 149597870.7
    assert np.all((distance_au[0] > 0.98) & (distance_au[0] < 1.02))  # the Sun
    assert np.all(distance_au[1] < 0.003)  # the Moon


def test_outside_the_kernel_is_an_error(engines: tuple[FastEngine, SkyfieldEngine]) -> None:
    fast, _ = engines
    with pytest.raises(EphemerisError, match="outside the kernel"):
        fast.sun_longitude(TT(np.array([2300000.5]), np.array([0.0])))


def test_unknown_node_is_an_error(engines: tuple[FastEngine, SkyfieldEngine]) -> None:
    from bodygraph.errors import InvalidOptionError

    fast, _ = engines
    with pytest.raises(InvalidOptionError, match="node must be 'true' or 'mean'"):
        fast.longitudes(random_tt(1, seed=1), "osculating")  # type: ignore[arg-type]


def test_own_design_solver_matches_the_generic_one(
    engines: tuple[FastEngine, SkyfieldEngine],
) -> None:
    from bodygraph.ephemeris.design import SOLAR_ARC_DEG, solve_design

    fast, _ = engines
    rng = np.random.default_rng(17)
    jd = rng.uniform(2378496.5 + 100.0, 2524593.5 - 2.0, 400)
    birth = TT(np.floor(jd), jd - np.floor(jd))
    sun = fast.sun_longitude(birth)
    ours = fast.solve_design(birth, sun)
    generic = solve_design(fast, birth, sun)
    seconds = ((ours.whole - generic.whole) + (ours.fraction - generic.fraction)) * 86400.0
    assert np.abs(seconds).max() < 1e-4
    residual = _arcsec(fast.sun_longitude(ours), np.mod(sun - SOLAR_ARC_DEG, 360.0))
    assert residual.max() < 1e-5  # the Sun moves 1e-5" in a quarter of a millisecond
    offsets = (ours.whole - birth.whole) + (ours.fraction - birth.fraction)
    assert np.all((offsets > -93.0) & (offsets < -86.0))


def test_any_input_array_runs_the_compiled_version(
    engines: tuple[FastEngine, SkyfieldEngine],
) -> None:
    """Read-only, strided, scalar or integer inputs give the same numbers as plain arrays
    and never make numba compile another version of a kernel (seconds, in a request)."""
    from bodygraph.ephemeris.fast import loops
    from bodygraph.ephemeris.fast.jit import compiled

    fast_kernel = compiled(loops.positions)
    fast, _ = engines
    tt = random_tt(6, seed=18)
    expected = fast.longitudes(tt, "true")
    before = len(fast_kernel.signatures)
    whole, fraction = tt.whole.copy(), tt.fraction.copy()
    whole.flags.writeable = fraction.flags.writeable = False
    assert np.array_equal(fast.longitudes(TT(whole, fraction), "true"), expected)
    wide = np.repeat(tt.fraction, 2)[::2]  # a strided view
    assert np.array_equal(fast.longitudes(TT(tt.whole, wide), "true"), expected)
    one = fast.longitudes(TT(float(tt.whole[0]), float(tt.fraction[0])), "true")
    assert np.array_equal(one[:, 0], expected[:, 0])
    integer = TT(tt.whole.astype(np.int64), tt.fraction)
    assert np.array_equal(fast.longitudes(integer, "true"), expected)
    assert len(fast_kernel.signatures) == before
