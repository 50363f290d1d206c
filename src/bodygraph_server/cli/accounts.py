"""The account commands of ``bodygraph-server``: ``accounts``, ``keys``, ``overage``,
``credits`` and ``usage``. Every handler has the admin signature ``(book, args) -> exit
status``; :func:`add_account_commands` wires them into the admin parser."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.argtypes import account_id, bounded_int
from bodygraph_server.cli.console import (
    account_to_dict,
    iso,
    ledger_to_dict,
    print_account,
    print_issued,
    print_json,
    table,
    usage_to_dict,
)
from bodygraph_server.policy.plans import PLANS, Billing

_non_negative = bounded_int("the balance", 0)


def _accounts_create(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.create_account(args.plan, args.billing)
    print_issued(issued, args.json, "created")
    return 0


def _accounts_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    now = book.clock.now()
    accounts = book.accounts()
    if args.json:
        print_json([account_to_dict(a, now) for a in accounts])
        return 0
    rows = [
        (
            a.id,
            a.plan.name,
            a.billing.value,
            a.status(now).value,
            a.balance,
            "on" if a.overage_enabled else "off",
            iso(a.period_end),
            a.key_prefix,
        )
        for a in accounts
    ]
    headers = ("ID", "PLAN", "BILLING", "STATUS", "BALANCE", "OVERAGE", "NEXT RESET", "KEY")
    print(table(headers, rows))
    return 0


def _accounts_show(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.account(args.id)
    now = book.clock.now()
    if args.json:
        print_json(account_to_dict(account, now))
    else:
        print_account(account, now)
    return 0


def _accounts_set_active(active: bool) -> Callable[[Bookkeeper, argparse.Namespace], int]:
    def run(book: Bookkeeper, args: argparse.Namespace) -> int:
        account = book.activate(args.id) if active else book.deactivate(args.id)
        print(f"account {account.id} {'activated' if active else 'deactivated'}")
        return 0

    return run


def _accounts_cancel(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.cancel(args.id)
    print(f"account {account.id} cancelled: active until {iso(account.cancel_at)}")
    return 0


def _keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.rotate_key(args.id)
    if args.json:
        print_json({"account_id": issued.account.id, "api_key": issued.api_key})
    else:
        print(f"key of account {issued.account.id} rotated; the old key no longer works")
        print(f"API key (shown once, store it now): {issued.api_key}")
    return 0


def _overage(book: Bookkeeper, args: argparse.Namespace) -> int:
    enabled = args.action == "enable"
    account = book.set_overage(args.id, enabled)
    print(f"overage {'enabled' if enabled else 'disabled'} for account {account.id}")
    return 0


def _credits_adjust(book: Bookkeeper, args: argparse.Namespace) -> int:
    entry = book.adjust_credits(args.id, args.set, args.note)
    if args.json:
        print_json(ledger_to_dict(entry))
    else:
        print(
            f"account {entry.account_id}: balance set to {entry.balance_after} "
            f"({entry.delta:+d}, ledger entry {entry.id})"
        )
    return 0


def _credits_ledger(book: Bookkeeper, args: argparse.Namespace) -> int:
    entries = book.ledger(args.id)
    if args.json:
        print_json([ledger_to_dict(e) for e in entries])
        return 0
    rows = [
        (e.id, iso(e.at), e.period_index, e.kind.value, f"{e.delta:+d}", e.balance_after, e.note)
        for e in entries
    ]
    print(table(("ID", "AT", "PERIOD", "KIND", "DELTA", "BALANCE", "NOTE"), rows))
    return 0


def _usage(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.account(args.id)
    periods = book.usage(args.id)
    if args.json:
        print_json(
            {
                "account_id": account.id,
                "plan": account.plan.name,
                "overage_per_1000": str(account.plan.overage_per_1000),
                "currency": "EUR",
                "periods": [usage_to_dict(p) for p in periods],
            }
        )
        return 0
    print(
        f"account {account.id} ({account.plan.name}); overage "
        f"{'enabled' if account.overage_enabled else 'disabled'}, "
        f"{account.plan.overage_per_1000} EUR per 1,000 calls"
    )
    rows = [
        (
            p.period_index,
            iso(p.start),
            iso(p.end),
            p.allocated,
            p.calls,
            p.credits,
            p.overage_calls,
            f"{p.overage_price} EUR",
            p.pending,
        )
        for p in periods
    ]
    headers = (
        "PERIOD",
        "START",
        "END",
        "ALLOCATED",
        "CALLS",
        "CREDITS",
        "OVERAGE",
        "OVERAGE PRICE",
        "PENDING",
    )
    print(table(headers, rows))
    return 0


def _account_command(
    actions: argparse._SubParsersAction[Any],
    name: str,
    text: str,
    run: Callable[[Bookkeeper, argparse.Namespace], int],
    *,
    json_help: str | None = "",
) -> argparse.ArgumentParser:
    """A command on one account (its ``ID`` argument); ``--json`` unless ``json_help`` is
    None."""
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text)
    parser.add_argument("id", type=account_id, metavar="ID")
    if json_help is not None:
        parser.add_argument("--json", action="store_true", help=json_help or None)
    parser.set_defaults(func=run)
    return parser


def add_account_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Register the account commands on the admin parser's subcommands."""
    accounts = commands.add_parser("accounts", help="create, list, show, (de)activate, cancel")
    acc = accounts.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = acc.add_parser("create", help="create an account and print its API key once")
    create.add_argument("--plan", required=True, choices=list(PLANS))
    create.add_argument(
        "--billing",
        choices=[b.value for b in Billing],
        default=None,
        help="monthly (default) or annual; lifetime for the Lifetime plan (its only option)",
    )
    create.add_argument("--json", action="store_true", help="print account_id and api_key as JSON")
    create.set_defaults(func=_accounts_create)
    listing = acc.add_parser("list", help="list all accounts")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=_accounts_list)
    _account_command(acc, "show", "show one account", _accounts_show)
    _account_command(acc, "deactivate", "block the account (requests give ACCOUNT_INACTIVE)",
                _accounts_set_active(False), json_help=None)
    _account_command(acc, "activate", "unblock a deactivated account", _accounts_set_active(True),
                json_help=None)
    _account_command(acc, "cancel", "cancel at the end of the billing period", _accounts_cancel,
                json_help=None)

    keys = commands.add_parser("keys", help="rotate an account's API key")
    key_actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    _account_command(key_actions, "rotate", "new key now; the old one stops working", _keys_rotate,
                json_help="print account_id and api_key")

    overage = commands.add_parser("overage", help="enable or disable overage billing")
    overage.add_argument("action", choices=["enable", "disable"])
    overage.add_argument("id", type=account_id, metavar="ID")
    overage.set_defaults(func=_overage)

    credits = commands.add_parser("credits", help="adjust the balance; show the ledger")
    credit_actions = credits.add_subparsers(dest="action", required=True, metavar="ACTION")
    adjust = _account_command(credit_actions, "adjust", "set the balance (recorded in the ledger)",
                         _credits_adjust)
    adjust.add_argument("--set", type=_non_negative, required=True, metavar="N")
    adjust.add_argument("--note", default="manual adjustment", help="ledger note")
    _account_command(credit_actions, "ledger", "list the account's ledger", _credits_ledger)

    _account_command(commands, "usage", "per-period calls, credits, overage and price", _usage)
