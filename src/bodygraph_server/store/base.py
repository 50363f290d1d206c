"""The one storage interface of the bookkeeping: accounts, API keys, credits, usage,
the ledger and the sliding-window rate limit.

Backends: :mod:`.sqlite` (default, stdlib ``sqlite3`` in WAL mode) and :mod:`.postgres`
(psycopg 3). Open one with :func:`bodygraph_server.store.open_store`. Every backend
creates or migrates its schema when opened.

Contract for every backend:

* Methods are blocking and thread-safe (one connection per thread and process); call them
  from a thread pool in async code (``starlette.concurrency.run_in_threadpool``).
* Every instant passed in (``now``) is an aware UTC ``datetime`` from the caller's clock;
  backends never read the system time, so tests can inject time.
* Periods roll over lazily: every method that touches an account first applies
  :func:`bodygraph_server.policy.credits.roll_forward` inside the same transaction.
* Charging is atomic across threads and processes: :meth:`Store.reserve` locks the account
  (SQLite ``BEGIN IMMEDIATE``; PostgreSQL ``SELECT ... FOR UPDATE``), so no credit is spent
  twice and the balance never goes negative.
* Nothing about a chart (birth data, place, coordinates) is ever passed in or stored;
  usage rows hold the endpoint path, the credits taken, the overage flag, status and time.

Charging protocol (credits are taken before the chart is computed, and given back if it
fails, so a call can never succeed without a credit):

1. ``reservation = store.reserve(account_id, endpoint, now)`` -> a :class:`Reservation`
   or a :class:`ChargeRefusal`.
2. Compute the chart.
3. Success: ``store.commit(reservation.id, now)``. Failure: ``store.release(reservation.id,
   now)`` returns the credit (if the period is unchanged) and the call is not billed.

Ledger invariant, always true:
``sum(ledger deltas) - sum(usage credits) == balance`` (see :meth:`Store.audit`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from bodygraph_server.policy.plans import Billing, Plan
from bodygraph_server.store import records
from bodygraph_server.store.errors import ReservationNotFoundError

if TYPE_CHECKING:  # psycopg is imported only by the PostgreSQL backend
    from bodygraph_server.store.async_calls import AsyncRequestCalls


class Store(ABC):
    """The bookkeeping's persistence. See the module docstring for the contract."""

    url: str

    # -- lifecycle -------------------------------------------------------------------------

    @abstractmethod
    def schema_version(self) -> int:
        """The highest migration applied (migrations run automatically when opened)."""

    @abstractmethod
    def close(self) -> None:
        """Close every connection this store opened (in this process)."""

    @abstractmethod
    def ping(self) -> None:
        """Return if the database answers a query, else raise
        :class:`~bodygraph_server.store.errors.DatabaseUnavailableError`."""

    @abstractmethod
    def check_writable(self) -> None:
        """Return if the database stores a write (committed), else raise
        :class:`~bodygraph_server.store.errors.DatabaseUnavailableError`: read-only, full
        or locked, it cannot charge."""

    def on_loop(self) -> AsyncRequestCalls | None:
        """The request path's statements on the running event loop, where the backend has
        them (PostgreSQL); None: every call goes through the bookkeeping threads."""
        return None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- accounts and keys -----------------------------------------------------------------

    @abstractmethod
    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> records.Account:
        """Create an account with its first API key (given as hash) and its first
        allocation; the period anchor is ``now`` truncated to whole seconds."""

    @abstractmethod
    def get_account(self, account_id: int, now: datetime) -> records.Account:
        """The account (periods rolled forward); AccountNotFoundError if absent."""

    @abstractmethod
    def list_accounts(self, now: datetime) -> list[records.Account]:
        """All accounts by id (periods rolled forward)."""

    @abstractmethod
    def has_accounts(self) -> bool:
        """Whether any account exists (one cheap query)."""

    @abstractmethod
    def find_key(self, key_hash: str) -> records.ApiKeyRecord | None:
        """The current (not rotated-away) key with this hash, or None."""

    @abstractmethod
    def rotate_key(
        self, account_id: int, key_hash: str, key_prefix: str, now: datetime
    ) -> records.Account:
        """Revoke every key of the account (immediately) and store the new one."""

    @abstractmethod
    def set_active(self, account_id: int, active: bool, now: datetime) -> records.Account:
        """Deactivate or reactivate the account."""

    @abstractmethod
    def cancel(self, account_id: int, now: datetime) -> records.Account:
        """Request cancellation: effective at the end of the current billing period.
        Idempotent (a second request keeps the first date)."""

    @abstractmethod
    def set_overage(self, account_id: int, enabled: bool, now: datetime) -> records.Account:
        """Enable or disable overage billing."""

    # -- credits ---------------------------------------------------------------------------

    @abstractmethod
    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> records.LedgerEntry:
        """Set the balance to ``balance`` (>= 0), recording the difference in the ledger.
        InvalidOperationError on a cancelled account."""

    @abstractmethod
    def reserve(
        self, account_id: int, endpoint: str, now: datetime,
        claim: records.IdempotencyClaim | None = None,
    ) -> records.Reservation | records.ChargeRefusal | records.Replay:
        """Atomically take 1 credit (or record an overage call) for a call to
        ``endpoint``; a :class:`ChargeRefusal` when the call must not proceed. With
        ``claim`` (an idempotency key) and a key used since ``claim.since``: a
        :class:`Replay` and nothing taken; otherwise the key is linked to this charge."""

    @abstractmethod
    def prune_idempotency(self, older_than: datetime) -> int:
        """Delete the idempotency keys used before ``older_than``; how many."""

    @abstractmethod
    def commit(self, reservation_id: int, now: datetime) -> None:
        """Mark a reservation as a successful, billed call (a lost acknowledgement of
        the commit: :class:`~bodygraph_server.store.errors.CommitUncertainError`)."""

    def commit_many(self, reservation_ids: Sequence[int], now: datetime) -> list[bool]:
        """Commit several reservations (as :meth:`commit` does); for each, whether it was
        pending. Backends may do it in one transaction; this default commits one by one."""
        done = []
        for reservation_id in reservation_ids:
            try:
                self.commit(reservation_id, now)
            except ReservationNotFoundError:
                done.append(False)
            else:
                done.append(True)
        return done

    @abstractmethod
    def usage_statuses(
        self, reservation_ids: Sequence[int]
    ) -> list[records.UsageStatus | None]:
        """The status of each reservation's usage row (None: unknown id): how a commit
        whose acknowledgement was lost (:class:`CommitUncertainError`) turned out."""

    @abstractmethod
    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel a reservation because the call failed: the credit goes back to the
        balance if the account is still in the same period (and not cancelled); the call
        is never billed as overage."""

    @abstractmethod
    def claimed_reservation(self, key_hash: str, made: datetime) -> int | None:
        """The reservation linked to idempotency key ``key_hash`` (its hash) if its
        current claim was made at ``made`` (the instant a reservation with the claim
        was asked for); None otherwise."""

    @abstractmethod
    def withdraw(self, reservation_id: int, now: datetime) -> bool:
        """Release a reservation as :meth:`release` does, also one already committed (a
        charge whose answer never reached its client: the worker died before writing it,
        or the client was gone); False if it was neither pending nor committed."""

    @abstractmethod
    def release_stale(self, older_than: datetime, now: datetime) -> int:
        """Release (as :meth:`release` does) every reservation still pending that was made
        before ``older_than``: its call died with its process. The number released."""

    @abstractmethod
    def ledger(self, account_id: int, now: datetime) -> list[records.LedgerEntry]:
        """Every ledger entry of the account, oldest first."""

    @abstractmethod
    def usage(self, account_id: int, now: datetime) -> list[records.PeriodUsage]:
        """Per-period usage from the first period to the current one, oldest first."""

    @abstractmethod
    def audit(self, account_id: int, now: datetime) -> records.Audit:
        """The ledger check (see :class:`Audit`)."""

    # -- rate limiting ---------------------------------------------------------------------

    @abstractmethod
    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> records.RateDecision:
        """Sliding window: accept and record this request if fewer than ``limit``
        requests were accepted for ``bucket`` in ``(now - window, now]``; atomic across
        processes. Refused requests are not recorded."""

    def admit_key(
        self, key_hash: str, now: datetime, limit: int, window_seconds: int
    ) -> tuple[records.ApiKeyRecord | None, records.RateDecision | None]:
        """:meth:`find_key` and, when the key is current and its account active, the
        request's :meth:`rate_limit_hit` on the bucket ``key_hash``: the key (None if
        unknown) and the decision (None when nothing was counted). Backends may do both
        in one round trip; this default makes two calls."""
        record = self.find_key(key_hash)
        if record is None or not record.account_active:
            return record, None
        return record, self.rate_limit_hit(key_hash, now, limit, window_seconds)

    @abstractmethod
    def prune_rate_hits(self, older_than: datetime) -> int:
        """Delete the rate-limit hits made before ``older_than`` (idle keys' included, so
        the table stays bounded); how many."""
