"""The rules of the request fields as patterns and limits, stated once: the parsers match
the unanchored patterns, the schemas state the anchored ones, the documented birthdate's
bounded to the shipped ephemeris' local dates (the library decides the edge days)."""

from __future__ import annotations

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
INSTANT_DAY_DOCUMENTED = BIRTHDATE_DOCUMENTED.replace("0[3-9]", "0[4-9]", 1)
""":data:`BIRTHDATE` within the UTC days of the shipped ephemeris, 1800-04-04 to 2199-12-31
(a transit's instant, the calendar's days)."""
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
LOCATION_DOCUMENTED = (
    "^\\s*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]{2,}"
    "[^\\s\\x00-\\x1f\\x7f-\\x9f]\\s*$"
)
"""A location as the schema states it: at least 4 characters once surrounding white space
is trimmed, no control character within them."""
LAT_RANGE = (-90, 90)
LNG_RANGE = (-180, 180)


def anchored(pattern: str) -> str:
    """``pattern`` as a whole-string JSON Schema pattern."""
    return f"^{pattern}$"


#: The documented patterns (OpenAPI): days past the month's end are still refused (400).
DATE_PATTERN = anchored(BIRTHDATE_DOCUMENTED)
TIME_PATTERN = anchored(BIRTHTIME)
V1_DATE_PATTERN = anchored(V1_BIRTHDATE)
