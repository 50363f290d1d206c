"""The request path's throughput parts: bookkeeping threads, group commit, chart batching
without polling."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import anyio
import pytest

import bodygraph
from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.commits import CommitBatcher
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.charting import ChartBatcher
from bodygraph_server.services import BookThreads
from bodygraph_server.store import ReservationNotFoundError

T = TypeVar("T")
ENDPOINT = "/v2/charts/coordinates"


def _reserve(book: Bookkeeper, principal: Principal) -> Reservation:
    outcome = book.reserve(principal, ENDPOINT)
    assert isinstance(outcome, Reservation)
    return outcome


def _principal(book: Bookkeeper) -> Principal:
    key = book.create_account("scale").api_key
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    return principal


@pytest.mark.anyio
async def test_book_threads_return_results_and_raise_errors() -> None:
    threads = BookThreads(2)
    try:
        assert await threads.run(lambda a, b: a + b, 2, 3) == 5
        assert await threads.run(threading.current_thread) is not threading.current_thread()

        def boom() -> None:
            raise ValueError("x")

        with pytest.raises(ValueError):
            await threads.run(boom)
    finally:
        threads.close()


@pytest.mark.anyio
async def test_inline_book_threads_run_on_the_calling_thread(book: Bookkeeper) -> None:
    """``BookThreads(0)`` (what SQLite uses) runs each call at once, on the event loop's
    thread; results, errors and group commit work as with threads."""
    threads = BookThreads(0)
    try:
        assert await threads.run(lambda a, b: a + b, 2, 3) == 5
        assert await threads.run(threading.current_thread) is threading.current_thread()

        def boom() -> None:
            raise ValueError("x")

        with pytest.raises(ValueError):
            await threads.run(boom)
        principal = _principal(book)
        reservations = [_reserve(book, principal) for _ in range(5)]
        commits = CommitBatcher(RequestBook(book, threads.run))
        async with anyio.create_task_group() as group:
            for reservation in reservations:
                group.start_soon(commits.commit, reservation)
    finally:
        threads.close()
    usage = book.usage(principal.account_id)[-1]
    assert (usage.calls, usage.pending) == (5, 0)
    with pytest.raises(ValueError):
        BookThreads(-1)


def test_sqlite_bookkeeping_runs_inline_and_postgresql_in_threads() -> None:
    from bodygraph_server.services import bookkeeping_threads

    assert bookkeeping_threads("sqlite:///x.sqlite3") == 0
    assert bookkeeping_threads("postgresql://postgres@127.0.0.1/test") == 8


@pytest.mark.anyio
async def test_book_threads_finish_a_started_call_despite_cancellation() -> None:
    threads = BookThreads(1)
    finished: list[str] = []

    def slow() -> None:
        time.sleep(0.2)
        finished.append("done")

    try:
        started = anyio.current_time()
        with anyio.move_on_after(0.01):
            await threads.run(slow)
        assert finished == ["done"]  # the scope waited for the call
        assert anyio.current_time() - started >= 0.15
    finally:
        threads.close()


@pytest.mark.anyio
async def test_book_threads_limit_concurrency() -> None:
    threads = BookThreads(2)
    running = 0
    peak = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    try:
        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(threads.run, work)
    finally:
        threads.close()
    assert peak == 2


class CountingRunner:
    """A bookkeeping runner that counts the calls of each function."""

    def __init__(self, threads: BookThreads) -> None:
        self.threads = threads
        self.calls: list[tuple[str, int]] = []

    async def __call__(self, call: Callable[..., T], *args: Any) -> T:
        size = len(args[0]) if args and isinstance(args[0], Sequence) else 0
        self.calls.append((getattr(call, "__name__", "?"), size))
        return await self.threads.run(call, *args)


@pytest.mark.anyio
async def test_concurrent_commits_share_transactions(book: Bookkeeper) -> None:
    principal = _principal(book)
    reservations = [_reserve(book, principal) for _ in range(30)]
    threads = BookThreads(1)
    runner = CountingRunner(threads)
    commits = CommitBatcher(RequestBook(book, runner), max_batch=8)
    try:
        async with anyio.create_task_group() as group:
            for reservation in reservations:
                group.start_soon(commits.commit, reservation)
    finally:
        threads.close()
    sizes = [size for name, size in runner.calls if name == "commit_many"]
    assert sum(sizes) == 30
    assert max(sizes) <= 8
    assert len(sizes) < 30  # grouped: fewer store calls than requests
    usage = book.usage(principal.account_id)[-1]
    assert (usage.calls, usage.pending) == (30, 0)


@pytest.mark.anyio
async def test_a_commit_that_is_not_pending_fails_only_its_request(book: Bookkeeper) -> None:
    principal = _principal(book)
    reservations = [_reserve(book, principal) for _ in range(6)]
    book.release(reservations[2])
    threads = BookThreads(1)
    commits = CommitBatcher(RequestBook(book, threads.run))
    outcomes: dict[int, BaseException | None] = {}

    async def one(index: int) -> None:
        try:
            await commits.commit(reservations[index])
            outcomes[index] = None
        except ReservationNotFoundError as exc:
            outcomes[index] = exc

    try:
        async with anyio.create_task_group() as group:
            for index in range(6):
                group.start_soon(one, index)
    finally:
        threads.close()
    assert [i for i, error in outcomes.items() if error is not None] == [2]
    assert book.usage(principal.account_id)[-1].calls == 5


@pytest.mark.anyio
async def test_a_failing_store_call_fails_the_requests_of_its_batch(book: Bookkeeper) -> None:
    principal = _principal(book)
    reservation = _reserve(book, principal)

    class Broken(RuntimeError):
        pass

    async def broken(call: Callable[..., T], *args: Any) -> T:
        raise Broken

    with pytest.raises(Broken):
        await CommitBatcher(RequestBook(book, broken)).commit(reservation)
    assert book.usage(principal.account_id)[-1].pending == 1


@pytest.mark.anyio
async def test_a_cancelled_request_still_commits(book: Bookkeeper) -> None:
    principal = _principal(book)
    reservation = _reserve(book, principal)
    threads = BookThreads(1)
    try:
        with anyio.CancelScope() as scope:
            scope.cancel()
            await CommitBatcher(RequestBook(book, threads.run)).commit(reservation)
    finally:
        threads.close()
    usage = book.usage(principal.account_id)[-1]
    assert (usage.calls, usage.pending) == (1, 0)


@pytest.mark.anyio
async def test_batcher_waits_for_announced_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """A starting batch waits (woken by the arrivals, within max_wait) for the requests
    announced as on their way, so they share one batch."""
    from bodygraph_server import charting

    sizes: list[int] = []
    real = charting._compute

    def recording(batch: Sequence[datetime]) -> list[Any]:
        sizes.append(len(batch))
        return real(batch)

    monkeypatch.setattr(charting, "_compute", recording)
    batcher = ChartBatcher(max_batch=8, max_wait=5.0)
    instants = [datetime(1960 + i, 5, 1, 8, tzinfo=UTC) for i in range(4)]
    results: dict[int, bodygraph.Chart] = {}

    async def late(index: int) -> None:
        with batcher.upcoming():
            await anyio.sleep(0.01 * index)
        results[index] = await batcher.chart(instants[index])

    with anyio.fail_after(4):  # far below max_wait: woken by arrivals, not the deadline
        async with anyio.create_task_group() as group:
            for index in range(4):
                group.start_soon(late, index)
    assert sizes == [4]
    for index, chart in results.items():
        assert chart == bodygraph.calculate(instants[index])


@pytest.mark.anyio
async def test_batcher_stops_waiting_after_max_wait() -> None:
    batcher = ChartBatcher(max_batch=8, max_wait=0.05)
    instant = datetime(1990, 1, 1, tzinfo=UTC)
    with batcher.upcoming():  # announced, never arrives
        started = anyio.current_time()
        chart = await batcher.chart(instant)
        waited = anyio.current_time() - started
    assert chart == bodygraph.calculate(instant)
    assert 0.04 <= waited < 2.0
