"""The ``data`` of the account endpoints (``/v2/account``...) as typed dictionaries, keys
exactly as on the wire; they mirror the schemas of the service's ``/openapi.json``
(``AccountResult``, ``AccountUsageResult``, ``ApiKeyResult``, ``WebhookSecretResult``)."""

from __future__ import annotations

from typing import Literal, TypedDict

AccountStatus = Literal["active", "cancelling", "cancelled"]
"""``cancelling``: the plan runs to the end of the billing period; ``cancelled``: no
credits any more."""


class AccountCredits(TypedDict):
    """The current credit period: ``remaining == rolledOver + allocated - used``."""

    remaining: int
    allocated: int
    rolledOver: int
    used: int
    periodStart: str
    periodEnd: str


class AccountOverage(TypedDict):
    """Overage billing: ``used`` calls this period at ``ratePer1000`` EUR (decimal text)."""

    enabled: bool
    used: int
    ratePer1000: str


class AccountRateLimit(TypedDict):
    """The key's rate-limit window after the request that read it."""

    limit: int
    windowSeconds: int
    remaining: int


class AccountResult(TypedDict):
    """The ``data`` of ``GET /v2/account``."""

    plan: str
    tier: Literal["Basic", "Advanced"]
    status: AccountStatus
    credits: AccountCredits
    overage: AccountOverage
    rateLimit: AccountRateLimit


class EndpointUsage(TypedDict):
    """One endpoint's successful calls and credits charged on one day."""

    endpoint: str
    calls: int
    credits: int


class UsageDay(TypedDict):
    """One UTC day (``date``: ``YYYY-MM-DD``) of the usage, by endpoint."""

    date: str
    calls: int
    credits: int
    endpoints: list[EndpointUsage]


AccountUsageResult = TypedDict("AccountUsageResult", {
    "from": str, "to": str, "calls": int, "credits": int, "days": list[UsageDay]})
"""The ``data`` of ``GET /v2/account/usage``: every day from ``from`` to ``to``, oldest
first."""


class ApiKeyResult(TypedDict):
    """The ``data`` of ``POST /v2/account/keys/rotate``: the new key, shown once."""

    apiKey: str
    keyPrefix: str


class WebhookSecretResult(TypedDict):
    """The ``data`` of the webhook-secret endpoints (``whsec_...``)."""

    secret: str
