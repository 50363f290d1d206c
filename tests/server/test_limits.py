"""The connection limits on loopback against real uvicorn: oversized and too many headers,
slowloris heads and bodies, silent connections; the path-only access log; no server
banner; workers that outlive a killed supervisor."""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from bodygraph_server.http.access_log import PathOnly, log_config
from bodygraph_server.http.limits import MAX_HEADER_BYTES, LimitedHttpToolsProtocol
from bodygraph_server.serve import SUPERVISOR_VARIABLE

from .support import LiveServer, free_port, shared_served, tls_context

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]


class QuickLimits(LimitedHttpToolsProtocol):
    """The service's protocol with short clocks, so that the tests are fast."""

    header_timeout = 0.3
    body_timeout = 0.3


async def echo(request: Request) -> PlainTextResponse:
    body = await request.body()
    return PlainTextResponse(f"{request.method} {len(body)}")


@pytest.fixture(scope="module")
def quick_server() -> Iterator[int]:
    """A real uvicorn in a thread, with :class:`QuickLimits`."""
    port = free_port()
    app = Starlette(routes=[Route("/echo", echo, methods=["GET", "POST"])])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http=QuickLimits,
                            log_level="warning", lifespan="off", server_header=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_normal_request_passes(quick_server: int) -> None:
    r = httpx.post(f"http://127.0.0.1:{quick_server}/echo", content=b"x" * 1000,
                   headers={f"x-h{i}": "v" * 100 for i in range(90)}, verify=tls_context())
    assert r.status_code == 200 and r.text == "POST 1000"
    assert "server" not in r.headers


def test_a_finished_request_is_freed_without_the_collector(quick_server: int) -> None:
    # The scope's WriteCheck must not hold its request cycle (which holds the scope):
    # such a cycle leaves every request's objects to the garbage collector.
    gc.collect()
    gc.disable()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{quick_server}") as client:
            for _ in range(20):
                assert client.post("/echo", content=b"x").text == "POST 1"
        left = sum(isinstance(thing, RequestResponseCycle) for thing in gc.get_objects())
    finally:
        gc.enable()
    assert left <= 1


def test_an_oversized_header_is_431_and_bounded(quick_server: int) -> None:
    with connect(quick_server) as sock:
        sock.sendall(b"GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sent = 0
        try:  # a client that would send 64 MB is cut off after the first few chunks
            while sent < 64 * 1024 * 1024:
                sock.sendall(b"a" * 65536)
                sent += 65536
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(sock)
    assert sent < 16 * 1024 * 1024
    assert answer.startswith(b"HTTP/1.1 431 ") or answer == b""


def test_a_header_just_over_the_limit_is_431(quick_server: int) -> None:
    with connect(quick_server) as sock:
        sock.sendall(b"GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * MAX_HEADER_BYTES
                     + b"\r\n\r\n")
        assert read_all(sock).startswith(b"HTTP/1.1 431 ")


def test_too_many_header_lines_is_431(quick_server: int) -> None:
    lines = b"".join(b"X-%d: y\r\n" % i for i in range(10_000))
    with connect(quick_server) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"GET /echo HTTP/1.1\r\nHost: x\r\n" + lines + b"\r\n")
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert b"Too many request header fields" in answer


def test_slowloris_head_is_cut_off_with_408(quick_server: int) -> None:
    started = time.monotonic()
    with connect(quick_server) as sock:
        sock.sendall(b"GET /echo HTTP/1.1\r\n")
        try:
            for i in range(100):  # one header line every 0.1 s, never finished
                sock.sendall(b"X-%d: y\r\n" % i)
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert time.monotonic() - started < 5  # the clock is 0.3 s; room for a busy machine


def test_a_silent_connection_is_closed(quick_server: int) -> None:
    started = time.monotonic()
    socks = [connect(quick_server) for _ in range(50)]
    try:
        answers = [read_all(sock) for sock in socks]
    finally:
        for sock in socks:
            sock.close()
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers)
    assert time.monotonic() - started < 5  # the clock is 0.3 s; room for a busy machine


def test_a_slow_body_is_cut_off(quick_server: int) -> None:
    started = time.monotonic()
    with connect(quick_server) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        try:
            for _ in range(100):
                sock.sendall(b"a")
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(sock)
    assert b" 200 " not in answer
    assert time.monotonic() - started < 5  # the clock is 0.3 s; room for a busy machine


def test_keep_alive_requests_each_get_their_own_clock(quick_server: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{quick_server}",
                      verify=tls_context()) as client:
        for _ in range(3):
            assert client.get("/echo").status_code == 200
            time.sleep(0.2)  # 3 x 0.2 s > one head clock, but each request is in time


def test_access_log_config_drops_query_and_client() -> None:
    config = log_config()
    assert config["loggers"]["uvicorn.access"]["filters"] == ["path_only"]
    assert "client_addr" not in config["formatters"]["access"]["fmt"]
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d',
                               ("10.0.0.1:5000", "GET", "/render/a.svg?t=k1.x", "1.1", 200),
                               None)
    assert PathOnly().filter(record)
    assert record.getMessage() == '- - "GET /render/a.svg HTTP/1.1" 200'


@pytest.fixture
def live_env(tmp_path: Path) -> dict[str, str]:
    return {"BODYGRAPH_DATABASE_URL": f"sqlite:///{tmp_path / 'live.sqlite3'}",
            "BODYGRAPH_GEOCODER": "offline", "BODYGRAPH_WARM_UP": "0"}


def test_the_service_applies_the_limits_and_logs_no_query(
    pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> None:
    server, _book = shared_served(pytestconfig, tmp_path_factory)
    token = "k1." + "Z" * 116
    tls = tls_context()  # a client per request, as before: a 431 ends its connection
    r = httpx.get(f"{server.base_url}/render/default.svg", params={"t": token}, verify=tls)
    assert r.status_code in (400, 403)
    assert "server" not in r.headers
    assert httpx.get(f"{server.base_url}/health", verify=tls).headers.get("server") is None
    big = httpx.get(f"{server.base_url}/health", headers={"x-big": "a" * 100_000}, verify=tls)
    assert big.status_code == 431
    many = httpx.get(f"{server.base_url}/health",
                     headers=[(f"x-{i}", "y") for i in range(200)], verify=tls)
    assert many.status_code == 431
    # The server is shared (other tests' lines are in its log too): its access line is
    # written as the answer goes out.
    line = f'"GET /render/default.svg HTTP/1.1" {r.status_code}'
    deadline = time.monotonic() + 10
    while line not in server.log_text():
        assert time.monotonic() < deadline, server.log_text()
        time.sleep(0.02)
    log = server.log_text()
    assert token not in log and "?t=" not in log
    assert "127.0.0.1:" not in log.split("Uvicorn running")[-1].replace(server.base_url, "")


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_workers_exit_when_the_supervisor_is_killed(live_env: dict[str, str]) -> None:
    server = LiveServer(live_env, workers=2)
    try:
        server.wait_ready(90)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(5)
        deadline = time.monotonic() + 30  # generous: the machine may be busy
        while not port_is_free(server.port):
            assert time.monotonic() < deadline, "orphaned workers still hold the port"
            time.sleep(0.02)
    finally:
        server.stop()


def test_a_worker_started_after_its_supervisor_died_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code = ("import time\n"
            "from bodygraph_server.serve import watch_parent\n"
            "watch_parent()\n"
            "time.sleep(30)\n")
    monkeypatch.setenv(SUPERVISOR_VARIABLE, "999999999")  # not this process's parent
    started = time.monotonic()
    child = subprocess.run([sys.executable, "-c", code], timeout=20, check=False)
    assert child.returncode == -signal.SIGTERM
    assert time.monotonic() - started < 15
