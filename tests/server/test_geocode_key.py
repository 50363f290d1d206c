"""``HD-Geocode-Key`` follows the service's geocoder: with Google the caller's key is
required on every place-name request and is the key Google receives; with the offline
gazetteer a place-name request needs none (docs/api.md, "Geocoding key")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.charting import LibraryCharts

from .conftest import new_key, v1_headers, v2_headers
from .support import google_stand_in, in_process

pytestmark = pytest.mark.anyio

PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
V1 = {"birthdate": "15-Jul-90", "birthtime": "14:30", "location": "Berlin, Germany"}
COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
#: Every place-name request: path, body, and the status of a missing key with Google.
PLACE_REQUESTS = [
    ("/v2/charts", PLACE, 401),
    ("/v2/charts/simple", PLACE, 401),
    ("/v2/visual-charts", PLACE, 400),
    ("/v1/bodygraphs", V1, 401),
    ("/v1/bodygraphs/simple", V1, 401),
    ("/v2/connections", {"people": [COORDS, PLACE]}, 401),
]


def headers(path: str, key: str, geocode: str | None) -> dict[str, str]:
    if path.startswith("/v1"):
        return v1_headers(key, geocode=geocode)
    return v2_headers(key, geocode=geocode)


@pytest.fixture
def google() -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    """The Google stand-in's address and the queries it received."""
    with google_stand_in() as found:
        yield found


@pytest.fixture
async def google_service(
    db_url: str, book: Bookkeeper, google: tuple[str, list[dict[str, list[str]]]]
) -> AsyncIterator[httpx.AsyncClient]:
    url, _seen = google
    settings = Settings(database_url=db_url, geocoder="google", geocoder_url=url,
                        warm_up=False)
    async with in_process(create_app(settings, book=book,
                                     charts=LibraryCharts("google", url))) as client:
        yield client


@pytest.mark.parametrize(("path", "body", "_status"), PLACE_REQUESTS)
async def test_offline_places_need_no_geocode_key(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, body: dict[str, Any],
    _status: int,
) -> None:
    """``client``: the service with the offline gazetteer (tests/server/conftest.py)."""
    key = new_key(book)
    response = await client.post(path, json=body, headers=headers(path, key, None))
    assert response.status_code == 200, response.text
    given = await client.post(path, json=body, headers=headers(path, key, "ignored"))
    assert given.status_code == 200, given.text
    if path.startswith("/v2/charts"):  # the same place, with the key or without
        assert response.json()["data"] == given.json()["data"]


@pytest.mark.parametrize(("path", "body", "status"), PLACE_REQUESTS)
async def test_google_places_need_and_use_the_callers_key(
    google_service: httpx.AsyncClient, book: Bookkeeper,
    google: tuple[str, list[dict[str, list[str]]]], path: str, body: dict[str, Any],
    status: int,
) -> None:
    _url, seen = google
    key = new_key(book)
    refused = await google_service.post(path, json=body, headers=headers(path, key, None))
    assert refused.status_code == status, refused.text
    if not path.startswith("/v1"):
        assert refused.json()["errorCode"] == "GEOCODE_KEY_MISSING"
    assert seen == []  # Google was not asked
    answered = await google_service.post(path, json=body,
                                         headers=headers(path, key, "callers-own-key"))
    assert answered.status_code == 200, answered.text
    assert [query["key"] for query in seen] == [["callers-own-key"]]


async def test_the_pages_and_openapi_follow_the_geocoder(
    client: httpx.AsyncClient, google_service: httpx.AsyncClient
) -> None:
    """Offline: the header is optional in /openapi.json, /docs says it is not needed and
    the playground has no field for it; with Google all three ask for the caller's key."""
    for service, required in ((client, False), (google_service, True)):
        document = (await service.get("/openapi.json")).json()
        header = next(p for p in document["paths"]["/v2/charts"]["post"]["parameters"]
                      if p["name"] == "HD-Geocode-Key")
        assert header["required"] is required
        docs = (await service.get("/docs")).text
        assert ("is not needed" in docs) is not required
        assert ("your own key" in docs) is required
        playground = (await service.get("/playground")).text
        assert ("id='geocode-key'" in playground) is required
