"""The library's error messages in the asked language: each English message it raises to a
user is a pattern of the catalogs' context ``error`` (``{fields}`` for its varying parts,
said again in the language when they are messages too)."""

from __future__ import annotations

import errno
import re
from functools import cache
from string import Formatter

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, pgettext

#: The library's messages, as the library writes them.
LIBRARY_MESSAGES: tuple[str, ...] = (
    pgettext("error", "{instant} is outside the supported range: births from {first} to "
             "{last} (UTC) with this ephemeris; pass a larger kernel (--ephemeris BSP or "
             "$BODYGRAPH_EPHEMERIS) for other dates"),
    pgettext("error", "{instant} is outside the supported range: instants from {first} to "
             "{last} (UTC) with this ephemeris; pass a larger kernel (--ephemeris BSP or "
             "$BODYGRAPH_EPHEMERIS) for other dates"),
    pgettext("error", "{what} reaches {day} {time} UTC, outside the ephemeris ({first} to "
             "{last} UTC); pass a larger kernel (--ephemeris BSP or $BODYGRAPH_EPHEMERIS) for "
             "other dates"),
    pgettext("error", "the solar return of {year}"),
    pgettext("error", "the Saturn return (ages {first} to {last})"),
    pgettext("error", "the Uranus opposition (ages {first} to {last})"),
    pgettext("error", "the calendar"),
    pgettext("error", "the search"),
    pgettext("error", "the window"),
    pgettext("error", "no place found for {query}"),
    pgettext("error", "no place found for {query} ({reason})"),
    pgettext("error", "no place found for {query} ({reason}); close matches: {matches}"),
    pgettext("error", "no place of that name"),
    pgettext("error", "no place of that name, nor one spelt like it"),
    pgettext("error", "the geocoding service found no match"),
    pgettext("error", "the location text is empty"),
    pgettext("error", "several places are called {name}: took {label} (the most populous); "
             "others: {others}; add the region or country to choose one, e.g. \"{example}\""),
    pgettext("error", "the google geocoder needs the caller's geocoding key (--geocode-key)"),
    pgettext("error", "{name} is not a time zone name"),
    pgettext("error", "{name} is not in the tz database {version}"),
    pgettext("error", "latitude {value} is outside -90 to 90"),
    pgettext("error", "longitude {value} is outside -180 to 180"),
    pgettext("error", "a penta has {first} to {last} members, not {count}"),
    pgettext("error", "the window must be more than 0 and at most 48 hours either side, not "
             "{hours} hours"),
    pgettext("error", "the bound must be more than 0 and at most 48 hours either side, not "
             "{hours} hours; give one such as 12h"),
    pgettext("error", "unknown type {text}; use one of: {names}"),
    pgettext("error", "unknown authority {text}; use one of: {names}"),
    pgettext("error", "unknown definition {text}; use one of: {names}"),
    pgettext("error", "unknown strategy {text}; use one of: {names}"),
    pgettext("error", "unknown center {text}; use one of: {names}"),
    pgettext("error", "unknown channel {text}; use one of: {names}"),
    pgettext("error", "unknown body {text}; use one of: {names}"),
    pgettext("error", "unknown body {text}: use any of {names}"),
    pgettext("error", "profile {text} does not exist; use one of: {names}"),
    pgettext("error", "activation {text} is not side.body=gate or side.body=gate.line; write "
             "it like personality.sun=38.3"),
    pgettext("error", "the range {first} to {last} is {days} days; give at most {most} days "
             "(a last date up to {day})"),
    pgettext("error", "the last date {last} is before the first {first}; give a last date on "
             "or after the first"),
    pgettext("error", "there is no day {day} in the calendar ({reason})"),
    pgettext("error", "the label pack is not JSON: {reason}"),
    pgettext("error", "input file not found: {path}"),
    pgettext("error", "{path} has no data rows"),
    pgettext("error", "{path} is empty: it needs a header row"),
    pgettext("error", "{text} is not an ISO 8601 date-time; write it like 1980-01-03T08:30:00Z"),
    pgettext("error", "a birth date must be written YYYY-MM-DD (like 1990-05-14), not {value}"),
    pgettext("error", "a birth time must be written H:MM or HH:MM, optionally :SS (24-hour, "
             "like 08:30), not {value}"),
    pgettext("error", "there is no time {value}: hours go from 0 to 23, minutes and seconds "
             "from 00 to 59"),
    pgettext("error", "years start at 0001"),
    pgettext("error", "months go from 01 to 12"),
    pgettext("error", "{month} has {days} days in {year}"),
    pgettext("error", "January"), pgettext("error", "February"), pgettext("error", "March"),
    pgettext("error", "April"), pgettext("error", "May"), pgettext("error", "June"),
    pgettext("error", "July"), pgettext("error", "August"), pgettext("error", "September"),
    pgettext("error", "October"), pgettext("error", "November"),
    pgettext("error", "December"),
)

_FIELD = re.compile(r"\\\{(\w+)\\\}")
#: What a field matches: an error code is upper case, a month's name a capitalised word,
#: a number of days digits; any other field any text.
_KINDS = {"code": "[A-Z][A-Z0-9_]*", "month": "[A-Z][a-z]+", "days": "[0-9]+"}


#: Why a file cannot be used, for the commonest reasons the operating system gives.
OS_REASONS: dict[int, str] = {
    errno.ENOENT: pgettext("error", "no such file or directory"),
    errno.EACCES: pgettext("error", "permission denied"),
    errno.EISDIR: pgettext("error", "it is a directory"),
    errno.ENOTDIR: pgettext("error", "a part of the path is not a directory"),
    errno.ENOSPC: pgettext("error", "no space left on the device"),
    errno.EROFS: pgettext("error", "the file system is read-only"),
}

#: More messages to read beside the library's, each with its context (the command line's
#: argparse messages and batch lines).
Phrases = tuple[tuple[str, str], ...]


@cache
def _patterns(more: Phrases) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """Each message (context, English) with the regular expression that reads its fields,
    the ones with the most fixed text first (the most specific)."""
    def fixed(phrase: tuple[str, str]) -> tuple[bool, bool, int]:
        """Most specific first: a message that starts and ends with fixed text, then the
        one with the most of it."""
        parts = list(Formatter().parse(phrase[1]))
        return (bool(parts[0][0]), parts[-1][1] is None,
                sum(len(text) for text, *_ in parts))

    every = (*(("error", m) for m in LIBRARY_MESSAGES), *more)
    return tuple((context, m, pattern(m))
                 for context, m in sorted(every, key=fixed, reverse=True))


def pattern(message: str) -> re.Pattern[str]:
    """The regular expression reading the fields of ``message`` (a pattern)."""
    return re.compile(_FIELD.sub(
        lambda m: f"(?P<{m.group(1)}>{_KINDS.get(m.group(1), '.+?')})",
        re.escape(message)), re.DOTALL)


def os_reason(error: OSError, lang: str) -> str:
    """Why the operating system could not use a file, in ``lang`` for the reasons of
    :data:`OS_REASONS` (in English the system's own words, as before)."""
    known = OS_REASONS.get(error.errno or 0)
    if lang == SOURCE_LANGUAGE or known is None:
        return str(error.strerror or error)
    return catalog(lang).pgettext("error", known)


def said(message: str, lang: str, more: Phrases = ()) -> str:
    """``message`` (as the library wrote it) in ``lang``, when it is one of
    :data:`LIBRARY_MESSAGES` or of ``more``; otherwise unchanged."""
    if lang == SOURCE_LANGUAGE:
        return message
    for context, english, regex in _patterns(more):
        found = regex.fullmatch(message)
        if found is not None:
            fields = {name: said(value, lang, more)
                      for name, value in found.groupdict().items()}
            return catalog(lang).pgettext(context, english).format(**fields)
    return message
