"""Charging (table ``usage_log``): reserve a credit before a chart, then commit it (a
billed call) or release it (the credit goes back)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import is_cancelled
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import InvalidOperationError, ReservationNotFoundError
from bodygraph_server.store.idempotency import IdempotencyRepository
from bodygraph_server.store.records import (
    Account,
    ChargeRefusal,
    IdempotencyClaim,
    Replay,
    Reservation,
    UsageStatus,
)


def not_pending(reservation_id: int) -> ReservationNotFoundError:
    """The error for a reservation that is not (or no longer) pending."""
    return ReservationNotFoundError(f"no pending reservation {reservation_id}")


def refusal(account: Account, now: datetime) -> ChargeRefusal | None:
    """Why ``account`` may take no reservation at ``now`` (before its balance is looked
    at), or None: ACCOUNT_INACTIVE, or CREDITS_EXHAUSTED once cancelled."""
    if not account.active:
        return ChargeRefusal.ACCOUNT_INACTIVE
    if is_cancelled(account.cancel_at, now):
        return ChargeRefusal.CREDITS_EXHAUSTED
    return None


class ChargeRepository:
    """Reservations of credits within one transaction."""

    __slots__ = ("accounts", "keys", "tx")

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.accounts = AccountRepository(tx)
        self.keys = IdempotencyRepository(tx)

    def chargeable(self, account_id: int, now: datetime,
                   claim: IdempotencyClaim | None) -> Account | ChargeRefusal | Replay:
        """The account, locked and brought up to ``now``, ready to be charged; or the
        :class:`Replay` of ``claim`` (a key used before), or why it takes no charge."""
        account = self.accounts.touch(account_id, now)
        replay = None if claim is None else self.keys.replay(claim)
        if replay is not None:
            return replay
        refused = refusal(account, now)
        return account if refused is None else refused

    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> Reservation | ChargeRefusal | Replay:
        """Take 1 credit, or record an overage call, under the account's row lock (with
        ``claim``: unless the key was used before, see :class:`Replay`)."""
        tx = self.tx
        at = to_micros(now)
        account = self.chargeable(account_id, now, claim)
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
            self.keys.record_claim(claim, int(row.id), at)
        return Reservation(
            id=int(row.id),
            account_id=account_id,
            period_index=account.period_index,
            endpoint=endpoint,
            credits=credits,
            overage=overage,
            balance_after=balance,
        )

    def commit(self, reservation_id: int, at: int) -> bool:
        """Mark the reservation as a successful call; whether it was pending."""
        return self.tx.execute(
            "UPDATE usage_log SET status = ?, settled_us = ? WHERE id = ? AND status = ?",
            (UsageStatus.COMMITTED.value, at, reservation_id, UsageStatus.RESERVED.value),
        ) == 1

    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel the reservation; return its credit if the period is unchanged."""
        if not self.give_back(reservation_id, now, (UsageStatus.RESERVED,)):
            raise not_pending(reservation_id)

    def withdraw(self, reservation_id: int, now: datetime) -> bool:
        """Release the reservation whether pending or already committed (its answer never
        reached its client), by the rule of :meth:`release`; False if it was neither."""
        return self.give_back(reservation_id, now,
                              (UsageStatus.RESERVED, UsageStatus.COMMITTED))

    def give_back(self, reservation_id: int, now: datetime,
                  statuses: tuple[UsageStatus, ...]) -> bool:
        """Mark the usage row released if its status is among ``statuses``, its credit
        returned if the account is still in the same period (and not cancelled)."""
        tx = self.tx
        among = ", ".join("?" for _ in statuses)
        settled = f"SELECT {{}} FROM usage_log WHERE id = ? AND status IN ({among})"
        params = (reservation_id, *(status.value for status in statuses))
        row = tx.one(settled.format("account_id"), params)
        if row is None:
            return False
        account = self.accounts.touch(int(row.account_id), now)
        row = tx.one(settled.format("credits, period_index") + tx.for_update, params)
        if row is None:
            return False
        credits, period_index = int(row.credits), int(row.period_index)
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

    def stale(self, older_than: datetime) -> list[int]:
        """The reservations still pending that were made before ``older_than``."""
        rows = self.tx.rows(
            "SELECT id FROM usage_log WHERE status = ? AND created_us < ? ORDER BY id",
            (UsageStatus.RESERVED.value, to_micros(older_than)),
        )
        return [int(row.id) for row in rows]

    def statuses(self, reservation_ids: Sequence[int]) -> list[UsageStatus | None]:
        """The status of each usage row (None: no such row)."""
        marks = ", ".join("?" * len(reservation_ids))
        rows = self.tx.rows(f"SELECT id, status FROM usage_log WHERE id IN ({marks})",
                            list(reservation_ids))
        found = {int(row.id): str(row.status) for row in rows}
        return [UsageStatus(found[i]) if i in found else None for i in reservation_ids]

    def charged(self, account_id: int) -> int:
        """The credits charged to the account, all periods."""
        row = self.tx.one("SELECT SUM(credits * calls) AS charged FROM usage_log "
                          "WHERE account_id = ?", (account_id,))
        return 0 if row is None or row.charged is None else int(row.charged)
