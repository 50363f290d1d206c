"""A refusal's human ``message`` in the asked language: marked where it is written, else
matched against the service's messages (``service error``), then the library's
(``bodygraph.catalog.said``). Error codes never change."""

from __future__ import annotations

import re
from functools import cache
from string import Formatter

from starlette.datastructures import QueryParams
from starlette.types import Scope

from bodygraph.catalog.translations import LANGUAGES, Counted, count_in, counted, pgettext
from bodygraph_server.http.errors import ApiError
from bodygraph_server.images.route import CONTEXT
from bodygraph_server.images.route import MESSAGES as IMAGE_MESSAGES

#: ``{where}: {message}``: a message about one member of the body (``people[1]: ...``).
LOCATED = pgettext("service error", "{where}: {message}")
#: A 5xx naming the request id.
WITH_REQUEST_ID = pgettext("service error", "{message} (request id {request_id})")
MESSAGES: tuple[str | Counted, ...] = (
    pgettext("service error", "API key missing"),
    pgettext("service error", "API key invalid or deactivated"),
    pgettext("service error", "Authentication failed"),
    pgettext("service error", "HD-Geocode-Key header missing"),
    pgettext("service error", "No credits left and overage is disabled"),
    pgettext("service error", "Your plan does not include this endpoint"),
    pgettext("service error", "Account is inactive"),
    pgettext("service error", "birthdate must be a valid date YYYY-MM-DD"),
    pgettext("service error", "birthtime must be a valid time HH:MM"),
    pgettext("service error", "location must be 4 to 200 characters"),
    pgettext("service error", "lat must be a number from -90 to 90"),
    pgettext("service error", "lng must be a number from -180 to 180"),
    pgettext("service error", "A required field is missing"),
    pgettext("service error", "Request body is malformed"),
    pgettext("service error", "The geocoding service returned an error"),
    pgettext("service error", "Geocoding key invalid or restricted"),
    pgettext("service error", "Location could not be geocoded"),
    pgettext("service error", "Location could not be geocoded; close matches: {matches}"),
    pgettext("service error", "Geocoding service rate limit exceeded"),
    pgettext("service error", "Rate limit exceeded"),
    pgettext("service error", "Time zone could not be determined for the place"),
    pgettext("service error", "Astronomical calculation failed"),
    pgettext("service error", "Chart generation failed"),
    pgettext("service error", "Internal server error"),
    pgettext("service error", "Request timed out"),
    pgettext("service error", "Not found"),
    pgettext("service error", "Method not allowed"),
    pgettext("service error",
             "The service is temporarily unavailable; retry after Retry-After seconds"),
    pgettext("service error",
             "Idempotency-Key must be 1 to 255 visible ASCII characters, sent once"),
    pgettext("service error", "Idempotency-Key was already used with another request"),
    pgettext("service error",
             "A request with this Idempotency-Key is still in progress; retry later"),
    pgettext("service error", "lang is not a supported language; use one of {languages}"),
    pgettext("service error", "lang is not a supported language"),
    pgettext("service error", "give lang once; use one of {languages}"),
    pgettext("service error", "lang is given twice (query and body) with two values; use "
             "one of {languages}"),
    pgettext("service error", "Too many requests with an invalid API key from this address; "
             "retry after Retry-After seconds"),
    pgettext("service error", "Send the API key in exactly one header line"),
    pgettext("service error", "Authorization header must be 'Bearer <API_KEY>'"),
    pgettext("service error", "Missing required field: {name}"),
    pgettext("service error", "{name} must be a string"),
    pgettext("service error", "{name} is not a calendar date"),
    pgettext("service error", "{name} must be {low} to {high} characters"),
    pgettext("service error", "{name} must be a number from {low} to {high}"),
    pgettext("service error", "{name} must be a whole number from {low} to {high}"),
    pgettext("service error", "{name} must be a calendar date YYYY-MM-DD"),
    pgettext("service error", "{name} must be one of {choices}"),
    pgettext("service error", "birthdate must be YYYY-MM-DD"),
    pgettext("service error", "birthtime must be HH:MM, 00:00 to 23:59"),
    pgettext("service error", "birthdate must be DD-MMM-YY"),
    pgettext("service error", "birthdate is outside the supported range: births from "
             "{first} UTC to {last} UTC"),
    counted("service error", "Request body exceeds {limit} byte",
            "Request body exceeds {limit} bytes", "limit"),
    pgettext("service error", "Request body incomplete"),
    pgettext("service error", "Request body too slow"),
    pgettext("service error", "Request body is empty"),
    pgettext("service error", "Request body is not valid JSON"),
    pgettext("service error", "Request body must be a JSON object"),
    pgettext("service error", "The body must be a JSON object"),
    pgettext("service error", "a birth must be a JSON object"),
    pgettext("service error", "{name} must be a list of {low} to {high} births, not a list"),
    counted("service error", "{name} must be a list of {count} birth, not a list",
            "{name} must be a list of {count} births, not a list", "count"),
    pgettext("service error", "{name} must be a list of {low} to {high} births, not {size}"),
    counted("service error", "{name} must be a list of {count} birth, not {size}",
            "{name} must be a list of {count} births, not {size}", "count"),
    pgettext("service error", "at must be a UTC instant YYYY-MM-DDTHH:MM:SSZ"),
    pgettext("service error", "at is outside the supported range ({first} to {last})"),
    pgettext("service error", "visual must be true or false"),
    pgettext("service error", "visual needs natal: the picture is the natal chart with the "
             "transit over it"),
    counted("service error", "to must be from 0 to {days} day after from",
            "to must be from 0 to {days} days after from", "days"),
    pgettext("service error", "bodies must be a non-empty list of distinct body names"),
    pgettext("service error", "year must come after the year of birth (UTC)"),
    pgettext("service error", "The window reaches outside the supported range of dates "
             "({first} to {last})"),
    pgettext("service error", "A cycle reaches outside the supported range of dates "
             "({first} to {last})"),
    pgettext("service error", "The calendar reaches outside the supported range of dates "
             "({first} to {last})"),
    pgettext("service error", "The window cannot be computed for this input"),
    pgettext("service error", "A cycle cannot be computed for this input"),
    pgettext("service error", "The calendar cannot be computed for this input"),
    pgettext("service error", "An option names nothing known; the message lists the valid "
             "values"),
    pgettext("service error", "{name} must be true or false"),
    pgettext("service error", "{name} must be a list of whole numbers"),
    pgettext("service error", "{name} must be a list of strings"),
    pgettext("service error", "constraints must be a JSON object"),
    pgettext("service error", "unknown constraint {name}; use: {names}"),
    pgettext("service error", "give at least one constraint: {names}"),
    pgettext("service error", "boundMinutes must be a whole number of minutes"),
    pgettext("service error", "boundMinutes must be from {low} to {high} (48 hours either "
             "side), not {value}; give one such as {example}"),
    counted("service error", "toDate must be from date to {days} day after it (at most "
            "{most} days in all)", "toDate must be from date to {days} days after it (at most "
            "{most} days in all)", "days"),
    pgettext("service error", "toTime must come after fromTime when the search is one day"),
    pgettext("service error", "transitAt is outside the supported range ({first} to {last})"),
    pgettext("service error", "Unknown query parameter {name} (this endpoint takes: "
             "{takes})"),
    pgettext("service error", "Query parameter {name} given more than once"),
    pgettext("service error", "{method} {path} takes no request body"),
    pgettext("service error", "POST {path} takes no members in its body but lang"),
    pgettext("service error", "days must be a whole number from 1 to {most}"),
    pgettext("service error", "This service runs no jobs"),
    pgettext("service error", "No job {job_id} among this account's jobs"),
    pgettext("service error", "The result of job {job_id} is not ready: the job is {status}"),
    pgettext("service error", "The result of job {job_id} has expired"),
    pgettext("service error", "Content-Encoding {encoding} is not accepted (use gzip or none)"),
    pgettext("service error", "Request body is not valid gzip"),
    pgettext("service error", "Request body is not valid gzip (it ends too soon)"),
    counted("service error", "Request body exceeds {limit} byte once decoded",
            "Request body exceeds {limit} bytes once decoded", "limit"),
    pgettext("service error", "Request body must be NDJSON (Content-Type: "
             "application/x-ndjson) or CSV (Content-Type: text/csv)"),
    pgettext("service error", "Request body is not UTF-8 text"),
    pgettext("service error", "line {number} is not valid JSON"),
    pgettext("service error", "line {number} is not a JSON object (a birth: "
             '{{"birthdate", "birthtime", "lat", "lng"}})'),
    pgettext("service error", "the CSV upload has no header row"),
    pgettext("service error", "the CSV upload is not readable: {reason}"),
    counted("service error", "a job takes at most {most} birth",
            "a job takes at most {most} births", "most"),
    pgettext("service error", "Request body is empty: send at least one birth"),
    pgettext("service error", "Request body holds no birth: send at least one"),
    counted("service error", "callbackUrl must be an absolute URL of at most {most} "
            "character without spaces", "callbackUrl must be an absolute URL of at most "
            "{most} characters without spaces", "most"),
    pgettext("service error", "callbackUrl has an invalid port"),
    pgettext("service error", "callbackUrl must be an absolute URL like "
             "https://example.com/hooks"),
    pgettext("service error", "callbackUrl must not contain a user name or password"),
    pgettext("service error", "callbackUrl must use https"),
    pgettext("service error", "callbackUrl host {host} resolves to a {kind} address "
             "({address}); callbacks go to public addresses only"),
    pgettext("service error", "callbackUrl host {host} could not be resolved"),
    *IMAGE_MESSAGES,
)
"""The messages the service writes, in the order they are tried (a value is any text)."""

_MEMBER = r"[a-zA-Z]+(?:\[\d+\])?"


def _pattern(message: str) -> re.Pattern[str]:
    """The regular expression matching ``message`` with any values in its fields."""
    parts = []
    for literal, name, _, _ in Formatter().parse(message):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>{_MEMBER})" if name == "where" else f"(?P<{name}>.+?)")
    return re.compile("".join(parts), re.DOTALL)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str | Counted], ...]:
    """Each message with its pattern, in order (a message with a count: each English
    form)."""
    return tuple((_pattern(english), m) for m in (*MESSAGES, WITH_REQUEST_ID, LOCATED)
                 for english in ((m.singular, m.plural) if isinstance(m, Counted) else (m,)))


def translated(message: str, lang: str) -> str:
    """``message`` in ``lang`` (a supported code), a grouped number in it (``1,000,000``)
    written as ``lang`` writes it; a message the catalogs do not hold stays as it is."""
    if lang == "en":
        return message
    from bodygraph.catalog.numbers import grouped_in
    from bodygraph.catalog.translations import catalog

    marked = catalog(lang).pgettext(CONTEXT, message)  # a message without values
    if marked != message:
        return marked
    for pattern, english in _patterns():
        found = pattern.fullmatch(message)
        if found is None:
            continue
        values = {name: grouped_in(value, lang) for name, value in found.groupdict().items()}
        if "message" in values:  # the message inside a located or numbered one
            inner = translated(values["message"], lang)
            if inner == values["message"]:
                continue
            values["message"] = inner
        if isinstance(english, Counted):
            return english.said(lang, count_in(found[english.field])).format(**values)
        return catalog(lang).pgettext(CONTEXT, english).format(**values)
    from bodygraph.catalog.said import said

    return said(message, lang)


def named_language(scope: Scope) -> str | None:
    """The language a request names with ``?lang=`` (one supported code), for a refusal
    answered outside an operation (the ``Host`` check, the gate's last resort); None
    without one, with another, and on v1 (which has none)."""
    if scope["path"].startswith("/v1/") or b"lang" not in scope.get("query_string", b""):
        return None
    given = QueryParams(scope["query_string"]).getlist("lang")
    return given[0] if len(given) == 1 and given[0] in LANGUAGES else None


def spoken(error: ApiError, lang: str | None) -> ApiError:
    """``error`` with its message in ``lang`` and ``Content-Language`` (None: as it is)."""
    if lang is None:
        return error
    return ApiError(error.code, translated(error.message, lang), status=error.status,
                    headers={**error.headers, "Content-Language": lang})
