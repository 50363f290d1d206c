"""The time-search operations ``POST /v2/sensitivity``, ``/v2/cycles`` and ``/v2/calendar``:
the command line's ``--json`` of the same search (the calendar's months shared by every
caller)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.births import shape_error
from bodygraph_server.http.envelope import JSON_MEDIA_TYPE, Envelope
from bodygraph_server.http.openapi import sentences
from bodygraph_server.http.operation import Operation
from bodygraph_server.relations_charting import (
    Worded,
    calendar_data,
    calendar_ical,
    cycles_data,
    cycles_ical,
    sensitivity_data,
)
from bodygraph_server.resources.computed import (
    EXTENSION_NOTE,
    Computed,
    Job,
    computed_operation,
    without_services,
)
from bodygraph_server.resources.time_searches.bodies import (
    CALENDAR_INPUT,
    CYCLES_INPUT,
    SENSITIVITY_INPUT,
    request_schemas,
)
from bodygraph_server.resources.time_searches.results import result_schemas
from bodygraph_server.services import Services

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart


def parse_sensitivity(body: dict[str, Any]) -> Job:
    """The job of a :data:`~bodygraph_server.resources.time_searches.bodies.
    SENSITIVITY_INPUT`."""
    sensitivity = SENSITIVITY_INPUT.parse(body)

    def compute(charts: Sequence[Chart]) -> Worded:
        return sensitivity_data(charts[0], sensitivity.minutes)

    return Job((sensitivity.birth,), compute)


#: The media type of the iCalendar answers (``Accept: text/calendar``).
ICALENDAR = "text/calendar"


def parse_cycles(body: dict[str, Any]) -> Job:
    """The job of a :data:`~bodygraph_server.resources.time_searches.bodies.CYCLES_INPUT`;
    the year must come after the year of birth."""
    cycles = CYCLES_INPUT.parse(body)
    year = cycles.year

    def after_birth(charts: Sequence[Chart]) -> Chart:
        if year <= charts[0].birth_utc.year:
            raise shape_error("year must come after the year of birth (UTC)")
        return charts[0]

    def compute(charts: Sequence[Chart]) -> Worded:
        return cycles_data(after_birth(charts), year)

    def ical(charts: Sequence[Chart], lang: str | None) -> bytes:
        return cycles_ical(after_birth(charts), year, lang)

    return Job((cycles.birth,), compute, documents={ICALENDAR: ical})


def parse_calendar(body: dict[str, Any], services: Services) -> Job:
    """The job of a :data:`~bodygraph_server.resources.time_searches.bodies.
    CALENDAR_INPUT`; the months come from the worker's shared cache
    (:mod:`bodygraph_server.calendar_cache`)."""
    calendar = CALENDAR_INPUT.parse(body)

    def compute(charts: Sequence[Chart]) -> Worded:
        months = services.calendar.source(calendar.level)
        return calendar_data(calendar.first, calendar.last, bodies=calendar.bodies,
                             level=calendar.level, blocks=months)

    def ical(charts: Sequence[Chart], lang: str | None) -> bytes:
        months = services.calendar.source(calendar.level)
        return calendar_ical(calendar.first, calendar.last, bodies=calendar.bodies,
                             level=calendar.level, blocks=months, lang=lang)

    return Job((), compute, documents={ICALENDAR: ical})


SENSITIVITY_RESULT = "SensitivityResult"
CYCLES_RESULT = "CyclesResult"
CALENDAR_RESULT = "CalendarResult"

OPERATIONS: tuple[Operation, ...] = (
    computed_operation(
        computed=Computed(path="/v2/sensitivity", type_name=SENSITIVITY_RESULT,
                          message="Sensitivity computed",
                          parse=without_services(parse_sensitivity)),
        summary=pgettext("openapi", "Birth-time sensitivity"),
        description=sentences(
            pgettext(
                "openapi", "Every instant within windowMinutes either side of the birth at which "
                "one of the 26 activations changes line, and the segments between them "
                "(`bodygraph sensitivity --json`)."),
            EXTENSION_NOTE),
        body=SENSITIVITY_INPUT),
    computed_operation(
        computed=Computed(path="/v2/cycles", type_name=CYCLES_RESULT, message="Cycles computed",
                          parse=without_services(parse_cycles),
                          media_types=(JSON_MEDIA_TYPE, ICALENDAR)),
        summary=pgettext("openapi", "Cycles"),
        description=sentences(
            pgettext(
                "openapi", "The solar return of `year`, the Saturn returns and the Uranus "
                "oppositions of the birth (`bodygraph cycles --json`); with `Accept: "
                "text/calendar` the same as an RFC 5545 iCalendar document, one event each "
                "(`bodygraph cycles --ics`)."),
            EXTENSION_NOTE),
        body=CYCLES_INPUT),
    computed_operation(
        computed=Computed(path="/v2/calendar", type_name=CALENDAR_RESULT,
                          message="Calendar computed", parse=parse_calendar,
                          media_types=(JSON_MEDIA_TYPE, ICALENDAR)),
        summary=pgettext("openapi", "Ingress calendar"),
        description=sentences(
            pgettext(
                "openapi", "Every instant from the start of `from` to the end of `to` (UTC, at "
                "most 366 days) at which one of `bodies` enters a new gate or line: `data` is "
                "the list `bodygraph calendar --json` prints. The calendar is the same for every "
                "caller: each UTC month of each level is computed once and shared by every "
                "caller, worker and instance of the service (docs/api.md, \"The calendar's "
                'months"); the answer is the same as computed alone. With `Accept: '
                "text/calendar` the same ingresses as an RFC 5545 iCalendar document, one event "
                "each (`bodygraph calendar --ics`)."),
            EXTENSION_NOTE),
        body=CALENDAR_INPUT),
)
"""The time-search operations."""
ENVELOPES = (Envelope(SENSITIVITY_RESULT, place=True), Envelope(CYCLES_RESULT, place=True),
             Envelope(CALENDAR_RESULT))


def schemas() -> dict[str, Any]:
    """The request bodies, results and envelopes of the time searches."""
    return {**request_schemas(), **result_schemas(), **{e.name: e.schema() for e in ENVELOPES}}
