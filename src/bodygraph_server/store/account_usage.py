"""What an account's owner sees of it (``GET /v2/account`` and ``/v2/account/usage``): the
current period's figures from the ledger and the usage log, and the calls by day and
endpoint (tables ``ledger``, ``usage_log``; read only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import LedgerKind, period_index_at
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.records import Account, UsageStatus

#: Microseconds in a UTC day (usage is grouped by the UTC day a call was made).
DAY_US = 86_400_000_000


@dataclass(frozen=True, slots=True)
class PeriodFigures:
    """The current credit period of an account, so that ``balance == rolled_over +
    allocated - used`` always holds."""

    allocated: int
    """Credits the period received: its monthly allocation (none once a cancellation took
    effect) plus the operator's adjustments made in it."""
    rolled_over: int
    """Credits carried over from the previous period (after the rollover cap)."""
    used: int
    """Credits charged in the period (calls in flight included; a failed call's credit
    given back is not)."""
    overage_calls: int
    """Successful calls made with no credit left while overage was enabled."""


@dataclass(frozen=True, slots=True)
class AccountOverview:
    """The account (periods rolled forward) with its current period's figures."""

    account: Account
    figures: PeriodFigures


@dataclass(frozen=True, slots=True)
class EndpointDay:
    """One endpoint's calls on one UTC day."""

    day: date
    endpoint: str
    calls: int
    """Successful (committed) calls."""
    credits: int
    """Credits charged (0 for an overage call; in flight included)."""


class AccountUsageRepository:
    """An account's figures and usage by day within one transaction."""

    __slots__ = ("accounts", "tx")

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.accounts = AccountRepository(tx)

    def overview(self, account_id: int, now: datetime) -> AccountOverview:
        """The account brought up to ``now`` and its current period's figures
        (:class:`~.errors.AccountNotFoundError` if there is no such account)."""
        account = self.accounts.touch(account_id, now)
        return AccountOverview(account, self.figures(account))

    def figures(self, account: Account) -> PeriodFigures:
        """The figures of ``account``'s current period (as stored: call after
        :meth:`AccountRepository.touch`)."""
        tx, period = self.tx, account.period_index
        allocated = rolled_over = 0
        allocation_seen = False
        for row in tx.rows(
            "SELECT kind, delta, balance_after FROM ledger "
            "WHERE account_id = ? AND period_index = ? ORDER BY id",
            (account.id, period),
        ):
            kind, delta = str(row.kind), int(row.delta)
            if kind == LedgerKind.ALLOCATION.value and not allocation_seen:
                allocation_seen = True
                allocated += delta
                rolled_over = int(row.balance_after) - delta
            elif kind == LedgerKind.ADJUSTMENT.value:
                allocated += delta
        sums = tx.one(
            "SELECT SUM(credits * calls) AS used, "
            "SUM(CASE WHEN status = ? AND overage THEN calls ELSE 0 END) AS overage_calls "
            "FROM usage_log WHERE account_id = ? AND period_index = ?",
            (UsageStatus.COMMITTED.value, account.id, period),
        )
        used = 0 if sums is None or sums.used is None else int(sums.used)
        overage = 0 if sums is None or sums.overage_calls is None else int(sums.overage_calls)
        return PeriodFigures(allocated=allocated, rolled_over=rolled_over, used=used,
                             overage_calls=overage)

    def by_day(self, account_id: int, first_day: date) -> list[EndpointDay]:
        """The calls made from the start of ``first_day`` (UTC) on, by day and endpoint,
        in that order; a day and endpoint with neither a successful call nor a credit
        charged is left out."""
        account = self.accounts.select(account_id, lock=False)  # AccountNotFoundError
        start = datetime.combine(first_day, time(), tzinfo=UTC)
        # A call's row is of the period it was made in: the periods from the one holding
        # ``start`` on narrow the rows by the index (account, period) before the days do.
        first_period = period_index_at(account.created_at, start)
        rows = self.tx.rows(
            f"SELECT created_us / {DAY_US} AS day, endpoint, "
            "SUM(CASE WHEN status = ? THEN calls ELSE 0 END) AS calls, "
            "SUM(credits * calls) AS credits "
            "FROM usage_log WHERE account_id = ? AND period_index >= ? AND created_us >= ? "
            f"GROUP BY created_us / {DAY_US}, endpoint "
            f"ORDER BY created_us / {DAY_US}, endpoint",
            (UsageStatus.COMMITTED.value, account_id, first_period, to_micros(start)),
        )
        epoch = date(1970, 1, 1)
        found = [EndpointDay(day=epoch + timedelta(days=int(row.day)),
                             endpoint=str(row.endpoint), calls=int(row.calls or 0),
                             credits=int(row.credits or 0)) for row in rows]
        return [entry for entry in found if entry.calls or entry.credits]
