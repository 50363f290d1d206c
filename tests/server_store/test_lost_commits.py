"""A commit whose acknowledgement is lost, on SQLite and PostgreSQL, by fault injection in
the driver layer: the transaction that commits a call's charge either reaches the
database and then its connection fails (the driver raises its outage error: psycopg's
OperationalError, the connection closed; sqlite3's disk I/O error), or fails without
committing. The service finds out which: 200 and one charge if it committed, 503 and
nothing charged if it did not, for the single charts (the group commit) and the batch.
(A real lost acknowledgement on a real PostgreSQL: test_lost_commit_proxy.py.)"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import anyio
import httpx
import pytest
from server.support import in_process, json_headers

from bodygraph_server import Settings, create_app
from bodygraph_server.billing import outcomes
from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.batch_charges import release_claim, reserve_many
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.charting import LibraryCharts
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import DatabaseUnavailableError, UsageStatus, sqlite_path
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.sql import SqlStore
from bodygraph_server.store.sqlite import SqliteConnections, SqliteStore

pytestmark = [pytest.mark.anyio, pytest.mark.faults]

CHART = "/v2/charts/coordinates"
BATCH = "/v2/charts/batch"
BIRTH = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
OTHER = {**BIRTH, "birthtime": "09:05"}
BAD = {**BIRTH, "lat": 123}


@dataclass
class Fault:
    """What happens to the next transaction of its ``target`` (``"commit"``: one that
    commits charges; ``"claim"``: a reservation with an Idempotency-Key): ``"after"`` its
    COMMIT (it committed, the acknowledgement is lost), ``"before"`` it (nothing
    committed), or nothing (None). ``hits``: how many were hit."""

    mode: str | None = None
    hits: int = 0
    where: str = ""  # the path it struck: "driver" (a blocking call) or "event loop"
    target: str = "commit"

    def strikes(self, sql: str, params: Sequence[object]) -> bool:
        """Whether the statement marks a transaction of the target."""
        if self.target == "claim":
            return sql.startswith("INSERT INTO idempotency_keys")
        return sql.startswith("UPDATE usage_log SET status") and bool(params) \
            and params[0] == "committed"


class _Faulty:
    """Connections of a SQL store whose charge-committing transactions fail as
    :class:`Fault` says."""

    fault: Fault

    def _lost(self, conn: Any) -> Exception:
        raise NotImplementedError

    @contextmanager
    def transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        seen: list[bool] = []
        with super().transaction(conn, write=write) as tx:  # type: ignore[misc]
            inner = tx._run

            def run(sql: str, params: Sequence[object]) -> Any:
                seen.append(self.fault.strikes(sql, params))
                return inner(sql, params)

            yield Tx(run, tx.dialect)
            if any(seen) and self.fault.mode == "before":
                self.fault.mode, self.fault.hits = None, self.fault.hits + 1
                self.fault.where = "driver"
                raise self._lost(None)  # rolled back by the backend's transaction
        if any(seen) and self.fault.mode == "after":
            self.fault.mode, self.fault.hits = None, self.fault.hits + 1
            self.fault.where = "driver"
            raise self._lost(conn)


class FaultySqliteConnections(_Faulty, SqliteConnections):
    def _lost(self, conn: Any) -> Exception:
        error = sqlite3.OperationalError("disk I/O error")
        error.sqlite_errorcode = sqlite3.SQLITE_IOERR
        return error


class FaultySqlite(SqliteStore):
    CONNECTIONS = FaultySqliteConnections


@cache
def faulty_postgres() -> tuple[type[SqlStore], type[_Faulty]]:
    """The PostgreSQL store with faults and its connections, made on first use: psycopg
    and the store are imported by the tests that use them, not in every pytest worker
    that collects this module."""
    import psycopg

    from bodygraph_server.store.async_request_path import AsyncRequestPath
    from bodygraph_server.store.postgres import PostgresConnections, PostgresStore
    from bodygraph_server.store.request_path import RequestPath

    class FaultyPostgresConnections(_Faulty, PostgresConnections):
        def _lost(self, conn: Any) -> Exception:
            if conn is not None:
                conn.close()  # the connection is gone: the pool throws it away
            return psycopg.OperationalError("server closed the connection unexpectedly")

        @contextmanager
        def statements(self, conn: Any) -> Iterator[Tx]:
            """Statements that commit alone (the one-statement group commit): the fault
            strikes before the statement is sent, or after it ran (and committed)."""
            with super().statements(conn) as tx:
                inner = tx._run

                def run(sql: str, params: Sequence[object]) -> Any:
                    hit = self.fault.strikes(sql, params)
                    if hit and self.fault.mode == "before":
                        self.fault.mode, self.fault.hits = None, self.fault.hits + 1
                        self.fault.where = "driver"
                        raise self._lost(conn)
                    result = inner(sql, params)
                    if hit and self.fault.mode == "after":
                        self.fault.mode, self.fault.hits = None, self.fault.hits + 1
                        self.fault.where = "driver"
                        raise self._lost(conn)
                    return result

                yield Tx(run, tx.dialect)

    class FaultyPostgres(PostgresStore):
        CONNECTIONS = FaultyPostgresConnections

        def async_request_path(self) -> AsyncRequestPath:
            assert self.request_path is not None
            return FaultyAsyncPath(self.request_path, FaultyPostgresConnections.fault)

    class FaultyAsyncPath(AsyncRequestPath):
        """The request path's statements on the event loop (what the service uses on
        PostgreSQL), the group commit failing as :class:`Fault` says."""

        def __init__(self, path: RequestPath, fault: Fault) -> None:
            super().__init__(path)
            self.fault = fault

        async def _run(self, cursor: Any, sql: str, params: Sequence[object]) -> None:
            hit = self.fault.strikes(sql, params)
            for when in ("before", "after"):
                if hit and self.fault.mode == when:
                    self.fault.mode, self.fault.hits = None, self.fault.hits + 1
                    self.fault.where = "event loop"
                    await cursor.connection.close()  # gone: the pool throws it away
                    raise psycopg.OperationalError(
                        "server closed the connection unexpectedly")
                if when == "before":
                    await super()._run(cursor, sql, params)

    return FaultyPostgres, FaultyPostgresConnections


@pytest.fixture
def fault() -> Fault:
    return Fault()


@pytest.fixture
def faulty_book(db_url: str, clock: ManualClock, fault: Fault) -> Iterator[Bookkeeper]:
    store: SqlStore
    if db_url.startswith("sqlite"):
        FaultySqliteConnections.fault = fault
        store = FaultySqlite(sqlite_path(db_url))
    else:
        faulty, connections = faulty_postgres()
        connections.fault = fault
        store = faulty(db_url)
    keeper = Bookkeeper(store, clock=clock)
    try:
        yield keeper
    finally:
        keeper.close()


@pytest.fixture
async def client(db_url: str, faulty_book: Bookkeeper) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(database_url=db_url, geocoder="offline", warm_up=False)
    app = create_app(settings, book=faulty_book, charts=LibraryCharts("offline"))
    async with in_process(app) as c:
        yield c



def _request_path(db_url: str) -> str:
    """Where a chart's group commit runs: on the event loop on PostgreSQL."""
    return "event loop" if db_url.startswith("postgres") else "driver"


def _books(book: Bookkeeper, account_id: int) -> tuple[int, int, int, int]:
    """Calls, credits, pending reservations and the balance; the ledger checked."""
    usage = book.usage(account_id)[-1]
    assert book.audit(account_id).balanced
    return usage.calls, usage.credits, usage.pending, book.account(account_id).balance


@pytest.mark.parametrize("mode", ["after", "before"])
async def test_a_chart_whose_commit_is_unacknowledged(
    client: httpx.AsyncClient, faulty_book: Bookkeeper, fault: Fault, mode: str, db_url: str
) -> None:
    issued = faulty_book.create_account("developer")
    before = faulty_book.account(issued.account.id).balance
    fault.mode = mode
    response = await client.post(CHART, json=BIRTH, headers=json_headers(issued.api_key))
    assert (fault.hits, fault.where) == (1, _request_path(db_url))
    if mode == "after":  # it committed: the chart is answered, charged once
        assert response.status_code == 200, response.text
        assert _books(faulty_book, issued.account.id) == (1, 1, 0, before - 1)
    else:  # it did not: 503, the reservation released, nothing charged
        assert response.status_code == 503, response.text
        assert response.json()["errorCode"] == "SERVICE_UNAVAILABLE"
        assert _books(faulty_book, issued.account.id) == (0, 0, 0, before)


async def test_a_group_commit_whose_acknowledgement_is_lost(
    client: httpx.AsyncClient, faulty_book: Bookkeeper, fault: Fault, db_url: str
) -> None:
    issued = [faulty_book.create_account("developer") for _ in range(4)]
    statuses: list[int] = []

    async def send(key: str) -> None:
        response = await client.post(CHART, json=BIRTH, headers=json_headers(key))
        statuses.append(response.status_code)

    fault.mode = "after"
    async with anyio.create_task_group() as tasks:
        for one in issued:
            tasks.start_soon(send, one.api_key)
    assert (fault.hits, fault.where) == (1, _request_path(db_url))
    assert statuses == [200] * 4
    for one in issued:
        assert _books(faulty_book, one.account.id)[:3] == (1, 1, 0)


@pytest.mark.parametrize("mode", ["after", "before"])
async def test_a_batch_whose_commit_is_unacknowledged(
    client: httpx.AsyncClient, faulty_book: Bookkeeper, fault: Fault, mode: str
) -> None:
    issued = faulty_book.create_account("developer")
    account_id = issued.account.id
    before = faulty_book.account(account_id).balance
    body = json.dumps({"births": [BIRTH, BAD, OTHER]}).encode()
    headers = json_headers(issued.api_key, "lost-ack")
    fault.mode = mode
    response = await client.post(BATCH, content=body, headers=headers)
    assert fault.hits == 1
    if mode == "after":
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 503, response.text
        assert _books(faulty_book, account_id) == (0, 0, 0, before)
    # A retry with the key: answered, and the batch charged exactly once either way.
    retried = await client.post(BATCH, content=body, headers=headers)
    assert retried.status_code == 200, retried.text
    assert _books(faulty_book, account_id) == (2, 2, 0, before - 2)


@pytest.mark.parametrize("path", [CHART, BATCH])
@pytest.mark.parametrize("mode", ["after", "before"])
async def test_a_keyed_reservation_whose_commit_is_unacknowledged(
    client: httpx.AsyncClient, faulty_book: Bookkeeper, fault: Fault, mode: str, path: str
) -> None:
    """A request with an Idempotency-Key whose reservation loses its acknowledgement fails
    as an outage, nothing charged: what the reservation stored is released at once, so a
    retry with the key is served (not IDEMPOTENCY_KEY_IN_USE until the sweep)."""
    issued = faulty_book.create_account("developer")
    account_id = issued.account.id
    before = faulty_book.account(account_id).balance
    charts = 1 if path == CHART else 2
    body = json.dumps(BIRTH if path == CHART else {"births": [BIRTH, OTHER]}).encode()
    headers = json_headers(issued.api_key, f"lost-claim-{mode}")
    fault.mode, fault.target = mode, "claim"
    response = await client.post(path, content=body, headers=headers)
    assert (fault.hits, fault.where) == (1, "driver")
    assert response.status_code == 503, response.text
    assert response.json()["errorCode"] == "SERVICE_UNAVAILABLE"
    assert _books(faulty_book, account_id) == (0, 0, 0, before)
    retried = await client.post(path, content=body, headers=headers)
    assert retried.status_code == 200, retried.text
    assert _books(faulty_book, account_id) == (charts, charts, 0, before - charts)
    again = await client.post(path, content=body, headers=headers)  # a replay: no charge
    assert again.status_code == 200, again.text
    assert _books(faulty_book, account_id) == (charts, charts, 0, before - charts)


async def test_a_claim_releases_its_own_reservations_only(book: Bookkeeper) -> None:
    """Other reservations of the account made in the same microsecond (the manual clock
    stands still) stay pending when a claim's are released."""
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    now = book.clock.now()
    single = claim_for(book, principal, "single", CHART, b"{}")
    batch = claim_for(book, principal, "batch", BATCH, b"{}")
    before = book.reserve(principal, CHART, now=now)  # an unkeyed call
    keyed = book.reserve(principal, CHART, single, now=now)
    taken = reserve_many(book, principal, BATCH, 3, batch, now=now)
    after = book.reserve(principal, CHART, now=now)
    assert isinstance(before, Reservation) and isinstance(keyed, Reservation)
    assert isinstance(taken, list) and isinstance(after, Reservation)
    assert release_claim(book, principal, batch, now, 3) == 3
    assert release_claim(book, principal, single, now, 1) == 1
    assert release_claim(book, principal, single, now, 1) == 0  # nothing pending is left
    ids = [before.id, keyed.id, *(r.id for r in taken), after.id]
    assert book.store.usage_statuses(ids) == [
        UsageStatus.RESERVED, *[UsageStatus.RELEASED] * 4, UsageStatus.RESERVED]


async def test_an_outcome_that_cannot_be_found_out_stays_an_outage(
    book: Bookkeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the database stays unreachable the outcome is unknown: the requests fail
    with the original outage (503); the sweep releases what did not commit."""
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    reservation = book.reserve(principal, CHART)
    monkeypatch.setattr(outcomes, "RESOLVE_WINDOW", 0.3)
    attempts: list[object] = []

    async def down(call: Any, *args: Any) -> Any:
        attempts.append(call)
        raise DatabaseUnavailableError("PostgreSQL is unavailable: connection refused")

    lost = DatabaseUnavailableError("lost")
    assert await outcomes.resolve_commits(book, down, [reservation], lost) == [lost]
    assert len(attempts) >= 2  # tried again within the window
