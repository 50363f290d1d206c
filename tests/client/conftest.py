"""Fixtures of the client tests: the real service under uvicorn on 127.0.0.1 (a
subprocess started with the service tests' :class:`LiveServer`), a fresh SQLite database,
the offline gazetteer for place names, and accounts made through the bookkeeping API. The
service is the one :func:`server.support.shared_served` starts once per test session."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from server.support import LiveServer, Server, google_stand_in, shared_served, tls_context

from bodygraph_server.billing.accounts import Bookkeeper, IssuedKey
from bodygraph_server.store import open_store


@dataclass
class Service:
    """A running service and the bookkeeping of its database."""

    server: Server
    book: Bookkeeper

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def account(self, plan: str = "developer") -> IssuedKey:
        """A new account on ``plan`` and its key."""
        return self.book.create_account(plan)

    def key(self, plan: str = "developer") -> str:
        return self.account(plan).api_key

    def assert_charged(self, account: int, calls: int) -> None:
        """The account's balance is its month's credits less ``calls``."""
        found = self.book.account(account)
        assert found.balance == found.plan.credits_per_month(found.billing) - calls


def loopback() -> httpx.HTTPTransport:
    """A network transport for a client of the service (plain HTTP on 127.0.0.1) with the
    TLS context made once (:func:`server.support.tls_context`): the client's default
    transport makes one per client, about 20 ms of CPU for each test."""
    return httpx.HTTPTransport(verify=tls_context())


def async_loopback() -> httpx.AsyncHTTPTransport:
    """:func:`loopback` for the async client."""
    return httpx.AsyncHTTPTransport(verify=tls_context())


@pytest.fixture(scope="session")
def service(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Service:
    """The service these tests share with the browser tests (one per test session)."""
    return Service(*shared_served(pytestconfig, tmp_path_factory))


@pytest.fixture(scope="module")
def openapi(service: Service) -> dict[str, Any]:
    """The OpenAPI document the running service publishes."""
    answer = httpx.get(f"{service.base_url}/openapi.json", timeout=30, verify=tls_context())
    assert answer.status_code == 200
    document: dict[str, Any] = answer.json()
    return document


@pytest.fixture(scope="module")
def google_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A service of the module's own that geocodes with Google (the stand-in of
    tests/server/google_api.py), where place names need the caller's key."""
    folder = tmp_path_factory.mktemp("google-service")
    db_url = f"sqlite:///{folder / 'service.sqlite3'}"
    Bookkeeper(open_store(db_url)).close()  # migrates before the server starts
    with google_stand_in() as (url, _seen):
        env = {"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "google",
               "BODYGRAPH_GEOCODER_URL": url, "BODYGRAPH_WARM_UP": "0",
               "BODYGRAPH_RENDER_URL": "", "BODYGRAPH_PUBLIC_URL": "",
               "BODYGRAPH_RENDER_KEYS": ""}
        server = LiveServer(env, log=folder / "server.log")
        try:
            server.wait_ready()
            book = Bookkeeper(open_store(db_url))
            try:
                yield Service(server, book)
            finally:
                book.close()
        finally:
            server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
