"""The library's error messages in the asked language: each English message it raises to a
user is a pattern of the catalogs' context ``error`` (``{fields}`` for its varying parts,
said again in the language when they are messages too)."""

from __future__ import annotations

import errno
import re
from functools import cache
from string import Formatter

from bodygraph.catalog.translations import (
    SOURCE_LANGUAGE,
    Counted,
    catalog,
    count_in,
    counted,
    pgettext,
)

#: The library's messages, as the library writes them.
LIBRARY_MESSAGES: tuple[str | Counted, ...] = (
    pgettext("error", "{instant} is outside the supported range: births from {first} to "
             "{last} (UTC) with this ephemeris; pass a larger kernel (--ephemeris BSP or "
             "$BODYGRAPH_EPHEMERIS) for other dates"),
    pgettext("error", "{instant} is outside the supported range: instants from {first} to "
             "{last} (UTC) with this ephemeris; pass a larger kernel (--ephemeris BSP or "
             "$BODYGRAPH_EPHEMERIS) for other dates"),
    pgettext("error", "{what} reaches {day} {time} UTC, outside the ephemeris ({first} to "
             "{last} UTC); pass a larger kernel (--ephemeris BSP or $BODYGRAPH_EPHEMERIS) for "
             "other dates"),
    # the same with another remedy: the library's own words, a relation's
    pgettext("error", "{instant} is outside the supported range: births from {first} to "
             "{last} (UTC) with this ephemeris; {remedy} for other dates"),
    pgettext("error", "{instant} is outside the supported range: instants from {first} to "
             "{last} (UTC) with this ephemeris; {remedy} for other dates"),
    pgettext("error", "{what} reaches {day} {time} UTC, outside the ephemeris ({first} to "
             "{last} UTC); {remedy} for other dates"),
    pgettext("error", "pass a larger kernel (ephemeris= or BODYGRAPH_EPHEMERIS)"),
    pgettext("error", "use a calculator of a larger kernel (or BODYGRAPH_EPHEMERIS)"),
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
    counted("error", "the window must be more than 0 and at most 48 hours either side, not "
            "{hours} hour", "the window must be more than 0 and at most 48 hours either "
            "side, not {hours} hours", "hours"),
    counted("error", "the bound must be more than 0 and at most 48 hours either side, not "
            "{hours} hour; give one such as 12h", "the bound must be more than 0 and at most "
            "48 hours either side, not {hours} hours; give one such as 12h", "hours"),
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
    counted("error", "the range {first} to {last} is {days} day; give at most {most} days "
            "(a last date up to {day})", "the range {first} to {last} is {days} days; give at "
            "most {most} days (a last date up to {day})", "days"),
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
    counted("error", "{month} has {days} day in {year}", "{month} has {days} days in {year}",
            "days"),
    pgettext("error", "January"), pgettext("error", "February"), pgettext("error", "March"),
    pgettext("error", "April"), pgettext("error", "May"), pgettext("error", "June"),
    pgettext("error", "July"), pgettext("error", "August"), pgettext("error", "September"),
    pgettext("error", "October"), pgettext("error", "November"),
    pgettext("error", "December"),
    # the batch job (bodygraph.batch): its options, input and rows
    pgettext("error", "{name} is not the name of a text encoding (try utf-8, cp1252 or "
             "latin-1)"),
    pgettext("error", "{path} line 1 (the header) is not {encoding} text (it holds the byte "
             "0x{byte})"),
    pgettext("error", "{path} line 1 (the header) is not {encoding} text (it holds the byte "
             "0x{byte}): give its encoding (--encoding) or save it as UTF-8"),
    pgettext("error", "{path} is not {encoding} text (it holds the byte 0x{byte})"),
    pgettext("error", "{path} is not {encoding} text (it holds the byte 0x{byte}): give its "
             "encoding (--encoding) or save it as UTF-8"),
    pgettext("error", "line {line} is not {encoding} text (it holds the byte 0x{byte})"),
    pgettext("error", "{path} line {line} is not CSV: {reason}"),
    pgettext("error", "the chunk size must be at least 1"),
    pgettext("error", "the number of jobs must be at least 1"),
    pgettext("error", "an encoding is for CSV input: Parquet text is UTF-8"),
    pgettext("error", "Parquet needs pyarrow: pip install 'bodygraph[parquet]'"),
    pgettext("error", "{path} is not a readable Parquet file"),
    pgettext("error", "{path} is not a readable Parquet file ({reason})"),
    pgettext("error", "a worker process ended unexpectedly ({how})"),
    pgettext("error", "killed by {signal}"),
    pgettext("error", "exit status {status}"),
    pgettext("error", "the input has columns {names}; it needs one of: {wanted}"),
    pgettext("error", "{column} is empty"),
    pgettext("error", "{column} {text} is not a number of degrees"),
    pgettext("error", "the row cannot be read: {reason}"),
    pgettext("error", "the output {target} is a folder: name a file to write"),
    pgettext("error", "the output {target} is the input file: write the charts to another "
             "file"),
    pgettext("error", "cannot write {path}: the output must be a .csv or .parquet file"),
    # the ephemeris kernel
    pgettext("error", "the shipped ephemeris {name} is missing (looked in {places}); "
             "reinstall bodygraph or set {variable} to a JPL .bsp kernel"),
    pgettext("error", "ephemeris kernel not found: {path}"),
    pgettext("error", "cannot open ephemeris kernel {path}: {reason}"),
    pgettext("error", "ephemeris kernel {path} lacks required segments: {names}"),
    pgettext("error", "ephemeris kernel {path} lacks segments: {names}"),
    pgettext("error", "segment {center}->{target} of {path} is SPK type {kind}; the fast "
             "engine reads type 2 (use engine='skyfield' for this kernel)"),
    pgettext("error", "segments {center}->{target} of {path} do not join end to end; use "
             "engine='skyfield' for this kernel"),
    pgettext("error", "cannot represent {instant} as a datetime"),
    # places, coordinates and time zones
    pgettext("error", "latitude must be a finite number, not {value}"),
    pgettext("error", "longitude must be a finite number, not {value}"),
    counted("error", "the location text is {length} character long; the most is {most}",
            "the location text is {length} characters long; the most is {most}", "length"),
    pgettext("error", "the location text holds a character that is not text (U+{point} at "
             "position {position})"),
    pgettext("error", "no place name in {text}"),
    pgettext("error", "no place of that name in {wanted}"),
    pgettext("error", "the Google geocoder needs the caller's geocoding key"),
    pgettext("error", "the geocoding key was refused"),
    pgettext("error", "the geocoding key was refused: {reason}"),
    pgettext("error", "geocoding rate limit reached: {reason}"),
    pgettext("error", "geocoding quota reached: {reason}"),
    pgettext("error", "the geocoding service did not answer within {seconds} s"),
    pgettext("error", "geocoding failed: {reason}"),
    pgettext("error", "the geocoding service sent a malformed reply"),
    pgettext("error", "could not reach the geocoding service at {domain} ({reason})"),
    pgettext("error", "no time zone covers {lat}, {lng}"),
    pgettext("error", "{lat}, {lng} is at sea, outside every country's time zone (the "
             "nautical zone would be {name})"),
    pgettext("error", "the zone {zone} gives no offset for {time}"),
    pgettext("error", "{time} is too close to the end of the calendar"),
    pgettext("error", "the tz database entry {name} is unreadable"),
    # the relations: wheel, calendar, constraints, cycles, searches
    pgettext("error", "latitude {value} is outside -90 to 90 (the poles have no Ascendant)"),
    pgettext("error", "unknown house system {name}: use placidus or whole-sign"),
    pgettext("error", "give at least one body"),
    pgettext("error", "the calendar's end must come after its start"),
    pgettext("error", "unknown incarnation cross {text}; write its name like 'Right Angle "
             "Cross of the Sphinx' or its four gates like 13/7/1/2"),
    pgettext("error", "unknown incarnation cross {text} (did you mean {names}?); write its "
             "name like 'Right Angle Cross of the Sphinx' or its four gates like 13/7/1/2"),
    pgettext("error", "gate {value} does not exist; use a gate from 1 to 64"),
    pgettext("error", "cross gate {value} does not exist; use a gate from 1 to 64"),
    pgettext("error", "the gates of cross {text} are not four gates; write them like "
             "(13/7 | 1/2)"),
    pgettext("error", "unknown side {side} in {text}; use one of: {names}"),
    pgettext("error", "line {line} in {text} does not exist; use a line from 1 to 6"),
    pgettext("error", "give at least one constraint: type, profile, authority, definition, "
             "cross, strategy, centers, open centers, channels, gates or activations"),
    pgettext("error", "every search must end after it begins"),
    pgettext("error", "the search would end ({end} UTC) before it begins ({start} UTC); give "
             "a to-time after the from-time"),
    pgettext("error", "a solar return year must come after the birth year ({year})"),
    pgettext("error", "{channel} is not a channel (write it like '34-57')"),
    pgettext("error", "iCalendar output needs the icalendar library: {extra}"),
    # the images
    pgettext("error", "cannot tell the image format of {target}: use .svg or .png"),
    pgettext("error", "PNG output needs cairosvg and the cairo library: pip install "
             "'bodygraph[png]' and install libcairo2 ({reason})"),
    # hologenetic's label pack (--labels)
    pgettext("error", "the label pack must be a JSON object with 'keys' and/or 'spheres'"),
    pgettext("error", "the label pack has unknown members {names}: use 'keys' and 'spheres'"),
    pgettext("error", "the label pack's 'keys' must be an object keyed by key number"),
    pgettext("error", "the label pack's 'spheres' must be an object keyed by sphere"),
    pgettext("error", "the label pack names key {name}: keys are 1 to 64"),
    pgettext("error", "the label pack's key {name} must map names to texts"),
    pgettext("error", "the label pack names sphere {name}: spheres are {names}"),
    pgettext("error", "the label pack's sphere {name} must be a text"),
)

_FIELD = re.compile(r"\\\{(\w+)\\\}")
#: What a field matches: an error code is upper case, a month's name a capitalised word,
#: a number of days digits, a byte two hexadecimal digits, a column a name; any other
#: field any text.
_KINDS = {"code": "[A-Z][A-Z0-9_]*", "month": "[A-Z][a-z]+", "days": "[0-9]+",
          "byte": "[0-9A-F]{2}", "column": "[A-Za-z_][A-Za-z0-9_]*"}


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
#: argparse messages and batch lines); a message with a count is read in both its forms.
Phrases = tuple[tuple[str, str | Counted], ...]


@cache
def _patterns(more: Phrases) -> tuple[tuple[str, str | Counted, re.Pattern[str]], ...]:
    """Each message (context, English) with the regular expression that reads its fields
    (a message with a count: one for each English form), the ones with the most fixed text
    first (the most specific)."""
    def fixed(phrase: tuple[str, str | Counted, str]) -> tuple[bool, bool, int]:
        """Most specific first: a message that starts and ends with fixed text, then the
        one with the most of it."""
        parts = list(Formatter().parse(phrase[2]))
        return (bool(parts[0][0]), parts[-1][1] is None,
                sum(len(text) for text, *_ in parts))

    every = (*(("error", m) for m in LIBRARY_MESSAGES), *more)
    forms = [(context, m, english) for context, m in every
             for english in ((m.singular, m.plural) if isinstance(m, Counted) else (m,))]
    return tuple((context, m, _pattern(english))
                 for context, m, english in sorted(forms, key=fixed, reverse=True))


def _pattern(message: str) -> re.Pattern[str]:
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
            if isinstance(english, Counted):
                return english.said(lang, count_in(found[english.field])).format(**fields)
            return catalog(lang).pgettext(context, english).format(**fields)
    return message
