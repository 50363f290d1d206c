"""Fixtures of the HTTP service tests.

Accounts are made through the bookkeeping's own API (:class:`Bookkeeper`) on a real
SQLite file; charts come from the real library (offline gazetteer for place names unless
a test points the Google geocoder at the local stand-in).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import httpx
import pytest

from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.charting import ChartSource, LibraryCharts
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import open_store

from .databases import DatabaseFiles, write_database
from .support import google_stand_in, in_process

START = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)



@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> ManualClock:
    """The service's clock, moved only by the test."""
    return ManualClock(START)


@pytest.fixture
def db_url(request: pytest.FixtureRequest, database_files: DatabaseFiles) -> str:
    """The URL of a new SQLite file (not created yet), this test's own."""
    return database_files.url(request.node.name)


@pytest.fixture
def book(db_url: str, clock: ManualClock, migrated_database: bytes) -> Iterator[Bookkeeper]:
    """The bookkeeping the app uses (and the test inspects), on a new database file in
    the state of a freshly migrated one."""
    write_database(db_url, migrated_database)
    bookkeeper = Bookkeeper(open_store(db_url), clock=clock)
    try:
        yield bookkeeper
    finally:
        bookkeeper.close()


@pytest.fixture
def charts() -> ChartSource:
    """The real chart source: library, offline gazetteer."""
    return LibraryCharts("offline")


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, geocoder="offline", warm_up=False)


@pytest.fixture
async def client(
    settings: Settings, book: Bookkeeper, charts: ChartSource
) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the app (lifespan run)."""
    async with in_process(create_app(settings, book=book, charts=charts)) as c:
        yield c


def new_key(book: Bookkeeper, plan: str = "developer") -> str:
    """A fresh API key of a new account on ``plan``."""
    return book.create_account(plan).api_key


def v2_headers(key: str, geocode: str | None = "geo-key") -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    if geocode is not None:
        headers["HD-Geocode-Key"] = geocode
    return headers


def v1_headers(key: str, geocode: str | None = "geo-key") -> dict[str, str]:
    headers = {"HD-Api-Key": key}
    if geocode is not None:
        headers["HD-Geocode-Key"] = geocode
    return headers


@pytest.fixture
def google_url() -> Iterator[str]:
    """Address of the local stand-in for the Google Geocoding API."""
    with google_stand_in() as (url, _seen):
        yield url


@pytest.fixture
async def google_client(
    db_url: str, book: Bookkeeper, google_url: str
) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of an app whose Google geocoder talks to the stand-in."""
    settings = Settings(database_url=db_url, geocoder="google", geocoder_url=google_url,
                        warm_up=False)
    async with in_process(create_app(settings, book=book, charts=charts_for(google_url))) as c:
        yield c


def charts_for(google_url: str) -> ChartSource:
    """The real chart source with the Google geocoder pointed at the stand-in."""
    return LibraryCharts("google", google_url)
