"""Helpers of the HTTP service tests: an in-process client that runs the app's lifespan,
a stand-in Google Geocoding API on 127.0.0.1, a real uvicorn server in a subprocess, a
local Dask cluster, and the rows ``bodygraph batch`` computes for a job's births."""

from __future__ import annotations

import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import (
    AbstractAsyncContextManager,
    ExitStack,
    asynccontextmanager,
    contextmanager,
    nullcontext,
)
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

from . import google_api
from .session import Outliving, once_per_process, once_per_session

REPO = Path(__file__).resolve().parents[2]

POLICY_RE = re.compile(r'^"100-in-1min"; q=100; w=60; pk=:[A-Za-z0-9+/]+={0,2}:$')
STATE_RE = re.compile(r'^"100-in-1min"; r=(\d+); t=(\d+)$')
TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def batch_rows(births: list[dict[str, Any]], folder: Path,
               lang: str = "en") -> list[dict[str, str]]:
    """``bodygraph batch`` (``--lang``), in this process, on the births of a job's upload
    (``birthdate``, ``birthtime``, ``lat``, ``lng``): the rows its CSV result must equal."""
    import csv
    import io
    import json

    from bodygraph.batch.job import run_batch

    source = folder / "births.csv"
    with source.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "time", "lat", "lng"])
        for birth in births:
            writer.writerow([birth["birthdate"], birth["birthtime"], json.dumps(birth["lat"]),
                             json.dumps(birth["lng"])])
    target = folder / "charts.csv"
    run_batch(source, target, jobs=1, stderr=io.StringIO(), lang=lang)
    with target.open(newline="") as handle:
        return list(csv.DictReader(handle))


@asynccontextmanager
async def in_process(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to ``app`` in this process, with the lifespan run around
    it and its state handed to every request (as uvicorn does)."""
    async with app.router.lifespan_context(app) as state:

        async def with_state(scope: Scope, receive: Receive, send: Send) -> None:
            scope["state"] = dict(state or {})
            await app(scope, receive, send)

        transport = httpx.ASGITransport(app=with_state, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
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


@contextmanager
def dask_cluster() -> Iterator[Any]:
    """A ``distributed.LocalCluster`` of two single-threaded worker processes."""
    import distributed

    # no dashboard; the scheduler's HTTP server on a free port (8787 may be taken)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, scheduler_kwargs={
                                      "dashboard_address": "127.0.0.1:0"}) as running:
        yield running


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# -- a stand-in for the Google Geocoding API ----------------------------------------------



@contextmanager
def google_stand_in() -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    """A local HTTP server answering like the Google Geocoding API; yields its
    ``http://127.0.0.1:port`` address and the list of queries it received."""
    server = google_api.stand_in()
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


class Server:
    """A running server as tests see it, in the test process that started it or in another
    one of the session (:func:`server.session.once_per_session`)."""

    def __init__(self, port: int, pid: int, env: Mapping[str, str], log: Path | None) -> None:
        self.port = port
        self.pid = pid
        self.env = dict(env)
        self.log_path = log
        self.base_url = f"http://127.0.0.1:{port}"

    def log_text(self) -> str:
        """Everything the server printed."""
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def record(self) -> dict[str, Any]:
        """What another test process needs to reach it (JSON)."""
        return {"port": self.port, "pid": self.pid, "env": self.env,
                "log": str(self.log_path) if self.log_path else None}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Server:
        log = record["log"]
        return cls(record["port"], record["pid"], record["env"], Path(log) if log else None)


def _ends_with(pid: int | None) -> str:
    """Code that ends the server's process when process ``pid`` ends (default: its parent,
    the test process that starts it)."""
    if pid is None:
        # Linux: SIGTERM when the test process that started it dies (a crashed or killed
        # pytest worker must not leave a server behind), unless already gone.
        return ("import ctypes, os, signal\n"
                "ctypes.CDLL(None).prctl(1, signal.SIGTERM)\n"
                f"os.getppid() == {os.getpid()} or os.kill(os.getpid(), signal.SIGTERM)\n")
    # Another process than the parent (the session's pytest process): SIGTERM (uvicorn's
    # graceful shutdown) once it has ended, a hard exit if that takes 10 s.
    return ("import os, select, signal, threading, time\n"
            "def _watch(pid):\n"
            "    try:\n"
            "        select.select([os.pidfd_open(pid)], [], [])\n"
            "    except ProcessLookupError:\n"
            "        pass\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    time.sleep(10)\n"
            "    os._exit(1)\n"
            f"threading.Thread(target=_watch, args=({pid},), daemon=True).start()\n")


class LiveServer(Server):
    """``bodygraph_server.serve.run`` in a subprocess on 127.0.0.1; it ends with the test
    process that starts it, or with process ``until`` when given."""

    def __init__(self, env: Mapping[str, str], workers: int = 1, log: Path | None = None,
                 *, until: int | None = None):
        port = free_port()
        code = (
            "import sys\n"
            + _ends_with(until)
            + "from bodygraph_server.serve import run\n"
            "from bodygraph_server.settings import Settings\n"
            f"run(Settings.from_env(), host='127.0.0.1', port={port}, "
            f"workers={workers}, log_level='info')\n"
        )
        full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        # The server writes to its own copy of the file's descriptor: this one is closed
        # at once (it could outlive this process, see ``until``).
        with open(log, "wb") if log else nullcontext(subprocess.DEVNULL) as out:
            self.process = (subprocess.Popen if until is None else Outliving)(
                [sys.executable, "-c", code],
                env=full_env,
                cwd=str(REPO),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        super().__init__(port, self.process.pid, env, log)

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


def shared_served(config: pytest.Config,
                  tmp_path_factory: pytest.TempPathFactory) -> tuple[Server, Bookkeeper]:
    """The service under uvicorn on a fresh SQLite database (offline gazetteer, no warm-up,
    links to this server's own /render), one for the whole test session
    (:func:`server.session.once_per_session`), for the modules that need no configuration
    of their own (each makes its own accounts); and this test process's bookkeeping on
    its database for making accounts."""

    def start(folder: Path, stack: ExitStack, until: int | None) -> dict[str, Any]:
        db_url = f"sqlite:///{folder / 'service.sqlite3'}"
        Bookkeeper(open_store(db_url)).close()  # migrates before the server starts
        env = {"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
               "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_RENDER_URL": "",
               "BODYGRAPH_PUBLIC_URL": "", "BODYGRAPH_RENDER_KEYS": ""}
        server = LiveServer(env, log=folder / "server.log", until=until)
        stack.callback(server.stop)
        server.wait_ready()
        return server.record()

    def attach(stack: ExitStack) -> tuple[Server, Bookkeeper]:
        server = Server.from_record(once_per_session(config, tmp_path_factory, "served", start))
        book = Bookkeeper(open_store(server.env["BODYGRAPH_DATABASE_URL"]))
        stack.callback(book.close)
        return server, book

    return once_per_process(config, "served", attach)
