"""Charging a batch in the SQL stores: many reservations taken, and given back, in one
transaction each.

A batch request (``POST /v2/charts/batch``) costs 1 credit per chart it returns. It takes
a reservation per chart before any work (:meth:`BatchChargeRepository.reserve_many`),
commits those of the charts it returns and releases the rest, in one transaction
(:meth:`BatchChargeRepository.settle_batch`, which also records the charged count of an
idempotency key; :meth:`~BatchChargeRepository.release_many` gives them all back
alone). Each reservation is one ``usage_log`` row, exactly what
:meth:`~bodygraph_server.store.charges.ChargeRepository.reserve` would have written for
the same number of single calls, so the usage report, the ledger audit and the
stale-reservation sweep treat a batch as that many calls. One transaction for
the whole batch instead of one per chart: 1,000 single reservations take ~0.2 s on
SQLite, one batch of 1,000 a few milliseconds.
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
        ids += sorted(int(row[0]) for row in found)
    return ids


class BatchChargeRepository(ChargeRepository):
    """:meth:`reserve_many` and :meth:`release_many`; see the module docstring."""

    def reserve_many(
        self, account_id: int, endpoint: str, count: int, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> list[Reservation] | ChargeRefusal | Replay:
        """Take ``count`` reservations at once under the account's row lock, by the rule of
        :meth:`reserve` applied ``count`` times: a credit while the balance lasts, then
        overage calls if overage is enabled. All or nothing: a refusal
        (CREDITS_EXHAUSTED when the balance cannot cover them and overage is disabled)
        takes nothing. With an idempotency ``claim``: a :class:`Replay` for a key used
        before (nothing taken), else the key is linked to the first reservation.
        :class:`CommitUncertainError` when the commit's acknowledgement is lost."""
        if count < 1:
            raise InvalidOperationError("a batch reserves at least one call")
        at = to_micros(now)
        with self._settling() as tx:
            account = self._chargeable(tx, account_id, now, claim)
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
                self._record_claim(tx, claim, (paid + unpaid)[0], at)
        reservations = [
            Reservation(reservation_id, account_id, account.period_index, endpoint, 1, False,
                        account.balance - i - 1)
            for i, reservation_id in enumerate(paid)
        ]
        reservations += [
            Reservation(reservation_id, account_id, account.period_index, endpoint, 0, True, 0)
            for reservation_id in unpaid
        ]
        return reservations

    def release_claim(self, account_id: int, claim: IdempotencyClaim, made: datetime,
                      now: datetime, count: int = 1) -> int:
        """Release what a keyed reservation of ``count`` calls (:meth:`reserve` or
        :meth:`reserve_many` with ``claim``, at ``made``) stored and is still pending: its
        acknowledgement was lost and its request failed, so the key is free for a retry
        at once. The account is locked first, so a reservation the database is still
        committing is waited for, then seen. The number released (0: nothing was
        stored)."""
        made_us = to_micros(made)
        with self.write_transaction() as tx:
            self._touch(tx, account_id, now)
            row = tx.one("SELECT request_hash, usage_id FROM idempotency_keys "
                         "WHERE key_hash = ? AND created_us = ?", (claim.key_hash, made_us))
            if row is None or row[0] != claim.request_hash or row[1] is None:
                return 0
            # Its reservations: the key's first one and the account's next ``count - 1``.
            # Every insert of an account's usage rows holds the account's lock, so none of
            # another request came between them (one of a later request comes after).
            ids = [int(found[0]) for found in tx.rows(
                "SELECT id FROM usage_log WHERE account_id = ? AND id >= ? AND created_us = ? "
                "ORDER BY id LIMIT ?", (account_id, int(row[1]), made_us, count))]
            return self._release_ids(tx, account_id, ids, now) if ids else 0

    def claim_unpaid(self, account_id: int, claim: IdempotencyClaim,
                     now: datetime) -> Replay | None:
        """Record the key of a batch answered without any reservation (no valid birth),
        under the account's lock: None for a first use, else the :class:`Replay`."""
        with self.write_transaction() as tx:
            self._touch(tx, account_id, now)
            replay = self._replay(tx, claim)
            if replay is None:
                self._record_claim(tx, claim, None, to_micros(now), charged=0)
            return replay

    def release_many(self, account_id: int, reservation_ids: Sequence[int],
                     now: datetime) -> int:
        """Release the pending reservations among ``reservation_ids`` (all of account
        ``account_id``) in one transaction, by the rule of :meth:`release`: a credit comes
        back when the account is in the same period and not cancelled; nothing is billed.
        Reservations no longer pending are skipped. The number released."""
        if not reservation_ids:
            return 0
        with self.write_transaction() as tx:
            return self._release_ids(tx, account_id, reservation_ids, now)

    def settle_batch(self, account_id: int, used: Sequence[int], unused: Sequence[int],
                     now: datetime, key_hash: str | None = None) -> None:
        """A batch answered: commit the reservations ``used`` by its charts, release the
        ``unused`` ones and, with the ``key_hash`` of its idempotency key, record the
        charged count, all in one transaction. :class:`CommitUncertainError` when its
        commit's acknowledgement is lost (:mod:`.outcomes`)."""
        with self._settling() as tx:
            if unused:  # first: it locks the account, then the rows (as a release does)
                self._release_ids(tx, account_id, unused, now)
            self._commit_ids(tx, account_id, used, to_micros(now))
            if key_hash is not None:
                self._record_charged(tx, key_hash, len(used))

    @staticmethod
    def _commit_ids(tx: Tx, account_id: int, reservation_ids: Sequence[int], at: int) -> int:
        if not reservation_ids:
            return 0
        marks = ", ".join("?" * len(reservation_ids))
        return tx.execute(
            "UPDATE usage_log SET status = ?, settled_us = ? WHERE account_id = ? "
            f"AND status = ? AND id IN ({marks})",
            (UsageStatus.COMMITTED.value, at, account_id, UsageStatus.RESERVED.value,
             *reservation_ids))

    def _release_ids(self, tx: Tx, account_id: int, reservation_ids: Sequence[int],
                     now: datetime) -> int:
        marks = ", ".join("?" * len(reservation_ids))
        where = f"WHERE account_id = ? AND status = ? AND id IN ({marks})"
        params = (account_id, UsageStatus.RESERVED.value, *reservation_ids)
        at = to_micros(now)
        account = self._touch(tx, account_id, now)
        rows = tx.rows("SELECT id, credits, period_index FROM usage_log " + where
                       + self.FOR_UPDATE, params)
        refundable = not is_cancelled(account.cancel_at, now)
        refunded = [int(r[0]) for r in rows
                    if refundable and int(r[1]) == 1 and int(r[2]) == account.period_index]
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
