"""What the ``bodygraph-server`` commands print, and how they fail: the stable JSON
forms of accounts, usage and ledger entries, the text tables (padded by terminal columns),
the catalog of the asked language (:func:`words`) and :class:`CommandError`."""

from __future__ import annotations

import argparse
import gettext
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bodygraph.catalog.columns import display_width, pad
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph_server.billing.accounts import IssuedKey
from bodygraph_server.store import Account, LedgerEntry, PeriodUsage

PROG = "bodygraph-server"


class CommandError(Exception):
    """A command failed in a way the user can fix; the message (already in the asked
    language) is printed as one line."""


def words(args: argparse.Namespace) -> gettext.NullTranslations:
    """The catalog of the language the command line asked for (``args.lang``, set by
    :func:`~bodygraph_server.cli.admin.main`; English without it): its texts are in the
    context ``admin``."""
    return catalog(getattr(args, "lang", SOURCE_LANGUAGE))


def iso(instant: datetime | None) -> str | None:
    """An instant as ISO 8601 with ``Z`` (None stays None)."""
    return None if instant is None else instant.isoformat().replace("+00:00", "Z")


def account_to_dict(account: Account, now: datetime) -> dict[str, Any]:
    """The stable JSON form of an account (``accounts show --json``)."""
    return {
        "account_id": account.id,
        "plan": account.plan.name,
        "tier": account.plan.tier.value,
        "billing": account.billing.value,
        "status": account.status(now).value,
        "active": account.active,
        "balance": account.balance,
        "credits_per_month": account.plan.credits_per_month(account.billing),
        "rollover_cap": account.plan.rollover_cap,
        "overage_enabled": account.overage_enabled,
        "overage_per_1000": str(account.plan.overage_per_1000),
        "period_index": account.period_index,
        "period_start": iso(account.period_start),
        "period_end": iso(account.period_end),
        "cancel_requested_at": iso(account.cancel_requested_at),
        "cancel_at": iso(account.cancel_at),
        "created_at": iso(account.created_at),
        "key_prefix": account.key_prefix,
    }


def usage_to_dict(period: PeriodUsage) -> dict[str, Any]:
    """The stable JSON form of one period of ``usage --json``."""
    return {
        "period_index": period.period_index,
        "start": iso(period.start),
        "end": iso(period.end),
        "allocated": period.allocated,
        "calls": period.calls,
        "credits": period.credits,
        "overage_calls": period.overage_calls,
        "overage_price": str(period.overage_price),
        "currency": "EUR",
        "pending": period.pending,
    }


def ledger_to_dict(entry: LedgerEntry) -> dict[str, Any]:
    """The stable JSON form of a ledger entry."""
    return {
        "id": entry.id,
        "at": iso(entry.at),
        "period_index": entry.period_index,
        "kind": entry.kind.value,
        "delta": entry.delta,
        "balance_after": entry.balance_after,
        "note": entry.note,
    }


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Rows as left-aligned text columns under ``headers`` (None shows as ``-``), padded by
    terminal columns (a wide character takes two)."""
    cells = [[str(h) for h in headers], *[["-" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(headers))]
    return "\n".join(
        "  ".join(pad(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def print_json(value: object) -> None:
    """Print ``value`` as indented JSON."""
    print(json.dumps(value, indent=2, sort_keys=False))


def print_issued(issued: IssuedKey, as_json: bool, tr: gettext.NullTranslations) -> None:
    """Print a new account's API key (shown once) with the account, in the language of
    ``tr``."""
    account = issued.account
    if as_json:
        print_json(
            {
                "account_id": account.id,
                "api_key": issued.api_key,
                "plan": account.plan.name,
                "billing": account.billing.value,
                "balance": account.balance,
            }
        )
        return
    print(tr.pgettext("admin", "created account {account}: plan {plan}, {billing} billing, "
                      "{balance} credits").format(account=account.id, plan=account.plan.name,
                                                  billing=account.billing.value,
                                                  balance=account.balance))
    print(tr.pgettext("admin", "API key (shown once, store it now): {key}").format(
        key=issued.api_key))


def print_account(account: Account, now: datetime) -> None:
    """Print an account as ``key  value`` lines."""
    data = account_to_dict(account, now)
    width = max(len(k) for k in data)
    for key, value in data.items():
        print(f"{key.ljust(width)}  {'-' if value is None else value}")
