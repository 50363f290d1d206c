"""The bookkeeping of a chart request on PostgreSQL in one round trip per step.

On the SQL path every statement is a network round trip (and ``BEGIN``/``COMMIT`` two
more): a request's key lookup, rate-limit hit, reservation and commit took 18. Here:

* :meth:`admit_key`: the key lookup and the rate-limit hit in one call of the server-side
  function ``bodygraph_admit`` (schema 5), in autocommit mode, so the call is the whole
  transaction; the hit's commit does not wait for the WAL flush, as before.
* :meth:`reserve`: ``bodygraph_reserve`` takes the credit (or records the overage call)
  when that is all there is to do (the account active, in the period it was in when its
  key was last looked up, not cancelled). Anything else (a period boundary, a refusal, an
  idempotency key) leaves no trace and goes the general way of
  :class:`~bodygraph_server.store.charges.ChargeRepository`, whose rules stay the only
  rules. The reservation still waits for the WAL flush (see ``docs/accounts.md``).
* :meth:`commit_many`: the group commit as one ``UPDATE ... WHERE id = ANY(...)``.

What the fast reservation needs to know about an account (its anchor, the period it was
in and that period's end) is remembered per process from the last :meth:`admit_key` or
reservation; the function checks it against the locked row, so a stale memory only
sends a call the general way.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bodygraph_server.policy.clock import from_micros, to_micros
from bodygraph_server.policy.credits import period_bounds
from bodygraph_server.store.errors import CommitUncertainError, DatabaseUnavailableError
from bodygraph_server.store.records import (
    ApiKeyRecord,
    ChargeRefusal,
    IdempotencyClaim,
    RateDecision,
    Replay,
    Reservation,
    UsageStatus,
    decision_from_window,
)
from bodygraph_server.store.rows import key_from_row
from bodygraph_server.store.sql import SqlStore

#: Accounts whose period is remembered per process before the memory starts again.
MAX_REMEMBERED = 100_000


class RequestCalls(SqlStore):
    """The request path's calls in one round trip each (PostgreSQL, schema 5)."""

    def __init__(self, url: str) -> None:
        #: account id -> (anchor, period index, end of that period), integer microseconds
        self._periods: dict[int, tuple[int, int, int]] = {}
        super().__init__(url)

    def _remember(self, account_id: int, created_us: int, period_index: int) -> None:
        known = self._periods.get(account_id)
        if known is not None and known[:2] == (created_us, period_index):
            return  # the end of the period is known already
        if len(self._periods) >= MAX_REMEMBERED:
            self._periods.clear()
        end = period_bounds(from_micros(created_us), period_index)[1]
        self._periods[account_id] = (created_us, period_index, to_micros(end))

    def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """The key and (active account) the rate-limit hit: one round trip."""
        now_us = to_micros(now)
        with self.alone() as tx:
            row = tx.one(
                "SELECT * FROM bodygraph_admit(?, ?, ?, ?)",
                (key_hash, now_us, now_us - window_seconds * 1_000_000, limit),
            )
        if row is None:
            return None, None
        record = key_from_row(row[:7])
        self._remember(record.account_id, int(row[7]), int(row[8]))
        if row[9] is None:  # inactive: nothing counted
            return record, None
        count, oldest = int(row[10]), None if row[11] is None else int(row[11])
        return record, decision_from_window(
            allowed=bool(row[9]), count=count, oldest_us=oldest, now_us=now_us, limit=limit,
            window_seconds=window_seconds,
        )

    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: IdempotencyClaim | None = None,
    ) -> Reservation | ChargeRefusal | Replay:
        """Take 1 credit (or record an overage call) in one round trip when that is all
        there is to do; otherwise (or with ``claim``) the general reservation."""
        known = self._periods.get(account_id) if claim is None else None
        if known is not None:
            created_us, period_index, end_us = known
            with self.alone() as tx:
                row = tx.one(
                    "SELECT * FROM bodygraph_reserve(?, ?, ?, ?, ?, ?, ?)",
                    (account_id, endpoint, to_micros(now), created_us, period_index, end_us,
                     UsageStatus.RESERVED.value),
                )
            if row is not None:
                return Reservation(
                    id=int(row[0]), account_id=account_id, period_index=period_index,
                    endpoint=endpoint, credits=int(row[1]), overage=bool(row[2]),
                    balance_after=int(row[3]),
                )
        outcome = super().reserve(account_id, endpoint, now, claim)
        if known is not None and isinstance(outcome, Reservation):
            self._remember(account_id, known[0], outcome.period_index)
        return outcome

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations in one statement (its own transaction); for each,
        whether it was pending. :class:`CommitUncertainError` when the connection fails
        (the outcome is then unknown: :mod:`.outcomes`)."""
        if not reservation_ids:
            return []
        try:
            with self.alone() as tx:
                rows = tx.rows(
                    "UPDATE usage_log SET status = ?, settled_us = ? "
                    "WHERE id = ANY(?) AND status = ? RETURNING id",
                    (UsageStatus.COMMITTED.value, to_micros(now), sorted(set(reservation_ids)),
                     UsageStatus.RESERVED.value),
                )
        except DatabaseUnavailableError as exc:
            # The statement is its own transaction: once sent, the server may have
            # committed it whatever became of the answer (the caller finds out, .outcomes).
            raise CommitUncertainError(f"{exc} (while committing)") from exc
        pending = {int(row[0]) for row in rows}
        done = []
        for reservation_id in reservation_ids:  # a repeated id is committed once
            done.append(reservation_id in pending)
            pending.discard(reservation_id)
        return done
