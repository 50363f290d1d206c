"""The one place the service calls the library beyond one chart: transits, connections,
pentas, sensitivity, cycles, the calendar and batches of charts, each ``data`` the command
line's ``--json`` of the same result (docs/api.md); blocking, raising the library's errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from bodygraph.columnar import ChartTable
    from bodygraph.errors import BodygraphError
    from bodygraph.model.chart import Chart
    from bodygraph.relations import Transit
    from bodygraph.relations.calendar import Level
    from bodygraph.relations.calendar_blocks import BlockSource

LocalBirth = tuple[date, time, float, float]
"""A local birth date and time at a point (latitude, longitude)."""


def served_instant(at: datetime, member: str) -> None:
    """Check that the ephemeris serves the instant ``at``, a request's ``member`` that is
    not a birth: else the library's ``OutOfRangeError`` reaching ``member`` (which the
    errors table answers 422, as any search reaching outside; a birth's is 400)."""
    import numpy as np

    from bodygraph.relations.common import calculator_or_default, check_span

    moment = np.datetime64(at.astimezone(UTC).replace(tzinfo=None), "us")
    check_span(calculator_or_default(None), moment, moment, member)


class Result(Protocol):
    """A library result: its JSON and the words of that JSON in a language."""

    def to_dict(self) -> dict[str, Any]: ...

    def labels(self, lang: str) -> Any: ...


@dataclass(frozen=True, slots=True)
class Worded:
    """A result's ``data`` and its ``labels(lang)``: the result's own, the one definition
    of its words (the command line's ``--json --lang`` prints the same)."""

    data: dict[str, Any] | list[Any]
    labels: Callable[[str], Any]


def worded(result: Result) -> Worded:
    """The ``data`` and labels of a library result."""
    return Worded(result.to_dict(), result.labels)


def transit_of(at: datetime, natal: Chart | None) -> Transit:
    """The sky at ``at`` (the member ``at``: :func:`served_instant`), over ``natal`` if
    given: its ``to_dict()`` is ``bodygraph transit --json`` (the picture of it:
    :func:`bodygraph.render.from_relations.transit_input`)."""
    from bodygraph.relations import transit

    served_instant(at, "at")
    return transit(at, natal=natal)


def sky_at(at: datetime, member: str) -> Chart:
    """The chart of the instant ``at``, a request's ``member`` (:func:`served_instant`)."""
    from bodygraph import calculate

    served_instant(at, member)
    return calculate(at)


def connection_data(first: Chart, second: Chart) -> Worded:
    """``bodygraph connection --json`` of person 1 ``first`` and person 2 ``second``."""
    from bodygraph.relations import connection

    return worded(connection(first, second))


def penta_data(members: Sequence[Chart]) -> Worded:
    """``bodygraph penta --json`` of 3 to 5 charts."""
    from bodygraph.relations import penta

    return worded(penta(members))


def sensitivity_data(birth: Chart, minutes: int) -> Worded:
    """``bodygraph sensitivity --window <minutes>m --json`` of the chart's birth."""
    from bodygraph.relations import sensitivity

    return worded(sensitivity(birth.birth_utc, timedelta(minutes=minutes)))


def cycles_data(birth: Chart, year: int) -> Worded:
    """``bodygraph cycles --year <year> --json`` of the chart's birth."""
    from bodygraph.relations.cycles import cycles_of

    return worded(cycles_of(birth.birth_utc, year))


def cycles_ical(birth: Chart, year: int, lang: str | None = None) -> bytes:
    """``bodygraph cycles --year <year> --ics - [--lang <lang>]`` of the chart's birth: the
    iCalendar document of the same cycles, its words in ``lang`` (None: English)."""
    from bodygraph.relations.cycles import cycles_of
    from bodygraph.relations.ical import cycles_to_ical, event_words

    return cycles_to_ical(cycles_of(birth.birth_utc, year), words=event_words(lang or "en"))


def calendar_data(first_day: date, last_day: date, bodies: Sequence[str],
                  level: Level, blocks: BlockSource | None = None) -> Worded:
    """The list ``bodygraph calendar --json`` prints (and each ingress's labels), from the
    start of ``first_day`` to the end of ``last_day`` (UTC): the library's calendar, its
    months taken from ``blocks`` (the service's cache,
    :mod:`bodygraph_server.calendar_cache`) when given (the same answer,
    :func:`bodygraph.relations.calendar.calendar_columns`)."""
    from bodygraph.relations.calendar import calendar_columns

    start = datetime.combine(first_day, time(), tzinfo=UTC)
    end = datetime.combine(last_day + timedelta(days=1), time(), tzinfo=UTC)
    found = calendar_columns(start, end, bodies, level, blocks=blocks)
    return Worded(found.to_dicts(), found.labels)


def calendar_ical(first_day: date, last_day: date, bodies: Sequence[str], level: Level,
                  blocks: BlockSource | None = None, lang: str | None = None) -> bytes:
    """The same calendar as :func:`calendar_data` as an iCalendar document (``bodygraph
    calendar --ics - [--lang <lang>]``): one event per ingress, its words in ``lang``."""
    from bodygraph.relations.calendar import calendar_columns
    from bodygraph.relations.ical import event_words, to_ical

    start = datetime.combine(first_day, time(), tzinfo=UTC)
    end = datetime.combine(last_day + timedelta(days=1), time(), tzinfo=UTC)
    return to_ical(calendar_columns(start, end, bodies, level, blocks=blocks), level,
                   first=first_day.isoformat(), last=last_day.isoformat(),
                   words=event_words(lang or "en"))


def _utc(birth: LocalBirth) -> datetime:
    from bodygraph.geo.timezones import local_to_utc

    birthdate, birthtime, lat, lng = birth
    return local_to_utc(datetime.combine(birthdate, birthtime), lat=lat, lng=lng).utc


def batch_chart_data(births: Sequence[LocalBirth]) -> list[dict[str, Any] | BodygraphError]:
    """The ChartResult of every birth, or the library's error for it, in order.

    Each local time is placed in the zone of its point; the instants the ephemeris
    serves are computed together by one ``calculate_many`` call and written from its
    columns (:func:`chart_results`); an instant
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
    for i, result in zip(instants, chart_results(table), strict=True):
        outcomes[i] = result
    return outcomes


@cache
def _long_names() -> dict[str, str]:
    """``channelsLong`` text of every channel by short name, written by the contract's
    own function."""
    from bodygraph.catalog.tables import tables
    from bodygraph.model.contract import channels_long_v2

    channels = tables().channels
    texts = channels_long_v2(cast("Chart", SimpleNamespace(channels=channels)))
    return {c.short: text for c, text in zip(channels, texts, strict=True)}


def _listed(text: str) -> list[str]:
    return text.split(";") if text else []


def chart_results(table: ChartTable) -> list[dict[str, Any]]:
    """``chart.to_v2()`` of every chart of the table, written from its columns (about ten
    times faster than making each :class:`Chart`): the fields and their order are the
    contract's (``bodygraph.model.contract.FULL_FIELDS``); every text is the table's own
    column (``ChartTable.columns``: the chart's phrases, looked up); ``channelsLong`` is
    the contract's wording; ``gates`` lists the gates in order of first appearance,
    personality then design, in ``GATE_ORDER`` (``rules.properties.gate_list``). The tests
    hold the result equal to ``to_v2()`` of the same charts."""
    import numpy as np

    from bodygraph.columnar import SIDES
    from bodygraph.model.chart import BODIES, GATE_ORDER
    from bodygraph.model.contract import FULL_FIELDS

    columns = {name: values.tolist() for name, values in table.columns().items()}
    order = [BODIES.index(body) for body in GATE_ORDER]
    gate_rows = np.concatenate([table.gate[0][order], table.gate[1][order]]).T.tolist()
    births = [t + "Z" for t in np.datetime_as_string(table.birth_utc, unit="ms").tolist()]
    sides = {side: [(body.value, columns[f"{side}_{body.v1_key}"]) for body in BODIES]
             for side in SIDES}
    longs = _long_names()
    plain = [(v2, columns[v1]) for v2, v1, *_ in FULL_FIELDS if v1 in columns]
    results = []
    for i in range(len(table)):
        shorts = _listed(columns["channels"][i])
        special = {
            "channelsShort": shorts,
            "centers": _listed(columns["centers"][i]),
            "channelsLong": [longs[short] for short in shorts],
            "gates": [str(g) for g in dict.fromkeys(gate_rows[i])],
            "activations": {side: {body: values[i] for body, values in sides[side]}
                            for side in ("design", "personality")},
            "birthDateUtc": births[i],
        }
        known = {v2: values[i] for v2, values in plain}
        results.append({v2: special[v2] if v2 in special else known[v2]
                        for v2, *_ in FULL_FIELDS})
    return results
