"""A *birth* inside an extension's body: the contract's coordinates input (``birthdate``,
``birthtime``, ``lat``, ``lng``) or its location input (``birthdate``, ``birthtime``,
``location``), parsed by the very functions of the chart endpoints
(:mod:`bodygraph_server.http.validation`), so every field gets the contract's code.

A birth with a ``location`` (not null) is a location input (it needs the
HD-Geocode-Key header); any other is a coordinates input. A birth that is not a JSON
object, or a list of births that is not a list or has the wrong length, is
INVALID_REQUEST_BODY (422). Every message names the member at fault (``people[1]:
birthdate must be YYYY-MM-DD``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.validation import (
    CoordinatesInput,
    LocationInput,
    parse_coordinates_input,
    parse_location_input,
    required,
)

Birth = LocationInput | CoordinatesInput


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


def birth_list(body: Mapping[str, Any], name: str, fewest: int, most: int) -> list[Any]:
    """Member ``name`` of the body: a list of ``fewest`` to ``most`` items (else
    MISSING_REQUIRED_FIELD when absent, INVALID_REQUEST_BODY otherwise)."""
    items = required(body, name)
    count = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    if not isinstance(items, list) or not fewest <= len(items) <= most:
        size = f"not {len(items)}" if isinstance(items, list) else "not a list"
        raise shape_error(f"{name} must be a list of {count} births, {size}")
    return items


def parse_births(body: Mapping[str, Any], name: str, fewest: int, most: int) -> list[Birth]:
    """The births of list member ``name`` (see :func:`birth_list`), the first bad one
    deciding the error."""
    items = birth_list(body, name, fewest, most)
    return [parse_birth_object(item, f"{name}[{i}]") for i, item in enumerate(items)]


def needs_geocode_key(births: Sequence[Birth | None]) -> bool:
    """Whether any birth is given by place name."""
    return any(isinstance(birth, LocationInput) for birth in births)
