"""The relation extensions (/v2/transits, /v2/connections, /v2/pentas) in process: each
``data`` equals the command line's ``--json`` for the same births, the envelope and the
error codes are the contract's, Basic is refused, 1 credit per success and none else."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from bodygraph.cli.main import main as cli
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.resources import service_document

from .conftest import new_key, v2_headers
from .test_endpoints import balance, check_envelope

pytestmark = pytest.mark.anyio

ONE = {"birthdate": "1990-05-14", "birthtime": "08:30", "lat": 52.52, "lng": 13.405}
TWO = {"birthdate": "1985-07-09", "birthtime": "14:00", "lat": 40.7128, "lng": -74.006}
THREE = {"birthdate": "1979-11-23", "birthtime": "23:05", "lat": -33.8688, "lng": 151.2093}
PLACE = {"birthdate": "1985-07-09", "birthtime": "14:00", "location": "Berlin, Germany"}
AT = "2024-03-20T03:06:00Z"
PATHS = ("/v2/transits", "/v2/connections", "/v2/pentas")


def cli_args(birth: dict[str, Any]) -> list[str]:
    """The command-line options of a coordinates birth."""
    return ["--date", birth["birthdate"], "--time", birth["birthtime"],
            "--lat", str(birth["lat"]), "--lng", str(birth["lng"])]


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    """The ``--json`` output of ``bodygraph <argv>``."""
    capsys.readouterr()
    assert cli([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_schema(type_name: str, data: Any) -> None:
    """``data`` against the OpenAPI schema of ``type_name`` (local refs resolved)."""
    import jsonschema

    document = service_document()
    schema = {**document["components"]["schemas"][type_name],
              "components": document["components"]}
    jsonschema.validate(data, schema)


async def post(client: httpx.AsyncClient, key: str, path: str, body: Any,
               geocode: str | None = None) -> httpx.Response:
    return await client.post(path, json=body, headers=v2_headers(key, geocode=geocode))


async def test_transit_alone_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/transits", {"at": AT})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "TransitResult", "Transit computed")
    assert body["data"] == cli_json(capsys, "transit", "--at", AT)
    assert body["data"]["natal"] is None
    check_schema("TransitResult", body["data"])
    assert balance(book, key) == before - 1


async def test_transit_over_a_natal_birth_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    response = await post(client, key, "/v2/transits", {"at": AT, "natal": ONE})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data == cli_json(capsys, "transit", "--at", AT, *cli_args(ONE))
    assert data["natal"]["overlay"]["channelsShort"]
    check_schema("TransitResult", data)


async def test_connection_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/connections", {"people": [ONE, TWO]})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "ConnectionResult", "Connection computed")
    assert body["data"] == cli_json(capsys, "connection", *cli_args(ONE), *cli_args(TWO))
    check_schema("ConnectionResult", body["data"])
    assert balance(book, key) == before - 1


async def test_penta_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    response = await post(client, key, "/v2/pentas", {"people": [ONE, TWO, THREE]})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "PentaResult", "Penta computed")
    expected = cli_json(capsys, "penta", *cli_args(ONE), *cli_args(TWO), *cli_args(THREE))
    assert body["data"] == expected
    check_schema("PentaResult", body["data"])


async def test_a_birth_by_place_name_needs_no_geocode_key_offline(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    """The offline gazetteer has no use for the caller's key: the header may be left out."""
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/connections", {"people": [ONE, PLACE]})
    assert response.status_code == 200, response.text
    berlin = ["--date", "1985-07-09", "--time", "14:00", "--place", "Berlin, Germany"]
    assert response.json()["data"] == cli_json(capsys, "connection", *cli_args(ONE), *berlin)
    assert balance(book, key) == before - 1


async def test_a_birth_by_place_name_needs_the_geocode_key_with_google(
    google_client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    before = balance(book, key)
    refused = await post(google_client, key, "/v2/connections", {"people": [ONE, PLACE]})
    assert refused.status_code == 401
    assert refused.json()["errorCode"] == "GEOCODE_KEY_MISSING"
    assert balance(book, key) == before
    response = await post(google_client, key, "/v2/connections", {"people": [ONE, PLACE]},
                          geocode="geo-key")
    assert response.status_code == 200, response.text
    assert balance(book, key) == before - 1


BAD_BODIES = [
    ("/v2/pentas", {"people": [ONE, TWO]}, 422, "INVALID_REQUEST_BODY", "3 to 5"),
    ("/v2/pentas", {"people": [ONE] * 6}, 422, "INVALID_REQUEST_BODY", "not 6"),
    ("/v2/connections", {"people": ONE}, 422, "INVALID_REQUEST_BODY", "not a list"),
    ("/v2/connections", {"people": [ONE, "x"]}, 422, "INVALID_REQUEST_BODY", "people[1]"),
    ("/v2/connections", {}, 400, "MISSING_REQUIRED_FIELD", "people"),
    ("/v2/connections", {"people": [ONE, {**TWO, "birthdate": "1985-02-30"}]}, 400,
     "INVALID_BIRTHDATE", "people[1]: birthdate"),
    ("/v2/connections", {"people": [{**ONE, "birthtime": "24:00"}, TWO]}, 400,
     "INVALID_BIRTHTIME", "people[0]"),
    ("/v2/pentas", {"people": [ONE, TWO, {**THREE, "lat": 91}]}, 400,
     "INVALID_LATITUDE", "people[2]"),
    ("/v2/pentas", {"people": [ONE, TWO, {**THREE, "lng": "east"}]}, 400,
     "INVALID_LONGITUDE", "people[2]"),
    ("/v2/pentas", {"people": [ONE, TWO, {"birthdate": "1990-01-01", "birthtime": "10:00"}]},
     400, "MISSING_REQUIRED_FIELD", "lat"),
    ("/v2/connections", {"people": [ONE, {**PLACE, "location": "ab"}]}, 400,
     "INVALID_LOCATION", "people[1]"),
    ("/v2/connections", {"people": [ONE, {**TWO, "birthdate": "1700-01-01"}]}, 400,
     "INVALID_BIRTHDATE", "supported range"),
    ("/v2/transits", {}, 400, "MISSING_REQUIRED_FIELD", "at"),
    ("/v2/transits", {"at": "2024-03-20 03:06"}, 422, "INVALID_REQUEST_BODY", "at must"),
    ("/v2/transits", {"at": "2024-02-30T00:00:00Z"}, 422, "INVALID_REQUEST_BODY", "calendar"),
    ("/v2/transits", {"at": "2300-01-01T00:00:00Z"}, 422, "INVALID_REQUEST_BODY", "range"),
    ("/v2/transits", {"at": AT, "natal": [ONE]}, 422, "INVALID_REQUEST_BODY", "natal"),
    ("/v2/transits", {"at": AT, "natal": {**ONE, "lat": None}}, 400,
     "MISSING_REQUIRED_FIELD", "natal: Missing required field: lat"),
    ("/v2/transits", [AT], 422, "INVALID_REQUEST_BODY", "JSON object"),
]


async def assert_refused(client: httpx.AsyncClient, book: Bookkeeper, path: str, body: Any,
                         status: int, code: str, words: str) -> None:
    """``body`` at ``path`` is refused with ``status`` and ``code``, a message holding
    ``words``, the error envelope, and no credit taken."""
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, path, body, geocode="geo-key")
    assert response.status_code == status, response.text
    answer = response.json()
    assert answer["success"] is False and answer["data"] is None
    assert answer["errorCode"] == code
    assert words in answer["message"]
    assert balance(book, key) == before


@pytest.mark.parametrize(("path", "body", "status", "code", "words"), BAD_BODIES)
async def test_bad_bodies_get_the_contract_codes_and_cost_nothing(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, body: Any, status: int,
    code: str, words: str,
) -> None:
    await assert_refused(client, book, path, body, status, code, words)


async def test_not_json_is_invalid_request_body(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    response = await client.post("/v2/pentas", content=b"{people", headers=v2_headers(key))
    assert response.status_code == 422
    assert response.json()["errorCode"] == "INVALID_REQUEST_BODY"


@pytest.mark.parametrize("path", PATHS)
async def test_basic_tier_is_refused(
    client: httpx.AsyncClient, book: Bookkeeper, path: str
) -> None:
    key = new_key(book, "hobbyist")
    before = balance(book, key)
    response = await post(client, key, path, {"at": AT, "people": [ONE, TWO, THREE]})
    assert response.status_code == 403
    assert response.json()["errorCode"] == "ACCESS_DENIED"
    assert balance(book, key) == before


@pytest.mark.parametrize("path", PATHS)
async def test_no_key_is_refused(client: httpx.AsyncClient, path: str) -> None:
    response = await client.post(path, json={"at": AT})
    assert response.status_code == 401
    assert response.json()["errorCode"] == "API_KEY_MISSING"


async def test_no_credits_is_402_and_nothing_charged(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    book.adjust_credits(issued.account.id, 0)
    response = await post(client, issued.api_key, "/v2/connections", {"people": [ONE, TWO]})
    assert response.status_code == 402
    assert response.json()["errorCode"] == "CREDITS_EXHAUSTED"
    assert book.account(issued.account.id).balance == 0
    assert book.audit(issued.account.id).balanced
