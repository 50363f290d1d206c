"""The ingress calendar and the cycles of a birth as RFC 5545 iCalendar, written with the
``icalendar`` library (the optional ``ics`` extra): one instant event per ingress or
return, in UTC, with UIDs and stamps that the data alone decides (docs/cycles-and-calendar.md).
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from bodygraph.catalog.translations import (
    SOURCE_LANGUAGE,
    body_name,
    catalog,
    english_body_name,
    pgettext,
)
from bodygraph.errors import BodygraphError
from bodygraph.model.chart import Body, NodeKind
from bodygraph.relations.calendar import Ingress, ingress_list
from bodygraph.relations.calendar_blocks import IngressColumns, Level
from bodygraph.relations.common import to_second

if TYPE_CHECKING:
    from bodygraph.relations.cycles import Cycles

#: The product that writes the calendars (PRODID, RFC 5545 section 3.7.3).
PRODID: Final = "-//bodygraph//bodygraph ingress calendar and cycles//EN"
#: The namespace of the events' UIDs (version 5 UUIDs of what each event is).
UID_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://pypi.org/project/bodygraph/ics")
#: Every event's DTSTAMP: when the events' wording last changed, not when a file was
#: written, so that the same request gives the same bytes; move it forward whenever
#: :data:`ENGLISH` changes, and calendar apps then take the new wording on re-import.
EVENTS_STAMP: Final = datetime(2026, 11, 29, tzinfo=UTC)
#: What to install when the ``icalendar`` library is missing.
ICS_EXTRA: Final = "pip install 'bodygraph[ics]'"


class IcalUnavailableError(BodygraphError):
    """iCalendar output needs the ``icalendar`` library (the ``ics`` extra)."""


@dataclass(frozen=True, slots=True)
class EventWords:
    """The words of the events, one pattern per kind of event (``str.format`` fields in
    braces): the one place a translation of the calendars replaces."""

    body_names: dict[Body, str]
    gate_ingress: str  # {body} {gate} {line}
    line_ingress: str  # {body} {gate} {line}
    gate_description: str  # {summary} {line} {at}
    instant_description: str  # {summary} {at}: of a line ingress or a cycle
    calendar_name: str  # {first} {last}
    solar_return: str  # {year}
    saturn_return: str  # {number} {count}
    uranus_opposition: str  # {number} {count}
    cycles_name: str  # {year}


#: The English words of the events, marked for the catalogs (context ``cli``).
ENGLISH: Final = EventWords(
    body_names={body: english_body_name(body.value) for body in Body},
    gate_ingress=pgettext("cli", "{body} enters gate {gate}"),
    line_ingress=pgettext("cli", "{body} enters line {gate}.{line}"),
    gate_description=pgettext("cli", "{summary} (by line {line}) at {at} UTC."),
    instant_description=pgettext("cli", "{summary} at {at} UTC."),
    calendar_name=pgettext("cli", "Ingresses {first} to {last}"),
    solar_return=pgettext("cli", "Solar return {year}"),
    saturn_return=pgettext("cli", "Saturn return (pass {number} of {count})"),
    uranus_opposition=pgettext("cli", "Uranus opposition (pass {number} of {count})"),
    cycles_name=pgettext("cli", "Solar return {year}, Saturn return and Uranus opposition"),
)

_NODES: Final = (Body.NORTH_NODE, Body.SOUTH_NODE)


def event_words(lang: str) -> EventWords:
    """The words of the iCalendar events (SUMMARY, DESCRIPTION, calendar name) in ``lang``."""
    if lang == SOURCE_LANGUAGE:
        return ENGLISH
    tr = catalog(lang)

    def say(english: str) -> str:
        return tr.pgettext("cli", english)

    return EventWords(
        body_names={body: body_name(body, lang) for body in Body},
        gate_ingress=say(ENGLISH.gate_ingress),
        line_ingress=say(ENGLISH.line_ingress),
        gate_description=say(ENGLISH.gate_description),
        instant_description=say(ENGLISH.instant_description),
        calendar_name=say(ENGLISH.calendar_name),
        solar_return=say(ENGLISH.solar_return),
        saturn_return=say(ENGLISH.saturn_return),
        uranus_opposition=say(ENGLISH.uranus_opposition),
        cycles_name=say(ENGLISH.cycles_name),
    )


def icalendar_module() -> Any:
    """The ``icalendar`` library, or :class:`IcalUnavailableError` naming the extra."""
    try:
        return importlib.import_module("icalendar")
    except ImportError:
        raise IcalUnavailableError(
            f"iCalendar output needs the icalendar library: {ICS_EXTRA}") from None


def _stamp(instant: datetime) -> str:
    """``YYYYMMDDTHHMMSSZ``: the instant to the second, as the UIDs' keys write it."""
    return to_second(instant).strftime("%Y%m%dT%H%M%SZ")


def ingress_uid(ingress: Ingress, level: Level, node: NodeKind = "true") -> str:
    """The UID of an ingress's event: the same for the same body entering the same gate
    and line at the same second (at the same ``level``; for a node, of the same ``node``
    kind), whatever range or other bodies were asked."""
    key = f"ingress/{level}/{ingress.body.value}/{ingress.gate}.{ingress.line}/" \
        f"{_stamp(ingress.at)}" + (f"/{node}" if ingress.body in _NODES else "")
    return str(uuid.uuid5(UID_NAMESPACE, key))


def cycle_uid(kind: str, birth: datetime, at: datetime) -> str:
    """The UID of a cycle's event: of its ``kind``, the birth (to the second) and the
    instant (to the second)."""
    return str(uuid.uuid5(UID_NAMESPACE, f"cycle/{kind}/{_stamp(birth)}/{_stamp(at)}"))


def _event(ical: Any, uid: str, at: datetime, summary: str, description: str) -> Any:
    # An instant: DTSTART alone ("the event will end on the same calendar date and time
    # of day specified by the DTSTART property", RFC 5545 section 3.6.1); TRANSPARENT, as
    # it takes no one's time.
    event = ical.Event.new(uid=uid, stamp=EVENTS_STAMP, start=to_second(at),
                           summary=summary, description=description)
    event.add("transp", "TRANSPARENT")
    return event


def _calendar_bytes(ical: Any, name: str, events: list[Any]) -> bytes:
    # The calendar's own UID (RFC 7986) from its name and its events' UIDs, not a random one.
    key = "\n".join(["calendar", name, *(str(event["UID"]) for event in events)])
    document = ical.Calendar.new(prodid=PRODID, name=name, subcomponents=events,
                                 uid=str(uuid.uuid5(UID_NAMESPACE, key)))
    document.add("calscale", "GREGORIAN")
    out: bytes = document.to_ical()
    return out


def to_ical(ingresses: Sequence[Ingress] | IngressColumns, level: Level = "gate", *,
            node: NodeKind = "true", first: str = "", last: str = "",
            words: EventWords = ENGLISH) -> bytes:
    """The ingresses (:func:`~bodygraph.relations.calendar.calendar` of ``level`` and
    ``node``, or the columns of :func:`~bodygraph.relations.calendar.calendar_columns`)
    as an iCalendar document: one event per ingress, in their order. ``first`` and
    ``last`` (the days asked) name the calendar.

    Raises :class:`IcalUnavailableError` when the ``icalendar`` library is missing."""
    ical = icalendar_module()
    pattern, about = ((words.gate_ingress, words.gate_description) if level == "gate"
                      else (words.line_ingress, words.instant_description))
    if isinstance(ingresses, IngressColumns):
        ingresses = ingress_list(ingresses)
    events = []
    for ingress in ingresses:
        summary = pattern.format(body=words.body_names[ingress.body], gate=ingress.gate,
                                 line=ingress.line)
        description = about.format(
            summary=summary, line=ingress.line, at=_text(ingress.at))
        events.append(_event(ical, ingress_uid(ingress, level, node), ingress.at, summary,
                             description))
    return _calendar_bytes(ical, words.calendar_name.format(first=first, last=last), events)


def cycles_to_ical(cycles: Cycles, *, words: EventWords = ENGLISH) -> bytes:
    """The cycles of a birth (:func:`~bodygraph.relations.cycles.cycles_of`) as an
    iCalendar document: the solar return, then each Saturn return pass, then each Uranus
    opposition pass.

    Raises :class:`IcalUnavailableError` when the ``icalendar`` library is missing."""
    ical = icalendar_module()
    found: list[tuple[str, datetime, str]] = [
        ("solar-return", cycles.solar, words.solar_return.format(year=cycles.year))]
    for kind, pattern, passes in (("saturn-return", words.saturn_return, cycles.saturn),
                                  ("uranus-opposition", words.uranus_opposition,
                                   cycles.uranus)):
        found += [(kind, at, pattern.format(number=number, count=len(passes)))
                  for number, at in enumerate(passes, start=1)]
    events = [_event(ical, cycle_uid(kind, cycles.birth, at), at, summary,
                     words.instant_description.format(summary=summary, at=_text(at)))
              for kind, at, summary in found]
    return _calendar_bytes(ical, words.cycles_name.format(year=cycles.year), events)


def _text(instant: datetime) -> str:
    return to_second(instant).strftime("%Y-%m-%d %H:%M:%S")
