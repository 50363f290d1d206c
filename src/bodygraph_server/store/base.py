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

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from bodygraph_server.policy.credits import (
    LedgerKind,
    billing_months,
    is_cancelled,
    period_bounds,
)
from bodygraph_server.policy.plans import Billing, Plan, get_plan


class StoreError(Exception):
    """Base class of the bookkeeping's errors (all carry a one-line message)."""


class DatabaseURLError(StoreError):
    """``BODYGRAPH_DATABASE_URL`` is malformed or names an unsupported backend."""


class DatabaseUnavailableError(StoreError):
    """The database cannot be opened or reached."""


class AccountNotFoundError(StoreError):
    """No account has the given id."""


class InvalidOperationError(StoreError):
    """The operation does not apply to the account in its current state."""


class ReservationNotFoundError(StoreError):
    """No pending reservation has the given id (unknown, or already committed/released)."""


class AccountStatus(StrEnum):
    """An account's condition as shown by the admin CLI."""

    ACTIVE = "active"
    INACTIVE = "inactive"
    """Deactivated by an administrator: requests give ACCOUNT_INACTIVE."""
    CANCELLING = "cancelling"
    """Cancellation requested; the plan stays usable until ``cancel_at``."""
    CANCELLED = "cancelled"
    """Cancellation took effect: balance 0, nothing allocated, requests give
    CREDITS_EXHAUSTED."""


@dataclass(frozen=True, slots=True)
class Account:
    """An account as stored (after lazy period rollover)."""

    id: int
    plan: Plan
    billing: Billing
    created_at: datetime
    """The anchor of the credit periods (whole seconds, UTC)."""
    active: bool
    overage_enabled: bool
    cancel_requested_at: datetime | None
    cancel_at: datetime | None
    """When a requested cancellation takes effect (end of the billing period), else None."""
    period_index: int
    balance: int
    key_prefix: str | None
    """The first characters of the current API key (for recognising it), None if none."""

    def status(self, now: datetime) -> AccountStatus:
        """The account's condition at ``now``."""
        if is_cancelled(self.cancel_at, now):
            return AccountStatus.CANCELLED
        if not self.active:
            return AccountStatus.INACTIVE
        if self.cancel_at is not None:
            return AccountStatus.CANCELLING
        return AccountStatus.ACTIVE

    @property
    def period_start(self) -> datetime:
        """Start of the current credit period (inclusive)."""
        return period_bounds(self.created_at, self.period_index)[0]

    @property
    def period_end(self) -> datetime:
        """End of the current credit period (exclusive): the next reset."""
        return period_bounds(self.created_at, self.period_index)[1]

    @property
    def billing_period_end(self) -> datetime:
        """End of the current billing period (annual billing: 12 credit periods)."""
        months = billing_months(self.billing)
        end_index = (self.period_index // months + 1) * months
        return period_bounds(self.created_at, end_index)[0]


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """A stored API key (only its hash) joined with the owning account's state."""

    key_id: int
    key_hash: str
    account_id: int
    created_at: datetime
    account_active: bool
    plan: Plan
    overage_enabled: bool


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """A stored balance change other than a charge (charges live in the usage log)."""

    id: int
    account_id: int
    at: datetime
    period_index: int
    kind: LedgerKind
    delta: int
    balance_after: int
    note: str


class ChargeRefusal(StrEnum):
    """Why :meth:`Store.reserve` took no credit."""

    CREDITS_EXHAUSTED = "CREDITS_EXHAUSTED"
    """Balance 0 and overage disabled, or the cancellation took effect."""
    ACCOUNT_INACTIVE = "ACCOUNT_INACTIVE"
    """The account was deactivated (possibly between authentication and the charge)."""


@dataclass(frozen=True, slots=True)
class Reservation:
    """A pending charge: 1 credit taken (``credits == 1``) or an overage call
    (``credits == 0 and overage``)."""

    id: int
    account_id: int
    period_index: int
    endpoint: str
    credits: int
    overage: bool
    balance_after: int


class UsageStatus(StrEnum):
    """State of a usage row."""

    RESERVED = "reserved"
    COMMITTED = "committed"
    RELEASED = "released"


@dataclass(frozen=True, slots=True)
class PeriodUsage:
    """One credit period of the usage report."""

    period_index: int
    start: datetime
    end: datetime
    calls: int
    """Committed (successful) calls."""
    credits: int
    """Credits spent in the period (committed, pending, and failed calls whose credit could
    not be returned because the period had closed)."""
    overage_calls: int
    """Committed calls made with no credit left while overage was enabled."""
    overage_price: Decimal
    """EUR, at the plan's overage rate, rounded half-up to cents."""
    pending: int
    """Reservations neither committed nor released yet."""
    allocated: int
    """Credits allocated at the start of the period."""


@dataclass(frozen=True, slots=True)
class RateDecision:
    """The outcome of one sliding-window check (see :mod:`bodygraph_server.billing.ratelimit`)."""

    allowed: bool
    limit: int
    window_seconds: int
    remaining: int
    """Requests still accepted in the current window after this one."""
    reset_seconds: int
    """Whole seconds (rounded up, >= 1) until the oldest counted request leaves the window,
    i.e. until a slot frees; ``window_seconds`` when nothing is counted."""

    @property
    def retry_after(self) -> int | None:
        """Seconds to wait before retrying, only when refused."""
        return None if self.allowed else self.reset_seconds


@dataclass(frozen=True, slots=True)
class Audit:
    """The ledger check of one account: ``ledger_total - charged == balance`` must hold."""

    ledger_total: int
    charged: int
    balance: int

    @property
    def balanced(self) -> bool:
        """Whether the books balance."""
        return self.ledger_total - self.charged == self.balance and self.balance >= 0


def decision_from_window(
    *,
    allowed: bool,
    count: int,
    oldest_us: int | None,
    now_us: int,
    limit: int,
    window_seconds: int,
) -> RateDecision:
    """Build a :class:`RateDecision` from the window after the check: ``count`` requests
    counted (including this one if accepted), the oldest at ``oldest_us``."""
    if oldest_us is None or count == 0:
        reset = window_seconds
    else:
        frees_in = oldest_us + window_seconds * 1_000_000 - now_us
        reset = max(1, math.ceil(frees_in / 1_000_000))
    return RateDecision(
        allowed=allowed,
        limit=limit,
        window_seconds=window_seconds,
        remaining=max(0, limit - count),
        reset_seconds=reset,
    )


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

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- accounts and keys -----------------------------------------------------------------

    @abstractmethod
    def create_account(
        self, plan: Plan, billing: Billing, key_hash: str, key_prefix: str, now: datetime
    ) -> Account:
        """Create an account with its first API key (given as hash) and its first
        allocation; the period anchor is ``now`` truncated to whole seconds."""

    @abstractmethod
    def get_account(self, account_id: int, now: datetime) -> Account:
        """The account (periods rolled forward); AccountNotFoundError if absent."""

    @abstractmethod
    def list_accounts(self, now: datetime) -> list[Account]:
        """All accounts by id (periods rolled forward)."""

    @abstractmethod
    def find_key(self, key_hash: str) -> ApiKeyRecord | None:
        """The current (not rotated-away) key with this hash, or None."""

    @abstractmethod
    def rotate_key(self, account_id: int, key_hash: str, key_prefix: str, now: datetime) -> Account:
        """Revoke every key of the account (immediately) and store the new one."""

    @abstractmethod
    def set_active(self, account_id: int, active: bool, now: datetime) -> Account:
        """Deactivate or reactivate the account."""

    @abstractmethod
    def cancel(self, account_id: int, now: datetime) -> Account:
        """Request cancellation: effective at the end of the current billing period.
        Idempotent (a second request keeps the first date)."""

    @abstractmethod
    def set_overage(self, account_id: int, enabled: bool, now: datetime) -> Account:
        """Enable or disable overage billing."""

    # -- credits ---------------------------------------------------------------------------

    @abstractmethod
    def adjust_credits(
        self, account_id: int, balance: int, now: datetime, note: str = ""
    ) -> LedgerEntry:
        """Set the balance to ``balance`` (>= 0), recording the difference in the ledger.
        InvalidOperationError on a cancelled account."""

    @abstractmethod
    def reserve(self, account_id: int, endpoint: str, now: datetime) -> Reservation | ChargeRefusal:
        """Atomically take 1 credit (or record an overage call) for a call to
        ``endpoint``; a :class:`ChargeRefusal` when the call must not proceed."""

    @abstractmethod
    def commit(self, reservation_id: int, now: datetime) -> None:
        """Mark a reservation as a successful, billed call."""

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
    def release(self, reservation_id: int, now: datetime) -> None:
        """Cancel a reservation because the call failed: the credit goes back to the
        balance if the account is still in the same period (and not cancelled); the call
        is never billed as overage."""

    @abstractmethod
    def release_stale(self, older_than: datetime, now: datetime) -> int:
        """Release (as :meth:`release` does) every reservation still pending that was made
        before ``older_than``: its call died with its process. The number released."""

    @abstractmethod
    def ledger(self, account_id: int, now: datetime) -> list[LedgerEntry]:
        """Every ledger entry of the account, oldest first."""

    @abstractmethod
    def usage(self, account_id: int, now: datetime) -> list[PeriodUsage]:
        """Per-period usage from the first period to the current one, oldest first."""

    @abstractmethod
    def audit(self, account_id: int, now: datetime) -> Audit:
        """The ledger check (see :class:`Audit`)."""

    # -- rate limiting ---------------------------------------------------------------------

    @abstractmethod
    def rate_limit_hit(
        self, bucket: str, now: datetime, limit: int, window_seconds: int
    ) -> RateDecision:
        """Sliding window: accept and record this request if fewer than ``limit``
        requests were accepted for ``bucket`` in ``(now - window, now]``; atomic across
        processes. Refused requests are not recorded."""


def plan_from_row(name: str) -> Plan:
    """The plan for a stored plan name (helper for backends)."""
    return get_plan(name)
