"""Who is calling and why a request is refused: the records the bookkeeping facade
(:mod:`bodygraph_server.billing.accounts`, which re-exports them) hands to the HTTP layer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bodygraph_server.policy.plans import Plan, Tier
from bodygraph_server.store import Account, ApiKeyRecord

__all__ = ["Denial", "Denied", "IssuedKey", "Principal", "denied", "principal_of"]


class Denial(StrEnum):
    """Why the bookkeeping refuses a request; values equal the contract's error codes."""

    API_KEY_INVALID = "API_KEY_INVALID"
    ACCOUNT_INACTIVE = "ACCOUNT_INACTIVE"
    ACCESS_DENIED = "ACCESS_DENIED"
    CREDITS_EXHAUSTED = "CREDITS_EXHAUSTED"
    RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"
    """Too many failed authentications from the client's address."""


@dataclass(frozen=True, slots=True)
class Denied:
    """A typed refusal: ``reason`` maps to an error code, ``message`` is for humans."""

    reason: Denial
    message: str


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller: the key and the account it belongs to."""

    account_id: int
    key_id: int
    key_hash: str
    plan: Plan

    @property
    def tier(self) -> Tier:
        """The access tier of the account's plan."""
        return self.plan.tier


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A new API key and its account; ``api_key`` is shown once and never stored."""

    account: Account
    api_key: str

    def __repr__(self) -> str:
        return f"IssuedKey(account={self.account!r}, api_key='***')"


_MESSAGES = {
    Denial.API_KEY_INVALID: "API key invalid or deactivated",
    Denial.ACCOUNT_INACTIVE: "Account is inactive",
    Denial.ACCESS_DENIED: "Your plan does not include this endpoint",
    Denial.CREDITS_EXHAUSTED: "No credits left and overage is disabled",
    Denial.RATE_LIMIT_EXCEEDED: "Too many requests with an invalid API key from this "
                                "address; retry after Retry-After seconds",
}


def denied(reason: Denial) -> Denied:
    """The refusal for ``reason`` with its message."""
    return Denied(reason, _MESSAGES[reason])


def principal_of(record: ApiKeyRecord | None) -> Principal | Denied:
    """The principal of a key found by its hash: API_KEY_INVALID for none (unknown or
    rotated away), ACCOUNT_INACTIVE for a deactivated account."""
    if record is None:
        return denied(Denial.API_KEY_INVALID)
    if not record.account_active:
        return denied(Denial.ACCOUNT_INACTIVE)
    return Principal(record.account_id, record.key_id, record.key_hash, record.plan)
