"""Fixtures of the client tests: the real service under uvicorn on 127.0.0.1 (a
subprocess started with the service tests' :class:`LiveServer`), a fresh SQLite database,
the offline gazetteer for place names, and accounts made through the bookkeeping API."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from server.support import LiveServer, served

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


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with served(tmp_path_factory.mktemp("client-service")) as (server, book):
        yield Service(server, book)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
