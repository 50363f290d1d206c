"""Charging in the SQL stores (table ``usage_log``): reserve a credit before a chart,
then commit it (a billed call) or release it (the credit goes back)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import is_cancelled
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import InvalidOperationError, ReservationNotFoundError
from bodygraph_server.store.idempotency import IdempotencyRepository
from bodygraph_server.store.outcomes import OutcomeRepository
from bodygraph_server.store.records import (
    Account,
    ChargeRefusal,
    IdempotencyClaim,
    Replay,
    Reservation,
    UsageStatus,
)


def _not_pending(reservation_id: int) -> ReservationNotFoundError:
    return ReservationNotFoundError(f"no pending reservation {reservation_id}")


class ChargeRepository(AccountRepository, IdempotencyRepository, OutcomeRepository):
    """Reservations of credits; see :class:`~bodygraph_server.store.base.Store`."""

    @staticmethod
    def _refusal(account: Account, now: datetime) -> ChargeRefusal | None:
        """Why ``account`` may take no reservation at ``now`` (before its balance is
        looked at), or None: ACCOUNT_INACTIVE, or CREDITS_EXHAUSTED once cancelled."""
        if not account.active:
            return ChargeRefusal.ACCOUNT_INACTIVE
        if is_cancelled(account.cancel_at, now):
            return ChargeRefusal.CREDITS_EXHAUSTED
        return None

    def _chargeable(self, tx: Tx, account_id: int, now: datetime,
                    claim: IdempotencyClaim | None) -> Account | ChargeRefusal | Replay:
        """The account, locked and brought up to ``now``, ready to be charged; or the
        :class:`Replay` of ``claim`` (a key used before), or why it takes no charge."""
        account = self._touch(tx, account_id, now)
        replay = None if claim is None else self._replay(tx, claim)
        if replay is not None:
            return replay
        refused = self._refusal(account, now)
        return account if refused is None else refused

    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> Reservation | ChargeRefusal | Replay:
        """Take 1 credit, or record an overage call, under the account's row lock (with
        ``claim``: unless the key was used before, see :class:`Replay`).
        :class:`CommitUncertainError` when the commit's acknowledgement is lost."""
        at = to_micros(now)
        with self._settling() as tx:
            account = self._chargeable(tx, account_id, now, claim)
            if not isinstance(account, Account):
                return account
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
                (account_id, account.period_index, endpoint, credits, overage,
                 UsageStatus.RESERVED.value, at),
            )
            assert row is not None
            if claim is not None:
                self._record_claim(tx, claim, int(row[0]), at)
            return Reservation(
                id=int(row[0]),
                account_id=account_id,
                period_index=account.period_index,
                endpoint=endpoint,
                credits=credits,
                overage=overage,
                balance_after=balance,
            )

    @staticmethod
    def _commit_one(tx: Tx, reservation_id: int, at: int) -> bool:
        return tx.execute(
            "UPDATE usage_log SET status = ?, settled_us = ? WHERE id = ? AND status = ?",
            (UsageStatus.COMMITTED.value, at, reservation_id, UsageStatus.RESERVED.value),
        ) == 1

    def commit(self, reservation_id: int, now: datetime) -> None:
        """Mark the reservation as a successful call."""
        if not self.commit_many([reservation_id], now)[0]:
            raise _not_pending(reservation_id)

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations in one transaction (the service's group commit);
        for each, whether it was pending. :class:`CommitUncertainError` when the commit's
        acknowledgement is lost (:mod:`.outcomes`)."""
        at = to_micros(now)
        with self._settling() as tx:
            return [self._commit_one(tx, reservation_id, at) for reservation_id in reservation_ids]

    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel the reservation; return its credit if the period is unchanged."""
        if not self._give_back(reservation_id, now, (UsageStatus.RESERVED,)):
            raise _not_pending(reservation_id)

    def withdraw(self, reservation_id: int, now: datetime) -> bool:
        """Release the reservation whether pending or already committed (its answer never
        reached its client), by the rule of :meth:`release`; False if it was neither."""
        return self._give_back(reservation_id, now,
                               (UsageStatus.RESERVED, UsageStatus.COMMITTED))

    def _give_back(self, reservation_id: int, now: datetime,
                   statuses: tuple[UsageStatus, ...]) -> bool:
        """Mark the usage row released if its status is among ``statuses``, its credit
        returned if the account is still in the same period (and not cancelled)."""
        among = ", ".join("?" for _ in statuses)
        settled = f"SELECT {{}} FROM usage_log WHERE id = ? AND status IN ({among})"
        params = (reservation_id, *(status.value for status in statuses))
        with self.write_transaction() as tx:
            row = tx.one(settled.format("account_id"), params)
            if row is None:
                return False
            account = self._touch(tx, int(row[0]), now)
            row = tx.one(settled.format("credits, period_index") + self.FOR_UPDATE, params)
            if row is None:
                return False
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
                (UsageStatus.RELEASED.value, to_micros(now), 0 if refund else credits,
                 reservation_id),
            )
            return True

    def release_stale(self, older_than: datetime, now: datetime) -> int:
        """Release every reservation still pending that was made before ``older_than`` (its
        call died with its process); each goes through :meth:`release`, so the credit comes
        back under the usual rule. Returns how many were released."""
        with self.read_transaction() as tx:
            rows = tx.rows(
                "SELECT id FROM usage_log WHERE status = ? AND created_us < ? ORDER BY id",
                (UsageStatus.RESERVED.value, to_micros(older_than)),
            )
        released = 0
        for (reservation_id,) in rows:
            try:
                self.release(int(reservation_id), now)
            except ReservationNotFoundError:
                continue  # settled meanwhile by its call or by another sweeper
            released += 1
        return released
