"""The bookkeeping logic shared by the SQL backends.

Backends differ only in how they connect, how a locking transaction starts, how a row is
locked, the parameter style and their migration files; everything else (the queries and
the credit rules) lives here once. SQL is written with ``?`` placeholders and identical
for both backends.
"""

from __future__ import annotations

import os
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from importlib import resources
from typing import Any, Protocol

from bodygraph_server.policy.clock import as_utc, from_micros, to_micros
from bodygraph_server.policy.credits import (
    CreditState,
    LedgerKind,
    cancellation_effective_at,
    is_cancelled,
    overage_price,
    period_bounds,
    roll_forward,
)
from bodygraph_server.policy.plans import Billing, Plan
from bodygraph_server.store.base import (
    Account,
    AccountNotFoundError,
    ApiKeyRecord,
    Audit,
    ChargeRefusal,
    InvalidOperationError,
    LedgerEntry,
    PeriodUsage,
    RateDecision,
    Reservation,
    ReservationNotFoundError,
    Store,
    UsageStatus,
    decision_from_window,
    plan_from_row,
)

Row = tuple[Any, ...]


class Cursor(Protocol):
    """The part of a DB-API cursor the store uses."""

    @property
    def rowcount(self) -> int: ...

    def fetchall(self) -> list[Any]: ...


class Tx:
    """One open transaction: run SQL written with ``?`` placeholders."""

    def __init__(self, run: Callable[[str, Sequence[object]], Cursor]) -> None:
        self._run = run

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        return self._run(sql, params).rowcount

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run a query; all rows."""
        return [tuple(row) for row in self._run(sql, params).fetchall()]

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """Run a query; the first row or None."""
        rows = self._run(sql, params).fetchall()
        return tuple(rows[0]) if rows else None


_ACCOUNT_COLUMNS = (
    "a.id, a.plan, a.billing, a.created_us, a.active, a.overage_enabled, "
    "a.cancel_requested_us, a.cancel_at_us, a.period_index, a.balance, "
    "(SELECT k.display_prefix FROM api_keys k WHERE k.account_id = a.id "
    "AND k.revoked_us IS NULL ORDER BY k.id DESC LIMIT 1)"
)


def _opt_time(micros: int | None) -> datetime | None:
    return None if micros is None else from_micros(int(micros))


def _account_from_row(row: Row) -> Account:
    return Account(
        id=int(row[0]),
        plan=plan_from_row(str(row[1])),
        billing=Billing(str(row[2])),
        created_at=from_micros(int(row[3])),
        active=bool(row[4]),
        overage_enabled=bool(row[5]),
        cancel_requested_at=_opt_time(row[6]),
        cancel_at=_opt_time(row[7]),
        period_index=int(row[8]),
        balance=int(row[9]),
        key_prefix=None if row[10] is None else str(row[10]),
    )


def _ledger_from_row(row: Row) -> LedgerEntry:
    return LedgerEntry(
        id=int(row[0]),
        account_id=int(row[1]),
        at=from_micros(int(row[2])),
        period_index=int(row[3]),
        kind=LedgerKind(str(row[4])),
        delta=int(row[5]),
        balance_after=int(row[6]),
        note=str(row[7]),
    )


class SqlStore(Store):
    """A :class:`Store` over a DB-API database; subclasses supply connections."""

    #: Appended to the SELECT that locks an account row (" FOR UPDATE" on PostgreSQL).
    FOR_UPDATE: str = ""
    #: Folder of ``migrations/`` holding this backend's ``NNNN_name.sql`` files.
    MIGRATIONS: str = ""

    def __init__(self, url: str) -> None:
        self.url = url
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, Any]] = []
        self._migrate()

    # -- backend hooks ---------------------------------------------------------------------

    @abstractmethod
    def _connect(self) -> Any:
        """A new connection (autocommit; transactions are explicit)."""

    @abstractmethod
    def _transaction(self, conn: Any, *, write: bool) -> AbstractContextManager[Tx]:
        """A transaction on ``conn``; ``write`` takes the backend's write lock."""

    @abstractmethod
    def _apply_script(self, tx: Tx, script: str) -> None:
        """Run one migration file inside ``tx``."""

    @abstractmethod
    def _lock_migrations(self, tx: Tx) -> None:
        """Serialize concurrent migrations (several workers starting at once)."""

    @abstractmethod
    def _close_connection(self, conn: Any) -> None:
        """Close one connection."""

    # -- connections -----------------------------------------------------------------------

    def _conn(self) -> Any:
        pid = os.getpid()
        held = getattr(self._local, "conn", None)
        if held is not None and held[0] == pid:
            return held[1]
        conn = self._connect()
        self._local.conn = (pid, conn)
        with self._lock:
            self._connections.append((pid, conn))
        return conn

    def _write(self) -> AbstractContextManager[Tx]:
        return self._transaction(self._conn(), write=True)

    def _read(self) -> AbstractContextManager[Tx]:
        return self._transaction(self._conn(), write=False)

    # -- public access for tables kept next to the bookkeeping (render templates) ----------

    def write_transaction(self) -> AbstractContextManager[Tx]:
        """A transaction holding the backend's write lock (SQLite ``BEGIN IMMEDIATE`` behind
        the in-process write lock; PostgreSQL: an ordinary transaction, lock rows with
        :meth:`lock_account`). Commits on normal exit, rolls back if the block raises."""
        return self._write()

    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A read-only transaction (a consistent snapshot; never blocks writers)."""
        return self._read()

    def lock_account(self, tx: Tx, account_id: int) -> None:
        """Lock account ``account_id`` for the rest of ``tx`` (a write transaction);
        :class:`AccountNotFoundError` if there is no such account."""
        self._select_account(tx, account_id, lock=True)

    def close(self) -> None:
        """Close the connections opened by this process."""
        pid = os.getpid()
        with self._lock:
            mine = [conn for owner, conn in self._connections if owner == pid]
            self._connections = [item for item in self._connections if item[0] != pid]
        for conn in mine:
            self._close_connection(conn)
        self._local = threading.local()

    # -- migrations ------------------------------------------------------------------------

    def _migration_files(self) -> list[tuple[int, str]]:
        folder = resources.files("bodygraph_server.store").joinpath("migrations", self.MIGRATIONS)
        found: list[tuple[int, str]] = []
        for entry in folder.iterdir():
            name = entry.name
            if name.endswith(".sql") and name[:4].isdigit():
                found.append((int(name[:4]), entry.read_text(encoding="utf-8")))
        return sorted(found)

    def _migrate(self) -> None:
        with self._write() as tx:
            self._lock_migrations(tx)
            tx.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_us BIGINT NOT NULL)"
            )
            row = tx.one("SELECT MAX(version) FROM schema_version")
            current = 0 if row is None or row[0] is None else int(row[0])
            for version, script in self._migration_files():
                if version <= current:
                    continue
                self._apply_script(tx, script)
                tx.execute(
                    "INSERT INTO schema_version (version, applied_us) VALUES (?, ?)",
                    (version, to_micros(datetime.now(UTC))),
                )

    def schema_version(self) -> int:
        """The highest migration applied."""
        with self._read() as tx:
            row = tx.one("SELECT MAX(version) FROM schema_version")
        return 0 if row is None or row[0] is None else int(row[0])

    # -- account helpers -------------------------------------------------------------------

    def _select_account(self, tx: Tx, account_id: int, *, lock: bool) -> Account:
        suffix = self.FOR_UPDATE if lock else ""
        if lock and suffix:
            # PostgreSQL cannot lock rows of a query with a scalar subquery in the select
            # list on every version; lock first, then read.
            tx.one("SELECT id FROM accounts WHERE id = ?" + suffix, (account_id,))
        row = tx.one(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = ?", (account_id,))
        if row is None:
            raise AccountNotFoundError(f"no account {account_id}")
        return _account_from_row(row)

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
            tx.execute(
                "INSERT INTO ledger (account_id, at_us, period_index, kind, delta, "
                "balance_after, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    account_id,
                    to_micros(change.at),
                    change.period_index,
                    change.kind.value,
                    change.delta,
                    change.balance_after,
                    "",
                ),
            )
        tx.execute(
            "UPDATE accounts SET period_index = ?, balance = ?, updated_us = ? WHERE id = ?",
            (state.period_index, state.balance, to_micros(now), account_id),
        )
        return self._select_account(tx, account_id, lock=False)

    # -- accounts and keys -----------------------------------------------------------------

    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> Account:
        """Create an account, its first key and its first allocation."""
        anchor = as_utc(now).replace(microsecond=0)
        allocation = plan.credits_per_month(billing)
        at = to_micros(anchor)
        with self._write() as tx:
            row = tx.one(
                "INSERT INTO accounts (plan, billing, created_us, active, overage_enabled, "
                "period_index, balance, updated_us) VALUES (?, ?, ?, ?, ?, 0, ?, ?) "
                "RETURNING id",
                (plan.name, billing.value, at, True, False, allocation, at),
            )
            assert row is not None
            account_id = int(row[0])
            tx.execute(
                "INSERT INTO api_keys (account_id, key_hash, display_prefix, created_us) "
                "VALUES (?, ?, ?, ?)",
                (account_id, key_hash, key_prefix, at),
            )
            tx.execute(
                "INSERT INTO ledger (account_id, at_us, period_index, kind, delta, "
                "balance_after, note) VALUES (?, ?, 0, ?, ?, ?, ?)",
                (account_id, at, LedgerKind.ALLOCATION.value, allocation, allocation, "opened"),
            )
            return self._select_account(tx, account_id, lock=False)

    def get_account(self, account_id: int, now: datetime) -> Account:
        """The account, periods rolled forward."""
        with self._write() as tx:
            return self._touch(tx, account_id, now)

    def list_accounts(self, now: datetime) -> list[Account]:
        """All accounts by id, periods rolled forward."""
        with self._read() as tx:
            ids = [int(row[0]) for row in tx.rows("SELECT id FROM accounts ORDER BY id")]
        result = []
        for account_id in ids:
            with self._write() as tx:
                result.append(self._touch(tx, account_id, now))
        return result

    def find_key(self, key_hash: str) -> ApiKeyRecord | None:
        """The current key with this hash joined with its account, or None."""
        with self._read() as tx:
            row = tx.one(
                "SELECT k.id, k.key_hash, k.account_id, k.created_us, a.active, a.plan, "
                "a.overage_enabled FROM api_keys k JOIN accounts a ON a.id = k.account_id "
                "WHERE k.key_hash = ? AND k.revoked_us IS NULL",
                (key_hash,),
            )
        if row is None:
            return None
        return ApiKeyRecord(
            key_id=int(row[0]),
            key_hash=str(row[1]),
            account_id=int(row[2]),
            created_at=from_micros(int(row[3])),
            account_active=bool(row[4]),
            plan=plan_from_row(str(row[5])),
            overage_enabled=bool(row[6]),
        )

    def rotate_key(self, account_id: int, key_hash: str, key_prefix: str, now: datetime) -> Account:
        """Revoke every key of the account and store the new one, in one transaction."""
        at = to_micros(now)
        with self._write() as tx:
            self._touch(tx, account_id, now)
            tx.execute(
                "UPDATE api_keys SET revoked_us = ? WHERE account_id = ? AND revoked_us IS NULL",
                (at, account_id),
            )
            tx.execute(
                "INSERT INTO api_keys (account_id, key_hash, display_prefix, created_us) "
                "VALUES (?, ?, ?, ?)",
                (account_id, key_hash, key_prefix, at),
            )
            return self._select_account(tx, account_id, lock=False)

    def _update_flags(self, account_id: int, column: str, value: bool, now: datetime) -> Account:
        with self._write() as tx:
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
        with self._write() as tx:
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

    # -- credits ---------------------------------------------------------------------------

    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> LedgerEntry:
        """Set the balance; the difference goes into the ledger."""
        if balance < 0:
            raise InvalidOperationError("the balance cannot be negative")
        with self._write() as tx:
            account = self._touch(tx, account_id, now)
            if is_cancelled(account.cancel_at, now):
                raise InvalidOperationError(
                    f"account {account_id} is cancelled; its credits cannot be adjusted"
                )
            delta = balance - account.balance
            row = tx.one(
                "INSERT INTO ledger (account_id, at_us, period_index, kind, delta, "
                "balance_after, note) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id, account_id, at_us, period_index, kind, delta, balance_after, note",
                (
                    account_id,
                    to_micros(now),
                    account.period_index,
                    LedgerKind.ADJUSTMENT.value,
                    delta,
                    balance,
                    note,
                ),
            )
            tx.execute(
                "UPDATE accounts SET balance = ?, updated_us = ? WHERE id = ?",
                (balance, to_micros(now), account_id),
            )
            assert row is not None
            return _ledger_from_row(row)

    def reserve(self, account_id: int, endpoint: str, now: datetime) -> Reservation | ChargeRefusal:
        """Take 1 credit, or record an overage call, under the account's row lock."""
        at = to_micros(now)
        with self._write() as tx:
            account = self._touch(tx, account_id, now)
            if not account.active:
                return ChargeRefusal.ACCOUNT_INACTIVE
            if is_cancelled(account.cancel_at, now):
                return ChargeRefusal.CREDITS_EXHAUSTED
            credits, overage, balance = 0, False, account.balance
            if account.balance > 0:
                changed = tx.execute(
                    "UPDATE accounts SET balance = balance - 1, updated_us = ? "
                    "WHERE id = ? AND balance > 0",
                    (at, account_id),
                )
                if changed != 1:  # impossible under the row lock; never spend blindly
                    raise InvalidOperationError(f"account {account_id} changed concurrently")
                credits, balance = 1, account.balance - 1
            elif account.overage_enabled:
                overage = True
            else:
                return ChargeRefusal.CREDITS_EXHAUSTED
            row = tx.one(
                "INSERT INTO usage_log (account_id, period_index, endpoint, credits, overage, "
                "status, created_us) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    account_id,
                    account.period_index,
                    endpoint,
                    credits,
                    overage,
                    UsageStatus.RESERVED.value,
                    at,
                ),
            )
            assert row is not None
            return Reservation(
                id=int(row[0]),
                account_id=account_id,
                period_index=account.period_index,
                endpoint=endpoint,
                credits=credits,
                overage=overage,
                balance_after=balance,
            )

    def commit(self, reservation_id: int, now: datetime) -> None:
        """Mark the reservation as a successful call."""
        with self._write() as tx:
            changed = tx.execute(
                "UPDATE usage_log SET status = ?, settled_us = ? WHERE id = ? AND status = ?",
                (
                    UsageStatus.COMMITTED.value,
                    to_micros(now),
                    reservation_id,
                    UsageStatus.RESERVED.value,
                ),
            )
        if changed != 1:
            raise ReservationNotFoundError(f"no pending reservation {reservation_id}")

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations in one transaction (the service's group commit);
        for each, whether it was pending."""
        at = to_micros(now)
        with self._write() as tx:
            return [
                tx.execute(
                    "UPDATE usage_log SET status = ?, settled_us = ? WHERE id = ? AND status = ?",
                    (
                        UsageStatus.COMMITTED.value,
                        at,
                        reservation_id,
                        UsageStatus.RESERVED.value,
                    ),
                )
                == 1
                for reservation_id in reservation_ids
            ]

    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel the reservation; return its credit if the period is unchanged."""
        with self._write() as tx:
            row = tx.one(
                "SELECT account_id FROM usage_log WHERE id = ? AND status = ?",
                (reservation_id, UsageStatus.RESERVED.value),
            )
            if row is None:
                raise ReservationNotFoundError(f"no pending reservation {reservation_id}")
            account = self._touch(tx, int(row[0]), now)
            row = tx.one(
                "SELECT credits, period_index FROM usage_log WHERE id = ? AND status = ?"
                + self.FOR_UPDATE,
                (reservation_id, UsageStatus.RESERVED.value),
            )
            if row is None:
                raise ReservationNotFoundError(f"no pending reservation {reservation_id}")
            credits, period_index = int(row[0]), int(row[1])
            refund = (
                credits == 1
                and period_index == account.period_index
                and not is_cancelled(account.cancel_at, now)
            )
            if refund:
                tx.execute(
                    "UPDATE accounts SET balance = balance + 1, updated_us = ? WHERE id = ?",
                    (to_micros(now), account.id),
                )
            tx.execute(
                "UPDATE usage_log SET status = ?, settled_us = ?, credits = ? WHERE id = ?",
                (
                    UsageStatus.RELEASED.value,
                    to_micros(now),
                    0 if refund else credits,
                    reservation_id,
                ),
            )

    def ledger(self, account_id: int, now: datetime) -> list[LedgerEntry]:
        """Every ledger entry, oldest first."""
        with self._write() as tx:
            self._touch(tx, account_id, now)
            rows = tx.rows(
                "SELECT id, account_id, at_us, period_index, kind, delta, balance_after, note "
                "FROM ledger WHERE account_id = ? ORDER BY id",
                (account_id,),
            )
        return [_ledger_from_row(row) for row in rows]

    def usage(self, account_id: int, now: datetime) -> list[PeriodUsage]:
        """Per-period usage from period 0 to the current one."""
        with self._write() as tx:
            account = self._touch(tx, account_id, now)
            usage_rows = tx.rows(
                "SELECT period_index, "
                "SUM(CASE WHEN status = ? THEN 1 ELSE 0 END), "
                "SUM(credits), "
                "SUM(CASE WHEN status = ? AND overage THEN 1 ELSE 0 END), "
                "SUM(CASE WHEN status = ? THEN 1 ELSE 0 END) "
                "FROM usage_log WHERE account_id = ? GROUP BY period_index",
                (
                    UsageStatus.COMMITTED.value,
                    UsageStatus.COMMITTED.value,
                    UsageStatus.RESERVED.value,
                    account_id,
                ),
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
            report.append(
                PeriodUsage(
                    period_index=index,
                    start=start,
                    end=end,
                    calls=calls,
                    credits=credits,
                    overage_calls=overage_calls,
                    overage_price=overage_price(account.plan, overage_calls),
                    pending=pending,
                    allocated=allocated.get(index, 0),
                )
            )
        return report

    def audit(self, account_id: int, now: datetime) -> Audit:
        """Ledger total, credits charged and balance of the account."""
        with self._write() as tx:
            account = self._touch(tx, account_id, now)
            ledger_row = tx.one("SELECT SUM(delta) FROM ledger WHERE account_id = ?", (account_id,))
            usage_row = tx.one(
                "SELECT SUM(credits) FROM usage_log WHERE account_id = ?", (account_id,)
            )
        total = 0 if ledger_row is None or ledger_row[0] is None else int(ledger_row[0])
        charged = 0 if usage_row is None or usage_row[0] is None else int(usage_row[0])
        return Audit(ledger_total=total, charged=charged, balance=account.balance)

    def release_stale(self, older_than: datetime, now: datetime) -> int:
        """Release every reservation still pending that was made before ``older_than`` (its
        call died with its process); each goes through :meth:`release`, so the credit comes
        back under the usual rule. Returns how many were released."""
        with self._read() as tx:
            rows = tx.rows(
                "SELECT id FROM usage_log WHERE status = 'reserved' AND created_us < ? "
                "ORDER BY id",
                (to_micros(older_than),),
            )
        released = 0
        for (reservation_id,) in rows:
            try:
                self.release(int(reservation_id), now)
            except ReservationNotFoundError:
                continue  # settled meanwhile by its call or by another sweeper
            released += 1
        return released

    # -- render signing keys ---------------------------------------------------------------

    def render_keys(self) -> list[tuple[str, bytes]]:
        """The stored render signing keys ``(kid, secret)``, oldest first."""
        with self._read() as tx:
            rows = tx.rows("SELECT kid, secret FROM render_keys ORDER BY created_us, kid")
        return [(str(kid), bytes.fromhex(str(secret))) for kid, secret in rows]

    def ensure_render_key(self, kid: str, secret: bytes, now: datetime) -> list[tuple[str, bytes]]:
        """Store ``(kid, secret)`` if no render key is stored yet, then return every key,
        oldest first. Atomic across threads, processes and instances sharing the database:
        the first caller's key wins and everyone gets the same keys."""
        with self._write() as tx:
            self._lock_migrations(tx)
            row = tx.one("SELECT COUNT(*) FROM render_keys")
            if row is None or int(row[0]) == 0:
                tx.execute(
                    "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
                    (kid, secret.hex(), to_micros(now)),
                )
        return self.render_keys()

    def add_render_key(self, kid: str, secret: bytes, now: datetime) -> None:
        """Store a new render key; it signs new links once the service restarts (the
        older keys keep verifying). :class:`InvalidOperationError` if ``kid`` is taken."""
        with self._write() as tx:
            if tx.one("SELECT kid FROM render_keys WHERE kid = ?", (kid,)) is not None:
                raise InvalidOperationError(f"render key id {kid!r} is already stored")
            newest = tx.one("SELECT MAX(created_us) FROM render_keys")
            at = to_micros(now)
            if newest is not None and newest[0] is not None:
                at = max(at, int(newest[0]) + 1)  # strictly newest, whatever the clock says
            tx.execute(
                "INSERT INTO render_keys (kid, secret, created_us) VALUES (?, ?, ?)",
                (kid, secret.hex(), at),
            )

    # -- rate limiting ---------------------------------------------------------------------

    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> RateDecision:
        """Sliding-window check-and-insert under the bucket's lock."""
        now_us = to_micros(now)
        cutoff = now_us - window_seconds * 1_000_000
        with self._write() as tx:
            tx.execute(
                "INSERT INTO rate_buckets (bucket) VALUES (?) ON CONFLICT DO NOTHING", (bucket,)
            )
            tx.one("SELECT bucket FROM rate_buckets WHERE bucket = ?" + self.FOR_UPDATE, (bucket,))
            tx.execute("DELETE FROM rate_hits WHERE bucket = ? AND at_us <= ?", (bucket, cutoff))
            row = tx.one(
                "SELECT COUNT(*), MIN(at_us) FROM rate_hits WHERE bucket = ? AND at_us > ?",
                (bucket, cutoff),
            )
            count = 0 if row is None else int(row[0])
            oldest = None if row is None or row[1] is None else int(row[1])
            allowed = count < limit
            if allowed:
                tx.execute("INSERT INTO rate_hits (bucket, at_us) VALUES (?, ?)", (bucket, now_us))
                count += 1
                oldest = now_us if oldest is None else min(oldest, now_us)
        return decision_from_window(
            allowed=allowed,
            count=count,
            oldest_us=oldest,
            now_us=now_us,
            limit=limit,
            window_seconds=window_seconds,
        )


def iter_statements(script: str) -> Iterator[str]:
    """The statements of a migration file (split at ``;`` ending a line; comments kept
    out)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    buffer: list[str] = []
    for line in lines:
        buffer.append(line)
        if line.rstrip().endswith(";"):
            statement = "\n".join(buffer).strip().rstrip(";").strip()
            if statement:
                yield statement
            buffer = []
    tail = "\n".join(buffer).strip()
    if tail:
        yield tail
