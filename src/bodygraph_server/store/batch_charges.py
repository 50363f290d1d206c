"""Charging a batch (``POST /v2/charts/batch``): many reservations of one account taken,
and given back, in one transaction each (see docs/accounts.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import is_cancelled
from bodygraph_server.store.charges import ChargeRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import InvalidOperationError
from bodygraph_server.store.records import (
    Account,
    ChargeRefusal,
    IdempotencyClaim,
    Replay,
    Reservation,
    UsageStatus,
)

ROWS_PER_INSERT = 100
"""Reservations inserted by one statement (7 parameters a row; SQLite allows 32,766)."""


def _insert(tx: Tx, count: int, values: tuple[object, ...]) -> list[int]:
    """Insert ``count`` usage rows with the same ``values``; their ids."""
    ids: list[int] = []
    columns = "(account_id, period_index, endpoint, credits, overage, status, created_us)"
    while len(ids) < count:
        rows = min(ROWS_PER_INSERT, count - len(ids))
        marks = ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * rows)
        found = tx.rows(f"INSERT INTO usage_log {columns} VALUES {marks} RETURNING id",
                        values * rows)
        ids += sorted(int(row.id) for row in found)
    return ids


class BatchChargeRepository:
    """Many reservations of one account within one transaction."""

    __slots__ = ("charges", "tx")

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.charges = ChargeRepository(tx)

    def reserve_many(
        self, account_id: int, endpoint: str, count: int, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> list[Reservation] | ChargeRefusal | Replay:
        """Take ``count`` reservations at once under the account's row lock, by the rule of
        a single reservation applied ``count`` times: a credit while the balance lasts,
        then overage calls if overage is enabled. All or nothing: a refusal
        (CREDITS_EXHAUSTED when the balance cannot cover them and overage is disabled)
        takes nothing. With an idempotency ``claim``: a :class:`Replay` for a key used
        before (nothing taken), else the key is linked to the first reservation."""
        if count < 1:
            raise InvalidOperationError("a batch reserves at least one call")
        tx = self.tx
        at = to_micros(now)
        account = self.charges.chargeable(account_id, now, claim)
        if not isinstance(account, Account):
            return account
        credited = min(count, account.balance)
        overage = count - credited
        if overage and not account.overage_enabled:
            return ChargeRefusal.CREDITS_EXHAUSTED
        if credited:
            changed = tx.execute(
                "UPDATE accounts SET balance = balance - ?, updated_us = ? "
                "WHERE id = ? AND balance >= ?",
                (credited, at, account_id, credited),
            )
            if changed != 1:  # impossible under the row lock; never spend blindly
                raise InvalidOperationError(f"account {account_id} changed concurrently")
        row = (account_id, account.period_index, endpoint)
        status = UsageStatus.RESERVED.value
        paid = _insert(tx, credited, (*row, 1, False, status, at))
        unpaid = _insert(tx, overage, (*row, 0, True, status, at))
        if claim is not None:
            self.charges.keys.record_claim(claim, (paid + unpaid)[0], at)
        reservations = [
            Reservation(id=reservation_id, account_id=account_id,
                        period_index=account.period_index, endpoint=endpoint, credits=1,
                        overage=False, balance_after=account.balance - i - 1)
            for i, reservation_id in enumerate(paid)
        ]
        reservations += [
            Reservation(id=reservation_id, account_id=account_id,
                        period_index=account.period_index, endpoint=endpoint, credits=0,
                        overage=True, balance_after=0)
            for reservation_id in unpaid
        ]
        return reservations

    def release_claim(self, account_id: int, claim: IdempotencyClaim, made: datetime,
                      now: datetime, count: int = 1) -> int:
        """Release what a keyed reservation of ``count`` calls (made at ``made``) stored and
        is still pending: its acknowledgement was lost and its request failed, so the key
        is free for a retry at once. The account is locked first, so a reservation the
        database is still committing is waited for, then seen. The number released (0:
        nothing was stored)."""
        self.charges.accounts.touch(account_id, now)
        made_claim = self.charges.keys.claim_made(claim.key_hash, made)
        if made_claim is None or made_claim[0] != claim.request_hash or made_claim[1] is None:
            return 0
        # Its reservations: the key's first one and the account's next ``count - 1``.
        # Every insert of an account's usage rows holds the account's lock, so none of
        # another request came between them (one of a later request comes after).
        ids = [int(found.id) for found in self.tx.rows(
            "SELECT id FROM usage_log WHERE account_id = ? AND id >= ? AND created_us = ? "
            "ORDER BY id LIMIT ?", (account_id, made_claim[1], to_micros(made), count))]
        return self.release_ids(account_id, ids, now) if ids else 0

    def claim_unpaid(self, account_id: int, claim: IdempotencyClaim,
                     now: datetime) -> Replay | None:
        """Record the key of a batch answered without any reservation (no valid birth),
        under the account's lock: None for a first use, else the :class:`Replay`."""
        self.charges.accounts.touch(account_id, now)
        replay = self.charges.keys.replay(claim)
        if replay is None:
            self.charges.keys.record_claim(claim, None, to_micros(now), charged=0)
        return replay

    def settle(self, account_id: int, used: Sequence[int], unused: Sequence[int],
               now: datetime, key_hash: str | None = None) -> None:
        """A batch answered: commit the reservations ``used`` by its charts, release the
        ``unused`` ones and, with the ``key_hash`` of its idempotency key, record the
        charged count."""
        if unused:  # first: it locks the account, then the rows (as a release does)
            self.release_ids(account_id, unused, now)
        self.commit_ids(account_id, used, to_micros(now))
        if key_hash is not None:
            self.charges.keys.record_charged(key_hash, len(used))

    def commit_ids(self, account_id: int, reservation_ids: Sequence[int], at: int) -> int:
        """Commit the pending reservations among ``reservation_ids``; how many."""
        if not reservation_ids:
            return 0
        marks = ", ".join("?" * len(reservation_ids))
        return self.tx.execute(
            "UPDATE usage_log SET status = ?, settled_us = ? WHERE account_id = ? "
            f"AND status = ? AND id IN ({marks})",
            (UsageStatus.COMMITTED.value, at, account_id, UsageStatus.RESERVED.value,
             *reservation_ids))

    def release_ids(self, account_id: int, reservation_ids: Sequence[int],
                    now: datetime) -> int:
        """Release the pending reservations among ``reservation_ids`` (all of account
        ``account_id``) by the rule of a single release; the number released."""
        tx = self.tx
        marks = ", ".join("?" * len(reservation_ids))
        where = f"WHERE account_id = ? AND status = ? AND id IN ({marks})"
        params = (account_id, UsageStatus.RESERVED.value, *reservation_ids)
        at = to_micros(now)
        account = self.charges.accounts.touch(account_id, now)
        rows = tx.rows("SELECT id, credits, period_index FROM usage_log " + where
                       + tx.for_update, params)
        refundable = not is_cancelled(account.cancel_at, now)
        refunded = [int(r.id) for r in rows
                    if refundable and int(r.credits) == 1
                    and int(r.period_index) == account.period_index]
        if refunded:
            tx.execute(
                "UPDATE accounts SET balance = balance + ?, updated_us = ? WHERE id = ?",
                (len(refunded), at, account_id),
            )
            refund_marks = ", ".join("?" * len(refunded))
            tx.execute(f"UPDATE usage_log SET credits = 0 WHERE id IN ({refund_marks})",
                       refunded)
        tx.execute("UPDATE usage_log SET status = ?, settled_us = ? " + where,
                   (UsageStatus.RELEASED.value, at, *params))
        return len(rows)
