"""Credit periods, rollover, cancellation and overage pricing as pure functions, no I/O
(the rules: docs/accounts.md); the store applies :func:`roll_forward` whenever it touches
an account."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

from bodygraph_server.policy.plans import Billing, Plan


class LedgerKind(StrEnum):
    """Why an account's balance changed (the ledger's ``kind`` column)."""

    ALLOCATION = "allocation"
    """Monthly credits added at the start of a period (and at account creation)."""
    EXPIRY = "expiry"
    """Unused credits beyond the rollover cap lost at a period boundary."""
    CANCELLATION = "cancellation"
    """The whole balance expired because a cancellation took effect."""
    ADJUSTMENT = "adjustment"
    """A manual change (``bodygraph-server credits adjust``)."""


@dataclass(frozen=True, slots=True)
class LedgerChange:
    """One balance change computed by :func:`roll_forward` (not yet stored)."""

    at: datetime
    period_index: int
    kind: LedgerKind
    delta: int
    balance_after: int


@dataclass(frozen=True, slots=True)
class CreditState:
    """The part of an account that period rollover reads and writes."""

    period_index: int
    balance: int


def add_months(anchor: datetime, months: int) -> datetime:
    """``anchor`` moved by whole calendar months, the day clamped to the month's length."""
    total = anchor.year * 12 + (anchor.month - 1) + months
    year, month0 = divmod(total, 12)
    day = min(anchor.day, calendar.monthrange(year, month0 + 1)[1])
    return anchor.replace(year=year, month=month0 + 1, day=day)


def period_index_at(anchor: datetime, now: datetime) -> int:
    """The index of the credit period containing ``now`` (0 for instants before the anchor)."""
    if now <= anchor:
        return 0
    guess = (now.year - anchor.year) * 12 + (now.month - anchor.month)
    guess = max(guess, 0)
    while guess > 0 and add_months(anchor, guess) > now:
        guess -= 1
    while add_months(anchor, guess + 1) <= now:
        guess += 1
    return guess


def period_bounds(anchor: datetime, index: int) -> tuple[datetime, datetime]:
    """Start (inclusive) and end (exclusive) of credit period ``index``."""
    return add_months(anchor, index), add_months(anchor, index + 1)


def billing_months(billing: Billing) -> int:
    """Length of one billing period in credit periods (12 for annual billing, else 1)."""
    return 12 if billing is Billing.ANNUAL else 1


def cancellation_effective_at(anchor: datetime, billing: Billing, now: datetime) -> datetime:
    """When a cancellation requested at ``now`` takes effect: the end of the current
    billing period."""
    months = billing_months(billing)
    index = period_index_at(anchor, now)
    return add_months(anchor, (index // months + 1) * months)


def roll_forward(
    state: CreditState,
    *,
    plan: Plan,
    billing: Billing,
    anchor: datetime,
    cancel_at: datetime | None,
    now: datetime,
) -> tuple[CreditState, list[LedgerChange]]:
    """Apply every period boundary between ``state.period_index`` and ``now``.

    Returns the new state and the ledger changes, in order, each stamped with the
    boundary instant. Returns ``state`` unchanged and no changes when ``now`` is still
    in the same period.
    """
    target = period_index_at(anchor, now)
    index, balance = state.period_index, state.balance
    changes: list[LedgerChange] = []
    allocation = plan.credits_per_month(billing)
    ended = False
    while index < target:
        index += 1
        start = add_months(anchor, index)
        if cancel_at is not None and start >= cancel_at:
            if not ended and balance:
                changes.append(LedgerChange(at=start, period_index=index,
                                            kind=LedgerKind.CANCELLATION, delta=-balance,
                                            balance_after=0))
            balance, ended = 0, True
            continue
        carried = min(balance, plan.rollover_cap)
        if carried < balance:
            changes.append(
                LedgerChange(at=start, period_index=index, kind=LedgerKind.EXPIRY,
                             delta=carried - balance, balance_after=carried)
            )
        balance = carried + allocation
        changes.append(LedgerChange(at=start, period_index=index, kind=LedgerKind.ALLOCATION,
                                    delta=allocation, balance_after=balance))
    return CreditState(index, balance), changes


def is_cancelled(cancel_at: datetime | None, now: datetime) -> bool:
    """Whether a cancellation effective at ``cancel_at`` has taken effect at ``now``."""
    return cancel_at is not None and now >= cancel_at


def overage_price(plan: Plan, calls: int) -> Decimal:
    """Price in EUR of ``calls`` overage calls under ``plan``, rounded half-up to cents."""
    exact = plan.overage_per_1000 * calls / Decimal(1000)
    return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
