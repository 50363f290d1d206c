"""Accounts and their API keys (tables ``accounts``, ``api_keys``), with the lazy period
rollover every account operation starts with."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.policy.clock import as_utc, to_micros
from bodygraph_server.policy.credits import (
    CreditState,
    LedgerKind,
    cancellation_effective_at,
    roll_forward,
)
from bodygraph_server.policy.plans import Billing, Plan
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import AccountNotFoundError
from bodygraph_server.store.records import Account, ApiKeyRecord
from bodygraph_server.store.rows import (
    ACCOUNT_COLUMNS,
    KEY_COLUMNS,
    account_from_row,
    insert_ledger,
    key_from_row,
)


class AccountRepository:
    """Accounts and keys within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def select(self, account_id: int, *, lock: bool) -> Account:
        """The account as stored (``lock``: locked for the rest of the transaction);
        :class:`AccountNotFoundError` if there is no such account."""
        tx = self.tx
        if lock and tx.for_update:
            # PostgreSQL cannot lock rows of a query with a scalar subquery in the select
            # list on every version; lock first, then read.
            tx.one("SELECT id FROM accounts WHERE id = ?" + tx.for_update, (account_id,))
        row = tx.one(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = ?", (account_id,))
        if row is None:
            raise AccountNotFoundError(f"no account {account_id}")
        return account_from_row(row)

    def touch(self, account_id: int, now: datetime) -> Account:
        """Lock the account and roll its periods forward to ``now`` (the lazy rollover)."""
        tx = self.tx
        account = self.select(account_id, lock=True)
        state, changes = roll_forward(
            CreditState(account.period_index, account.balance),
            plan=account.plan,
            billing=account.billing,
            anchor=account.created_at,
            cancel_at=account.cancel_at,
            now=now,
        )
        if state.period_index == account.period_index:
            return account
        for change in changes:
            insert_ledger(tx, account_id, at=change.at, period_index=change.period_index,
                          kind=change.kind, delta=change.delta,
                          balance_after=change.balance_after)
        tx.execute(
            "UPDATE accounts SET period_index = ?, balance = ?, updated_us = ? WHERE id = ?",
            (state.period_index, state.balance, to_micros(now), account_id),
        )
        return self.select(account_id, lock=False)

    def insert_key(self, account_id: int, key_hash: str, key_prefix: str, at: int) -> None:
        """Store a key of the account, made at ``at`` (microseconds)."""
        self.tx.execute(
            "INSERT INTO api_keys (account_id, key_hash, display_prefix, created_us) "
            "VALUES (?, ?, ?, ?)",
            (account_id, key_hash, key_prefix, at),
        )

    def create(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> Account:
        """Create an account, its first key and its first allocation."""
        tx = self.tx
        anchor = as_utc(now).replace(microsecond=0)
        allocation = plan.credits_per_month(billing)
        at = to_micros(anchor)
        row = tx.one(
            "INSERT INTO accounts (plan, billing, created_us, active, overage_enabled, "
            "period_index, balance, updated_us) VALUES (?, ?, ?, ?, ?, 0, ?, ?) "
            "RETURNING id",
            (plan.name, billing.value, at, True, False, allocation, at),
        )
        assert row is not None
        account_id = int(row.id)
        self.insert_key(account_id, key_hash, key_prefix, at)
        insert_ledger(tx, account_id, at=anchor, period_index=0, kind=LedgerKind.ALLOCATION,
                      delta=allocation, balance_after=allocation, note="opened")
        return self.select(account_id, lock=False)

    def ids(self) -> list[int]:
        """Every account's id, in order."""
        return [int(row.id) for row in self.tx.rows("SELECT id FROM accounts ORDER BY id")]

    def any(self) -> bool:
        """Whether any account exists."""
        return self.tx.one("SELECT 1 FROM accounts LIMIT 1") is not None

    def find_key(self, key_hash: str) -> ApiKeyRecord | None:
        """The current key with this hash joined with its account, or None."""
        row = self.tx.one(
            f"SELECT {KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id "
            "WHERE k.key_hash = ? AND k.revoked_us IS NULL",
            (key_hash,),
        )
        return None if row is None else key_from_row(row)

    def rotate_key(self, account_id: int, key_hash: str, key_prefix: str,
                   now: datetime) -> Account:
        """Revoke every key of the account and store the new one."""
        at = to_micros(now)
        self.touch(account_id, now)
        self.tx.execute(
            "UPDATE api_keys SET revoked_us = ? WHERE account_id = ? AND revoked_us IS NULL",
            (at, account_id),
        )
        self.insert_key(account_id, key_hash, key_prefix, at)
        return self.select(account_id, lock=False)

    def set_flag(self, account_id: int, column: str, value: bool, now: datetime) -> Account:
        """Set ``column`` (``active`` or ``overage_enabled``) of the account."""
        self.touch(account_id, now)
        self.tx.execute(
            f"UPDATE accounts SET {column} = ?, updated_us = ? WHERE id = ?",
            (value, to_micros(now), account_id),
        )
        return self.select(account_id, lock=False)

    def cancel(self, account_id: int, now: datetime) -> Account:
        """Cancel at the end of the current billing period (idempotent)."""
        account = self.touch(account_id, now)
        if account.cancel_at is not None:
            return account
        effective = cancellation_effective_at(account.created_at, account.billing, now)
        self.tx.execute(
            "UPDATE accounts SET cancel_requested_us = ?, cancel_at_us = ?, updated_us = ? "
            "WHERE id = ?",
            (to_micros(now), to_micros(effective), to_micros(now), account_id),
        )
        return self.select(account_id, lock=False)
