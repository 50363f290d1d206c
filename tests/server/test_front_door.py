"""End to end under a real uvicorn (subprocess): the ``Host`` header is checked against the
allowed hosts before any link is built from it, forwarded headers are believed only from
configured proxies, and ``serve`` prints how to create an account only while none exists."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.ratelimit import AUTH_FAILURE_LIMIT
from bodygraph_server.serve import banner
from bodygraph_server.settings import Settings
from bodygraph_server.store import open_store

from .support import REPO, LiveServer, free_port

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
QUIET = {"BODYGRAPH_WARM_UP": "0", "BODYGRAPH_GEOCODER": "offline"}


@contextmanager
def served(tmp: Path, extra_env: dict[str, str]) -> Iterator[tuple[LiveServer, str]]:
    """A server on a new database, with the settings of ``extra_env``, and the API key of
    an account on it."""
    db_url = f"sqlite:///{tmp / f'front-{secrets.token_hex(3)}.sqlite3'}"
    with Bookkeeper(open_store(db_url)) as book:
        key = book.create_account("developer").api_key
    server = LiveServer({"BODYGRAPH_DATABASE_URL": db_url, **QUIET, **extra_env},
                        log=tmp / f"server-{secrets.token_hex(3)}.log")
    try:
        server.wait_ready()
        yield server, key
    finally:
        server.stop()


def chart(server: LiveServer, key: str, host: str) -> httpx.Response:
    return httpx.post(f"{server.base_url}/v2/visual-charts/coordinates", json=COORDS,
                      headers={"Authorization": f"Bearer {key}", "Host": host}, timeout=60)


def test_a_foreign_host_is_refused_before_any_link_is_built(tmp_path: Path) -> None:
    with served(tmp_path, {}) as (server, key):
        local = f"127.0.0.1:{server.port}"
        own = chart(server, key, local)
        assert own.status_code == 200, own.text
        assert own.json()["svgRenderUrl"].startswith(f"http://{local}/render/default.svg?t=")
        assert chart(server, key, f"localhost:{server.port}").status_code == 200
        for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1.evil.example"):
            refused = chart(server, key, host)
            assert refused.status_code == 400, refused.text
            body = refused.json()
            assert body["success"] is False and body["errorCode"] == "INVALID_REQUEST_BODY"
            assert "evil" not in refused.text
            assert "--allowed-hosts / BODYGRAPH_ALLOWED_HOSTS" in body["message"]
        assert chart(server, key, "evil.example").status_code == 400
        refusals = [line for line in server.log_text().splitlines() if "refused Host" in line]
        assert len(refusals) == 3, refusals  # one line per distinct host, not per request
        assert "'evil.example'" in refusals[0] and "BODYGRAPH_ALLOWED_HOSTS" in refusals[0]
        v1 = httpx.post(f"{server.base_url}/v1/bodygraphs/simple",
                        json={"birthdate": "15-Jul-90", "birthtime": "14:30",
                              "location": "Berlin, Germany"},
                        headers={"HD-Api-Key": key, "Host": "evil.example"}, timeout=60)
        assert v1.status_code == 400 and v1.json()["status"] == "error"
        image = httpx.get(own.json()["svgRenderUrl"], headers={"Host": "evil.example"},
                          timeout=60)
        assert image.status_code == 400
        # Load balancers probe a worker by its address: the health checks answer any Host.
        probe = httpx.get(f"{server.base_url}/health", headers={"Host": "10.1.2.3:8000"})
        assert probe.status_code == 200
        # The same default server, last (it trips the failed authentications' limit): no
        # proxy configured, so a client on this very host cannot pick the address the
        # limits count (the image throttle's, the failed authentications').
        assert partition(server, "10.0.0.1") == partition(server, "10.0.0.2")
        assert unknown_keys(server, AUTH_FAILURE_LIMIT + 1) == (
            [401] * AUTH_FAILURE_LIMIT + [429])


def test_the_public_url_host_is_allowed_and_links_use_it(tmp_path: Path) -> None:
    env = {"BODYGRAPH_PUBLIC_URL": "https://api.example.com"}
    with served(tmp_path, env) as (server, key):
        response = chart(server, key, "api.example.com")
        assert response.status_code == 200, response.text
        assert response.json()["svgRenderUrl"].startswith(
            "https://api.example.com/render/default.svg?t=")
        assert chart(server, key, "evil.example").status_code == 400
    with served(tmp_path, {"BODYGRAPH_ALLOWED_HOSTS": "*.example.org"}) as (server, key):
        assert chart(server, key, "img.example.org").status_code == 200
        assert chart(server, key, f"127.0.0.1:{server.port}").status_code == 400


def partition(server: LiveServer, forwarded_for: str) -> str:
    """The ``pk`` of the anonymous rate-limit partition a request without a key lands in
    (derived from the client address the service sees)."""
    response = httpx.post(f"{server.base_url}/v2/charts/coordinates", json=COORDS,
                          headers={"X-Forwarded-For": forwarded_for}, timeout=60)
    assert response.status_code == 401
    return response.headers["ratelimit-policy"].rsplit("pk=", 1)[1]


def unknown_keys(server: LiveServer, count: int) -> list[int]:
    """``count`` requests with unknown keys, each claiming another client address in
    ``X-Forwarded-For``; their statuses."""
    statuses = []
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        for i in range(count):
            response = http.post("/v2/charts/coordinates", json=COORDS, headers={
                "Authorization": f"Bearer bg_{secrets.token_hex(16)}",
                "X-Forwarded-For": f"10.0.0.{i + 1}"})
            statuses.append(response.status_code)
    return statuses


def test_forwarded_addresses_are_believed_from_configured_proxies(tmp_path: Path) -> None:
    # Behind a configured proxy (here: this host), each forwarded address is a client;
    # without one they are not (test_a_foreign_host_is_refused_before_any_link_is_built).
    with served(tmp_path, {"BODYGRAPH_FORWARDED_ALLOW_IPS": "127.0.0.1"}) as (server, key):
        assert partition(server, "10.0.0.1") != partition(server, "10.0.0.2")
        assert unknown_keys(server, AUTH_FAILURE_LIMIT + 1) == [401] * (AUTH_FAILURE_LIMIT + 1)
        proxied = httpx.post(f"{server.base_url}/v2/visual-charts/coordinates", json=COORDS,
                             headers={"Authorization": f"Bearer {key}",
                                      "X-Forwarded-Proto": "https"}, timeout=60)
        assert proxied.json()["svgRenderUrl"].startswith(f"https://127.0.0.1:{server.port}/")


def serve_banner(db_url: str, tmp: Path) -> str:
    """What ``bodygraph-server serve`` prints before it serves (it is stopped once ready)."""
    port = free_port()
    log = tmp / f"serve-{secrets.token_hex(3)}.log"
    env = {**os.environ, "BODYGRAPH_DATABASE_URL": db_url, **QUIET, "PYTHONUNBUFFERED": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bodygraph_server.cli.admin", "serve", "--port", str(port)],
            env=env, cwd=str(REPO), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "Uvicorn running" not in log.read_text() and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()
            time.sleep(0.1)
    finally:
        process.terminate()
        process.wait(30)
    return log.read_text()


def test_the_start_banner_shows_the_first_steps_only_without_accounts(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'banner.sqlite3'}"
    first = serve_banner(db_url, tmp_path)
    assert "bodygraph service on http://127.0.0.1:" in first
    assert "Create an account" in first and "accounts create --plan" in first
    assert "home: /," in first and "playground: /playground" in first
    assert "Only requests whose Host" not in first
    with Bookkeeper(open_store(db_url)) as book:
        book.create_account("developer")
    later = serve_banner(db_url, tmp_path)
    assert "bodygraph service on http://127.0.0.1:" in later
    assert "Create an account" not in later and "accounts create" not in later


def test_the_banner_of_every_interface_says_which_hosts_are_answered() -> None:
    text = banner(Settings(host="0.0.0.0", port=18231), accounts_exist=True)
    assert "Only requests whose Host is one of localhost, 127.0.0.1, [::1] are answered" in text
    assert "--allowed-hosts / BODYGRAPH_ALLOWED_HOSTS" in text
    assert "Only requests" not in banner(Settings(host="0.0.0.0", allowed_hosts="*"), True)
