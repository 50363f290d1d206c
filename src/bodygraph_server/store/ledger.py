"""The ledger (table ``ledger``, with ``usage_log``): manual adjustments, the entries,
the per-period usage report and the audit."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import (
    LedgerKind,
    is_cancelled,
    overage_price,
    period_bounds,
)
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.charges import ChargeRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import InvalidOperationError
from bodygraph_server.store.records import Audit, LedgerEntry, PeriodUsage, UsageStatus
from bodygraph_server.store.rows import LEDGER_COLUMNS, insert_ledger, ledger_from_row


class LedgerRepository:
    """Balance changes and reports within one transaction."""

    __slots__ = ("accounts", "tx")

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.accounts = AccountRepository(tx)

    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> LedgerEntry:
        """Set the balance; the difference goes into the ledger."""
        if balance < 0:
            raise InvalidOperationError("the balance cannot be negative")
        account = self.accounts.touch(account_id, now)
        if is_cancelled(account.cancel_at, now):
            raise InvalidOperationError(
                f"account {account_id} is cancelled; its credits cannot be adjusted"
            )
        entry = insert_ledger(self.tx, account_id, at=now, period_index=account.period_index,
                              kind=LedgerKind.ADJUSTMENT, delta=balance - account.balance,
                              balance_after=balance, note=note)
        self.tx.execute(
            "UPDATE accounts SET balance = ?, updated_us = ? WHERE id = ?",
            (balance, to_micros(now), account_id),
        )
        return entry

    def entries(self, account_id: int, now: datetime) -> list[LedgerEntry]:
        """Every ledger entry, oldest first."""
        self.accounts.touch(account_id, now)
        rows = self.tx.rows(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE account_id = ? ORDER BY id",
            (account_id,),
        )
        return [ledger_from_row(row) for row in rows]

    def usage(self, account_id: int, now: datetime) -> list[PeriodUsage]:
        """Per-period usage from period 0 to the current one."""
        tx = self.tx
        account = self.accounts.touch(account_id, now)
        usage_rows = tx.rows(
            "SELECT period_index, "
            "SUM(CASE WHEN status = ? THEN calls ELSE 0 END) AS calls, "
            "SUM(credits * calls) AS credits, "
            "SUM(CASE WHEN status = ? AND overage THEN calls ELSE 0 END) AS overage_calls, "
            "SUM(CASE WHEN status = ? THEN calls ELSE 0 END) AS pending "
            "FROM usage_log WHERE account_id = ? GROUP BY period_index",
            (UsageStatus.COMMITTED.value, UsageStatus.COMMITTED.value,
             UsageStatus.RESERVED.value, account_id),
        )
        allocation_rows = tx.rows(
            "SELECT period_index, SUM(delta) AS allocated FROM ledger "
            "WHERE account_id = ? AND kind = ? GROUP BY period_index",
            (account_id, LedgerKind.ALLOCATION.value),
        )
        by_period = {
            int(r.period_index): (int(r.calls or 0), int(r.credits or 0),
                                  int(r.overage_calls or 0), int(r.pending or 0))
            for r in usage_rows
        }
        allocated = {int(r.period_index): int(r.allocated or 0) for r in allocation_rows}
        report = []
        for index in range(account.period_index + 1):
            calls, credits, overage_calls, pending = by_period.get(index, (0, 0, 0, 0))
            start, end = period_bounds(account.created_at, index)
            price = overage_price(account.plan, overage_calls)
            report.append(PeriodUsage(
                period_index=index, start=start, end=end, calls=calls, credits=credits,
                overage_calls=overage_calls, overage_price=price, pending=pending,
                allocated=allocated.get(index, 0),
            ))
        return report

    def audit(self, account_id: int, now: datetime) -> Audit:
        """Ledger total, credits charged and balance of the account."""
        account = self.accounts.touch(account_id, now)
        row = self.tx.one("SELECT SUM(delta) AS total FROM ledger WHERE account_id = ?",
                          (account_id,))
        total = 0 if row is None or row.total is None else int(row.total)
        charged = ChargeRepository(self.tx).charged(account_id)
        return Audit(ledger_total=total, charged=charged, balance=account.balance)
