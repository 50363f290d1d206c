"""A birth inside an extension's body (the contract's coordinates or location input, each
field with the contract's code) and lists of births, as members of a declarative body;
every message names the member at fault (docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from bodygraph_server.http.body import Base, Field
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.validation import (
    CHART_INPUT,
    COORDINATES_INPUT,
    CoordinatesInput,
    LocationInput,
    birth_list_schema,
    parse_coordinates_input,
    parse_location_input,
    required,
)

Birth = LocationInput | CoordinatesInput
BIRTH_FIELD_CODES = tuple(code for code in dict.fromkeys(
    (*COORDINATES_INPUT.error_codes(), *CHART_INPUT.error_codes()))
    if code not in (ErrorCode.MISSING_REQUIRED_FIELD, ErrorCode.INVALID_REQUEST_BODY))
"""The codes of a birth's fields (a birth by coordinates or by place name)."""
_BIRTH_INPUT = "BirthInput"


def shape_error(message: str) -> ApiError:
    """INVALID_REQUEST_BODY (422): the body has the wrong shape."""
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message)


def located(where: str, error: ApiError) -> ApiError:
    """``error`` with the member it concerns in front of its message."""
    return ApiError(error.code, f"{where}: {error.message}", status=error.status,
                    headers=error.headers)


def parse_birth_object(value: object, where: str = "", *, places: bool = True) -> Birth:
    """The birth at ``where`` (a JSON pointer-like name for messages; empty for the body
    itself); ``places`` False reads every birth as coordinates (a ``location`` is then
    ignored)."""
    if not isinstance(value, dict):
        raise shape_error(f"{where}: a birth must be a JSON object" if where
                          else "The body must be a JSON object")
    try:
        if places and value.get("location") is not None:
            return parse_location_input(value)
        return parse_coordinates_input(value)
    except ApiError as error:
        raise (located(where, error) if where else error) from None


def _sized(items: object, name: str, fewest: int, most: int) -> list[Any]:
    count = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    if not isinstance(items, list) or not fewest <= len(items) <= most:
        size = f"not {len(items)}" if isinstance(items, list) else "not a list"
        raise shape_error(f"{name} must be a list of {count} births, {size}")
    return items


def birth_list(body: Mapping[str, Any], name: str, fewest: int, most: int) -> list[Any]:
    """Member ``name`` of the body: a list of ``fewest`` to ``most`` items (else
    MISSING_REQUIRED_FIELD when absent, INVALID_REQUEST_BODY otherwise)."""
    return _sized(required(body, name), name, fewest, most)


def parse_births(body: Mapping[str, Any], name: str, fewest: int, most: int) -> list[Birth]:
    """The births of list member ``name`` (see :func:`birth_list`), the first bad one
    deciding the error."""
    items = birth_list(body, name, fewest, most)
    return [parse_birth_object(item, f"{name}[{i}]") for i, item in enumerate(items)]


BIRTH_BASE = Base(schema_name=_BIRTH_INPUT, read=parse_birth_object, codes=BIRTH_FIELD_CODES)
"""A body that is a birth with members of its own (``BirthInput`` and more)."""


def birth_field(*, name: str, optional: bool = False) -> Field:
    """A member holding one birth (``BirthInput``), named ``name`` in messages."""

    def read(value: object, today: date) -> Birth:
        return parse_birth_object(value, name)

    return Field(name=name, code=ErrorCode.INVALID_REQUEST_BODY, read=read,
                 optional=optional, inner_codes=BIRTH_FIELD_CODES,
                 schema={"$ref": "#/components/schemas/" + _BIRTH_INPUT})


def births_field(*, name: str, count: tuple[int, int], description: str,
                 read_item: Callable[[object, str], Any] = parse_birth_object,
                 items: Mapping[str, Any] | None = None,
                 item_codes: tuple[ErrorCode, ...] = BIRTH_FIELD_CODES) -> Field:
    """A member holding a list of ``count[0]`` to ``count[1]`` births, each read by
    ``read_item`` (named ``name[i]`` in messages); ``items`` and ``item_codes`` are the
    schema of an item and its codes when they are not a birth's."""
    fewest, most = count

    def read(value: object, today: date) -> list[Any]:
        return [read_item(item, f"{name}[{i}]")
                for i, item in enumerate(_sized(value, name, fewest, most))]

    schema = birth_list_schema(fewest, most, description)
    return Field(name=name, code=ErrorCode.INVALID_REQUEST_BODY, read=read,
                 inner_codes=item_codes,
                 schema=schema if items is None else {**schema, "items": dict(items)})


def needs_geocode_key(births: Sequence[Birth | None]) -> bool:
    """Whether any birth is given by place name."""
    return any(isinstance(birth, LocationInput) for birth in births)
