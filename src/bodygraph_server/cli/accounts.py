"""The account commands of ``bodygraph-server``: ``accounts``, ``keys``, ``overage``,
``credits`` and ``usage``. Every handler has the admin signature ``(book, args) -> exit
status``; :func:`add_account_commands` wires them into the admin parser."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import catalog
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.argtypes import BALANCE, account_id, bounded_int
from bodygraph_server.cli.console import (
    account_to_dict,
    iso,
    ledger_to_dict,
    print_account,
    print_issued,
    print_json,
    table,
    usage_to_dict,
    words,
)
from bodygraph_server.policy.plans import PLANS, Billing

_non_negative = bounded_int(BALANCE, 0)


def _accounts_create(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.create_account(args.plan, args.billing)
    print_issued(issued, args.json, words(args))
    return 0


def _accounts_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    now = book.clock.now()
    accounts = book.accounts()
    tr = words(args)
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
            tr.pgettext("admin", "on") if a.overage_enabled else tr.pgettext("admin", "off"),
            iso(a.period_end),
            a.key_prefix,
        )
        for a in accounts
    ]
    headers = ("ID", tr.pgettext("admin", "PLAN"), tr.pgettext("admin", "BILLING"),
               tr.pgettext("admin", "STATUS"), tr.pgettext("admin", "BALANCE"),
               tr.pgettext("admin", "OVERAGE"), tr.pgettext("admin", "NEXT RESET"),
               tr.pgettext("admin", "KEY"))
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
        said = (words(args).pgettext("admin", "account {account} activated") if active
                else words(args).pgettext("admin", "account {account} deactivated"))
        print(said.format(account=account.id))
        return 0

    return run


def _accounts_cancel(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.cancel(args.id)
    print(words(args).pgettext("admin", "account {account} cancelled: active until {instant}")
          .format(account=account.id, instant=iso(account.cancel_at)))
    return 0


def _keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.rotate_key(args.id)
    if args.json:
        print_json({"account_id": issued.account.id, "api_key": issued.api_key})
    else:
        tr = words(args)
        print(tr.pgettext("admin", "key of account {account} rotated; the old key no longer "
                          "works").format(account=issued.account.id))
        print(tr.pgettext("admin", "API key (shown once, store it now): {key}").format(
            key=issued.api_key))
    return 0


def _overage(book: Bookkeeper, args: argparse.Namespace) -> int:
    enabled = args.action == "enable"
    account = book.set_overage(args.id, enabled)
    said = (words(args).pgettext("admin", "overage enabled for account {account}") if enabled
            else words(args).pgettext("admin", "overage disabled for account {account}"))
    print(said.format(account=account.id))
    return 0


def _credits_adjust(book: Bookkeeper, args: argparse.Namespace) -> int:
    entry = book.adjust_credits(args.id, args.set, args.note)
    if args.json:
        print_json(ledger_to_dict(entry))
    else:
        print(words(args).pgettext(
            "admin", "account {account}: balance set to {balance} ({delta}, ledger entry "
            "{entry})").format(account=entry.account_id, balance=entry.balance_after,
                               delta=f"{entry.delta:+d}", entry=entry.id))
    return 0


def _credits_ledger(book: Bookkeeper, args: argparse.Namespace) -> int:
    entries = book.ledger(args.id)
    tr = words(args)
    if args.json:
        print_json([ledger_to_dict(e) for e in entries])
        return 0
    rows = [
        (e.id, iso(e.at), e.period_index, e.kind.value, f"{e.delta:+d}", e.balance_after, e.note)
        for e in entries
    ]
    print(table(("ID", tr.pgettext("admin", "AT"), tr.pgettext("admin", "PERIOD"),
                 tr.pgettext("admin", "KIND"), tr.pgettext("admin", "DELTA"),
                 tr.pgettext("admin", "BALANCE"), tr.pgettext("admin", "NOTE")), rows))
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
    tr = words(args)
    line = (tr.pgettext("admin", "account {account} ({plan}); overage enabled, {price} EUR per "
                        "{thousand} calls") if account.overage_enabled
            else tr.pgettext("admin", "account {account} ({plan}); overage disabled, {price} "
                             "EUR per {thousand} calls"))
    print(line.format(account=account.id, plan=account.plan.name,
                      price=account.plan.overage_per_1000,
                      thousand=number_text(1000, args.lang)))
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
        tr.pgettext("admin", "PERIOD"),
        tr.pgettext("admin", "START"),
        tr.pgettext("admin", "END"),
        tr.pgettext("admin", "ALLOCATED"),
        tr.pgettext("admin", "CALLS"),
        tr.pgettext("admin", "CREDITS"),
        tr.pgettext("admin", "OVERAGE"),
        tr.pgettext("admin", "OVERAGE PRICE"),
        tr.pgettext("admin", "PENDING"),
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
    None (its help: ``json_help``, none when empty). The texts are already in the
    language."""
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text)
    parser.add_argument("id", type=account_id, metavar="ID")
    if json_help is not None:
        parser.add_argument("--json", action="store_true", help=json_help or None)
    parser.set_defaults(func=run)
    return parser


def add_account_commands(commands: argparse._SubParsersAction[Any],
                         lang: str = "en") -> None:
    """Register the account commands on the admin parser's subcommands, their help in
    ``lang``."""
    tr = catalog(lang)
    accounts = commands.add_parser(
        "accounts", help=tr.pgettext("admin", "create, list, show, (de)activate, cancel"))
    acc = accounts.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = acc.add_parser(
        "create", help=tr.pgettext("admin", "create an account and print its API key once"))
    create.add_argument("--plan", required=True, choices=list(PLANS))
    create.add_argument(
        "--billing",
        choices=[b.value for b in Billing],
        default=None,
        help=tr.pgettext("admin", "monthly (default) or annual; lifetime for the Lifetime "
                         "plan (its only option)"),
    )
    create.add_argument("--json", action="store_true",
                        help=tr.pgettext("admin", "print account_id and api_key as JSON"))
    create.set_defaults(func=_accounts_create)
    listing = acc.add_parser("list", help=tr.pgettext("admin", "list all accounts"))
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=_accounts_list)
    _account_command(acc, "show", tr.pgettext("admin", "show one account"), _accounts_show)
    _account_command(acc, "deactivate", tr.pgettext(
        "admin", "block the account (requests give ACCOUNT_INACTIVE)"),
        _accounts_set_active(False), json_help=None)
    _account_command(acc, "activate", tr.pgettext("admin", "unblock a deactivated account"),
                     _accounts_set_active(True), json_help=None)
    _account_command(acc, "cancel", tr.pgettext("admin", "cancel at the end of the billing "
                                                "period"), _accounts_cancel, json_help=None)

    keys = commands.add_parser("keys", help=tr.pgettext("admin", "rotate an account's API key"))
    key_actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    _account_command(key_actions, "rotate",
                     tr.pgettext("admin", "new key now; the old one stops working"),
                     _keys_rotate, json_help=tr.pgettext("admin", "print account_id and api_key"))

    overage = commands.add_parser(
        "overage", help=tr.pgettext("admin", "enable or disable overage billing"))
    overage.add_argument("action", choices=["enable", "disable"])
    overage.add_argument("id", type=account_id, metavar="ID")
    overage.set_defaults(func=_overage)

    credits = commands.add_parser(
        "credits", help=tr.pgettext("admin", "adjust the balance; show the ledger"))
    credit_actions = credits.add_subparsers(dest="action", required=True, metavar="ACTION")
    adjust = _account_command(credit_actions, "adjust", tr.pgettext(
        "admin", "set the balance (recorded in the ledger)"), _credits_adjust)
    adjust.add_argument("--set", type=_non_negative, required=True, metavar="N")
    adjust.add_argument("--note", default="manual adjustment",
                        help=tr.pgettext("admin", "ledger note"))
    _account_command(credit_actions, "ledger", tr.pgettext("admin", "list the account's ledger"),
                     _credits_ledger)

    _account_command(commands, "usage", tr.pgettext(
        "admin", "per-period calls, credits, overage and price"), _usage)
