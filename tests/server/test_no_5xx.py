"""Property: no request body or header value gives a 5xx or a traceback, and every answer
is a well-formed error or success in the body format of its path."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio.from_thread
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.charting import LibraryCharts
from bodygraph_server.store import open_store

from .support import google_stand_in, in_process

PATHS = ["/v2/charts", "/v2/charts/simple", "/v2/charts/coordinates", "/v1/bodygraphs",
         "/v1/bodygraphs/simple"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(["1990-07-15", "15-Jul-90", "14:30", "24:00", "2023-02-30", "Berlin",
                     "Paris, France", "1700-01-01", "2300-12-31", "31-Feb-99"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12,
)
field_values = st.one_of(scalars, st.floats(-200, 200), st.lists(scalars, max_size=2))
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={"birthdate": field_values, "birthtime": field_values,
                  "location": field_values, "lat": field_values, "lng": field_values},
    ),
)


class Harness:
    def __init__(self, portal: anyio.from_thread.BlockingPortal, client: httpx.AsyncClient,
                 keys: list[str]) -> None:
        self.portal = portal
        self.client = client
        self._keys = itertools.cycle(keys)

    def post(self, path: str, content: bytes, headers: dict[str, str]) -> httpx.Response:
        key = next(self._keys)
        auth = {"HD-Api-Key": key} if path.startswith("/v1") else {
            "Authorization": f"Bearer {key}"}
        call = partial(self.client.post, path, content=content, headers={**headers, **auth})
        response: httpx.Response = self.portal.call(call)
        return response


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    tmp: Path = tmp_path_factory.mktemp("no5xx")
    db_url = f"sqlite:///{tmp / 'no5xx.sqlite3'}"
    with google_stand_in() as (google_url, _seen):
        book = Bookkeeper(open_store(db_url))
        keys = [book.create_account("scale").api_key for _ in range(12)]
        settings_ = Settings(database_url=db_url, geocoder="google", geocoder_url=google_url,
                             warm_up=False)
        app = create_app(settings_, book=book, charts=LibraryCharts("google", google_url))
        try:
            with anyio.from_thread.start_blocking_portal() as portal, \
                    portal.wrap_async_context_manager(in_process(app)) as client:
                yield Harness(portal, client, keys)
        finally:
            book.close()


@given(
    path=st.sampled_from(PATHS),
    body=bodies,
    geocode=st.one_of(st.none(), st.text(alphabet=st.characters(min_codepoint=33,
                                                                max_codepoint=126),
                                         max_size=8)),
)
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_no_input_gives_a_server_error(harness: Harness, path: str, body: Any,
                                       geocode: str | None) -> None:
    headers = {"Content-Type": "application/json"}
    if geocode is not None:
        headers["HD-Geocode-Key"] = geocode
    response = harness.post(path, json.dumps(body).encode(), headers)
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text
    payload = response.json()
    if response.status_code == 200:
        return
    if path.startswith("/v1"):
        assert payload["status"] == "error"
        assert payload["code"] == response.status_code
    else:
        assert payload["success"] is False
        assert payload["data"] is None
        assert payload["errorCode"]


@given(raw=st.binary(max_size=300), path=st.sampled_from(PATHS))
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_arbitrary_bytes(harness: Harness, raw: bytes, path: str) -> None:
    response = harness.post(path, raw, {"HD-Geocode-Key": "g"})
    assert response.status_code in (400, 413, 422) or response.status_code == 200
