"""The rules of the extensions' request members, stated once: the parsers
(:mod:`bodygraph_server.http.relations`, :mod:`bodygraph_server.http.batch`) apply them
and the OpenAPI document states them (:func:`request_schemas`). A birth inside them is
the contract's input (:mod:`bodygraph_server.http.fields`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS
from bodygraph_server.http.births import shape_error
from bodygraph_server.http.fields import BIRTHDATE, BIRTHTIME, anchored

AT = f"{BIRTHDATE}T{BIRTHTIME}:([0-5][0-9])Z"
"""A transit instant ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
CONNECTION_PEOPLE = 2
PENTA_PEOPLE = (MIN_MEMBERS, MAX_MEMBERS)
BATCH_BIRTHS = (1, 1000)
"""The fewest and most births of one batch request."""
BATCH_BYTES_PER_BIRTH = 256
"""The body of a batch may hold this many bytes per birth it may hold (256,000 bytes for
1,000 births; a birth written compactly takes about 70), or the settings'
``max_body_bytes`` if that is more."""

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


def _births(fewest: int, most: int, ref: str, description: str) -> dict[str, Any]:
    return {"type": "array", "minItems": fewest, "maxItems": most,
            "items": {"$ref": _REF + ref}, "description": description}


def request_schemas() -> dict[str, Any]:
    """The JSON Schemas of the extensions' request bodies (``components.schemas``)."""
    birth = {"oneOf": [{"$ref": _REF + "CoordinatesInput"}, {"$ref": _REF + "ChartInput"}],
             "description": "A birth: coordinates (lat, lng) or a place name (location; "
             "needs the HD-Geocode-Key header). Local date and time at the place."}
    at = {"type": "string", "pattern": anchored(AT), "examples": ["2024-03-20T03:06:00Z"],
          "description": "The transit instant in UTC, YYYY-MM-DDTHH:MM:SSZ (1800-04-04 to "
          "2199-12-31 with the shipped ephemeris)."}
    return {
        "BirthInput": birth,
        "TransitInput": {
            "type": "object", "required": ["at"],
            "properties": {"at": at, "natal": {"$ref": _REF + "BirthInput"}},
        },
        "ConnectionInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": _births(
                CONNECTION_PEOPLE, CONNECTION_PEOPLE, "BirthInput",
                "Person 1, then person 2.")},
        },
        "PentaInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": _births(*PENTA_PEOPLE, "BirthInput",
                                             "The members of the group, 3 to 5.")},
        },
        "ChartBatchInput": {
            "type": "object", "required": ["births"],
            "properties": {"births": _births(*BATCH_BIRTHS, "CoordinatesInput",
                                             "1 to 1000 births given by coordinates.")},
        },
    }
