"""Errors are mapped at the edge: the library's exceptions say what went wrong in library
terms (no contract codes), and the app maps them through one table registered as
Starlette exception handlers."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

import bodygraph.errors
import bodygraph.geo.birthtime
import bodygraph.geo.coordinates
import bodygraph.geo.places.base
import bodygraph.geo.timezones
import bodygraph_server.resources
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


def test_a_date_outside_the_ephemeris_is_the_birth_s_or_the_request_s() -> None:
    from datetime import UTC, datetime

    from bodygraph.errors import OutOfRangeError

    first, last = datetime(1800, 4, 4, tzinfo=UTC), datetime(2199, 12, 31, tzinfo=UTC)
    birth = from_library_error(OutOfRangeError(datetime(1700, 1, 1, tzinfo=UTC), first, last))
    assert (birth.code, birth.status) == (ErrorCode.INVALID_BIRTHDATE, 400)
    assert "births from 1800-04-04 00:00 UTC" in birth.message
    window = from_library_error(OutOfRangeError(datetime(2200, 1, 1, tzinfo=UTC), first, last,
                                                reaching="the window"))
    assert (window.code, window.status) == (ErrorCode.INVALID_REQUEST_BODY, 422)
    assert window.message == ("the window reaches outside the supported range of dates "
                              "(1800 to 2199)")


def _catches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            kinds = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            for kind in kinds:
                name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")
                yield node.lineno, name


def test_no_handler_maps_a_library_error_itself() -> None:
    """The families raise, the table maps: no ``except`` of a library exception class in
    ``resources/`` (an InvalidOptionError is 400 INVALID_OPTION, an OutOfRangeError as
    :func:`from_library_error` says, whichever family raised it)."""
    library = {kind.__name__ for kind in _library_errors()}
    assert "InvalidOptionError" in library
    caught = "try:\n    pass\nexcept (errors.InvalidOptionError, KeyError):\n    pass\n"
    assert list(_catches(ast.parse(caught))) == [(3, "InvalidOptionError"), (3, "KeyError")]
    root = Path(bodygraph_server.resources.__file__).parent
    found = [f"{path.relative_to(root)}:{line} catches {name}"
             for path in sorted(root.rglob("*.py"))
             for line, name in _catches(ast.parse(path.read_text(), str(path)))
             if name in library]
    assert found == []
