"""The request path's three PostgreSQL statements (:mod:`.request_path`) on the event
loop, through psycopg's async driver and a small pool per worker (docs/accounts.md;
measured: docs/performance.md)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

import psycopg
import psycopg_pool
from psycopg.rows import namedtuple_row

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Row
from bodygraph_server.store.errors import CommitUncertainError, DatabaseUnavailableError
from bodygraph_server.store.pool import AsyncConnection, quiet
from bodygraph_server.store.records import ApiKeyRecord, RateDecision, Reservation
from bodygraph_server.store.request_path import (
    ADMIT_SQL,
    COMMIT_SQL,
    RESERVE_SQL,
    Admission,
    RequestPath,
    commit_params,
    committed,
    placeholders,
    reservation_from_row,
)

#: Connections per worker process at most (the pool opens them as concurrent requests
#: need them: one when idle); the sizes compared: docs/performance.md.
DEFAULT_SIZE = 8


async def _alive(conn: psycopg.AsyncConnection[Any]) -> bool:
    """Whether a pooled, idle connection still works (:func:`~.pool.quiet`, then a round
    trip)."""
    state = quiet(conn)
    if state is not False:
        return bool(state)
    try:
        await conn.execute("")
    except psycopg.Error:
        return False
    return True


class AsyncRequestPath:
    """Admission, fast reservation and group commit of ``path``'s requests, on the
    running event loop. Open it in that loop (:meth:`open`) and close it there."""

    def __init__(self, path: RequestPath, *, size: int = DEFAULT_SIZE) -> None:
        self.path = path
        self._size = size
        connections = path.connections
        self._pool: psycopg_pool.AsyncConnectionPool[Any] = psycopg_pool.AsyncConnectionPool(
            connections.url,
            connection_class=AsyncConnection,  # remembers why connecting failed
            kwargs={"autocommit": True, "connect_timeout": connections.connect_timeout},
            min_size=1,
            max_size=size,
            timeout=connections.wait,
            reconnect_timeout=connections.wait * 2,
            open=False,
            name=f"bodygraph-async-{os.getpid()}",
        )

    async def open(self) -> None:
        """Start the pool (connections are made in the background)."""
        await self._pool.open(wait=False)

    async def close(self) -> None:
        """Close the pool's connections."""
        await self._pool.close()

    def pool_size(self) -> int:
        """How many connections the pool holds (idle and in use)."""
        return int(self._pool.get_stats().get("pool_size", 0))

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Driver and pool errors raised in the block as the store's."""
        try:
            yield
        except Exception as exc:
            error = self.path.connections.translate(exc)
            if error is None:
                raise
            raise error from exc

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A working connection, back to the pool afterwards. A dead one (after a server
        restart or ``pg_terminate_backend``) is thrown away and the next one taken at
        once, as the blocking pool does (the pool's own ``check`` waits a second from
        the second dead one on). Errors getting one: nothing was sent."""
        pool = self._pool
        with self._translated():
            conn = await pool.getconn()
            for _ in range(self._size):
                if await _alive(conn):
                    break
                await pool.putconn(conn)  # closed or broken: the pool discards it
                conn = await pool.getconn()
        try:
            yield conn
        finally:
            await pool.putconn(conn)

    @asynccontextmanager
    async def _cursor(self) -> AsyncIterator[psycopg.AsyncCursor[Any]]:
        async with self._connection() as conn:
            with self._translated():
                async with conn.cursor(row_factory=namedtuple_row) as cursor:
                    yield cursor

    async def _run(
        self, cursor: psycopg.AsyncCursor[Any], sql: str, params: Sequence[object]
    ) -> None:
        """Run one statement (its own transaction: the connection is in autocommit)."""
        await cursor.execute(placeholders(sql), tuple(params))

    async def _one(self, sql: str, params: Sequence[object]) -> Row | None:
        async with self._cursor() as cursor:
            await self._run(cursor, sql, params)
            row: Row | None = await cursor.fetchone()
        return row

    async def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """:meth:`~.request_path.RequestPath.admit_key`, on the event loop."""
        admission = Admission(key_hash, to_micros(now), limit, window_seconds)
        return self.path.admitted(admission, await self._one(ADMIT_SQL, admission.params))

    async def reserve(self, account_id: int, endpoint: str, now: datetime) -> Reservation | None:
        """The fast reservation of :meth:`~.request_path.RequestPath.reserve`; None
        when it does not apply (the caller makes the general one, on the blocking store)."""
        fast = self.path.fast_reservation(account_id, endpoint, now)
        if fast is None:
            return None
        params, period_index = fast
        row = await self._one(RESERVE_SQL, params)
        if row is None:
            return None
        return reservation_from_row(row, account_id, endpoint, period_index)

    async def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """:meth:`~.request_path.RequestPath.commit_many`, on the event loop."""
        if not reservation_ids:
            return []
        async with self._connection() as conn:  # not sent if this fails: an outage
            try:
                with self._translated():
                    async with conn.cursor(row_factory=namedtuple_row) as cursor:
                        await self._run(cursor, COMMIT_SQL,
                                        commit_params(reservation_ids, now))
                        rows: list[Any] = await cursor.fetchall()
            except DatabaseUnavailableError as exc:
                # Sent in autocommit: the server may have committed it whatever became
                # of the answer (the caller finds out, .outcomes).
                raise CommitUncertainError(f"{exc} (while committing)") from exc
        return committed(reservation_ids, rows)
