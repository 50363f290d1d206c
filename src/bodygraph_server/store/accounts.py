"""Accounts and their API keys in the SQL stores (tables ``accounts``, ``api_keys``),
with the lazy period rollover every account operation starts with."""

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
from bodygraph_server.store.connections import Database, Tx
from bodygraph_server.store.errors import AccountNotFoundError
from bodygraph_server.store.records import Account, ApiKeyRecord
from bodygraph_server.store.rows import (
    ACCOUNT_COLUMNS,
    KEY_COLUMNS,
    account_from_row,
    insert_ledger,
    key_from_row,
)


class AccountRepository(Database):
    """Accounts and keys; see :class:`~bodygraph_server.store.base.Store`."""

    def _select_account(self, tx: Tx, account_id: int, *, lock: bool) -> Account:
        if lock and self.FOR_UPDATE:
            # PostgreSQL cannot lock rows of a query with a scalar subquery in the select
            # list on every version; lock first, then read.
            tx.one("SELECT id FROM accounts WHERE id = ?" + self.FOR_UPDATE, (account_id,))
        row = tx.one(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = ?", (account_id,))
        if row is None:
            raise AccountNotFoundError(f"no account {account_id}")
        return account_from_row(row)

    def lock_account(self, tx: Tx, account_id: int) -> None:
        """Lock account ``account_id`` for the rest of ``tx`` (a write transaction);
        :class:`AccountNotFoundError` if there is no such account."""
        self._select_account(tx, account_id, lock=True)

    def _touch(self, tx: Tx, account_id: int, now: datetime) -> Account:
        """Lock the account and roll its periods forward to ``now`` (the lazy rollover)."""
        account = self._select_account(tx, account_id, lock=True)
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
            insert_ledger(tx, account_id, change.at, change.period_index, change.kind,
                          change.delta, change.balance_after)
        tx.execute(
            "UPDATE accounts SET period_index = ?, balance = ?, updated_us = ? WHERE id = ?",
            (state.period_index, state.balance, to_micros(now), account_id),
        )
        return self._select_account(tx, account_id, lock=False)

    @staticmethod
    def _insert_key(tx: Tx, account_id: int, key_hash: str, key_prefix: str, at: int) -> None:
        tx.execute(
            "INSERT INTO api_keys (account_id, key_hash, display_prefix, created_us) "
            "VALUES (?, ?, ?, ?)",
            (account_id, key_hash, key_prefix, at),
        )

    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> Account:
        """Create an account, its first key and its first allocation."""
        anchor = as_utc(now).replace(microsecond=0)
        allocation = plan.credits_per_month(billing)
        at = to_micros(anchor)
        with self.write_transaction() as tx:
            row = tx.one(
                "INSERT INTO accounts (plan, billing, created_us, active, overage_enabled, "
                "period_index, balance, updated_us) VALUES (?, ?, ?, ?, ?, 0, ?, ?) "
                "RETURNING id",
                (plan.name, billing.value, at, True, False, allocation, at),
            )
            assert row is not None
            account_id = int(row[0])
            self._insert_key(tx, account_id, key_hash, key_prefix, at)
            insert_ledger(tx, account_id, anchor, 0, LedgerKind.ALLOCATION, allocation,
                          allocation, "opened")
            return self._select_account(tx, account_id, lock=False)

    def get_account(self, account_id: int, now: datetime) -> Account:
        """The account, periods rolled forward."""
        with self.write_transaction() as tx:
            return self._touch(tx, account_id, now)

    def list_accounts(self, now: datetime) -> list[Account]:
        """All accounts by id, periods rolled forward."""
        with self.read_transaction() as tx:
            ids = [int(row[0]) for row in tx.rows("SELECT id FROM accounts ORDER BY id")]
        return [self.get_account(account_id, now) for account_id in ids]

    def has_accounts(self) -> bool:
        """Whether any account exists."""
        with self.read_transaction() as tx:
            return tx.one("SELECT 1 FROM accounts LIMIT 1") is not None

    def find_key(self, key_hash: str) -> ApiKeyRecord | None:
        """The current key with this hash joined with its account, or None."""
        with self.read_transaction() as tx:
            row = tx.one(
                f"SELECT {KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id "
                "WHERE k.key_hash = ? AND k.revoked_us IS NULL",
                (key_hash,),
            )
        return None if row is None else key_from_row(row)

    def rotate_key(self, account_id: int, key_hash: str, key_prefix: str, now: datetime) -> Account:
        """Revoke every key of the account and store the new one, in one transaction."""
        at = to_micros(now)
        with self.write_transaction() as tx:
            self._touch(tx, account_id, now)
            tx.execute(
                "UPDATE api_keys SET revoked_us = ? WHERE account_id = ? AND revoked_us IS NULL",
                (at, account_id),
            )
            self._insert_key(tx, account_id, key_hash, key_prefix, at)
            return self._select_account(tx, account_id, lock=False)

    def _update_flags(self, account_id: int, column: str, value: bool, now: datetime) -> Account:
        with self.write_transaction() as tx:
            self._touch(tx, account_id, now)
            tx.execute(
                f"UPDATE accounts SET {column} = ?, updated_us = ? WHERE id = ?",
                (value, to_micros(now), account_id),
            )
            return self._select_account(tx, account_id, lock=False)

    def set_active(self, account_id: int, active: bool, now: datetime) -> Account:
        """Deactivate or reactivate the account."""
        return self._update_flags(account_id, "active", active, now)

    def set_overage(self, account_id: int, enabled: bool, now: datetime) -> Account:
        """Enable or disable overage billing."""
        return self._update_flags(account_id, "overage_enabled", enabled, now)

    def cancel(self, account_id: int, now: datetime) -> Account:
        """Cancel at the end of the current billing period (idempotent)."""
        with self.write_transaction() as tx:
            account = self._touch(tx, account_id, now)
            if account.cancel_at is not None:
                return account
            effective = cancellation_effective_at(account.created_at, account.billing, now)
            tx.execute(
                "UPDATE accounts SET cancel_requested_us = ?, cancel_at_us = ?, updated_us = ? "
                "WHERE id = ?",
                (to_micros(now), to_micros(effective), to_micros(now), account_id),
            )
            return self._select_account(tx, account_id, lock=False)
