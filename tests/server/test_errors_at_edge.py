"""Errors are mapped at the edge: the library's exceptions say what went wrong in library
terms (no contract codes), and the app maps them through one table registered as
Starlette exception handlers."""

from __future__ import annotations

import inspect

import pytest

import bodygraph.errors
import bodygraph.geo.birthtime
import bodygraph.geo.coordinates
import bodygraph.geo.places.base
import bodygraph.geo.timezones
from bodygraph.errors import BodygraphError
from bodygraph_server.app import create_app
from bodygraph_server.http.errors import ApiError, ErrorCode, from_library_error, library_errors
from bodygraph_server.settings import Settings

LIBRARY_MODULES = (bodygraph.errors, bodygraph.geo.birthtime, bodygraph.geo.coordinates,
                   bodygraph.geo.places.base, bodygraph.geo.timezones)


def _library_errors() -> list[type[BaseException]]:
    return [kind for module in LIBRARY_MODULES for _, kind in inspect.getmembers(module)
            if inspect.isclass(kind) and issubclass(kind, BodygraphError)]


@pytest.mark.parametrize("kind", _library_errors(), ids=lambda kind: kind.__name__)
def test_library_errors_carry_no_contract_code(kind: type[BaseException]) -> None:
    assert not hasattr(kind, "code")
    assert not set(vars(kind)) & set(ErrorCode)


def test_one_table_maps_every_library_error_most_specific_first() -> None:
    table = library_errors()
    for i, (kind, _) in enumerate(table):
        assert not any(issubclass(kind, earlier) for earlier, _ in table[:i]), kind
    assert table[-1] == (BodygraphError, ErrorCode.CHART_GENERATION_FAILED)
    from bodygraph.geo.places.base import GeocodeFailedError, LocationNotFoundError

    assert from_library_error(GeocodeFailedError("x")).code is ErrorCode.GEOCODE_FAILED
    missing = from_library_error(LocationNotFoundError("Atlantis", ("Atlanta, US",)))
    assert missing.message.endswith("close matches: Atlanta, US")


def test_the_app_registers_the_handlers() -> None:
    app = create_app(Settings(database_url="sqlite:///:memory:", geocoder="offline",
                              warm_up=False))
    assert {ApiError, BodygraphError} <= set(app.exception_handlers)
