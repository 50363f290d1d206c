"""``commit_many`` (the service's group commit) and SQLite's cross-process write lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.store.sqlite import SqliteStore

ENDPOINT = "/v2/charts/coordinates"


def _reserve(book: Bookkeeper, account_id: int) -> Reservation:
    outcome = book.reserve(_principal(book, account_id), ENDPOINT)
    assert isinstance(outcome, Reservation)
    return outcome


def _principal(book: Bookkeeper, account_id: int) -> Principal:
    account = book.account(account_id)
    return Principal(account.id, 0, "", account.plan)


def test_commit_many_commits_each_pending_reservation_once(book: Bookkeeper) -> None:
    account = book.create_account("scale").account
    reservations = [_reserve(book, account.id) for _ in range(5)]
    book.commit(reservations[1])  # already committed
    book.release(reservations[3])  # released: its credit is back
    done = book.commit_many([*reservations, reservations[0]])
    # the repeated first one is no longer pending when its turn comes
    assert done == [True, False, True, False, True, False]
    usage = book.usage(account.id)[-1]
    assert usage.calls == 4  # 0, 1, 2, 4 committed
    assert usage.pending == 0
    audit = book.audit(account.id)
    assert audit.ledger_total - audit.charged == audit.balance
    assert book.account(account.id).balance == account.balance - 4


def test_commit_many_of_nothing_is_nothing(book: Bookkeeper) -> None:
    assert book.commit_many([]) == []


def test_commit_many_matches_one_by_one_commits(book: Bookkeeper) -> None:
    """The store's one-transaction version agrees with the generic one-by-one default."""
    from bodygraph_server.store import Store

    account = book.create_account("scale").account
    first = [_reserve(book, account.id) for _ in range(3)]
    second = [_reserve(book, account.id) for _ in range(3)]
    book.release(first[0])
    book.release(second[0])
    ids_first = [r.id for r in first] + [999_999]
    ids_second = [r.id for r in second] + [999_998]
    now = book.clock.now()
    assert book.store.commit_many(ids_first, now) == Store.commit_many(
        book.store, ids_second, now
    )


def test_sqlite_writers_of_two_stores_take_turns(tmp_path: Path) -> None:
    """Two store objects (as two worker processes) on one file: a write transaction of
    one waits for the other's to end, through the advisory lock file."""
    path = tmp_path / "two.sqlite3"
    first, second = SqliteStore(path), SqliteStore(path)
    try:
        assert Path(f"{path}-writelock").exists()
        inside = threading.Event()
        events: list[str] = []

        def hold() -> None:
            with first.write_transaction() as tx:
                tx.execute("INSERT INTO rate_buckets (bucket) VALUES ('a')")
                inside.set()
                time.sleep(0.2)
                events.append("first done")

        holder = threading.Thread(target=hold)
        holder.start()
        assert inside.wait(10)
        started = time.monotonic()
        with second.write_transaction() as tx:
            events.append("second in")
            assert tx.one("SELECT bucket FROM rate_buckets") == ("a",)
        waited = time.monotonic() - started
        holder.join()
        assert events == ["first done", "second in"]
        assert waited > 0.1
    finally:
        first.close()
        second.close()


def test_sqlite_store_reopens_after_close(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "again.sqlite3")
    store.close()
    with store.write_transaction() as tx:
        tx.execute("INSERT INTO rate_buckets (bucket) VALUES ('b')")
    store.close()


@pytest.mark.parametrize("count", [1, 40])
def test_commit_many_sizes(book: Bookkeeper, count: int) -> None:
    account = book.create_account("scale").account
    reservations = [_reserve(book, account.id) for _ in range(count)]
    assert book.commit_many(reservations) == [True] * count
    assert book.usage(account.id)[-1].calls == count
