"""A chart request's bookkeeping on PostgreSQL in one round trip per step (admission,
the fast reservation, the group commit); anything more goes the general way of
:mod:`.charges` (docs/accounts.md, "Charging protocol")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bodygraph_server.policy.clock import from_micros, to_micros
from bodygraph_server.policy.credits import period_bounds
from bodygraph_server.store.connections import Database, Row
from bodygraph_server.store.errors import CommitUncertainError, DatabaseUnavailableError
from bodygraph_server.store.records import (
    ApiKeyRecord,
    RateDecision,
    Reservation,
    UsageStatus,
    decision_from_window,
)
from bodygraph_server.store.rows import key_from_row

if TYPE_CHECKING:
    from bodygraph_server.store.postgres import PostgresConnections

#: Accounts whose period is remembered per process before the memory starts again.
MAX_REMEMBERED = 100_000

#: The request path's statements (``?`` placeholders, as every statement of the store).
ADMIT_SQL = "SELECT * FROM bodygraph_admit(?, ?, ?, ?)"
RESERVE_SQL = "SELECT * FROM bodygraph_reserve(?, ?, ?, ?, ?, ?, ?)"
COMMIT_SQL = (
    "UPDATE usage_log SET status = ?, settled_us = ? "
    "WHERE id = ANY(?) AND status = ? RETURNING id"
)


def placeholders(sql: str) -> str:
    """The store's SQL (``?`` placeholders) as psycopg wants it (``%s``)."""
    return sql.replace("%", "%%").replace("?", "%s")


@dataclass(frozen=True, slots=True)
class Admission:
    """One call of ``bodygraph_admit``: a key looked up and its window hit at ``now_us``."""

    key_hash: str
    now_us: int
    limit: int
    window_seconds: int

    @property
    def params(self) -> tuple[object, ...]:
        """The statement's parameters (:data:`ADMIT_SQL`)."""
        cutoff = self.now_us - self.window_seconds * 1_000_000
        return (self.key_hash, self.now_us, cutoff, self.limit)


def commit_params(reservation_ids: Sequence[int], now: datetime) -> tuple[object, ...]:
    """The parameters of :data:`COMMIT_SQL` (each id once, in order)."""
    return (UsageStatus.COMMITTED.value, to_micros(now), sorted(set(reservation_ids)),
            UsageStatus.RESERVED.value)


def committed(reservation_ids: Sequence[int], rows: Sequence[Row]) -> list[bool]:
    """For each id, whether :data:`COMMIT_SQL` returned it (a repeated id is committed
    once: the first time it is asked for)."""
    pending = {int(row.id) for row in rows}
    done = []
    for reservation_id in reservation_ids:
        done.append(reservation_id in pending)
        pending.discard(reservation_id)
    return done


class RequestPath:
    """The request path's calls in one round trip each (PostgreSQL, schema 5), over
    ``database``; the account periods it remembers are this process's."""

    def __init__(self, database: Database, connections: PostgresConnections) -> None:
        self.database = database
        self.connections = connections
        #: account id -> (anchor, period index, end of that period), integer microseconds
        self._periods: dict[int, tuple[int, int, int]] = {}

    def remember(self, account_id: int, created_us: int, period_index: int) -> None:
        """Remember the account's anchor and current period (for the next fast
        reservation)."""
        known = self._periods.get(account_id)
        if known is not None and known[:2] == (created_us, period_index):
            return  # the end of the period is known already
        if len(self._periods) >= MAX_REMEMBERED:
            self._periods.clear()
        end = period_bounds(from_micros(created_us), period_index)[1]
        self._periods[account_id] = (created_us, period_index, to_micros(end))

    def anchor(self, account_id: int) -> int | None:
        """The remembered anchor of the account (None: nothing remembered)."""
        known = self._periods.get(account_id)
        return None if known is None else known[0]

    def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """The key and (active account) the rate-limit hit: one round trip."""
        admission = Admission(key_hash, to_micros(now), limit, window_seconds)
        with self.database.alone() as tx:
            row = tx.one(ADMIT_SQL, admission.params)
        return self.admitted(admission, row)

    def admitted(
        self, admission: Admission, row: Row | None
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """What ``bodygraph_admit``'s row says; remembers the account's period."""
        if row is None:
            return None, None
        record = key_from_row(row)
        self.remember(record.account_id, int(row.created_us), int(row.period_index))
        if row.allowed is None:  # inactive: nothing counted
            return record, None
        oldest = None if row.oldest_us is None else int(row.oldest_us)
        return record, decision_from_window(
            allowed=bool(row.allowed), count=int(row.hits), oldest_us=oldest,
            now_us=admission.now_us, limit=admission.limit,
            window_seconds=admission.window_seconds,
        )

    def fast_reservation(
        self, account_id: int, endpoint: str, now: datetime
    ) -> tuple[tuple[object, ...], int] | None:
        """The parameters of :data:`RESERVE_SQL` and the period index, when the account's
        period is remembered (else None: only the general reservation will do)."""
        known = self._periods.get(account_id)
        if known is None:
            return None
        created_us, period_index, end_us = known
        return (account_id, endpoint, to_micros(now), created_us, period_index, end_us,
                UsageStatus.RESERVED.value), period_index

    def reserve(self, account_id: int, endpoint: str, now: datetime) -> Reservation | None:
        """Take 1 credit (or record an overage call) in one round trip when that is all
        there is to do; None otherwise (the general reservation has work to do)."""
        fast = self.fast_reservation(account_id, endpoint, now)
        if fast is None:
            return None
        params, period_index = fast
        with self.database.alone() as tx:
            row = tx.one(RESERVE_SQL, params)
        return None if row is None else reservation_from_row(
            row, account_id, endpoint, period_index)

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations in one statement (its own transaction); for each,
        whether it was pending. :class:`CommitUncertainError` when the connection fails
        (the outcome is then unknown: :mod:`.outcomes`)."""
        if not reservation_ids:
            return []
        try:
            with self.database.alone() as tx:
                rows = tx.rows(COMMIT_SQL, commit_params(reservation_ids, now))
        except DatabaseUnavailableError as exc:
            # The statement is its own transaction: once sent, the server may have
            # committed it whatever became of the answer (the caller finds out, .outcomes).
            raise CommitUncertainError(f"{exc} (while committing)") from exc
        return committed(reservation_ids, rows)


def reservation_from_row(
    row: Row, account_id: int, endpoint: str, period_index: int
) -> Reservation:
    """The reservation ``bodygraph_reserve`` made (its row: id, credits, overage, balance)."""
    return Reservation(
        id=int(row.usage_id), account_id=account_id, period_index=period_index,
        endpoint=endpoint, credits=int(row.credits), overage=bool(row.overage),
        balance_after=int(row.balance_after),
    )
