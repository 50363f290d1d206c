"""The ``data`` of the account operations, built from the bookkeeping's records, and their
JSON Schemas (one definition each)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import timestamp
from bodygraph_server.resources.chart_values import closed_object
from bodygraph_server.store import AccountOverview, EndpointDay, RateDecision
from bodygraph_server.store.records import AccountStatus

ACCOUNT_RESULT = "AccountResult"
USAGE_RESULT = "AccountUsageResult"
KEY_RESULT = "ApiKeyResult"
SECRET_RESULT = "WebhookSecretResult"



#: The words of an account's answer by member and value, marked for the catalogs (context
#: ``account``); the plan's name is a product name and stays as it is.
ACCOUNT_WORDS: dict[str, dict[str, str]] = {
    "tier": {"Basic": pgettext("account", "Basic"),
             "Advanced": pgettext("account", "Advanced")},
    "status": {"active": pgettext("account", "active"),
               "cancelling": pgettext("account", "cancelling"),
               "cancelled": pgettext("account", "cancelled")},
}


def account_labels(data: dict[str, Any], lang: str) -> dict[str, str]:
    """The words of ``GET /v2/account``'s ``data`` in ``lang``: its tier and status."""
    from bodygraph.catalog.translations import catalog

    say = catalog(lang).pgettext
    return {key: say("account", words[data[key]]) for key, words in ACCOUNT_WORDS.items()
            if data[key] in words}


def account_data(overview: AccountOverview, status: AccountStatus,
                 decision: RateDecision) -> dict[str, Any]:
    """``GET /v2/account``: the plan, the current period's credits (``remaining ==
    rolledOver + allocated - used``), overage and this request's rate-limit window."""
    account, figures = overview.account, overview.figures
    return {
        "plan": account.plan.title,
        "tier": account.plan.tier.value.capitalize(),
        "status": status.value,
        "credits": {
            "remaining": account.balance,
            "allocated": figures.allocated,
            "rolledOver": figures.rolled_over,
            "used": figures.used,
            "periodStart": timestamp(account.period_start),
            "periodEnd": timestamp(account.period_end),
        },
        "overage": {
            "enabled": account.overage_enabled,
            "used": figures.overage_calls,
            "ratePer1000": f"{account.plan.overage_per_1000:.2f}",
        },
        "rateLimit": {
            "limit": decision.limit,
            "windowSeconds": decision.window_seconds,
            "remaining": decision.remaining,
        },
    }


def usage_data(first: date, days: int, found: list[EndpointDay]) -> dict[str, Any]:
    """``GET /v2/account/usage``: every one of the ``days`` UTC days from ``first``, oldest
    first, with its calls and credits by endpoint, and the totals."""
    by_day: dict[date, list[EndpointDay]] = {}
    for entry in found:
        by_day.setdefault(entry.day, []).append(entry)
    listed = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        entries = by_day.get(day, [])
        listed.append({
            "date": day.isoformat(),
            "calls": sum(e.calls for e in entries),
            "credits": sum(e.credits for e in entries),
            "endpoints": [{"endpoint": e.endpoint, "calls": e.calls, "credits": e.credits}
                          for e in entries],
        })
    return {
        "from": first.isoformat(),
        "to": (first + timedelta(days=days - 1)).isoformat(),
        "calls": sum(d["calls"] for d in listed),
        "credits": sum(d["credits"] for d in listed),
        "days": listed,
    }


_COUNT = {"type": "integer", "minimum": 0}
_INSTANT = {"type": "string", "format": "date-time"}
_DAY = {"type": "string", "format": "date"}


def result_schemas() -> dict[str, Any]:
    """The schemas of the four results."""
    counted = {"calls": {**_COUNT, "description": "successful calls"},
               "credits": {**_COUNT, "description": "credits charged (0 for an overage "
                           "call; calls in flight included)"}}
    return {
        ACCOUNT_RESULT: closed_object({
            "plan": {"type": "string", "description": "Hobbyist, Developer, Scale or "
                     "Lifetime"},
            "tier": {"enum": ["Basic", "Advanced"]},
            "status": {"enum": [s.value for s in AccountStatus if s is not
                                AccountStatus.INACTIVE],
                       "description": "active; cancelling (the plan runs to the end of "
                       "the billing period); cancelled (no credits any more)"},
            "credits": closed_object({
                "remaining": {**_COUNT, "description": "the balance now"},
                "allocated": {**_COUNT, "description": "the period's monthly "
                              "allocation plus the operator's adjustments in it"},
                "rolledOver": {**_COUNT, "description": "carried over from the previous "
                               "period, up to the plan's rollover cap"},
                "used": {**_COUNT, "description": "credits charged in the period; "
                         "remaining = rolledOver + allocated - used"},
                "periodStart": {**_INSTANT, "description": "start of the credit period"},
                "periodEnd": {**_INSTANT, "description": "end of the period: the next "
                              "reset"},
            }),
            "overage": closed_object({
                "enabled": {"type": "boolean"},
                "used": {**_COUNT, "description": "successful calls in the period made "
                         "with no credit left, billed at ratePer1000"},
                "ratePer1000": {"type": "string", "pattern": r"^\d+\.\d{2}$",
                                "description": "EUR per 1,000 overage calls (decimal "
                                "text)"},
            }),
            "rateLimit": closed_object({
                "limit": {"type": "integer", "minimum": 1},
                "windowSeconds": {"type": "integer", "minimum": 1},
                "remaining": {**_COUNT, "description": "requests this key may still make "
                              "in the window, after this one"},
            }),
        }),
        USAGE_RESULT: closed_object({
            "from": _DAY, "to": _DAY, **counted,
            "days": {"type": "array", "description": "every UTC day from `from` to `to`, "
                     "oldest first", "items": closed_object({
                         "date": _DAY, **counted,
                         "endpoints": {"type": "array", "items": closed_object({
                             "endpoint": {"type": "string",
                                          "description": "the path called"},
                             **counted})},
                     })},
        }),
        KEY_RESULT: closed_object({
            "apiKey": {"type": "string", "pattern": "^bg_", "description": "the new key, "
                       "shown this once: the key the request was made with, and every "
                       "other key of the account, no longer works"},
            "keyPrefix": {"type": "string", "description": "its first characters, to "
                          "recognise it"},
        }),
        SECRET_RESULT: closed_object({
            "secret": {"type": "string", "pattern": "^whsec_[A-Za-z0-9+/]+={0,2}$",
                       "description": "the Standard Webhooks signing secret of the "
                       "account's webhooks"},
        }),
    }
