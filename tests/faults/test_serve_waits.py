"""``bodygraph-server serve`` started while the database server is unavailable (nothing
listens on its port) waits for it, logging each attempt, and serves once it is there."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server.support import REPO, free_port, tls_context

pytestmark = pytest.mark.faults

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"


def _pipe(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def _forwarding(port: int) -> Iterator[None]:
    """PostgreSQL (127.0.0.1:5432) comes up on ``port``: a TCP forwarder listens there."""
    listener = socket.create_server(("127.0.0.1", port))
    opened: list[socket.socket] = [listener]

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = listener.accept()
                server = socket.create_connection(("127.0.0.1", 5432))
                opened.extend((client, server))
                for a, b in ((client, server), (server, client)):
                    threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield
    finally:
        for sock in opened:
            sock.close()


@pytest.mark.postgres
def test_serve_waits_for_the_database(tmp_path: Path) -> None:
    import psycopg

    name = "bgserve_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    port, database_port = free_port(), free_port()  # nothing listens there yet
    env = {**os.environ,
           "BODYGRAPH_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{database_port}/{name}",
           "BODYGRAPH_WARM_UP": "0", "PYTHONUNBUFFERED": "1"}
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "bodygraph_server.cli.admin", "serve", "--port", str(port),
             "--no-access-log"], env=env, cwd=str(REPO), stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while "trying again" not in log_path.read_text() and time.monotonic() < deadline:
            assert process.poll() is None, log_path.read_text()
            time.sleep(0.05)
        assert "database unavailable" in log_path.read_text()
        created = time.monotonic()
        status = 0
        # One client for every poll (``httpx.get`` makes a client and a TLS context, about
        # 20 ms of CPU, per call).
        with _forwarding(database_port), httpx.Client(timeout=2, verify=tls_context()) as http:
            while time.monotonic() < created + 20 and status != 200:
                assert process.poll() is None, log_path.read_text()
                try:
                    status = http.get(f"http://127.0.0.1:{port}/health").status_code
                except httpx.HTTPError:
                    time.sleep(0.1)
        assert status == 200, log_path.read_text()
        assert "Traceback" not in log_path.read_text()
    finally:
        process.terminate()
        process.wait(30)
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
