"""What the bookkeeping's consumers need of the store, as narrow protocols (the one
implementation: :class:`~bodygraph_server.store.sql.SqlStore`; the contract:
docs/accounts.md)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import TYPE_CHECKING, Protocol

from bodygraph_server.policy.plans import Billing, Plan
from bodygraph_server.store import records
from bodygraph_server.store.errors import ReservationNotFoundError

if TYPE_CHECKING:  # psycopg is imported only by the PostgreSQL backend
    from bodygraph_server.store import job_records as jobs
    from bodygraph_server.store.account_usage import AccountOverview, EndpointDay
    from bodygraph_server.store.async_request_path import AsyncRequestPath
    from bodygraph_server.store.connections import Tx


class AccountStore(Protocol):
    """Accounts and their API keys (the admin CLI, authentication)."""

    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> records.Account: ...

    def get_account(self, account_id: int, now: datetime) -> records.Account: ...

    def list_accounts(self, now: datetime) -> list[records.Account]: ...

    def has_accounts(self) -> bool: ...

    def find_key(self, key_hash: str) -> records.ApiKeyRecord | None: ...

    def rotate_key(
        self, account_id: int, key_hash: str, key_prefix: str, now: datetime
    ) -> records.Account: ...

    def set_active(self, account_id: int, active: bool, now: datetime) -> records.Account: ...

    def cancel(self, account_id: int, now: datetime) -> records.Account: ...

    def set_overage(self, account_id: int, enabled: bool, now: datetime) -> records.Account: ...


class ChargeStore(Protocol):
    """Reservations of credits, their settlement and the idempotency keys."""

    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: records.IdempotencyClaim | None = None,
    ) -> records.Reservation | records.ChargeRefusal | records.Replay: ...

    def general_reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: records.IdempotencyClaim | None = None,
    ) -> records.Reservation | records.ChargeRefusal | records.Replay: ...

    def commit(self, reservation_id: int, now: datetime) -> None: ...

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations; for each, whether it was pending. What it means:
        this body, one commit after the other (the store does it in one transaction)."""
        done = []
        for reservation_id in reservation_ids:
            try:
                self.commit(reservation_id, now)
            except ReservationNotFoundError:
                done.append(False)
            else:
                done.append(True)
        return done

    def usage_statuses(
        self, reservation_ids: Sequence[int]
    ) -> list[records.UsageStatus | None]: ...

    def release(self, reservation_id: int, now: datetime) -> None: ...

    def withdraw(self, reservation_id: int, now: datetime) -> bool: ...

    def claimed_reservation(self, key_hash: str, made: datetime) -> int | None: ...

    def release_stale(self, older_than: datetime, now: datetime) -> int: ...

    def prune_idempotency(self, older_than: datetime) -> int: ...


class BatchChargeStore(Protocol):
    """Many reservations of one account at once (the batch endpoint)."""

    def reserve_many(
        self, account_id: int, endpoint: str, count: int, now: datetime,
        claim: records.IdempotencyClaim | None = None,
    ) -> list[records.Reservation] | records.ChargeRefusal | records.Replay: ...

    def release_claim(self, account_id: int, claim: records.IdempotencyClaim,
                      made: datetime, now: datetime, count: int = 1) -> int: ...

    def claim_unpaid(self, account_id: int, claim: records.IdempotencyClaim,
                     now: datetime) -> records.Replay | None: ...

    def release_many(self, account_id: int, reservation_ids: Sequence[int],
                     now: datetime) -> int: ...

    def settle_batch(self, account_id: int, used: Sequence[int], unused: Sequence[int],
                     now: datetime, key_hash: str | None = None) -> None: ...


class LedgerStore(Protocol):
    """Adjustments, the ledger, usage reports and the audit."""

    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> records.LedgerEntry: ...

    def ledger(self, account_id: int, now: datetime) -> list[records.LedgerEntry]: ...

    def usage(self, account_id: int, now: datetime) -> list[records.PeriodUsage]: ...

    def audit(self, account_id: int, now: datetime) -> records.Audit: ...


class RateWindowStore(Protocol):
    """The sliding-window rate limit kept in the database."""

    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> records.RateDecision: ...

    def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[records.ApiKeyRecord | None, records.RateDecision | None]: ...

    def carry_rate_hits(self, source: str, target: str, now: datetime,
                        window_seconds: int) -> int: ...

    def prune_rate_hits(self, older_than: datetime) -> int: ...


class RenderKeyStore(Protocol):
    """The render signing keys (:mod:`bodygraph_server.images.signing_keys`)."""

    def render_keys(self) -> list[tuple[str, bytes]]: ...

    def ensure_render_key(
        self, kid: str, secret: bytes, now: datetime
    ) -> list[tuple[str, bytes]]: ...

    def add_render_key(self, kid: str, secret: bytes, now: datetime) -> None: ...


class SelfServiceStore(Protocol):
    """What an account's owner sees and does of it (the self-service account API)."""

    def account_overview(self, account_id: int, now: datetime) -> AccountOverview: ...

    def rotate_own_key(self, account_id: int, key_id: int, *, key_hash: str, key_prefix: str,
                       now: datetime) -> records.Account | None: ...

    def replayed_rotation(self, old_hash: str, new_hash: str, *,
                          since: datetime) -> records.Account | None: ...

    def usage_by_day(self, account_id: int, first_day: date) -> list[EndpointDay]: ...


class WebhookSecretStore(Protocol):
    """Each account's webhook signing secret (the job runner signs with it)."""

    def webhook_secret(self, account_id: int, now: datetime | None = None) -> str: ...

    def rotate_webhook_secret(self, account_id: int, now: datetime) -> str: ...


class TransactionSource(Protocol):
    """Transactions for the tables the store does not own (render templates, calendar
    blocks)."""

    def write_transaction(self) -> AbstractContextManager[Tx]: ...

    def read_transaction(self) -> AbstractContextManager[Tx]: ...

    def lock_account(self, tx: Tx, account_id: int) -> None: ...


class JobStore(Protocol):
    """The asynchronous jobs (:class:`~bodygraph_server.store.jobs.SqlJobs`, over a
    :class:`TransactionSource`; docs/jobs.md)."""

    def create(self, new: jobs.NewJob, now: datetime
               ) -> jobs.Created | records.ChargeRefusal | records.Replay: ...

    def get(self, job_id: str, account_id: int | None = None) -> jobs.JobRecord | None: ...

    def recent(self, account_id: int | None = None, *, limit: int = 100
             ) -> list[jobs.JobRecord]: ...

    def claim(self, now: datetime) -> jobs.ClaimedChunk | None: ...

    def complete(self, chunk: jobs.ClaimedChunk, output: bytes, failed: int,
                 now: datetime) -> jobs.JobRecord | None: ...

    def give_up(self, chunk: jobs.ClaimedChunk, now: datetime, *,
                attempts: int) -> jobs.JobRecord | None: ...

    def release(self, chunk: jobs.ClaimedChunk) -> None: ...

    def cancel(self, job_id: str, account_id: int | None,
               now: datetime) -> jobs.JobRecord | None: ...

    def settle_ended(self, now: datetime) -> int: ...

    def outputs(self, job_id: str) -> Iterator[bytes]: ...

    def unnotified(self, limit: int = 100) -> list[jobs.JobRecord]: ...

    def mark_notified(self, job_id: str, now: datetime) -> None: ...

    def sweep(self, now: datetime) -> int: ...


class Store(AccountStore, ChargeStore, BatchChargeStore, LedgerStore, RateWindowStore,
            RenderKeyStore, TransactionSource, SelfServiceStore, WebhookSecretStore,
            Protocol):
    """Everything the bookkeeping facade (:class:`~bodygraph_server.billing.accounts.
    Bookkeeper`) hands out, with the store's lifecycle."""

    url: str

    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    def ping(self) -> None: ...

    def check_writable(self) -> None: ...

    def async_request_path(self) -> AsyncRequestPath | None: ...
