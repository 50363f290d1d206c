"""The ledger side of the SQL stores (table ``ledger`` with ``usage_log``): manual
adjustments, the ledger itself, the per-period usage report and the audit."""

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
from bodygraph_server.store.errors import InvalidOperationError
from bodygraph_server.store.records import Audit, LedgerEntry, PeriodUsage, UsageStatus
from bodygraph_server.store.rows import LEDGER_COLUMNS, insert_ledger, ledger_from_row


class LedgerRepository(AccountRepository):
    """Balance changes and reports; see :class:`~bodygraph_server.store.base.Store`."""

    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> LedgerEntry:
        """Set the balance; the difference goes into the ledger."""
        if balance < 0:
            raise InvalidOperationError("the balance cannot be negative")
        with self.write_transaction() as tx:
            account = self._touch(tx, account_id, now)
            if is_cancelled(account.cancel_at, now):
                raise InvalidOperationError(
                    f"account {account_id} is cancelled; its credits cannot be adjusted"
                )
            entry = insert_ledger(tx, account_id, now, account.period_index,
                                  LedgerKind.ADJUSTMENT, balance - account.balance, balance, note)
            tx.execute(
                "UPDATE accounts SET balance = ?, updated_us = ? WHERE id = ?",
                (balance, to_micros(now), account_id),
            )
            return entry

    def ledger(self, account_id: int, now: datetime) -> list[LedgerEntry]:
        """Every ledger entry, oldest first."""
        with self.write_transaction() as tx:
            self._touch(tx, account_id, now)
            rows = tx.rows(
                f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE account_id = ? ORDER BY id",
                (account_id,),
            )
        return [ledger_from_row(row) for row in rows]

    def usage(self, account_id: int, now: datetime) -> list[PeriodUsage]:
        """Per-period usage from period 0 to the current one."""
        with self.write_transaction() as tx:
            account = self._touch(tx, account_id, now)
            usage_rows = tx.rows(
                "SELECT period_index, "
                "SUM(CASE WHEN status = ? THEN 1 ELSE 0 END), "
                "SUM(credits), "
                "SUM(CASE WHEN status = ? AND overage THEN 1 ELSE 0 END), "
                "SUM(CASE WHEN status = ? THEN 1 ELSE 0 END) "
                "FROM usage_log WHERE account_id = ? GROUP BY period_index",
                (UsageStatus.COMMITTED.value, UsageStatus.COMMITTED.value,
                 UsageStatus.RESERVED.value, account_id),
            )
            allocation_rows = tx.rows(
                "SELECT period_index, SUM(delta) FROM ledger WHERE account_id = ? AND kind = ? "
                "GROUP BY period_index",
                (account_id, LedgerKind.ALLOCATION.value),
            )
        by_period = {int(r[0]): tuple(int(v or 0) for v in r[1:]) for r in usage_rows}
        allocated = {int(r[0]): int(r[1] or 0) for r in allocation_rows}
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
        with self.write_transaction() as tx:
            account = self._touch(tx, account_id, now)
            ledger_row = tx.one("SELECT SUM(delta) FROM ledger WHERE account_id = ?", (account_id,))
            usage_row = tx.one(
                "SELECT SUM(credits) FROM usage_log WHERE account_id = ?", (account_id,)
            )
        total = 0 if ledger_row is None or ledger_row[0] is None else int(ledger_row[0])
        charged = 0 if usage_row is None or usage_row[0] is None else int(usage_row[0])
        return Audit(ledger_total=total, charged=charged, balance=account.balance)
