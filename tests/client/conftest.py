"""Fixtures of the client tests: the real service under uvicorn on 127.0.0.1 (a
subprocess started with the service tests' :class:`LiveServer`), a fresh SQLite database,
the offline gazetteer for place names, and accounts made through the bookkeeping API."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from server.support import LiveServer

from bodygraph_server.billing.accounts import Bookkeeper, IssuedKey
from bodygraph_server.store import open_store


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
    tmp = tmp_path_factory.mktemp("client-service")
    db_url = f"sqlite:///{tmp / 'service.sqlite3'}"
    book = Bookkeeper(open_store(db_url))  # migrates before the server starts
    server = LiveServer({"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
                         "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_RENDER_URL": "",
                         "BODYGRAPH_PUBLIC_URL": "", "BODYGRAPH_RENDER_KEYS": ""},
                        log=tmp / "server.log")
    try:
        server.wait_ready()
        yield Service(server, book)
    finally:
        server.stop()
        book.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
