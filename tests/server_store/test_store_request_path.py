"""The request path's calls (``Bookkeeper.admit``, the reservation after it) agree with
the general ones on both backends; on PostgreSQL they take one round trip each
(``store/request_path.py``) and the general reservation only when it has work to do."""

from __future__ import annotations

from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from bodygraph_server.billing.accounts import Bookkeeper, Denial, Denied, Principal
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store.charges import ChargeRepository
from bodygraph_server.store.records import ChargeRefusal, Reservation

from .conftest import START

ENDPOINT = "/v2/charts"


def test_admit_is_authenticate_then_check_rate(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    assert book.admit("bg_unknown") == (
        Denied(Denial.API_KEY_INVALID, "API key invalid or deactivated"), None)
    assert book.admit("  ")[1] is None
    book.deactivate(issued.account.id)
    outcome, decision = book.admit(issued.api_key)
    assert isinstance(outcome, Denied) and outcome.reason is Denial.ACCOUNT_INACTIVE
    assert decision is None  # an inactive account's request is not counted
    book.activate(issued.account.id)
    remaining = []
    for _ in range(101):
        outcome, decision = book.admit(issued.api_key)
        assert isinstance(outcome, Principal) and outcome.account_id == issued.account.id
        assert decision is not None
        remaining.append((decision.allowed, decision.remaining))
    assert remaining == [(True, 99 - i) for i in range(100)] + [(False, 0)]
    book.clock.advance(seconds=61)  # type: ignore[attr-defined]
    decision = book.check_rate(outcome)
    assert decision.allowed and decision.remaining == 99  # the refusal was not counted
    rotated = book.rotate_key(issued.account.id)
    assert isinstance(book.admit(issued.api_key)[0], Denied)
    assert isinstance(book.admit(rotated.api_key)[0], Principal)


async def _blocking(call: Any, *args: Any) -> Any:
    return call(*args)


_REFUSALS = {Denial.ACCOUNT_INACTIVE: ChargeRefusal.ACCOUNT_INACTIVE,
             Denial.CREDITS_EXHAUSTED: ChargeRefusal.CREDITS_EXHAUSTED}


def _story(
    book: Bookkeeper, clock: ManualClock, *, admit: bool, loop: BlockingPortal | None = None
) -> list[Any]:
    """Reservations through a period boundary, exhaustion, overage, deactivation and a
    cancellation; what a caller can see of each. With ``loop``, admission, reservation
    and commit are the service's on PostgreSQL: :class:`RequestBook` on that event loop."""
    issued = book.create_account("developer")
    account_id = issued.account.id
    requests = calls = None
    if loop is not None:
        from bodygraph_server.store.postgres import PostgresStore

        assert isinstance(book.store, PostgresStore)
        calls = book.store.async_request_path()
        loop.call(calls.open)
        requests = RequestBook(book, _blocking, calls)

    def principal() -> Principal:
        if loop is not None and requests is not None:
            outcome = loop.call(requests.admit, issued.api_key)[0]
        else:
            outcome = (book.admit(issued.api_key)[0] if admit
                       else book.authenticate(issued.api_key))
        assert isinstance(outcome, Principal)
        return outcome

    def reserve(caller: Principal) -> Any:
        if loop is not None and requests is not None:
            taken = loop.call(requests.reserve, caller, ENDPOINT)
            if isinstance(taken, Denied):
                return _REFUSALS[taken.reason]
            assert loop.call(requests.commit_many, [taken]) == [True]
            return (taken.period_index, taken.credits, taken.overage, taken.balance_after)
        outcome = book.store.reserve(caller.account_id, ENDPOINT, clock.now())
        if isinstance(outcome, Reservation):
            book.commit(outcome)
            return (outcome.period_index, outcome.credits, outcome.overage,
                    outcome.balance_after)
        return outcome

    caller = principal()
    book.adjust_credits(account_id, 2)
    seen = [reserve(caller)]
    clock.advance(days=40)  # past the period's end: the next call rolls over first
    seen += [reserve(caller) for _ in range(2)]
    book.deactivate(account_id)
    seen.append(reserve(caller))  # credits left, but inactive
    book.activate(account_id)
    book.adjust_credits(account_id, 0)
    seen.append(reserve(caller))  # exhausted
    book.set_overage(account_id, True)
    seen.append(reserve(caller))  # an overage call
    book.adjust_credits(account_id, 5)
    caller = principal()
    seen.append(reserve(caller))
    book.cancel(account_id)
    clock.advance(days=70)
    seen.append(reserve(caller))
    ledger = [(e.period_index, e.kind, e.delta, e.balance_after) for e in book.ledger(account_id)]
    usage = [(u.calls, u.credits, u.overage_calls, u.pending) for u in book.usage(account_id)]
    audit = book.audit(account_id)
    if loop is not None and calls is not None:
        loop.call(calls.close)
    return [seen, ledger, usage, audit.balanced, book.account(account_id).balance]


def test_reservations_after_admit_agree_with_the_general_path(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    general = ChargeRepository.reserve
    calls = []

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return general(self, *args, **kwargs)

    monkeypatch.setattr(ChargeRepository, "reserve", counted)
    stories = []
    general_calls = []
    on_postgres = db_url.startswith("postgresql")
    with start_blocking_portal() as loop:
        for admit, async_path in ((False, None), (True, None), (True, loop)):
            if async_path is not None and not on_postgres:
                continue  # the event-loop path is PostgreSQL's
            clock = ManualClock(START)
            with Bookkeeper.open(db_url, clock=clock) as book:
                del calls[:]
                stories.append(_story(book, clock, admit=admit, loop=async_path))
                general_calls.append(len(calls))
    plain = stories[0]
    assert all(story == plain for story in stories[1:])
    seen = plain[0]
    assert [step[0] for step in seen[:3]] == [0, 1, 1]  # the second rolled over
    assert seen[3] is ChargeRefusal.ACCOUNT_INACTIVE
    assert seen[4] is ChargeRefusal.CREDITS_EXHAUSTED and seen[5][2]  # then overage
    assert seen[6][1:] == (1, False, 4) and seen[7] is ChargeRefusal.CREDITS_EXHAUSTED
    if db_url.startswith("postgresql"):
        # the general path only where there was more to do than charge: the rollover,
        # the inactive account, the exhausted one and the cancelled one; the other four
        # took one round trip (the third with the period the rollover started, the
        # overage call, the seventh after a new admit)
        assert general_calls[1:] == [4, 4]  # the same on the event loop
    else:
        assert general_calls[1:] == [8]
