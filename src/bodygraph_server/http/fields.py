"""The rules of the request fields, stated once: the parsers
(:mod:`bodygraph_server.http.validation`) apply them and the OpenAPI document
(:mod:`bodygraph_server.http.openapi`) states them.

Patterns are written without anchors for ``re.fullmatch``; the document's patterns
(:func:`anchored`) add ``^...$``. The one deliberate difference: the documented
``birthdate`` pattern also states the years the shipped ephemeris covers (1800-2199),
where the parser leaves the range to the library (whose refusal names the range of the
ephemeris actually loaded). With the shipped ephemeris the range is births from
1800-04-04 00:00 UTC to 2199-12-31 00:00 UTC; a local date can lie one day either side
of its UTC date, so the documented pattern admits the local dates 1800-04-03 to
2199-12-31 and the library decides the edge days by the UTC instant.
"""

from __future__ import annotations

from typing import Any

MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
               "dec")
"""The English month abbreviations of the v1 ``DD-MMM-YY`` birthdate, January first."""

_MONTH = "(0[1-9]|1[0-2])"
_DAY = "(0[1-9]|[12][0-9]|3[01])"
_MONTH_DAY = f"{_MONTH}-{_DAY}"

BIRTHDATE = f"([0-9]{{4}})-{_MONTH_DAY}"
"""``YYYY-MM-DD`` with months 01-12 and days 01-31 (the calendar decides the rest)."""
BIRTHDATE_DOCUMENTED = (
    "(1800-(04-(0[3-9]|[12][0-9]|30)|(0[5-9]|1[0-2])-" + _DAY + ")"
    f"|(180[1-9]|18[1-9][0-9]|19[0-9]{{2}}|2[01][0-9]{{2}})-{_MONTH_DAY})"
)
""":data:`BIRTHDATE` within the local dates of the shipped ephemeris, 1800-04-03 to
2199-12-31 (see the module docstring)."""
SUPPORTED_RANGE = "births from 1800-04-04 00:00 UTC to 2199-12-31 00:00 UTC"
"""The range of the shipped ephemeris, in words (OpenAPI, docs)."""
BIRTHTIME = "([01][0-9]|2[0-3]):([0-5][0-9])"
"""``HH:MM``, 00:00 to 23:59 (``24:00`` is refused)."""
V1_BIRTHDATE = (
    "(0?[1-9]|[12][0-9]|3[01])-("
    + "|".join("".join(f"[{c.upper()}{c}]" for c in name) for name in MONTH_NAMES)
    + ")-([0-9]{2})"
)
"""v1 ``DD-MMM-YY``: day of one or two digits, month abbreviation in any letter case."""

LOCATION_MIN = 4
"""Fewest characters of a location, also once surrounding white space is trimmed."""
LOCATION_MAX = 200
"""Most characters of a location (v2 by the contract; v1 the same, so that junk text
cannot cost more on the legacy path)."""
LAT_RANGE = (-90, 90)
LNG_RANGE = (-180, 180)


def anchored(pattern: str) -> str:
    """``pattern`` as a whole-string JSON Schema pattern."""
    return f"^{pattern}$"


#: The documented patterns (OpenAPI): days past the month's end are still refused (400).
DATE_PATTERN = anchored(BIRTHDATE_DOCUMENTED)
TIME_PATTERN = anchored(BIRTHTIME)
V1_DATE_PATTERN = anchored(V1_BIRTHDATE)


_REF = "#/components/schemas/"


def birth_list_schema(fewest: int, most: int, description: str) -> dict[str, Any]:
    """A list of ``fewest`` to ``most`` births (``BirthInput``)."""
    return {"type": "array", "minItems": fewest, "maxItems": most,
            "items": {"$ref": _REF + "BirthInput"}, "description": description}


def input_schemas() -> dict[str, Any]:
    """The JSON Schemas of the contract's three request bodies and of ``BirthInput``, a
    birth inside an extension's body (``components.schemas``)."""
    birthdate = {"type": "string", "pattern": DATE_PATTERN, "examples": ["1990-07-15"],
                 "description": "Local birth date YYYY-MM-DD; must exist in the calendar "
                 f"and lie in the ephemeris range ({SUPPORTED_RANGE} with the shipped one; "
                 "the UTC instant decides the edge days)."}
    birthtime = {"type": "string", "pattern": TIME_PATTERN, "examples": ["14:30"],
                 "description": "Local birth time HH:MM, 24-hour, 00:00 to 23:59."}
    return {
        "BirthInput": {
            "anyOf": [{"$ref": _REF + "CoordinatesInput"}, {"$ref": _REF + "ChartInput"}],
            "description": "A birth: coordinates (lat, lng) or a place name (location; "
            "needs the HD-Geocode-Key header). Local date and time at the place."},
        "ChartInput": {
            "type": "object",
            "required": ["birthdate", "birthtime", "location"],
            "properties": {
                "birthdate": birthdate,
                "birthtime": birthtime,
                "location": {"type": "string", "minLength": LOCATION_MIN,
                             "maxLength": LOCATION_MAX, "examples": ["Berlin, Germany"],
                             "description": "City and country; 4 to 200 characters, at "
                             "least 4 once surrounding white space is trimmed."},
            },
        },
        "CoordinatesInput": {
            "type": "object",
            "required": ["birthdate", "birthtime", "lat", "lng"],
            "properties": {
                "birthdate": birthdate,
                "birthtime": birthtime,
                "lat": {"type": "number", "minimum": LAT_RANGE[0], "maximum": LAT_RANGE[1],
                        "examples": [52.52]},
                "lng": {"type": "number", "minimum": LNG_RANGE[0], "maximum": LNG_RANGE[1],
                        "examples": [13.405]},
            },
        },
        "V1Input": {
            "type": "object",
            "required": ["birthdate", "birthtime", "location"],
            "properties": {
                "birthdate": {"type": "string", "pattern": V1_DATE_PATTERN,
                              "examples": ["15-Jul-90"],
                              "description": "DD-MMM-YY; YY is 20YY unless that is after "
                              "the current year, else 19YY."},
                "birthtime": birthtime,
                "location": {"type": "string", "minLength": LOCATION_MIN,
                             "maxLength": LOCATION_MAX, "examples": ["Berlin, Germany"],
                             "description": "4 to 200 characters, at least 4 once "
                             "trimmed (the contract's minimum, and v2's maximum)."},
            },
        },
    }
