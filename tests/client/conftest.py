"""Fixtures of the client tests: the real service under uvicorn on 127.0.0.1 (a
subprocess started with the service tests' :class:`LiveServer`), a fresh SQLite database,
the offline gazetteer for place names, and accounts made through the bookkeeping API. The
service is the one :func:`server.support.shared_served` starts once per test process."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from functools import cache

import httpx
import pytest
from server.support import LiveServer, shared_served

from bodygraph_server.billing.accounts import Bookkeeper, IssuedKey


@dataclass
class Service:
    """A running service and the bookkeeping of its database."""

    server: LiveServer
    book: Bookkeeper

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def account(self, plan: str = "developer") -> IssuedKey:
        """A new account on ``plan`` and its key."""
        return self.book.create_account(plan)

    def key(self, plan: str = "developer") -> str:
        return self.account(plan).api_key


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def loopback() -> httpx.HTTPTransport:
    """A network transport for a client of the service (plain HTTP on 127.0.0.1) with a
    TLS context made once: httpx makes one per client otherwise, loading the CA bundle
    (about 20 ms of CPU), which tests making a client each paid over and over."""
    return httpx.HTTPTransport(verify=_tls())


def async_loopback() -> httpx.AsyncHTTPTransport:
    """:func:`loopback` for the async client."""
    return httpx.AsyncHTTPTransport(verify=_tls())


@pytest.fixture(scope="session")
def service(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Service:
    """The service these tests share with the browser tests (one per xdist worker)."""
    return Service(*shared_served(pytestconfig, tmp_path_factory))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
