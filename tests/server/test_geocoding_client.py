"""The service's Google geocoding keeps one HTTP client per worker: requests reuse a
kept-alive connection to the geocoding service, and the client is closed at shutdown."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest
from starlette.applications import Starlette

from bodygraph.geo.places import GeocodeFailedError
from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.charting import LibraryCharts
from bodygraph_server.geocoding import SharedClient
from bodygraph_server.geocoding_transport import HttpxAdapter

from .conftest import new_key, v2_headers
from .google_api import GoogleHandler
from .support import free_port, in_process

pytestmark = pytest.mark.anyio

PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}


class KeepAliveGoogle(GoogleHandler):
    """The stand-in, speaking HTTP/1.1 and noting the connection of every request."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.server.peers.append(self.client_address)  # type: ignore[attr-defined]
        if "slow" in self.path:  # no answer within the client's time-out: it hangs up
            self.server.released.wait(1.0)  # type: ignore[attr-defined]
            self.close_connection = True  # nothing written to the closed connection
            return
        if "garbage" in self.path:
            self.send_response(200)
            self.send_header("Content-Length", "8")
            self.end_headers()
            self.wfile.write(b"<html>!!")
            return
        super().do_GET()


@pytest.fixture
def google() -> Iterator[tuple[str, ThreadingHTTPServer]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), KeepAliveGoogle)
    server.daemon_threads = True
    server.seen = []  # type: ignore[attr-defined]
    server.peers = []  # type: ignore[attr-defined]
    server.released = threading.Event()  # type: ignore[attr-defined]
    # shutdown() waits for serve_forever to look at its flag: every 10 ms, not 0.5 s.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.released.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()
        thread.join(5)


def app_with(db_url: str, book: Bookkeeper, url: str) -> tuple[LibraryCharts, Starlette]:
    charts = LibraryCharts("google", url)
    settings = Settings(database_url=db_url, geocoder="google", geocoder_url=url,
                        warm_up=False)
    return charts, create_app(settings, book=book, charts=charts)


async def test_requests_share_one_kept_alive_connection(
    db_url: str, book: Bookkeeper, google: tuple[str, ThreadingHTTPServer]
) -> None:
    url, server = google
    charts, app = app_with(db_url, book, url)
    key = new_key(book)
    statuses = []
    async with in_process(app) as client:
        for location in ("Berlin, Germany", "Nowhere at all", "Berlin", "Denied place"):
            r = await client.post("/v2/charts", json={**PLACE, "location": location},
                                  headers=v2_headers(key, "caller-key"))
            statuses.append(r.status_code)
        assert charts.http.is_open
    assert statuses == [200, 400, 200, 400]
    peers = server.peers  # type: ignore[attr-defined]
    assert len(peers) == 4
    assert len(set(peers)) == 1  # one TCP connection for all four requests
    assert [q["key"] for q in server.seen] == [["caller-key"]] * 4  # type: ignore[attr-defined]
    assert not charts.http.is_open  # closed by the app's shutdown


async def test_outcomes_map_as_the_library_says(
    book: Bookkeeper, google: tuple[str, ThreadingHTTPServer], db_url: str
) -> None:
    url, _server = google
    _charts, app = app_with(db_url, book, url)
    key = new_key(book)
    expected = {"Nowhere": "GEOCODE_LOCATION_NOT_FOUND", "Denied": "GEOCODE_KEY_INVALID",
                "Busy town": "GEOCODE_RATE_LIMITED", "Broken town": "GEOCODE_FAILED"}
    async with in_process(app) as client:
        for location, code in expected.items():
            r = await client.post("/v2/charts", json={**PLACE, "location": location},
                                  headers=v2_headers(key, "caller-key"))
            assert r.json()["errorCode"] == code, (location, r.text)
            assert "caller-key" not in r.text


async def test_an_unreachable_service_is_geocode_failed_without_the_key() -> None:
    shared = SharedClient()
    geocoder = shared.geocoder("secret-key-123", domain=f"127.0.0.1:{free_port()}",
                               scheme="http")
    with pytest.raises(GeocodeFailedError) as caught:
        await geocoder.geocode_async("Berlin")
    assert "secret-key-123" not in str(caught.value)
    assert "secret" not in repr(HttpxAdapter(proxies=None, ssl_context=None,
                                            client=shared.client, key="secret"))
    await shared.aclose()
    assert not shared.is_open
    await shared.aclose()  # closing twice is fine




@pytest.mark.parametrize(("place", "message"), [
    ("slow town", "did not answer within 0.2 s"),
    ("garbage town", "geocoding failed"),
])
async def test_slow_and_garbled_replies_are_geocode_failed(
    google: tuple[str, ThreadingHTTPServer], place: str, message: str
) -> None:
    url, _server = google
    shared = SharedClient()
    geocoder = shared.geocoder("caller-key", domain=url.split("//", 1)[1], scheme="http",
                               timeout=0.2)
    try:
        with pytest.raises(GeocodeFailedError, match=message) as caught:
            await geocoder.geocode_async(place)
        assert "caller-key" not in str(caught.value)
    finally:
        await shared.aclose()
