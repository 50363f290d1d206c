"""A request body as data: its fields in contract order, each with its JSON Schema, its
contract error code and the reader made from the same rules; the parser, the schema and
the error codes of a body are generated from it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Generic, TypeVar

from bodygraph_server.http.errors import ApiError, ErrorCode

T = TypeVar("T")
Reader = Callable[[object, date], Any]
"""Reads a member that is present and not null (the day is today's, for the v1 century
rule); raises :class:`ApiError` with the field's code."""


def required(body: Mapping[str, Any], name: str) -> object:
    """Member ``name`` of the body; MISSING_REQUIRED_FIELD when absent or null."""
    value = body.get(name)
    if value is None:
        raise ApiError(ErrorCode.MISSING_REQUIRED_FIELD, f"Missing required field: {name}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Field:
    """One member of a body: its name, the contract's code for a bad value, its JSON
    Schema and its reader; an ``optional`` member absent or null is ``default``."""

    name: str
    code: ErrorCode
    schema: Mapping[str, Any]
    read: Reader
    optional: bool = False
    default: Any = None
    """An optional member may be absent or null: then ``default`` is taken."""


def optional(field: Field, default: Any = None) -> Field:
    """``field`` as an optional member, ``default`` when absent or null."""
    return Field(name=field.name, code=field.code, schema=field.schema, read=field.read,
                 optional=True, default=default)


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, f"{name} must be a string")
    return value


def pattern_field(*, name: str, code: ErrorCode, pattern: str, documented: str,
                  mismatch: str, convert: Callable[[re.Match[str], date], Any],
                  schema: Mapping[str, Any]) -> Field:
    """A text member matching ``pattern`` (whole), converted by ``convert`` (a ValueError:
    not a calendar date); the schema states ``documented``, a pattern at most as wide."""
    compiled = re.compile(pattern)

    def read(value: object, today: date) -> Any:
        match = compiled.fullmatch(_text(value, name))
        if match is None:
            raise ApiError(code, mismatch)
        try:
            return convert(match, today)
        except ValueError:
            raise ApiError(code, f"{name} is not a calendar date") from None

    return Field(name=name, code=code, read=read,
                 schema={"type": "string", **schema, "pattern": documented})


def text_field(*, name: str, code: ErrorCode, lengths: tuple[int, int], documented: str,
               check: Callable[[str], str], schema: Mapping[str, Any]) -> Field:
    """A text member of ``lengths`` characters, and as many once trimmed; ``check`` (which
    raises ValueError with the message) decides the trimmed text."""
    low, high = lengths

    def read(value: object, today: date) -> str:
        raw = _text(value, name)
        text = raw.strip()
        if not low <= len(raw) <= high or len(text) < low:
            raise ApiError(code, f"{name} must be {low} to {high} characters")
        try:
            return check(text)
        except ValueError as exc:
            raise ApiError(code, str(exc)) from None

    return Field(name=name, code=code, read=read,
                 schema={"type": "string", "minLength": low, "maxLength": high,
                         "pattern": documented, **schema})


def number_field(*, name: str, code: ErrorCode, bounds: tuple[float, float],
                 schema: Mapping[str, Any]) -> Field:
    """A finite JSON number from ``bounds[0]`` to ``bounds[1]``, inclusive."""
    low, high = bounds
    message = f"{name} must be a number from {low:g} to {high:g}"

    def read(value: object, today: date) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ApiError(code, message)
        number = float(value) if not isinstance(value, int) or abs(value) < 10**6 else math.inf
        if not (math.isfinite(number) and low <= number <= high):
            raise ApiError(code, message)
        return number

    return Field(name=name, code=code, read=read,
                 schema={"type": "number", "minimum": low, "maximum": high, **schema})


def choice_field(*, name: str, code: ErrorCode, choices: tuple[str, ...],
                 default: str | None, schema: Mapping[str, Any]) -> Field:
    """An optional text member naming one of ``choices`` (``default`` when absent or null);
    anything else is ``code`` with the choices listed."""
    message = f"{name} must be one of {', '.join(choices)}"

    def read(value: object, today: date) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ApiError(code, message)
        return value

    stated = {} if default is None else {"default": default}
    return Field(name=name, code=code, read=read, optional=True, default=default,
                 schema={"type": "string", "enum": list(choices), **stated, **schema})


def _member(body: Mapping[str, Any], field: Field, today: date) -> Any:
    if field.optional and body.get(field.name) is None:
        return field.default
    return field.read(required(body, field.name), today)


@dataclass(frozen=True, slots=True)
class Body(Generic[T]):
    """A request body: its name among the components' schemas, its fields in contract
    order (the first failing one decides the error), and what is built from their
    values."""

    name: str
    fields: tuple[Field, ...]
    build: Callable[..., T]

    def parse(self, body: Mapping[str, Any], today: date | None = None) -> T:
        """The typed input of ``body`` (unknown members are ignored)."""
        day = today or date.min
        return self.build(*(_member(body, field, day) for field in self.fields))

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the body."""
        return {"type": "object",
                "required": [field.name for field in self.fields if not field.optional],
                "properties": {field.name: dict(field.schema) for field in self.fields}}

    def error_codes(self) -> tuple[ErrorCode, ...]:
        """The codes its parsing answers: a missing member, a wrong type, each field's."""
        return tuple(dict.fromkeys((ErrorCode.MISSING_REQUIRED_FIELD,
                                    ErrorCode.INVALID_REQUEST_BODY,
                                    *(field.code for field in self.fields))))
