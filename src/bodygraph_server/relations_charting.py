"""The one place where the service calls the library beyond one chart: transits,
connections, pentas, birth-time sensitivity, cycles and the ingress calendar
(``bodygraph.relations``) and batches of charts (``bodygraph.calculate_many``).

Every ``data`` object is the library result's ``to_dict()`` (the JSON of the command
line's ``--json``; for cycles the command's own builder), or ``Chart.to_v2()`` (the
contract's ChartResult): one definition each. The functions are blocking (run them in
a worker thread) and raise, or return for each batch item, the library's typed errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bodygraph.errors import BodygraphError
    from bodygraph.model.chart import Chart
    from bodygraph.relations.calendar import Level

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


def sensitivity_data(birth: Chart, minutes: int) -> dict[str, Any]:
    """``bodygraph sensitivity --window <minutes>m --json`` of the chart's birth."""
    from bodygraph.relations import sensitivity

    return sensitivity(birth.birth_utc, timedelta(minutes=minutes)).to_dict()


def cycles_data(birth: Chart, year: int) -> dict[str, Any]:
    """``bodygraph cycles --year <year> --json`` of the chart's birth."""
    from bodygraph.cli.cycles import cycles_dict

    return cycles_dict(birth.birth_utc, year)


def calendar_data(first_day: date, last_day: date, bodies: Sequence[str],
                  level: Level) -> dict[str, Any]:
    """``{"ingresses": [...]}``: the list of ``bodygraph calendar --json`` from the start of
    ``first_day`` to the end of ``last_day`` (UTC)."""
    from bodygraph.relations import calendar

    start = datetime.combine(first_day, time(), tzinfo=UTC)
    end = datetime.combine(last_day, time(), tzinfo=UTC) + timedelta(days=1)
    return {"ingresses": [i.to_dict() for i in calendar(start, end, bodies, level)]}


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
