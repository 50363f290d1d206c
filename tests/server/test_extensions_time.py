"""The time-search extensions (/v2/sensitivity, /v2/cycles, /v2/calendar) in process:
``data`` equals the command line's ``--json``, the codes are the contract's, Basic is
refused, 1 credit per success and none else."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper

from .conftest import new_key
from .test_endpoints import balance, check_envelope
from .test_extensions import (
    ONE,
    PLACE,
    assert_refused,
    check_schema,
    cli_args,
    cli_json,
    post,
)

pytestmark = pytest.mark.anyio


async def test_sensitivity_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/sensitivity", {**ONE, "windowMinutes": 90})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "SensitivityResult", "Sensitivity computed")
    expected = cli_json(capsys, "sensitivity", *cli_args(ONE), "--window", "90m")
    assert body["data"] == expected
    assert body["data"]["changes"]
    check_schema("SensitivityResult", body["data"])
    assert balance(book, key) == before - 1


async def test_sensitivity_window_defaults_to_two_hours(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    response = await post(client, new_key(book), "/v2/sensitivity", PLACE, geocode="geo-key")
    assert response.status_code == 200, response.text
    berlin = ["--date", PLACE["birthdate"], "--time", PLACE["birthtime"],
              "--place", PLACE["location"]]
    assert response.json()["data"] == cli_json(capsys, "sensitivity", *berlin)


async def test_cycles_equal_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    response = await post(client, key, "/v2/cycles", {**ONE, "year": 2030})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "CyclesResult", "Cycles computed")
    assert body["data"] == cli_json(capsys, "cycles", *cli_args(ONE), "--year", "2030")
    check_schema("CyclesResult", body["data"])


async def test_calendar_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    query = {"from": "2024-01-20", "to": "2024-01-25", "bodies": ["sun", "moon"],
             "level": "line"}
    response = await post(client, key, "/v2/calendar", query)
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "CalendarResult", "Calendar computed")
    expected = cli_json(capsys, "calendar", "--from", "2024-01-20", "--to", "2024-01-25",
                        "--body", "sun,moon", "--level", "line")
    assert body["data"] == expected
    assert {"at": "2024-01-22T13:17:56.000Z", "body": "sun", "gate": "41",
            "line": "1"} in expected
    check_schema("CalendarResult", body["data"])


async def test_calendar_defaults_to_every_body_by_gate(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    response = await post(client, new_key(book), "/v2/calendar",
                          {"from": "2024-01-22", "to": "2024-01-22", "level": None})
    expected = cli_json(capsys, "calendar", "--from", "2024-01-22", "--to", "2024-01-22")
    assert response.json()["data"] == expected


BAD_BODIES = [
    ("/v2/sensitivity", {**ONE, "windowMinutes": 0}, 422, "INVALID_REQUEST_BODY", "window"),
    ("/v2/sensitivity", {**ONE, "windowMinutes": 2881}, 422, "INVALID_REQUEST_BODY", "2880"),
    ("/v2/sensitivity", {**ONE, "windowMinutes": 1.5}, 422, "INVALID_REQUEST_BODY", "whole"),
    ("/v2/sensitivity", {**ONE, "birthdate": "14.05.1990"}, 400, "INVALID_BIRTHDATE",
     "birthdate must be YYYY-MM-DD"),
    ("/v2/sensitivity", {**ONE, "lng": 181}, 400, "INVALID_LONGITUDE", "lng"),
    ("/v2/sensitivity", {**ONE, "birthdate": "2199-12-30", "birthtime": "12:00",
                         "windowMinutes": 2880}, 422, "INVALID_REQUEST_BODY", "range"),
    ("/v2/cycles", ONE, 400, "MISSING_REQUIRED_FIELD", "year"),
    ("/v2/cycles", {**ONE, "year": "2030"}, 422, "INVALID_REQUEST_BODY", "year"),
    ("/v2/cycles", {**ONE, "year": 1990}, 422, "INVALID_REQUEST_BODY", "after the year"),
    ("/v2/cycles", {**ONE, "birthdate": "2190-01-01", "year": 2191}, 422,
     "INVALID_REQUEST_BODY", "range"),
    ("/v2/cycles", {"birthtime": "10:00", "year": 2030}, 400, "MISSING_REQUIRED_FIELD",
     "birthdate"),
    ("/v2/calendar", {"to": "2024-01-01"}, 400, "MISSING_REQUIRED_FIELD", "from"),
    ("/v2/calendar", {"from": "2024-02-30", "to": "2024-03-01"}, 422, "INVALID_REQUEST_BODY",
     "from must"),
    ("/v2/calendar", {"from": "2024-03-02", "to": "2024-03-01"}, 422, "INVALID_REQUEST_BODY",
     "days after"),
    ("/v2/calendar", {"from": "2024-01-01", "to": "2025-01-01"}, 422, "INVALID_REQUEST_BODY",
     "365"),
    ("/v2/calendar", {"from": "2024-01-01", "to": "2024-01-02", "bodies": ["chiron"]}, 422,
     "INVALID_REQUEST_BODY", "bodies"),
    ("/v2/calendar", {"from": "2024-01-01", "to": "2024-01-02", "bodies": []}, 422,
     "INVALID_REQUEST_BODY", "bodies"),
    ("/v2/calendar", {"from": "2024-01-01", "to": "2024-01-02", "level": "color"}, 422,
     "INVALID_REQUEST_BODY", "level"),
    ("/v2/calendar", {"from": "2199-12-31", "to": "2200-01-02"}, 422, "INVALID_REQUEST_BODY",
     "range"),
]


@pytest.mark.parametrize(("path", "body", "status", "code", "words"), BAD_BODIES)
async def test_bad_bodies_get_the_contract_codes_and_cost_nothing(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, body: Any, status: int,
    code: str, words: str,
) -> None:
    await assert_refused(client, book, path, body, status, code, words)


@pytest.mark.parametrize("path", ["/v2/sensitivity", "/v2/cycles", "/v2/calendar"])
async def test_basic_tier_is_refused(
    client: httpx.AsyncClient, book: Bookkeeper, path: str
) -> None:
    key = new_key(book, "hobbyist")
    response = await post(client, key, path, {**ONE, "year": 2030, "from": "2024-01-01",
                                               "to": "2024-01-02"})
    assert response.status_code == 403
    assert response.json()["errorCode"] == "ACCESS_DENIED"
