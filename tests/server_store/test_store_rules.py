"""Every plan rule through the bookkeeping facade, on SQLite and on PostgreSQL, with
injected time to cross period boundaries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from bodygraph_server.billing.accounts import (
    Bookkeeper,
    Denial,
    Denied,
    InvalidOperationError,
    IssuedKey,
    Principal,
    Reservation,
)
from bodygraph_server.billing.keys import hash_key
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.policy.credits import LedgerKind, add_months
from bodygraph_server.store import (
    AccountNotFoundError,
    AccountStatus,
    ReservationNotFoundError,
    open_store,
)

from .conftest import START


def principal_of(book: Bookkeeper, issued: IssuedKey) -> Principal:
    outcome = book.authenticate(issued.api_key)
    assert isinstance(outcome, Principal), outcome
    return outcome


def reserved(book: Bookkeeper, principal: Principal, endpoint: str) -> Reservation:
    outcome = book.reserve(principal, endpoint)
    assert isinstance(outcome, Reservation), outcome
    return outcome


def spend(
    book: Bookkeeper, principal: Principal, calls: int, endpoint: str = "/v2/charts/simple"
) -> list[Reservation]:
    done = []
    for _ in range(calls):
        outcome = book.reserve(principal, endpoint)
        assert isinstance(outcome, Reservation), outcome
        book.commit(outcome)
        done.append(outcome)
    return done


def refusal(book: Bookkeeper, principal: Principal) -> Denial | None:
    outcome = book.reserve(principal, "/v2/charts/simple")
    if isinstance(outcome, Denied):
        return outcome.reason
    book.release(outcome)
    return None


def assert_balanced(book: Bookkeeper, account_id: int) -> None:
    audit = book.audit(account_id)
    assert audit.balanced, audit


# -- accounts, keys, authentication ----------------------------------------------------------


def test_create_account_allocates_the_plan(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    account = issued.account
    assert account.balance == 10_000
    assert account.billing.value == "monthly"
    assert account.created_at == START
    assert account.period_index == 0
    assert not account.overage_enabled  # disabled by default
    assert account.status(book.clock.now()) is AccountStatus.ACTIVE
    assert issued.api_key.startswith("bg_")
    assert account.key_prefix == issued.api_key[:10]
    assert "***" in repr(issued) and issued.api_key not in repr(issued)
    ledger = book.ledger(account.id)
    assert [(e.kind, e.delta, e.balance_after) for e in ledger] == [
        (LedgerKind.ALLOCATION, 10_000, 10_000)
    ]


def test_keys_are_stored_only_as_hashes(book: Bookkeeper, db_url: str) -> None:
    issued = book.create_account("scale")
    stored = _all_text_cells(db_url)
    assert issued.api_key not in stored
    assert hash_key(issued.api_key) in stored


def _all_text_cells(db_url: str) -> str:
    store = open_store(db_url)
    try:
        tables = ["accounts", "api_keys", "ledger", "usage_log", "rate_hits", "rate_buckets"]
        cells: list[str] = []
        with store.read_transaction() as tx:  # type: ignore[attr-defined]
            for table in tables:
                for row in tx.rows(f"SELECT * FROM {table}"):
                    cells.extend(str(value) for value in row)
        return "\n".join(cells)
    finally:
        store.close()


def test_authentication_outcomes(book: Bookkeeper) -> None:
    issued = book.create_account("hobbyist")
    assert principal_of(book, issued).account_id == issued.account.id
    for bad in ["", "   ", "bg_unknown", issued.api_key + "x", issued.api_key.upper()]:
        outcome = book.authenticate(bad)
        assert isinstance(outcome, Denied) and outcome.reason is Denial.API_KEY_INVALID


def test_rotation_invalidates_the_old_key_immediately(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    before = principal_of(book, issued)
    rotated = book.rotate_key(issued.account.id)
    assert rotated.api_key != issued.api_key
    old = book.authenticate(issued.api_key)
    assert isinstance(old, Denied) and old.reason is Denial.API_KEY_INVALID
    after = principal_of(book, rotated)
    assert after.account_id == before.account_id and after.key_id != before.key_id
    assert book.account(issued.account.id).key_prefix == rotated.api_key[:10]
    # Credits belong to the account, not the key.
    spend(book, after, 3)
    assert book.account(issued.account.id).balance == 10_000 - 3


def test_deactivate_and_activate(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    principal = principal_of(book, issued)
    book.deactivate(issued.account.id)
    outcome = book.authenticate(issued.api_key)
    assert isinstance(outcome, Denied) and outcome.reason is Denial.ACCOUNT_INACTIVE
    # A principal authenticated just before the deactivation cannot charge either.
    assert refusal(book, principal) is Denial.ACCOUNT_INACTIVE
    assert book.account(issued.account.id).status(book.clock.now()) is AccountStatus.INACTIVE
    # A rotated-away key stays API_KEY_INVALID even on an inactive account.
    rotated = book.rotate_key(issued.account.id)
    old = book.authenticate(issued.api_key)
    assert isinstance(old, Denied) and old.reason is Denial.API_KEY_INVALID
    book.activate(issued.account.id)
    assert refusal(book, principal_of(book, rotated)) is None
    assert_balanced(book, issued.account.id)


def test_unknown_account(book: Bookkeeper) -> None:
    with pytest.raises(AccountNotFoundError):
        book.account(999)
    with pytest.raises(AccountNotFoundError):
        book.deactivate(999)
    with pytest.raises(AccountNotFoundError):
        book.rotate_key(999)


def test_billing_choice_is_checked(book: Bookkeeper) -> None:
    with pytest.raises(InvalidOperationError, match="does not offer"):
        book.create_account("lifetime", "annual")
    with pytest.raises(InvalidOperationError, match="does not offer"):
        book.create_account("scale", "lifetime")
    assert book.create_account("lifetime").account.billing.value == "lifetime"


@pytest.mark.parametrize(
    ("plan", "allowed"),
    [("hobbyist", False), ("developer", True), ("scale", True), ("lifetime", True)],
)
def test_tier_check(book: Bookkeeper, plan: str, allowed: bool) -> None:
    principal = principal_of(book, book.create_account(plan))
    assert book.authorize(principal, "/v2/charts/simple") is None
    assert book.authorize(principal, "/v1/bodygraphs/simple") is None
    for path in ["/v2/charts", "/v2/visual-charts/coordinates", "/v1/bodygraphs"]:
        outcome = book.authorize(principal, path)
        if allowed:
            assert outcome is None
        else:
            assert outcome is not None and outcome.reason is Denial.ACCESS_DENIED


# -- periods, rollover, annual billing, lifetime ---------------------------------------------


def test_monthly_reset_at_the_period_boundary(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("hobbyist")
    principal = principal_of(book, issued)
    spend(book, principal, 7)
    boundary = add_months(START, 1)  # Jan 31 -> Feb 28
    assert boundary == datetime(2026, 2, 28, 9, 30, tzinfo=UTC)
    clock.set(boundary - timedelta(microseconds=1))
    account = book.account(issued.account.id)
    assert (account.period_index, account.balance) == (0, 5_000 - 7)
    clock.set(boundary)
    account = book.account(issued.account.id)
    # Unused 4,993 carried (below the cap of 10,000) plus 5,000 allocated.
    assert (account.period_index, account.balance) == (1, 4_993 + 5_000)
    assert account.period_start == boundary
    assert account.period_end == datetime(2026, 3, 31, 9, 30, tzinfo=UTC)
    assert_balanced(book, issued.account.id)


def test_rollover_cap_limits_the_carried_amount(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("hobbyist")
    account_id = issued.account.id
    balances = []
    for months in range(1, 5):
        clock.set(add_months(START, months))
        balances.append(book.account(account_id).balance)
    # 5,000 -> 5,000 + 5,000 -> 10,000 + 5,000 -> min(15,000, 10,000) + 5,000 -> same.
    assert balances == [10_000, 15_000, 15_000, 15_000]
    expiries = [e for e in book.ledger(account_id) if e.kind is LedgerKind.EXPIRY]
    assert [(e.delta, e.balance_after) for e in expiries] == [(-5_000, 10_000), (-5_000, 10_000)]
    assert_balanced(book, account_id)


def test_lazy_rollover_over_many_untouched_months(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    principal = principal_of(book, issued)
    spend(book, principal, 2)
    clock.set(add_months(START, 14) + timedelta(days=3))
    account = book.account(issued.account.id)
    assert account.period_index == 14
    assert account.balance == 20_000 + 10_000  # the cap carried, plus the allocation
    allocations = [e for e in book.ledger(issued.account.id) if e.kind is LedgerKind.ALLOCATION]
    assert len(allocations) == 15
    assert [e.at for e in allocations[1:]] == [add_months(START, k) for k in range(1, 15)]
    assert_balanced(book, issued.account.id)


@pytest.mark.parametrize(
    ("plan", "per_month", "cap"),
    [("hobbyist", 6_000, 10_000), ("developer", 12_000, 20_000), ("scale", 60_000, 100_000)],
)
def test_annual_billing_allocates_monthly(
    book: Bookkeeper, clock: ManualClock, plan: str, per_month: int, cap: int
) -> None:
    issued = book.create_account(plan, "annual")
    assert issued.account.balance == per_month
    clock.set(add_months(START, 1))
    assert book.account(issued.account.id).balance == 2 * per_month
    clock.set(add_months(START, 2))
    assert book.account(issued.account.id).balance == min(2 * per_month, cap) + per_month
    assert book.account(issued.account.id).billing_period_end == add_months(START, 12)


def test_lifetime_plan(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("lifetime")
    assert issued.account.balance == 50_000
    principal = principal_of(book, issued)
    assert book.authorize(principal, "/v2/visual-charts") is None
    clock.set(add_months(START, 30))  # years later: still allocating every month
    account = book.account(issued.account.id)
    assert account.period_index == 30
    assert account.balance == 100_000 + 50_000


# -- charging, overage, refunds ----------------------------------------------------------------


def test_credits_exhausted_when_overage_is_disabled(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    principal = principal_of(book, issued)
    book.adjust_credits(issued.account.id, 2)
    spend(book, principal, 2)
    assert refusal(book, principal) is Denial.CREDITS_EXHAUSTED
    assert book.account(issued.account.id).balance == 0
    assert_balanced(book, issued.account.id)


def test_overage_counts_and_prices_calls(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    book.adjust_credits(account_id, 5)
    book.set_overage(account_id, True)
    # 25 overage calls: a whole number of cents (as 250 were, at ten times the round trips)
    done = spend(book, principal, 5 + 25)
    assert [r.credits for r in done] == [1] * 5 + [0] * 25
    assert [r.overage for r in done] == [False] * 5 + [True] * 25
    account = book.account(account_id)
    assert account.balance == 0 and account.overage_enabled
    period = book.usage(account_id)[0]
    assert (period.calls, period.credits, period.overage_calls) == (30, 5, 25)
    assert period.overage_price == Decimal("0.05")  # 25 calls at 2.00 EUR per 1,000
    # Disabling overage stops the calls again.
    book.set_overage(account_id, False)
    assert refusal(book, principal) is Denial.CREDITS_EXHAUSTED
    # The next period allocates again and overage counting restarts.
    clock.set(add_months(START, 1))
    spend(book, principal, 1)
    report = book.usage(account_id)
    assert [p.overage_calls for p in report] == [25, 0]
    assert report[1].calls == 1 and report[1].allocated == 10_000
    assert_balanced(book, account_id)


def test_scale_overage_rate(book: Bookkeeper) -> None:
    issued = book.create_account("scale")
    principal = principal_of(book, issued)
    book.adjust_credits(issued.account.id, 0)
    book.set_overage(issued.account.id, True)
    spend(book, principal, 20)  # 1.00 EUR per 1,000: 0.02 (the Developer plan's, 0.04)
    assert book.usage(issued.account.id)[0].overage_price == Decimal("0.02")


def test_release_refunds_and_is_not_billed(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    book.adjust_credits(account_id, 1)
    failed = reserved(book, principal, "/v2/charts")
    assert book.account(account_id).balance == 0
    book.release(failed)
    assert book.account(account_id).balance == 1
    (reservation,) = spend(book, principal, 1, "/v2/charts")
    assert reservation.credits == 1
    assert book.account(account_id).balance == 0
    period = book.usage(account_id)[0]
    assert (period.calls, period.credits, period.pending) == (1, 1, 0)
    # Overage calls that fail are not billed.
    book.set_overage(account_id, True)
    book.release(reserved(book, principal, "/v2/charts"))
    assert book.usage(account_id)[0].overage_calls == 0
    assert_balanced(book, account_id)


def test_settling_twice_is_an_error(book: Bookkeeper) -> None:
    principal = principal_of(book, book.create_account("developer"))
    outcome = book.reserve(principal, "/v2/charts")
    assert isinstance(outcome, Reservation)
    book.commit(outcome)
    with pytest.raises(ReservationNotFoundError):
        book.commit(outcome)
    with pytest.raises(ReservationNotFoundError):
        book.release(outcome)


def test_pending_reservations_are_reported(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    principal = principal_of(book, issued)
    outcome = book.reserve(principal, "/v2/charts")
    assert isinstance(outcome, Reservation)
    period = book.usage(issued.account.id)[0]
    assert (period.calls, period.credits, period.pending) == (0, 1, 1)
    assert_balanced(book, issued.account.id)


def test_release_after_the_period_closed(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    outcome = book.reserve(principal, "/v2/charts")
    assert isinstance(outcome, Reservation)
    clock.set(add_months(START, 1))
    book.release(outcome)
    # The credit was spent in the closed period; the new allocation is untouched.
    assert book.account(account_id).balance == 9_999 + 10_000
    report = book.usage(account_id)
    assert (report[0].calls, report[0].credits) == (0, 1)
    assert_balanced(book, account_id)


def test_usage_log_separates_v1_and_v2_but_shares_the_pool(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    principal = principal_of(book, issued)
    for endpoint in ["/v2/charts", "/v1/bodygraphs", "/v2/charts/simple", "/v1/bodygraphs/simple"]:
        spend(book, principal, 1, endpoint)
    assert book.account(issued.account.id).balance == 10_000 - 4
    assert book.usage(issued.account.id)[0].calls == 4


# -- manual adjustment and the ledger ---------------------------------------------------------


def test_credits_adjust_is_recorded_in_the_ledger(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("scale")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    spend(book, principal, 10)
    clock.advance(3600)
    entry = book.adjust_credits(account_id, 123, "goodwill")
    assert (entry.kind, entry.delta, entry.balance_after, entry.note) == (
        LedgerKind.ADJUSTMENT,
        123 - 49_990,
        123,
        "goodwill",
    )
    assert entry.at == START + timedelta(hours=1)
    assert book.ledger(account_id)[-1] == entry
    assert book.account(account_id).balance == 123
    with pytest.raises(InvalidOperationError):
        book.adjust_credits(account_id, -1)
    # An adjusted balance is an unused balance like any other at the next reset.
    book.adjust_credits(account_id, 250_000)
    clock.set(add_months(START, 1))
    assert book.account(account_id).balance == 100_000 + 50_000
    assert_balanced(book, account_id)


# -- cancellation -------------------------------------------------------------------------------


def test_cancellation_runs_to_the_period_end(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    clock.advance(days=10)
    account = book.cancel(account_id)
    end = add_months(START, 1)
    assert account.cancel_at == end
    assert account.status(clock.now()) is AccountStatus.CANCELLING
    assert book.cancel(account_id).cancel_at == end  # idempotent
    clock.set(end - timedelta(seconds=1))
    spend(book, principal, 3)  # still usable to the end of the period
    clock.set(end)
    account = book.account(account_id)
    assert account.balance == 0
    assert account.status(clock.now()) is AccountStatus.CANCELLED
    book.set_overage(account_id, True)  # overage does not revive a cancelled plan
    assert refusal(book, principal) is Denial.CREDITS_EXHAUSTED
    clock.set(add_months(START, 5))
    assert book.account(account_id).balance == 0  # nothing new allocated
    kinds = [(e.kind, e.delta) for e in book.ledger(account_id)]
    assert kinds == [(LedgerKind.ALLOCATION, 10_000), (LedgerKind.CANCELLATION, -9_997)]
    with pytest.raises(InvalidOperationError):
        book.adjust_credits(account_id, 10)
    assert_balanced(book, account_id)


def test_annual_cancellation_keeps_monthly_allocations(
    book: Bookkeeper, clock: ManualClock
) -> None:
    issued = book.create_account("hobbyist", "annual")
    account_id = issued.account.id
    clock.set(add_months(START, 2) + timedelta(days=1))
    assert book.cancel(account_id).cancel_at == add_months(START, 12)
    clock.set(add_months(START, 11))
    assert book.account(account_id).balance == 10_000 + 6_000
    clock.set(add_months(START, 12))
    assert book.account(account_id).balance == 0
    assert_balanced(book, account_id)


# -- schema and privacy --------------------------------------------------------------------------


def test_schema_is_versioned_and_migrated_once(fresh_db_url: str, clock: ManualClock) -> None:
    db_url = fresh_db_url
    first = Bookkeeper.open(db_url, clock=clock)
    try:
        assert first.store.schema_version() == 11
        account_id = first.create_account("developer").account.id
    finally:
        first.close()
    again = Bookkeeper.open(db_url, clock=clock)  # reopening keeps the data
    try:
        assert again.store.schema_version() == 11
        assert again.account(account_id).balance == 10_000
    finally:
        again.close()


def test_no_personal_data_columns(db_url: str) -> None:
    store = open_store(db_url)
    try:
        with store.read_transaction() as tx:  # type: ignore[attr-defined]
            if db_url.startswith("sqlite"):
                names = [
                    str(row[0]).lower()
                    for table in ["accounts", "api_keys", "ledger", "usage_log", "rate_hits"]
                    for row in tx.rows(f"SELECT name FROM pragma_table_info('{table}')")
                ]
            else:
                names = [
                    str(row[0]).lower()
                    for row in tx.rows(
                        "SELECT column_name FROM information_schema.columns "
                        "WHERE table_schema = current_schema()"
                    )
                ]
    finally:
        store.close()
    assert "endpoint" in names
    forbidden = ["birth", "lat", "lng", "lon", "location", "place", "coord", "name", "email"]
    assert not [n for n in names if any(word in n for word in forbidden)]


@pytest.mark.postgres
def test_postgres_schemas_are_isolated(pg_url: str, clock: ManualClock) -> None:
    import psycopg

    with Bookkeeper.open(pg_url, clock=clock) as book:
        book.create_account("developer")
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test") as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'accounts' "
            "AND table_schema = %s",
            (pg_url.split("search_path%3D")[1],),
        ).fetchone()
    assert row is not None and row[0] == 1


def test_threads_share_a_store_safely(book: Bookkeeper) -> None:
    from concurrent.futures import ThreadPoolExecutor

    issued = book.create_account("developer")
    account_id = issued.account.id
    principal = principal_of(book, issued)
    book.adjust_credits(account_id, 40)

    def spend_one(_: int) -> bool:
        outcome = book.reserve(principal, "/v2/charts")
        if isinstance(outcome, Denied):
            return False
        book.commit(outcome)
        return True

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(spend_one, range(60)))
    assert results.count(True) == 40
    assert book.account(account_id).balance == 0
    assert_balanced(book, account_id)
    book.store.close()  # closes the connections of every thread without error
    assert book.account(account_id).balance == 0  # and reconnects on demand
