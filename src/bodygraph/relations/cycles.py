"""Cycles of a birth: the solar return of a year, the Saturn return and the Uranus
opposition, by root finding on the engine (arrays of births in, instants out).

Returns are measured on the apparent geocentric longitudes of date a chart uses. Ages
are counted in Julian years (365.25 days) from the birth instant. Chiron, which some
traditions add, is not in the JPL DE440 kernel and is not computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from bodygraph._time import as_micros, aware_list, utc64_to_tt
from bodygraph._typing import Micros
from bodygraph.calculator import Calculator, activation_longitudes
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body
from bodygraph.relations.common import Births, calculator_or_default, check_span, instant_text
from bodygraph.relations.labels import cycle_names
from bodygraph.relations.search import US_PER_S, crossings, to_float_units
from bodygraph.rules.wheel import CIRCLE, HALF_CIRCLE

DAY_US = 86_400 * US_PER_S
JULIAN_YEAR_US = 365.25 * DAY_US
TROPICAL_YEAR_US = 365.242189 * DAY_US
#: The solar return is searched this far either side of its mean date (the true Sun
#: strays from it by well under a day).
RETURN_MARGIN_US = 3 * DAY_US
SATURN_AGES = (26.0, 33.0)
URANUS_AGES = (35.0, 48.0)
#: Grid of the bracketing search: the outer planets' stations are months apart.
SLOW_STEP_US = 4 * DAY_US
SUN_STEP_US = DAY_US


def _longitudes(births: Micros, body: Body, calculator: Calculator) -> np.ndarray:
    """Apparent longitudes (degrees) of one body at each UTC instant."""
    rows = calculator.engine.longitudes(utc64_to_tt(births), "true")
    out: np.ndarray = activation_longitudes(rows)[BODIES.index(body)]
    return out


def _passes(births: Micros, body: Body, angle: float, starts: Micros, ends: Micros,
            step_us: int, calculator: Calculator, what: str) -> tuple[np.ndarray, Micros]:
    """Every instant in (start, end] of each birth's window at which ``body`` stands at
    its natal longitude plus ``angle`` degrees: (birth index, instant) in time order."""
    calculator.check_range_micros(births)
    if births.size:
        check_span(calculator, starts.min(), ends.max(), what)
    natal = _longitudes(births, body, calculator)
    target = np.mod(to_float_units(natal) + angle * (HALF_CIRCLE / 180.0), CIRCLE)

    def sample(instants: Micros) -> np.ndarray:
        return _longitudes(instants, body, calculator)[None, :]

    found = crossings(sample, starts, ends, target[None, :], CIRCLE, step_us)
    return found.window, found.at


def _aged(births: Micros, age: float) -> Micros:
    out: Micros = births + np.timedelta64(round(age * JULIAN_YEAR_US), "us")
    return out


def _transits(births: Births, body: Body, angle: float, ages: tuple[float, float], what: str,
              calculator: Calculator | None) -> list[list[datetime]]:
    """Every pass of transit ``body`` over its natal longitude plus ``angle`` degrees
    between the ``ages``, for each birth, in time order."""
    utc = as_micros(births)
    window, at = _passes(utc, body, angle, _aged(utc, ages[0]), _aged(utc, ages[1]),
                         SLOW_STEP_US, calculator_or_default(calculator),
                         f"{what} (ages {ages[0]:g} to {ages[1]:g})")
    out: list[list[datetime]] = [[] for _ in range(utc.shape[0])]
    for i, instant in zip(window.tolist(), aware_list(at), strict=True):
        out[i].append(instant)
    return out


def saturn_returns_many(births: Births, *,
                        calculator: Calculator | None = None) -> list[list[datetime]]:
    """:func:`saturn_returns` of many births at once."""
    return _transits(births, Body.SATURN, 0.0, SATURN_AGES, "the Saturn return", calculator)


def uranus_oppositions_many(births: Births, *,
                            calculator: Calculator | None = None) -> list[list[datetime]]:
    """:func:`uranus_oppositions` of many births at once."""
    return _transits(births, Body.URANUS, 180.0, URANUS_AGES, "the Uranus opposition",
                     calculator)


def saturn_returns(birth_utc: datetime, *,
                   calculator: Calculator | None = None) -> list[datetime]:
    """Every pass of transit Saturn over natal Saturn between ages 26 and 33, retrograde
    passes included (one or three), in time order, to the millisecond."""
    return saturn_returns_many([birth_utc], calculator=calculator)[0]


def uranus_oppositions(birth_utc: datetime, *,
                       calculator: Calculator | None = None) -> list[datetime]:
    """Every pass of transit Uranus over the point opposite natal Uranus between ages 35
    and 48, retrograde passes included, in time order, to the millisecond."""
    return uranus_oppositions_many([birth_utc], calculator=calculator)[0]


def solar_returns(births: Births, years: int | np.ndarray, *,
                  calculator: Calculator | None = None) -> Micros:
    """:func:`solar_return` of many births (and one year or a year per birth), as
    datetime64[us] UTC instants."""
    utc = as_micros(births)
    wanted = np.broadcast_to(np.asarray(years, dtype=np.int64), utc.shape)
    born = utc.astype("datetime64[Y]").astype(np.int64) + 1970
    if utc.size and np.any(wanted <= born):
        raise InvalidOptionError(
            "a solar return year must come after the birth year "
            f"({int(born[np.argmax(wanted <= born)])})")
    mean = utc + np.round((wanted - born) * TROPICAL_YEAR_US).astype("timedelta64[us]")
    margin = np.timedelta64(RETURN_MARGIN_US, "us")
    label = f"the solar return of {int(wanted.max()) if utc.size else ''}"
    window, at = _passes(utc, Body.SUN, 0.0, mean - margin, mean + margin, SUN_STEP_US,
                         calculator_or_default(calculator), label)
    if not np.array_equal(window, np.arange(utc.shape[0])):  # pragma: no cover - the Sun
        raise RuntimeError("the Sun did not return exactly once in its window")
    return at


def solar_return(birth_utc: datetime, year: int, *,
                 calculator: Calculator | None = None) -> datetime:
    """The instant in (about) ``year`` at which the apparent Sun returns to its
    longitude at birth: the return nearest the birthday, to the millisecond."""
    return aware_list(solar_returns([birth_utc], year, calculator=calculator))[0]


@dataclass(frozen=True, slots=True)
class Cycles:
    """The cycles of a birth (``birth``, UTC): the solar return of ``year`` and every
    Saturn return and Uranus opposition pass."""

    birth: datetime
    year: int
    solar: datetime
    saturn: list[datetime]
    uranus: list[datetime]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph cycles --json``."""
        return {"solarReturn": instant_text(self.solar),
                "saturnReturn": [instant_text(t) for t in self.saturn],
                "uranusOpposition": [instant_text(t) for t in self.uranus]}

    def labels(self, lang: str) -> dict[str, str]:
        """The names of the cycles under :meth:`to_dict`'s keys, in ``lang``."""
        return cycle_names(lang)


def cycles_of(birth: datetime, year: int | None,
              calculator: Calculator | None = None) -> Cycles:
    """The cycles of a birth; the solar return of ``year`` (default: this year, or the
    year after the birth)."""
    year = year if year is not None else max(datetime.now(UTC).year, birth.year + 1)
    return Cycles(birth, year, solar_return(birth, year, calculator=calculator),
                  saturn_returns(birth, calculator=calculator),
                  uranus_oppositions(birth, calculator=calculator))
