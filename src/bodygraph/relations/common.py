"""What the time searches share: the calculator of a kernel, the instants they take
(:data:`Births`), range checks that speak of what was asked, and the text of an instant in
the answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware, utc_text
from bodygraph.calculator import Calculator, default_calculator
from bodygraph.errors import OutOfRangeError

Births = Sequence[datetime] | npt.NDArray[Any]


def calculator_or_default(calculator: Calculator | None) -> Calculator:
    """``calculator``, or the shared default one (``$BODYGRAPH_EPHEMERIS`` or the shipped
    DE440 excerpt)."""
    return calculator if calculator is not None else default_calculator(None)


def check_span(calculator: Calculator, first: np.datetime64, last: np.datetime64,
               what: str) -> None:
    """Raise :class:`OutOfRangeError` naming ``what`` when [first, last] leaves the
    instants the kernel serves."""
    bad = ~calculator.in_range(np.array([first, last], dtype="datetime64[us]"))
    if not bad.any():
        return
    raise OutOfRangeError(to_aware(first if bad[0] else last), calculator.first_birth,
                          calculator.last_birth, reaching=what,
                          remedy="use a calculator of a larger kernel (or BODYGRAPH_EPHEMERIS)")


def to_second(instant: datetime) -> datetime:
    """The instant rounded to the nearest whole second (UTC)."""
    moment = instant.astimezone(UTC)
    rounded = moment.replace(microsecond=0)
    return rounded + timedelta(seconds=1) if moment.microsecond >= 500_000 else rounded


def instant_text(instant: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.000Z``: the instant to the nearest second, written like a
    chart's ``birthDateUtc``."""
    return utc_text(to_second(instant))
