"""The place a v2 location was taken for, next to ``data``: which one, the others of that
name and a note ("Springfield"), on the offline geocoder; none on coordinates or v1."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest

from bodygraph.geo.places import geocoder_for
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.resources import service_document

from .conftest import new_key, v1_headers, v2_headers

pytestmark = pytest.mark.anyio

BIRTH = {"birthdate": "1990-07-15", "birthtime": "14:30"}
SPRINGFIELD = {**BIRTH, "location": "Springfield"}
BERLIN = {**BIRTH, "location": "Berlin, Germany"}


def check_against(body: dict[str, Any], envelope: str) -> None:
    components = service_document()["components"]
    jsonschema.validate(body, {**components["schemas"][envelope], "components": components})


@pytest.mark.parametrize(("path", "envelope"), [
    ("/v2/charts", "ChartResultEnvelope"),
    ("/v2/charts/simple", "ChartSimpleResultEnvelope"),
    ("/v2/visual-charts", "VisualChartEnvelope"),
])
async def test_an_ambiguous_name_says_which_place_was_taken(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, envelope: str
) -> None:
    taken = geocoder_for("offline", "").geocode("Springfield")
    assert taken.others  # the gazetteer knows several Springfields
    response = await client.post(path, json=SPRINGFIELD, headers=v2_headers(new_key(book)))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["place"] == {"name": taken.label, "lat": taken.lat, "lng": taken.lng,
                             "others": list(taken.others), "note": taken.ambiguity()}
    assert body["place"]["note"].startswith("several places are called Springfield: took ")
    assert taken.others[0] in body["place"]["note"]
    check_against(body, envelope)


async def test_a_clear_name_has_a_null_note(client: httpx.AsyncClient,
                                            book: Bookkeeper) -> None:
    response = await client.post("/v2/charts", json=BERLIN, headers=v2_headers(new_key(book)))
    assert response.status_code == 200, response.text
    place = response.json()["place"]
    assert place["name"] == "Berlin, Germany"
    assert (place["others"], place["note"]) == ([], None)


async def test_coordinates_and_v1_carry_no_place(client: httpx.AsyncClient,
                                                 book: Bookkeeper) -> None:
    key = new_key(book)
    coords = await client.post("/v2/charts/coordinates",
                               json={**BIRTH, "lat": 37.2, "lng": -93.3},
                               headers=v2_headers(key, geocode=None))
    assert coords.status_code == 200, coords.text
    assert "place" not in coords.json()
    v1 = await client.post("/v1/bodygraphs", headers=v1_headers(key),
                           json={"birthdate": "15-Jul-90", "birthtime": "14:30",
                                 "location": "Springfield"})
    assert v1.status_code == 200, v1.text
    assert "place" not in v1.json()


async def test_extensions_say_where_their_births_were_taken(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    cycles = await client.post("/v2/cycles", json={**SPRINGFIELD, "year": 2020},
                               headers=v2_headers(key))
    assert cycles.status_code == 200, cycles.text
    assert cycles.json()["place"]["note"].startswith("several places are called Springfield")
    check_against(cycles.json(), "CyclesResultEnvelope")
    people = [SPRINGFIELD, {**BIRTH, "lat": 52.52, "lng": 13.405}]
    connection = await client.post("/v2/connections", json={"people": people},
                                   headers=v2_headers(key))
    assert connection.status_code == 200, connection.text
    first, second = connection.json()["places"]
    assert first["others"] and second is None
    check_against(connection.json(), "ConnectionResultEnvelope")
    coordinates = await client.post("/v2/sensitivity", json={**BIRTH, "lat": 1.0, "lng": 2.0},
                                    headers=v2_headers(key, geocode=None))
    assert coordinates.status_code == 200, coordinates.text
    assert "place" not in coordinates.json()
