"""The pieces on their own: settings, the error table and its mapping of library errors,
the envelope, the OpenAPI document and the start-up hint."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph.errors import BodygraphError, EphemerisError, OutOfRangeError
from bodygraph.geo.places.base import GeocodeRateLimitedError, LocationNotFoundError
from bodygraph.geo.timezones import TimezoneLookupError
from bodygraph_server.http.envelope import timestamp, v1_error, v2_error, v2_success
from bodygraph_server.http.errors import ERROR_TABLE, ApiError, ErrorCode, from_library_error
from bodygraph_server.http.fields import DATE_PATTERN, TIME_PATTERN, V1_DATE_PATTERN
from bodygraph_server.http.openapi import openapi_document
from bodygraph_server.http.validation import parse_birthdate, parse_birthtime, parse_v1_birthdate
from bodygraph_server.resources import schemas as family_schemas
from bodygraph_server.resources.charts.flow import ChartEndpoint, chart_operation
from bodygraph_server.resources.charts.operations import OPERATIONS as V2_OPERATIONS
from bodygraph_server.resources.pages.docs_page import docs_page
from bodygraph_server.resources.v1.operations import OPERATIONS as V1_OPERATIONS
from bodygraph_server.serve import banner
from bodygraph_server.settings import Settings, SettingsError


def test_settings_from_environment() -> None:
    env = {
        "BODYGRAPH_DATABASE_URL": "sqlite:///x.db",
        "BODYGRAPH_GEOCODER": "Offline",
        "BODYGRAPH_MAX_BODY_BYTES": "4096",
        "BODYGRAPH_REQUEST_TIMEOUT": "2.5",
        "BODYGRAPH_WORKERS": "3",
        "BODYGRAPH_WARM_UP": "no",
        "BODYGRAPH_ACCESS_LOG": "off",
        "BODYGRAPH_RENDER_URL": "https://render.example",
    }
    settings = Settings.from_env(env)
    assert settings == Settings(database_url="sqlite:///x.db", geocoder="offline",
                                max_body_bytes=4096, request_timeout=2.5, workers=3,
                                warm_up=False, access_log=False,
                                render_url="https://render.example")
    assert Settings.from_env(env, workers=1).workers == 1
    assert Settings.from_env(settings.to_env()) == settings


@pytest.mark.parametrize(
    "env",
    [{"BODYGRAPH_GEOCODER": "bing"}, {"BODYGRAPH_WORKERS": "0"},
     {"BODYGRAPH_WORKERS": "many"}, {"BODYGRAPH_REQUEST_TIMEOUT": "-1"},
     {"BODYGRAPH_MAX_BODY_BYTES": "10"}, {"BODYGRAPH_WARM_UP": "perhaps"},
     {"BODYGRAPH_ACCESS_LOG": "sometimes"}],
)
def test_bad_settings(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_error_table_matches_the_contract() -> None:
    contract = {
        "API_KEY_MISSING": 401, "API_KEY_INVALID": 401, "UNAUTHORIZED": 401,
        "GEOCODE_KEY_MISSING": 401, "CREDITS_EXHAUSTED": 402, "ACCESS_DENIED": 403,
        "ACCOUNT_INACTIVE": 403, "INVALID_BIRTHDATE": 400, "INVALID_BIRTHTIME": 400,
        "INVALID_LOCATION": 400, "INVALID_LATITUDE": 400, "INVALID_LONGITUDE": 400,
        "MISSING_REQUIRED_FIELD": 400, "INVALID_REQUEST_BODY": 422, "GEOCODE_FAILED": 400,
        "GEOCODE_KEY_INVALID": 400, "GEOCODE_LOCATION_NOT_FOUND": 400,
        "GEOCODE_RATE_LIMITED": 429, "RATE_LIMIT_EXCEEDED": 429,
        "TIMEZONE_LOOKUP_FAILED": 500, "EPHEMERIS_ERROR": 500,
        "CHART_GENERATION_FAILED": 500, "INTERNAL_ERROR": 500,
    }
    table = {code.value: spec.status for code, spec in ERROR_TABLE.items()}
    assert {k: v for k, v in table.items() if k in contract} == contract
    extensions = {  # docs/api.md: outages, the Idempotency-Key header, options
        "SERVICE_UNAVAILABLE": 503, "IDEMPOTENCY_KEY_INVALID": 400,
        "IDEMPOTENCY_KEY_REUSED": 422, "IDEMPOTENCY_KEY_IN_USE": 409, "INVALID_OPTION": 400,
    }

    extensions["INVALID_LANGUAGE"] = 400  # docs/api.md, "Languages"
    assert {k: v for k, v in table.items() if k in extensions} == extensions
    assert set(table) - set(contract) - set(extensions) == {"NOT_FOUND", "METHOD_NOT_ALLOWED"}


def test_library_errors_map_to_codes() -> None:
    first = datetime(1800, 4, 3, tzinfo=UTC)
    last = datetime(2199, 12, 30, tzinfo=UTC)
    out = from_library_error(OutOfRangeError(datetime(1700, 1, 1, tzinfo=UTC), first, last))
    assert (out.code, out.status) == (ErrorCode.INVALID_BIRTHDATE, 400)
    assert "1700" not in out.message and "1800" in out.message
    assert from_library_error(EphemerisError("x")).code is ErrorCode.EPHEMERIS_ERROR
    assert from_library_error(TimezoneLookupError("x")).code is (
        ErrorCode.TIMEZONE_LOOKUP_FAILED
    )
    assert from_library_error(BodygraphError("x")).code is ErrorCode.CHART_GENERATION_FAILED
    assert from_library_error(KeyError("x")).code is ErrorCode.INTERNAL_ERROR
    from bodygraph.errors import InvalidInstantError
    from bodygraph.geo.local import InvalidBirthDateError, InvalidBirthTimeError

    assert from_library_error(InvalidBirthTimeError("x")).code is ErrorCode.INVALID_BIRTHTIME
    assert from_library_error(InvalidBirthDateError("x")).code is ErrorCode.INVALID_BIRTHDATE
    assert from_library_error(InvalidInstantError("x")).code is ErrorCode.INVALID_BIRTHDATE
    limited = from_library_error(GeocodeRateLimitedError("slow down", retry_after=2.2))
    assert (limited.status, limited.headers) == (429, {"Retry-After": "3"})
    missing = from_library_error(LocationNotFoundError("Berlinn", ("Berlin, Germany",)))
    assert missing.code is ErrorCode.GEOCODE_LOCATION_NOT_FOUND
    assert "Berlin, Germany" in missing.message and "Berlinn" not in missing.message
    from bodygraph.errors import InvalidOptionError

    option = from_library_error(InvalidOptionError("unknown type 'x'; use one of: Generator"))
    assert (option.code, option.status) == (ErrorCode.INVALID_OPTION, 400)
    assert option.message == "unknown type 'x'; use one of: Generator"


@given(st.datetimes(min_value=datetime(1, 1, 1), timezones=st.just(UTC)))
def test_timestamps(moment: datetime) -> None:
    text = timestamp(moment)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", text)
    assert datetime.fromisoformat(text.replace("Z", "+00:00")) == moment.replace(
        microsecond=moment.microsecond // 1000 * 1000)


def test_envelopes() -> None:
    ok = v2_success({"a": 1}, type_name="ChartResult", message="Chart generated",
                    extra={"svgRenderUrl": "https://r/x.svg"})
    assert ok["data"] == {"a": 1} and ok["svgRenderUrl"] == "https://r/x.svg"
    error = ApiError(ErrorCode.INVALID_LATITUDE)
    assert v2_error(error)["errorCode"] == "INVALID_LATITUDE"
    assert v1_error(error) == {"status": "error", "code": 400, "message": error.message}
    assert ApiError(ErrorCode.GEOCODE_KEY_MISSING, status=400).status == 400


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _visual(call: Any, chart: Any) -> dict[str, Any]:
    return {}


def test_openapi_document() -> None:
    import jsonschema

    extra = chart_operation(ChartEndpoint(
        path="/v2/visual-charts", kind="location", format=_visual, summary="Visual chart",
        description="", success_type="ChartResult",
        status_overrides={ErrorCode.GEOCODE_KEY_MISSING: 400}))
    document = openapi_document((*V2_OPERATIONS, extra, *V1_OPERATIONS), family_schemas())
    assert document["openapi"] == "3.1.0"
    assert set(document["paths"]) == {
        "/v2/charts", "/v2/charts/simple", "/v2/charts/coordinates", "/v2/visual-charts",
        "/v1/bodygraphs", "/v1/bodygraphs/simple",
    }
    schemas = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.startswith("#/components/schemas/")
        assert ref.rsplit("/", 1)[1] in schemas
    for name, schema in schemas.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert "$schema" not in schema, name
    visual = document["paths"]["/v2/visual-charts"]["post"]["responses"]
    assert "GEOCODE_KEY_MISSING" in visual["400"]["description"]
    charts = document["paths"]["/v2/charts"]["post"]["responses"]
    assert "GEOCODE_KEY_MISSING" in charts["401"]["description"]
    assert "Retry-After" in charts["429"]["headers"]
    coords = document["paths"]["/v2/charts/coordinates"]["post"]
    assert [p["name"] for p in coords["parameters"]] == ["Idempotency-Key", "lang"]  # no geo key
    assert not coords["parameters"][0]["required"]
    for status, code in (("503", "SERVICE_UNAVAILABLE"), ("409", "IDEMPOTENCY_KEY_IN_USE"),
                         ("422", "IDEMPOTENCY_KEY_REUSED")):
        assert code in coords["responses"][status]["description"]
    assert "Retry-After" in coords["responses"]["503"]["headers"]
    page = docs_page(document)
    for code in ErrorCode:
        assert code.value in page


@given(st.text(max_size=12))
def test_openapi_patterns_agree_with_the_parsers(text: str) -> None:
    """Whatever the documented pattern refuses, the parser refuses too."""
    checks = [
        (DATE_PATTERN, parse_birthdate),
        (TIME_PATTERN, parse_birthtime),
        (V1_DATE_PATTERN, lambda t: parse_v1_birthdate(t, datetime.now(UTC).date())),
    ]
    for pattern, parse in checks:
        if re.search(pattern, text) is None:
            with pytest.raises(ApiError):
                parse(text)


@pytest.mark.parametrize("text", ["1990-07-15", "2199-12-31", "1800-04-03"])
def test_date_pattern_accepts(text: str) -> None:
    assert re.search(DATE_PATTERN, text)
    assert re.search(V1_DATE_PATTERN, "5-jUl-90")


def test_first_key_hint() -> None:
    settings = Settings(database_url="sqlite:///svc.db", port=8123)
    hint = banner(settings, accounts_exist=False)
    assert "bodygraph-server accounts create --plan" in hint
    assert "BODYGRAPH_DATABASE_URL=sqlite:///svc.db" in hint
    assert "http://127.0.0.1:8123/v2/charts/coordinates" in hint
    assert "Create an account" not in banner(settings, accounts_exist=True)


@pytest.mark.anyio
async def test_batcher_answers_each_request_with_its_own_chart() -> None:
    import random

    import anyio

    import bodygraph
    from bodygraph.errors import OutOfRangeError
    from bodygraph_server.charting import ChartBatcher

    rng = random.Random(5)
    instants = [datetime(rng.randint(1900, 2100), rng.randint(1, 12), rng.randint(1, 28),
                         rng.randint(0, 23), tzinfo=UTC) for _ in range(24)]
    instants[7] = datetime(1700, 1, 1, tzinfo=UTC)  # outside the ephemeris
    batcher = ChartBatcher(max_batch=8)
    results: dict[int, Any] = {}

    async def one(index: int) -> None:
        try:
            results[index] = await batcher.chart(instants[index])
        except OutOfRangeError as exc:
            results[index] = exc

    async with anyio.create_task_group() as group:
        for index in range(len(instants)):
            group.start_soon(one, index)
    for index, instant in enumerate(instants):
        if index == 7:
            assert isinstance(results[index], OutOfRangeError)
        else:
            assert results[index] == bodygraph.calculate(instant)


@pytest.mark.anyio
async def test_extra_routes_are_mounted(settings: Settings, book: Any) -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    from bodygraph_server import create_app

    from .support import in_process

    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    inner = Starlette(routes=[Route("/x.svg", hello)])
    app = create_app(settings, book=book, extra_routes=[Mount("/extra", app=inner)])
    async with in_process(app) as client:
        response = await client.get("/extra/x.svg")
    assert response.text == "hello"
    assert "ratelimit" not in response.headers
    assert len(response.headers["x-request-id"]) == 32


@pytest.mark.anyio
async def test_a_refused_host_is_answered_with_the_headers_of_every_answer(
    settings: Settings, book: Any
) -> None:
    from bodygraph_server import create_app

    from .support import in_process

    async with in_process(create_app(settings, book=book)) as client:
        answers = [await client.post(path, json={}, headers={"Host": "evil.example"})
                   for path in ("/v2/charts/coordinates", "/v1/bodygraphs/simple", "/docs")]
    ids = set()
    for response, cached in zip(answers, ("no-store", "no-store", None), strict=True):
        assert response.status_code == 400, response.text
        assert re.fullmatch("[0-9a-f]{32}", response.headers["x-request-id"])
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers.get("cache-control") == cached
        ids.add(response.headers["x-request-id"])
    assert len(ids) == 3


@pytest.mark.anyio
async def test_batcher_survives_cancelled_waiters() -> None:
    import anyio

    import bodygraph
    from bodygraph_server.charting import ChartBatcher

    batcher = ChartBatcher(max_batch=4)
    instants = [datetime(1950 + i, 3, 1, 12, tzinfo=UTC) for i in range(12)]
    done: dict[int, Any] = {}

    async def one(index: int) -> None:
        if index % 3 == 0:
            with anyio.move_on_after(0.001):
                await batcher.chart(instants[index])
            return
        done[index] = await batcher.chart(instants[index])

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for index in range(len(instants)):
                group.start_soon(one, index)
    assert sorted(done) == [i for i in range(12) if i % 3]
    for index, chart in done.items():
        assert chart == bodygraph.calculate(instants[index])
    # and it still works afterwards
    assert await batcher.chart(instants[0]) == bodygraph.calculate(instants[0])
