"""What the bookkeeping store hands back: accounts, keys, ledger entries, reservations,
usage reports, rate-limit decisions and the ledger audit (immutable records)."""

from __future__ import annotations

import math
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
from bodygraph_server.policy.plans import Billing, Plan


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


class Replay(StrEnum):
    """What :meth:`Store.reserve` found for an idempotency key already used (no credit
    taken)."""

    ANSWERED = "answered"
    """The same request was answered (and charged) before: answer it again for free."""
    IN_FLIGHT = "in_flight"
    """The same request is still being served: wait for it."""
    MISMATCH = "mismatch"
    """The key was used for another request (another endpoint or body)."""


@dataclass(frozen=True, slots=True)
class IdempotencyClaim:
    """An idempotency key presented with a charged request: hashes only (no birth data).
    Keys used before ``since`` have expired."""

    key_hash: str
    request_hash: str
    since: datetime


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
