"""A real lost commit acknowledgement on a real PostgreSQL (a database of the test's own,
``bglostack_<random>``, dropped afterwards): the store talks to the server through a TCP
proxy that, when armed, forwards the next ``COMMIT`` (or the one-statement group commit,
``UPDATE usage_log ... WHERE id = ANY(...)``, a transaction of its own) and drops the
server's answer to it (``CommandComplete``: the server has committed), closing both
connections; or drops the ``COMMIT`` itself (the server never commits, and rolls back
when it sees the client gone). The store reports either as an unknown outcome, and the
group commit and the batch find out: answered and charged once, or failed and nothing charged."""

from __future__ import annotations

import contextlib
import re
import secrets
import socket
import threading
from collections.abc import Iterator
from functools import partial
from typing import Any

import anyio
import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.batch_charges import reserve_many, settle_batch
from bodygraph_server.billing.commits import CommitBatcher
from bodygraph_server.billing.idempotency import claim_for, reserve_keyed_charge
from bodygraph_server.billing.outcomes import resolve_batch
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.store import CommitUncertainError, DatabaseUnavailableError

pytestmark = pytest.mark.faults

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
PATH = "/v2/charts/coordinates"
BATCH = "/v2/charts/batch"
#: The server's CommandComplete of a COMMIT, or of the one-statement group commit.
COMMITTED = re.compile(rb"(COMMIT|UPDATE \d+)\x00")


def _commits(message: bytes) -> bool:
    """A COMMIT (simple query) or the group commit's statement (its Parse message)."""
    return (message[:1] == b"Q" and message[5:].startswith(b"COMMIT")) or (
        message[:1] == b"P" and b"UPDATE usage_log SET status" in message
        and b"ANY(" in message)


class AckDropper:
    """A TCP proxy to PostgreSQL at 127.0.0.1:5432 (connections without TLS). ``arm(mode)``:
    the next ``COMMIT`` a client sends is forwarded and the answer dropped (``"after"``),
    or not forwarded at all (``"before"``); then both connections are closed."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._mode: str | None = None
        self.dropped = threading.Event()
        self.answer = b""
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, mode: str) -> None:
        with self._lock:
            self._mode = mode
            self.dropped.clear()
            self.answer = b""

    def close(self) -> None:
        self._listener.close()
        self._end(*self._sockets)

    def _take(self) -> str | None:
        with self._lock:
            mode, self._mode = self._mode, None
            return mode

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", 5432))
            self._sockets += [client, server]
            state: dict[str, Any] = {"commit": None}
            threading.Thread(target=self._up, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, state),
                             daemon=True).start()

    @staticmethod
    def _end(*sockets: socket.socket) -> None:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _cut(self, *sockets: socket.socket) -> None:
        self._end(*sockets)
        self.dropped.set()

    def _up(self, client: socket.socket, server: socket.socket, state: dict[str, Any]) -> None:
        """Client to server, message by message (the startup message has no type byte)."""
        buffer, started = b"", False
        try:
            while data := client.recv(65536):
                buffer += data
                while True:
                    head = 4 if not started else 5
                    if len(buffer) < head:
                        break
                    size = int.from_bytes(buffer[head - 4:head], "big") + head - 4
                    if len(buffer) < size:
                        break
                    message, buffer, started = buffer[:size], buffer[size:], True
                    if _commits(message):
                        mode = self._take()
                        if mode == "before":
                            self._cut(client, server)
                            return
                        state["commit"] = mode
                    server.sendall(message)
        except OSError:
            pass
        self._end(client, server)

    def _down(self, server: socket.socket, client: socket.socket,
              state: dict[str, Any]) -> None:
        """Server to client; after an armed COMMIT, the answer is kept and dropped."""
        try:
            while data := server.recv(65536):
                if state["commit"] == "after":
                    self.answer += data
                    if COMMITTED.search(self.answer):
                        self._cut(client, server)
                        return
                    continue
                client.sendall(data)
        except OSError:
            pass
        self._end(server, client)


@pytest.fixture
def own_db() -> Iterator[str]:
    import psycopg

    name = "bglostack_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield name
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _status(name: str, reservation_id: int) -> str:
    """The usage row's status, read directly (not through the proxy)."""
    import psycopg

    with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}") as conn:
        row = conn.execute("SELECT status FROM usage_log WHERE id = %s",
                           (reservation_id,)).fetchone()
    assert row is not None
    return str(row[0])


async def _inline(call: Any, *args: Any) -> Any:
    return call(*args)


async def _commits_on_loop(
    book: Bookkeeper, api_key: str, proxy: AckDropper, name: str
) -> None:
    """A group commit on the event loop whose answer is lost (it committed: answered), or
    whose statement never arrived (an outage, the reservation released)."""
    from bodygraph_server.store.postgres import PostgresStore

    store = book.store
    assert isinstance(store, PostgresStore)
    calls = store.async_request_path()
    await calls.open()
    try:
        requests = RequestBook(book, _inline, calls)
        principal, decision = await requests.admit(api_key)  # the account's period known
        assert isinstance(principal, Principal) and decision is not None
        batcher = CommitBatcher(requests)
        for mode, status in (("after", "committed"), ("before", "released")):
            reservation = await requests.reserve(principal, PATH)
            assert isinstance(reservation, Reservation)
            proxy.arm(mode)
            if mode == "after":
                await batcher.commit(reservation)
            else:
                with pytest.raises(DatabaseUnavailableError):
                    await batcher.commit(reservation)
            assert proxy.dropped.wait(2)
            assert _status(name, reservation.id) == status
    finally:
        await calls.close()


@pytest.mark.postgres
def test_a_commit_acknowledgement_lost_on_the_wire(own_db: str) -> None:
    from bodygraph_server.store.postgres import PostgresStore

    proxy = AckDropper()
    book = Bookkeeper(PostgresStore(
        f"postgresql://postgres@127.0.0.1:{proxy.port}/{own_db}?sslmode=disable"))
    try:
        issued = book.create_account("developer")
        principal = book.authenticate(issued.api_key)
        assert isinstance(principal, Principal)
        balance = book.account(issued.account.id).balance

        # The store: the COMMIT reached the server, which committed; the answer is lost.
        first = book.reserve(principal, PATH)
        proxy.arm("after")
        with pytest.raises(CommitUncertainError) as caught:
            book.commit_many([first])
        lost = caught.value
        assert proxy.dropped.wait(2) and COMMITTED.search(proxy.answer)
        assert _status(own_db, first.id) == "committed"

        # The group commit finds it committed: the call is answered.
        batcher = CommitBatcher(RequestBook(book, _inline))
        second = book.reserve(principal, PATH)
        proxy.arm("after")
        anyio.run(batcher.commit, second)
        assert proxy.dropped.wait(2)
        assert _status(own_db, second.id) == "committed"

        # The COMMIT never reached the server: the call fails as an outage and its
        # reservation is released (the credit back).
        third = book.reserve(principal, PATH)
        proxy.arm("before")
        with pytest.raises(DatabaseUnavailableError):
            anyio.run(batcher.commit, third)
        assert proxy.dropped.wait(2)
        assert _status(own_db, third.id) == "released"

        # The same on the event loop (the service's request path on PostgreSQL).
        anyio.run(_commits_on_loop, book, issued.api_key, proxy, own_db)

        # A batch of 3 whose 2 charts were returned: settled in one transaction.
        for mode in ("after", "before"):
            taken = reserve_many(book, principal, BATCH, 3)
            assert isinstance(taken, list)
            proxy.arm(mode)
            with pytest.raises(CommitUncertainError):
                settle_batch(book, principal, taken, 2)
            assert proxy.dropped.wait(2)
            if mode == "after":  # committed: the batch is answered
                anyio.run(resolve_batch, book, _inline, principal, taken, 2, lost)
                assert [_status(own_db, r.id) for r in taken] == [
                    "committed", "committed", "released"]
            else:  # not committed: the batch fails as an outage, everything released
                with pytest.raises(DatabaseUnavailableError):
                    anyio.run(resolve_batch, book, _inline, principal, taken, 2, lost)
                assert {_status(own_db, r.id) for r in taken} == {"released"}

        # A reservation with an Idempotency-Key whose COMMIT's answer is lost: the request
        # fails as an outage and what it stored is released, so the key is free at once.
        claim = claim_for(book, principal, "on-the-wire", PATH, b"{}")
        proxy.arm("after")
        with pytest.raises(CommitUncertainError):
            anyio.run(partial(reserve_keyed_charge, book, _inline, principal=principal,
                              endpoint=PATH, claim=claim, wait=1))
        assert proxy.dropped.wait(2) and COMMITTED.search(proxy.answer)
        retried = book.reserve(principal, PATH, claim)
        assert isinstance(retried, Reservation)  # a first use, not a request in flight
        book.commit(retried)

        usage = book.usage(issued.account.id)[-1]
        assert (usage.calls, usage.credits, usage.pending) == (6, 6, 0)
        assert book.account(issued.account.id).balance == balance - 6
        assert book.audit(issued.account.id).balanced
    finally:
        book.close()
        proxy.close()
