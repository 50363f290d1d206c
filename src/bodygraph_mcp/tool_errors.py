"""The tools' errors in the call's ``lang``: their own messages, the SDK's wrapping and the
arguments' validation, each a message of the catalogs' context ``error``, said whole in
the language (docs/mcp.md#errors); without ``lang`` the English is the SDK's as before."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.said import said
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog, pgettext
from bodygraph.cli.options import CliError

CONTEXT = "error"
LANG = "lang"

#: How to give a birth, closing each of its refusals.
HOW = pgettext("error", "give date and time with a place or with lat and lng, or give utc "
               "alone (e.g. date 1990-07-15, time 14:30, place 'Berlin, Germany')")
UTC_ALONE = pgettext("error", "utc goes alone: {how}")
NO_DATE = pgettext("error", "the birth date or time is missing: {how}")
PLACE_AND_COORDINATES = pgettext("error", "give a place or lat and lng, not both: {how}")
NO_PLACE = pgettext("error", "the birth place is missing: {how}")
#: A birth's fields that fail validation, then how to give one.
BIRTH_PROBLEMS = pgettext("error", "{problems} ({how})")
NOT_AN_INSTANT = pgettext("error", "{name} {text!r} is not an ISO 8601 date-time; write it "
                          "like 1990-07-15T12:30:00Z")
NO_OFFSET = pgettext("error", "{name} {text!r} has no offset; add Z for UTC "
                     "(1990-07-15T12:30:00Z)")
NO_OFFSET_OR_LOCAL = pgettext("error", "{name} {text!r} has no offset; add Z for UTC "
                              "(1990-07-15T12:30:00Z), or give date and time with a place "
                              "or lat and lng for a local time")
ONE_OVERLAY = pgettext("error", "give transit_at or other, not both: one overlay per picture")
LAT_WITH_LNG = pgettext("error", "give lat and lng together")
ONE_WHERE = pgettext("error", "give exactly one of place, lat and lng, or tz (e.g. place "
                     "'London, United Kingdom')")

#: The SDK's words around a tool's error (mcp.server.mcpserver.tools.base).
EXECUTING = pgettext("error", "Error executing tool {name}: {message}")
CRASHED = pgettext("error", "Error executing tool {name}")
UNKNOWN_TOOL = pgettext("error", "Unknown tool: {name}")

#: An argument that fails validation, by the kind of pydantic's error.
REQUIRED = pgettext("error", "{name} is required")
STRING = pgettext("error", "{name} must be a string")
WHOLE = pgettext("error", "{name} must be a whole number")
NUMBER = pgettext("error", "{name} must be a number")
TRUTH = pgettext("error", "{name} must be true or false")
LIST = pgettext("error", "{name} must be a list")
OBJECT = pgettext("error", "{name} must be an object")
CHOICE = pgettext("error", "{name} must be one of {choices}")
AT_LEAST = pgettext("error", "{name} must be at least {limit}")
AT_MOST = pgettext("error", "{name} must be at most {limit}")
MORE_THAN = pgettext("error", "{name} must be more than {limit}")
LESS_THAN = pgettext("error", "{name} must be less than {limit}")
FEWEST = pgettext("error", "{name} must have at least {count} items")
MOST = pgettext("error", "{name} must have at most {count} items")
DATE_TIME = pgettext("error", "{name} must be an ISO 8601 date-time like "
                     "1990-07-15T12:30:00Z")
DATE = pgettext("error", "{name} must be a date YYYY-MM-DD")
UNKNOWN_FIELD = pgettext("error", "{name} is not known here; leave it out")
INVALID = pgettext("error", "{name} is not valid")

_KINDS: Mapping[str, str] = {
    "missing": REQUIRED, "string_type": STRING, "string_unicode": STRING,
    **dict.fromkeys(("int_type", "int_parsing", "int_from_float", "int_parsing_size"), WHOLE),
    **dict.fromkeys(("float_type", "float_parsing", "finite_number"), NUMBER),
    "bool_type": TRUTH, "bool_parsing": TRUTH,
    **dict.fromkeys(("list_type", "tuple_type", "set_type", "iterable_type"), LIST),
    **dict.fromkeys(("dict_type", "model_type", "model_attributes_type",
                     "typed_dict_type"), OBJECT),
    "literal_error": CHOICE, "enum": CHOICE,
    "greater_than_equal": AT_LEAST, "less_than_equal": AT_MOST,
    "greater_than": MORE_THAN, "less_than": LESS_THAN,
    "too_short": FEWEST, "too_long": MOST,
    **dict.fromkeys(("datetime_type", "datetime_parsing", "datetime_from_date_parsing",
                     "datetime_object_invalid", "timezone_aware", "timezone_naive"),
                    DATE_TIME),
    **dict.fromkeys(("date_type", "date_parsing", "date_from_datetime_parsing",
                     "date_from_datetime_inexact"), DATE),
    "extra_forbidden": UNKNOWN_FIELD,
}
"""The message of each kind of pydantic error (``ErrorDetails["type"]``); any other kind:
:data:`INVALID`."""
_LIMITS = {"greater_than_equal": "ge", "less_than_equal": "le", "greater_than": "gt",
           "less_than": "lt", "too_short": "min_length", "too_long": "max_length"}


class Refusal(ToolError):
    """A tool's refusal: its English text, as before, and the same said in a language."""

    def __init__(self, english: str, say: Callable[[str], str]) -> None:
        super().__init__(english)
        self.say = say

    def text(self, lang: str) -> str:
        """The message in ``lang`` (a supported code)."""
        return self.say(lang)


def refused(template: str, **fields: object) -> Refusal:
    """The refusal of the message ``template`` (one of this module's) with its ``fields``;
    a field that is an error (a :class:`Refusal`, a library error) is said in the language
    too, any other value is kept as it is."""
    def say(lang: str) -> str:
        values = {name: spoken(value, lang) if isinstance(value, BaseException) else value
                  for name, value in fields.items()}
        return _said(template, lang).format(**values)

    return Refusal(template.format(**fields), say)


def how() -> Refusal:
    """:data:`HOW`, to close a birth's refusal."""
    return refused(HOW)


def invalid_birth(errors: ValidationError, name: str) -> Refusal:
    """A birth (argument ``name``) whose fields fail validation: each named with what is
    wrong (in English pydantic's words, as before), then :data:`HOW`."""
    english = "; ".join(f"{where(error['loc'], (name,))}: {error['msg']}"
                        for error in errors.errors())
    return Refusal(BIRTH_PROBLEMS.format(problems=english, how=HOW),
                   lambda lang: _said(BIRTH_PROBLEMS, lang).format(
                       problems=problems(errors, lang, (name,)), how=how().text(lang)))


def library_refusal(error: Exception | str) -> Refusal:
    """A library error, or one of the library's messages, as the command line says it in
    a language (:mod:`bodygraph.catalog.said`)."""
    if isinstance(error, str):
        return Refusal(error, lambda lang: said(error, lang))
    return Refusal(str(error), lambda lang: spoken(error, lang))


def spoken(error: BaseException, lang: str) -> str:
    """Any error's message in ``lang``: a :class:`Refusal`'s own, a usage mistake's
    (:meth:`CliError.text`), else the library's message as the catalogs say it (a message
    they do not hold stays as it is: English, whole)."""
    if isinstance(error, (Refusal, CliError)):
        return error.text(lang)
    return said(str(error), lang)


def where(location: Iterable[int | str], within: Sequence[str] = ()) -> str:
    """An argument's place as the messages name it: ``members[2].lat``."""
    out = ""
    for part in (*within, *location):
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def problem(error: ErrorDetails, lang: str, within: Sequence[str] = ()) -> str:
    """One failing argument (a pydantic error, by its kind and place) in ``lang``."""
    name = where(error["loc"], within)
    kind = error["type"]
    context: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "literal_error" and name == LANG:  # an unknown code: said in English
        return unknown_language(error.get("input"))
    fields: dict[str, object] = {"name": name}
    if kind in ("literal_error", "enum"):
        expected = str(context.get("expected", ""))
        fields["choices"] = ", ".join(re.findall(r"'([^']*)'", expected)) or expected
    elif kind in _LIMITS:
        fields["count" if kind.startswith("too_") else "limit"] = _number(
            context.get(_LIMITS[kind]), lang)
    return _said(_KINDS.get(kind, INVALID), lang).format(**fields)


def _number(value: object, lang: str) -> str:
    """A bound as ``lang`` writes it: a whole number as it is (a year stays ``1800``), a
    fraction with the language's decimal mark."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, float) and "e" not in repr(value):
        return number_text(value, lang, len(repr(value).partition(".")[2]))
    return str(value)


def problems(errors: ValidationError, lang: str, within: Sequence[str] = ()) -> str:
    """Every failing argument, ``; ``-separated, in ``lang``."""
    return "; ".join(problem(error, lang, within) for error in errors.errors())


def unknown_language(given: object) -> str:
    """An unknown ``lang``: in English (no language can be read from it), naming the
    codes, as the command line and the service say it."""
    return f"lang {given!r} is not a supported language; use one of {', '.join(LANGUAGES)}"


def language_of(arguments: Mapping[str, Any]) -> str | None:
    """The language errors are said in: the call's ``lang`` when it is a supported code,
    English when it is given and unknown (its message names the codes), None without it
    (the SDK's English, as before)."""
    given = arguments.get(LANG)
    if given is None:
        return None
    return given if isinstance(given, str) and given in LANGUAGES else SOURCE_LANGUAGE


def in_language(error: ToolError, tool: str, arguments: Mapping[str, Any]) -> str | None:
    """The text of ``error``, the SDK's failure of the call of ``tool``, in the language of
    the call's ``lang`` (None: no ``lang``, the text stays the SDK's)."""
    lang = language_of(arguments)
    if lang is None:
        return None
    cause = error.__cause__
    if isinstance(error, UnexpectedToolError):
        return _said(CRASHED, lang).format(name=tool)
    if isinstance(cause, ValidationError):
        message = problems(cause, lang)
    elif isinstance(cause, Exception):
        message = spoken(cause, lang)
    elif str(error) == UNKNOWN_TOOL.format(name=tool):
        return _said(UNKNOWN_TOOL, lang).format(name=tool)
    else:
        message = spoken(error, lang)
    return _said(EXECUTING, lang).format(name=tool, message=message)


def _said(message: str, lang: str) -> str:
    """One of this module's messages in ``lang``."""
    return catalog(lang).pgettext(CONTEXT, message)
