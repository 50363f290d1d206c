"""The request bodies of the relation operations: their parsing rules and JSON Schemas."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS
from bodygraph_server.http.births import shape_error
from bodygraph_server.http.fields import BIRTHDATE, BIRTHTIME, INSTANT_DAY_DOCUMENTED, anchored
from bodygraph_server.http.validation import birth_list_schema

AT = f"{BIRTHDATE}T{BIRTHTIME}:([0-5][0-9])Z"
"""A transit instant ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
AT_DOCUMENTED = f"{INSTANT_DAY_DOCUMENTED}T{BIRTHTIME}:([0-5][0-9])Z"
""":data:`AT` on the days of the shipped ephemeris (the library decides the edges)."""
CONNECTION_PEOPLE = 2
PENTA_PEOPLE = (MIN_MEMBERS, MAX_MEMBERS)

_AT = re.compile(AT)
_REF = "#/components/schemas/"


def parse_at(value: object) -> datetime:
    """The transit instant: a string ``YYYY-MM-DDTHH:MM:SSZ`` naming a real UTC instant
    (else INVALID_REQUEST_BODY)."""
    match = _AT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise shape_error("at must be a UTC instant YYYY-MM-DDTHH:MM:SSZ")
    try:
        year, month, day, hour, minute, second = (int(part) for part in match.groups())
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        raise shape_error("at is not a calendar date") from None


def request_schemas() -> dict[str, Any]:
    """``TransitInput``, ``ConnectionInput`` and ``PentaInput``."""
    at = {"type": "string", "format": "date-time", "pattern": anchored(AT_DOCUMENTED),
          "examples": ["2024-03-20T03:06:00Z"],
          "description": "The transit instant in UTC, YYYY-MM-DDTHH:MM:SSZ (1800-04-04 to "
          "2199-12-31 with the shipped ephemeris); the day must exist in the calendar."}
    visual = {"type": "boolean", "default": False,
              "description": "Also return svgRenderUrl, a link to the picture (the "
              "transit needs natal: true without natal is 422 INVALID_REQUEST_BODY)."}
    return {
        "TransitInput": {
            "type": "object", "required": ["at"],
            "properties": {"at": at, "natal": {"$ref": _REF + "BirthInput"},
                           "visual": visual},
        },
        "ConnectionInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": birth_list_schema(
                CONNECTION_PEOPLE, CONNECTION_PEOPLE, "Person 1, then person 2."),
                "visual": visual},
        },
        "PentaInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": birth_list_schema(
                *PENTA_PEOPLE, "The members of the group, 3 to 5.")},
        },
    }
