"""Helpers of the HTTP service tests: an in-process client that runs the app's lifespan,
a stand-in Google Geocoding API on 127.0.0.1, and a real uvicorn server in a subprocess."""

from __future__ import annotations

import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import (
    AbstractAsyncContextManager,
    ExitStack,
    asynccontextmanager,
    contextmanager,
)
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

REPO = Path(__file__).resolve().parents[2]

POLICY_RE = re.compile(r'^"100-in-1min"; q=100; w=60; pk=:[A-Za-z0-9+/]+={0,2}:$')
STATE_RE = re.compile(r'^"100-in-1min"; r=(\d+); t=(\d+)$')
TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@asynccontextmanager
async def in_process(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to ``app`` in this process, with the lifespan run around
    it and its state handed to every request (as uvicorn does)."""
    async with app.router.lifespan_context(app) as state:

        async def with_state(scope: Scope, receive: Receive, send: Send) -> None:
            scope["state"] = dict(state or {})
            await app(scope, receive, send)

        transport = httpx.ASGITransport(app=with_state, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c


def app_client(db_url: str, book: Bookkeeper,
               request_timeout: float) -> AbstractAsyncContextManager[httpx.AsyncClient]:
    """:func:`in_process` of an app on ``book`` (offline geocoder, no warm-up) whose
    requests have ``request_timeout`` seconds."""
    from bodygraph_server import Settings, create_app
    from bodygraph_server.charting import LibraryCharts

    settings = Settings(database_url=db_url, geocoder="offline", warm_up=False,
                        request_timeout=request_timeout)
    return in_process(create_app(settings, book=book, charts=LibraryCharts("offline")))


def json_headers(key: str, idempotency: str | None = None) -> dict[str, str]:
    """A v2 JSON request's headers: the bearer key and, if given, an Idempotency-Key."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if idempotency is not None:
        headers["Idempotency-Key"] = idempotency
    return headers


@cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of the tests' HTTP clients (``verify=tls_context()``), made once:
    httpx makes one per client, and per call of ``httpx.get``, loading the CA bundle
    (about 20 ms of CPU each time). The servers here are plain HTTP on 127.0.0.1."""
    return ssl.create_default_context()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# -- a stand-in for the Google Geocoding API ----------------------------------------------

BERLIN = {"lat": 52.52, "lng": 13.405}


def _google_reply(address: str) -> tuple[int, dict[str, Any]]:
    """The reply of the stand-in: the address text picks the outcome."""
    lowered = address.lower()
    if "denied" in lowered:
        return 403, {"status": "REQUEST_DENIED", "error_message": "key restricted"}
    if "nowhere" in lowered:
        return 200, {"status": "ZERO_RESULTS", "results": []}
    if "busy" in lowered:
        return 200, {"status": "OVER_QUERY_LIMIT", "results": []}
    if "broken" in lowered:
        return 500, {"status": "UNKNOWN_ERROR"}
    result = {
        "formatted_address": "Berlin, Germany",
        "geometry": {"location": BERLIN},
        "address_components": [
            {"long_name": "Berlin", "short_name": "Berlin", "types": ["locality"]},
            {"long_name": "Germany", "short_name": "DE", "types": ["country"]},
        ],
    }
    return 200, {"status": "OK", "results": [result]}


class _GoogleHandler(BaseHTTPRequestHandler):
    seen: list[dict[str, list[str]]]

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        self.server.seen.append(query)  # type: ignore[attr-defined]
        status, body = _google_reply(query.get("address", [""])[0])
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def google_stand_in() -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    """A local HTTP server answering like the Google Geocoding API; yields its
    ``http://127.0.0.1:port`` address and the list of queries it received."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GoogleHandler)
    server.seen = []  # type: ignore[attr-defined]
    # shutdown() returns only when serve_forever next looks at its flag: with the default
    # poll interval (0.5 s) every test using the stand-in waited half a second at teardown.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.seen  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# -- a real uvicorn server ------------------------------------------------------------------


class LiveServer:
    """``bodygraph_server.serve.run`` in a subprocess on 127.0.0.1."""

    def __init__(self, env: Mapping[str, str], workers: int = 1, log: Path | None = None):
        self.env = dict(env)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        code = (
            "import sys\n"
            # Linux: SIGTERM when the test process that started it dies (a crashed or
            # killed pytest worker must not leave a server behind), unless already gone.
            "import ctypes, os, signal\n"
            "ctypes.CDLL(None).prctl(1, signal.SIGTERM)\n"
            f"os.getppid() == {os.getpid()} or os.kill(os.getpid(), signal.SIGTERM)\n"
            "from bodygraph_server.serve import run\n"
            "from bodygraph_server.settings import Settings\n"
            f"run(Settings.from_env(), host='127.0.0.1', port={self.port}, "
            f"workers={workers}, log_level='info')\n"
        )
        full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        self._log = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            env=full_env,
            cwd=str(REPO),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Poll /health until the server answers."""
        deadline = time.monotonic() + timeout
        # One client for every poll: ``httpx.get`` builds a new client (and TLS context) per
        # call, about 20 ms of CPU, which polling every 20 ms turned into a busy core.
        with httpx.Client(base_url=self.base_url, timeout=1.0, verify=tls_context()) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited with {self.process.returncode}")
                # Ask /health only once the port takes connections: a refused HTTP attempt
                # still costs httpx about half a millisecond, 25 ms of CPU for every second
                # a server takes to start; a bare connect costs a few microseconds.
                if self.accepting():
                    try:
                        if http.get("/health").status_code == 200:
                            return
                    except httpx.HTTPError:
                        pass
                time.sleep(0.02)
        raise TimeoutError("server did not start")

    def accepting(self) -> bool:
        """Whether the server's port takes a TCP connection now."""
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        """Terminate (SIGTERM) and wait; kill if it lingers."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self._log is not subprocess.DEVNULL:
            self._log.close()  # type: ignore[union-attr]

    def log_text(self) -> str:
        """Everything the server printed."""
        return self.log_path.read_text(errors="replace") if self.log_path else ""


@contextmanager
def served(folder: Path) -> Iterator[tuple[LiveServer, Bookkeeper]]:
    """The service under uvicorn on a fresh SQLite database in ``folder`` (offline
    gazetteer, no warm-up, links to this server's own /render), and that database's
    bookkeeping for making accounts."""
    db_url = f"sqlite:///{folder / 'service.sqlite3'}"
    book = Bookkeeper(open_store(db_url))  # migrates before the server starts
    server = LiveServer({"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
                         "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_RENDER_URL": "",
                         "BODYGRAPH_PUBLIC_URL": "", "BODYGRAPH_RENDER_KEYS": ""},
                        log=folder / "server.log")
    try:
        server.wait_ready()
        yield server, book
    finally:
        server.stop()
        book.close()



_SHARED: dict[str, Any] = {}
T = TypeVar("T")


def once_per_process(config: pytest.Config, name: str, start: Callable[[ExitStack], T]) -> T:
    """``start(stack)``, made by the first test of this process (each xdist worker) that
    asks for ``name`` and shared with the later ones; ``stack`` (what ``start`` opened) is
    closed at the end of the session."""
    if name not in _SHARED:
        stack = ExitStack()
        try:
            _SHARED[name] = start(stack)
        except BaseException:
            stack.close()
            raise
        config.add_cleanup(stack.close)
        config.add_cleanup(lambda: _SHARED.pop(name, None))
    shared: T = _SHARED[name]
    return shared


def shared_served(config: pytest.Config,
                  tmp_path_factory: pytest.TempPathFactory) -> tuple[LiveServer, Bookkeeper]:
    """One :func:`served` service per test process, for the modules that need no
    configuration of their own (each makes its own accounts)."""
    return once_per_process(
        config, "served",
        lambda stack: stack.enter_context(served(tmp_path_factory.mktemp("served"))))
