"""The one place where the service calls the library beyond one chart: transits,
connections, pentas (``bodygraph.relations``) and batches of charts
(``bodygraph.calculate_many``).

Every ``data`` object is the library result's ``to_dict()`` (the JSON of the command
line's ``--json``) or ``Chart.to_v2()`` (the contract's ChartResult): one definition
each. The functions are blocking (run them in a worker thread) and raise, or return for
each batch item, the library's typed errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bodygraph.errors import BodygraphError
    from bodygraph.model.chart import Chart

LocalBirth = tuple[date, time, float, float]
"""A local birth date and time at a point (latitude, longitude)."""


def transit_data(at: datetime, natal: Chart | None) -> dict[str, Any]:
    """``bodygraph transit --json``: the sky at ``at``, over ``natal`` if given."""
    from bodygraph.relations import transit

    return transit(at, natal=natal).to_dict()


def connection_data(first: Chart, second: Chart) -> dict[str, Any]:
    """``bodygraph connection --json`` of person 1 ``first`` and person 2 ``second``."""
    from bodygraph.relations import connection

    return connection(first, second).to_dict()


def penta_data(members: Sequence[Chart]) -> dict[str, Any]:
    """``bodygraph penta --json`` of 3 to 5 charts."""
    from bodygraph.relations import penta

    return penta(members).to_dict()


def _utc(birth: LocalBirth) -> datetime:
    from bodygraph.geo.timezones import local_to_utc

    birthdate, birthtime, lat, lng = birth
    return local_to_utc(datetime.combine(birthdate, birthtime), lat=lat, lng=lng).utc


def batch_chart_data(births: Sequence[LocalBirth]) -> list[dict[str, Any] | BodygraphError]:
    """The ChartResult of every birth, or the library's error for it, in order.

    Each local time is placed in the zone of its point; the instants the ephemeris
    serves are computed together by one ``calculate_many`` call (columnar); an instant
    outside the ephemeris gets the :class:`~bodygraph.errors.OutOfRangeError` a single
    chart would raise."""
    from bodygraph.calculator import calculate_many
    from bodygraph.errors import BodygraphError, OutOfRangeError

    outcomes: list[dict[str, Any] | BodygraphError] = []
    instants: dict[int, datetime] = {}
    for i, birth in enumerate(births):
        try:
            instants[i] = _utc(birth)
        except BodygraphError as exc:
            outcomes.append(exc)
            continue
        outcomes.append({})
    try:
        table = calculate_many(list(instants.values()))
    except OutOfRangeError as exc:  # mark every instant outside the range, chart the rest
        for i, utc in list(instants.items()):
            if not exc.first <= utc <= exc.last:
                outcomes[i] = OutOfRangeError(utc, exc.first, exc.last)
                del instants[i]
        table = calculate_many(list(instants.values()))
    for i, chart in zip(instants, table, strict=True):
        outcomes[i] = chart.to_v2()
    return outcomes
