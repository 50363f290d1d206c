"""The request bodies of the relation operations, declarative
(:class:`~bodygraph_server.http.body.Body`): their parsers, JSON Schemas and codes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS
from bodygraph_server.http.births import Birth, birth_field, births_field
from bodygraph_server.http.body import Body, Rule, boolean_field, pattern_field
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.fields import BIRTHDATE, BIRTHTIME, INSTANT_DAY_DOCUMENTED, anchored

AT = f"{BIRTHDATE}T{BIRTHTIME}:([0-5][0-9])Z"
"""A transit instant ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
AT_DOCUMENTED = f"{INSTANT_DAY_DOCUMENTED}T{BIRTHTIME}:([0-5][0-9])Z"
""":data:`AT` on the days of the shipped ephemeris (the library decides the edges)."""
CONNECTION_PEOPLE = 2
PENTA_PEOPLE = (MIN_MEMBERS, MAX_MEMBERS)
NO_NATAL_PICTURE = "visual needs natal: the picture is the natal chart with the transit over it"


@dataclass(frozen=True, slots=True)
class TransitRequest:
    """A transit at ``at``, over the ``natal`` birth if any, drawn when ``visual``."""

    at: datetime
    natal: Birth | None
    visual: bool


@dataclass(frozen=True, slots=True)
class PeopleRequest:
    """A relation between ``people``, drawn when ``visual``."""

    people: list[Birth]
    visual: bool = False


def _instant(match: re.Match[str], today: date) -> datetime:
    return datetime.fromisoformat(match.group(0))  # ...Z: in UTC


_AT_SHAPE = "at must be a UTC instant YYYY-MM-DDTHH:MM:SSZ"


_VISUAL = boolean_field(name="visual", schema={
    "description": "Also return svgRenderUrl, a link to the picture (the transit needs "
    "natal: true without natal is 422 INVALID_REQUEST_BODY)."})

TRANSIT_INPUT = Body("TransitInput", (
    pattern_field(
        name="at", code=ErrorCode.INVALID_REQUEST_BODY, pattern=AT,
        documented=anchored(AT_DOCUMENTED), mismatch=_AT_SHAPE, not_text=_AT_SHAPE,
        convert=_instant,
        schema={"format": "date-time", "examples": ["2024-03-20T03:06:00Z"],
                "description": "The transit instant in UTC, YYYY-MM-DDTHH:MM:SSZ (1800-04-04 "
                "to 2199-12-31 with the shipped ephemeris); the day must exist in the "
                "calendar."}),
    birth_field(name="natal", optional=True),
    _VISUAL,
), TransitRequest, rules=(
    Rule(after="visual", holds=lambda read: not read["visual"] or read["natal"] is not None,
         message=NO_NATAL_PICTURE),
))
"""``{"at", "natal"?, "visual"?}``; ``at`` is checked first."""
CONNECTION_INPUT = Body("ConnectionInput", (
    births_field(name="people", count=(CONNECTION_PEOPLE, CONNECTION_PEOPLE),
                 description="Person 1, then person 2."),
    _VISUAL,
), PeopleRequest)
"""``{"people": [birth, birth], "visual"?}``."""
PENTA_INPUT = Body("PentaInput", (
    births_field(name="people", count=PENTA_PEOPLE,
                 description="The members of the group, 3 to 5."),
), PeopleRequest)
"""``{"people": [3 to 5 births]}``."""
REQUEST_BODIES = (TRANSIT_INPUT, CONNECTION_INPUT, PENTA_INPUT)


def request_schemas() -> dict[str, Any]:
    """``TransitInput``, ``ConnectionInput`` and ``PentaInput``."""
    return {body.name: body.schema() for body in REQUEST_BODIES}
