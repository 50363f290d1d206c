"""A local stand-in for the Google Geocoding API, for driving the real geopy client."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from bodygraph.geo.places.gazetteer import INDEX_PATH
from bodygraph.geo.places.store import unpack


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw_request_line: str


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FakeGoogle:
    """Answers every request with the reply set last, and records what it received."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.reply = Reply()
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.domain = f"127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._stopped = False

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def respond(self, payload: object = None, *, status: int = 200, body: bytes | None = None,
                headers: dict[str, str] | None = None, delay: float = 0.0) -> None:
        data = body if body is not None else json.dumps(payload).encode()
        self.reply = Reply(status, data, dict(headers or {}), delay)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                with fake._lock:
                    fake.received.append(Received(
                        "GET", parts.path, parse_qs(parts.query, keep_blank_values=True),
                        dict(self.headers.items()), self.requestline,
                    ))
                reply = fake.reply
                if reply.delay:
                    fake.release.wait(reply.delay)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json; charset=UTF-8")
                    self.send_header("Content-Length", str(len(reply.body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the time-out test); nothing left to answer

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


@pytest.fixture
def google_server() -> Iterator[FakeGoogle]:
    fake = FakeGoogle()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def _google_result(name: str, lat: float, lng: float, *, country: str, country_code: str,
                  region: str | None = None) -> dict[str, object]:
    """One result in the Geocoding API's JSON shape."""
    components: list[dict[str, object]] = [
        {"long_name": name, "short_name": name, "types": ["locality", "political"]},
    ]
    if region:
        components.append({"long_name": region, "short_name": region,
                           "types": ["administrative_area_level_1", "political"]})
    components.append({"long_name": country, "short_name": country_code,
                       "types": ["country", "political"]})
    return {
        "address_components": components,
        "formatted_address": f"{name}, {country}",
        "geometry": {"location": {"lat": lat, "lng": lng}, "location_type": "APPROXIMATE"},
        "place_id": "ChIJAVkDPzdOqEcRcDteW0YgIQQ",
        "types": ["locality", "political"],
    }


@pytest.fixture
def google_result() -> Callable[..., dict[str, object]]:
    """Build one result in the Geocoding API's JSON shape."""
    return _google_result


@pytest.fixture(scope="session", autouse=True)
def _own_gazetteer_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The gazetteer's per-user cache goes to a fresh directory, not the user's home."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BODYGRAPH_CACHE_DIR", str(tmp_path_factory.mktemp("bodygraph-cache")))
        yield


@pytest.fixture(scope="session")
def shipped_payload() -> bytes:
    """The payload of the shipped gazetteer index, unpacked (and checked) once."""
    return unpack(INDEX_PATH)
