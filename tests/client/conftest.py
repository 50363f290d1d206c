"""Fixtures of the client tests: the real service under uvicorn on 127.0.0.1 (a
subprocess started with the service tests' :class:`LiveServer`), a fresh SQLite database,
the offline gazetteer for place names, and accounts made through the bookkeeping API. The
service is the one :func:`server.support.shared_served` starts once per test session."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest
from server.support import Server, shared_served, tls_context

from bodygraph_server.billing.accounts import Bookkeeper, IssuedKey


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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
