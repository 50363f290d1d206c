"""The jobs' completion webhooks in the SQL stores (tables ``webhook_deliveries`` and
``webhook_attempts``): an outbox of events to send, claimed by one sender at a time, and
the log of every attempt (:mod:`bodygraph_server.webhooks.delivery` sends them)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bodygraph_server.policy.clock import from_micros, from_micros_or_none, to_micros
from bodygraph_server.store.base import TransactionSource
from bodygraph_server.store.connections import Row, Tx

#: Longest error text kept for an attempt.
MAX_ERROR_CHARS = 300


@dataclass(frozen=True, slots=True)
class Delivery:
    """A webhook to send: its event ``body`` (JSON text, signed as it is), its stable
    ``message_id`` (the ``webhook-id`` of every attempt) and where it stands."""

    id: int
    message_id: str
    account_id: int
    job_id: str
    url: str
    body: str
    state: str  # 'pending', 'delivered' or 'failed'
    attempts: int
    next_attempt: datetime
    created: datetime
    finished: datetime | None


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of a delivery: when, how long, the answer's status (None: none came)
    and what went wrong ("" when it was delivered)."""

    delivery_id: int
    attempt: int
    started: datetime
    duration: timedelta
    status_code: int | None
    error: str


_DELIVERY = ("SELECT id, message_id, account_id, job_id, url, body, state, attempts, "
             "next_attempt_us, created_us, finished_us FROM webhook_deliveries")


def _delivery(row: Row) -> Delivery:
    return Delivery(
        id=int(row.id), message_id=str(row.message_id), account_id=int(row.account_id),
        job_id=str(row.job_id), url=str(row.url), body=str(row.body), state=str(row.state),
        attempts=int(row.attempts), next_attempt=from_micros(int(row.next_attempt_us)),
        created=from_micros(int(row.created_us)),
        finished=from_micros_or_none(row.finished_us))


class WebhookRepository:
    """The webhook outbox within one transaction (so that a job's end and its event are
    stored together, or neither is)."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def enqueue(self, *, message_id: str, account_id: int, job_id: str, url: str,
                body: str, now: datetime) -> bool:
        """Store a delivery due at once; False (and nothing stored) when the job already
        has one: a job ends once, whatever restarts happen."""
        changed = self.tx.execute(
            "INSERT INTO webhook_deliveries (message_id, account_id, job_id, url, body, "
            "state, attempts, next_attempt_us, created_us) "
            "VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (job_id) DO NOTHING",
            (message_id, account_id, job_id, url, body, to_micros(now), to_micros(now)))
        return changed == 1

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[Delivery]:
        """Up to ``limit`` pending deliveries due at ``now``, each with its attempt counted
        and hidden from other senders for ``lease`` (a sender that dies mid-attempt leaves
        it to be claimed again once the lease is over)."""
        tx = self.tx
        rows = tx.rows(f"{_DELIVERY} WHERE state = 'pending' AND next_attempt_us <= ? "
                       f"ORDER BY next_attempt_us, id LIMIT ?{tx.for_update}",
                       (to_micros(now), limit))
        until = now + lease
        claimed = []
        for row in rows:
            tx.execute("UPDATE webhook_deliveries SET attempts = attempts + 1, "
                       "next_attempt_us = ? WHERE id = ?", (to_micros(until), int(row.id)))
            found = _delivery(row)
            claimed.append(replace(found, attempts=found.attempts + 1, next_attempt=until))
        return claimed

    def record(self, delivery: Delivery, *, started: datetime, duration: timedelta,
               status_code: int | None, error: str, retry_at: datetime | None) -> bool:
        """Log attempt ``delivery.attempts`` (as claimed) and settle the delivery:
        delivered when ``error`` is empty, else due again at ``retry_at`` or failed for
        good when it is None. The attempt is logged in any case; False when the delivery
        was not settled by it: another sender claimed it after the lease ran out."""
        tx = self.tx
        number = delivery.attempts
        tx.execute(
            "INSERT INTO webhook_attempts (delivery_id, attempt, started_us, duration_us, "
            "status_code, error) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (delivery_id, attempt) DO NOTHING",
            (delivery.id, number, to_micros(started),
             duration // timedelta(microseconds=1), status_code, error[:MAX_ERROR_CHARS]))
        end = to_micros(started + duration)
        if not error:
            sql, params = ("state = 'delivered', finished_us = ?", (end,))
        elif retry_at is None:
            sql, params = ("state = 'failed', finished_us = ?", (end,))
        else:
            sql, params = ("next_attempt_us = ?", (to_micros(retry_at),))
        changed = tx.execute(
            f"UPDATE webhook_deliveries SET {sql} "
            "WHERE id = ? AND attempts = ? AND state = 'pending'",
            (*params, delivery.id, number))
        return changed == 1

    def find(self, job_id: str) -> Delivery | None:
        """The delivery of ``job_id``'s event, if any."""
        row = self.tx.one(f"{_DELIVERY} WHERE job_id = ?", (job_id,))
        return None if row is None else _delivery(row)

    def attempts(self, delivery_id: int) -> list[Attempt]:
        """The attempts of a delivery, first first."""
        rows = self.tx.rows(
            "SELECT delivery_id, attempt, started_us, duration_us, status_code, error "
            "FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt", (delivery_id,))
        return [Attempt(delivery_id=int(r.delivery_id), attempt=int(r.attempt),
                        started=from_micros(int(r.started_us)),
                        duration=timedelta(microseconds=int(r.duration_us)),
                        status_code=None if r.status_code is None else int(r.status_code),
                        error=str(r.error)) for r in rows]

    def next_due(self) -> datetime | None:
        """When the earliest pending delivery is due (None: nothing pending)."""
        row = self.tx.one("SELECT MIN(next_attempt_us) AS due FROM webhook_deliveries "
                          "WHERE state = 'pending'")
        return None if row is None else from_micros_or_none(row.due)

    def prune(self, finished_before: datetime) -> int:
        """Delete the deliveries (and their attempts) finished before ``finished_before``;
        how many."""
        cutoff = to_micros(finished_before)
        self.tx.execute("DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM "
                        "webhook_deliveries WHERE state <> 'pending' AND finished_us < ?)",
                        (cutoff,))
        return self.tx.execute("DELETE FROM webhook_deliveries "
                               "WHERE state <> 'pending' AND finished_us < ?", (cutoff,))


class SqlWebhookOutbox:
    """The webhook outbox in the bookkeeping database, each call its own transaction.
    Blocking; call from a worker thread."""

    def __init__(self, store: TransactionSource) -> None:
        self._store = store

    def enqueue(self, *, message_id: str, account_id: int, job_id: str, url: str,
                body: str, now: datetime) -> bool:
        """:meth:`WebhookRepository.enqueue` in a transaction of its own."""
        with self._store.write_transaction() as tx:
            return WebhookRepository(tx).enqueue(
                message_id=message_id, account_id=account_id, job_id=job_id, url=url,
                body=body, now=now)

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[Delivery]:
        """:meth:`WebhookRepository.claim_due` in a transaction of its own."""
        with self._store.write_transaction() as tx:
            return WebhookRepository(tx).claim_due(now, lease, limit)

    def record(self, delivery: Delivery, *, started: datetime, duration: timedelta,
               status_code: int | None, error: str, retry_at: datetime | None) -> bool:
        """:meth:`WebhookRepository.record` in a transaction of its own."""
        with self._store.write_transaction() as tx:
            return WebhookRepository(tx).record(
                delivery, started=started, duration=duration, status_code=status_code,
                error=error, retry_at=retry_at)

    def find(self, job_id: str) -> Delivery | None:
        """The delivery of ``job_id``'s event, if any."""
        with self._store.read_transaction() as tx:
            return WebhookRepository(tx).find(job_id)

    def attempts(self, delivery_id: int) -> list[Attempt]:
        """The attempts of a delivery, first first."""
        with self._store.read_transaction() as tx:
            return WebhookRepository(tx).attempts(delivery_id)

    def next_due(self) -> datetime | None:
        """When the earliest pending delivery is due (None: nothing pending)."""
        with self._store.read_transaction() as tx:
            return WebhookRepository(tx).next_due()

    def prune(self, finished_before: datetime) -> int:
        """:meth:`WebhookRepository.prune` in a transaction of its own."""
        with self._store.write_transaction() as tx:
            return WebhookRepository(tx).prune(finished_before)
