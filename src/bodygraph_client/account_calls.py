"""The calls of the account endpoints (``/v2/account``...): free, every tier."""

from __future__ import annotations

from bodygraph_client.account_types import (
    AccountResult,
    AccountUsageResult,
    ApiKeyResult,
    WebhookSecretResult,
)
from bodygraph_client.calls import Call, Endpoint, data

ACCOUNT = Endpoint("/v2/account", charged=False, method="GET")
USAGE = Endpoint("/v2/account/usage", charged=False, method="GET")
KEY_ROTATE = Endpoint("/v2/account/keys/rotate", charged=False, replayable=True)
WEBHOOK_SECRET = Endpoint("/v2/account/webhook-secret", charged=False, method="GET")
WEBHOOK_SECRET_ROTATE = Endpoint("/v2/account/webhook-secret/rotate", charged=False)


def account() -> Call[AccountResult]:
    """GET /v2/account: plan, status, the period's credits, overage, the rate limit."""
    return Call(ACCOUNT, {}, data(AccountResult))


def usage(days: int | None = None) -> Call[AccountUsageResult]:
    """GET /v2/account/usage: the last ``days`` UTC days (1 to 90; the service's default
    30), by day and endpoint."""
    params = {} if days is None else {"days": str(days)}
    return Call(USAGE, {}, data(AccountUsageResult), params=params)


def rotate_key() -> Call[ApiKeyResult]:
    """POST /v2/account/keys/rotate: a new key; the one sent stops working."""
    return Call(KEY_ROTATE, {}, data(ApiKeyResult))


def webhook_secret() -> Call[WebhookSecretResult]:
    """GET /v2/account/webhook-secret."""
    return Call(WEBHOOK_SECRET, {}, data(WebhookSecretResult))


def rotate_webhook_secret() -> Call[WebhookSecretResult]:
    """POST /v2/account/webhook-secret/rotate."""
    return Call(WEBHOOK_SECRET_ROTATE, {}, data(WebhookSecretResult))
