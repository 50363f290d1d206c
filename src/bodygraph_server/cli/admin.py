"""``bodygraph-server``: administer accounts, keys, credits and usage; start the service.

Every command reads the database from ``BODYGRAPH_DATABASE_URL`` (``sqlite:///path`` or
``postgresql://...``; default :data:`bodygraph_server.store.DEFAULT_DATABASE_URL`,
``sqlite:///bodygraph.sqlite3`` in the working folder), or from ``--database-url``, and
creates or migrates the schema as needed. Errors are one line
on stderr and a non-zero exit status (1: the operation failed; 2: bad command line).

The command names, options and ``--json`` output keys are stable: scripts use them.
See ``docs/accounts.md`` for the full reference.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NoReturn

from bodygraph_server.billing.accounts import Bookkeeper, IssuedKey
from bodygraph_server.cli.argtypes import account_id, bounded_int
from bodygraph_server.cli.templates import add_template_commands
from bodygraph_server.policy.plans import PLANS, Billing
from bodygraph_server.store import (
    DEFAULT_DATABASE_URL,
    ENV_VAR,
    Account,
    LedgerEntry,
    PeriodUsage,
    database_url_from_env,
)

PROG = "bodygraph-server"


class CommandError(Exception):
    """A command failed in a way the user can fix; the message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message} (see {self.prog} --help)\n")


# -- formatting ----------------------------------------------------------------------------


def _iso(instant: datetime | None) -> str | None:
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
        "period_start": _iso(account.period_start),
        "period_end": _iso(account.period_end),
        "cancel_requested_at": _iso(account.cancel_requested_at),
        "cancel_at": _iso(account.cancel_at),
        "created_at": _iso(account.created_at),
        "key_prefix": account.key_prefix,
    }


def usage_to_dict(period: PeriodUsage) -> dict[str, Any]:
    """The stable JSON form of one period of ``usage --json``."""
    return {
        "period_index": period.period_index,
        "start": _iso(period.start),
        "end": _iso(period.end),
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
        "at": _iso(entry.at),
        "period_index": entry.period_index,
        "kind": entry.kind.value,
        "delta": entry.delta,
        "balance_after": entry.balance_after,
        "note": entry.note,
    }


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers], *[["-" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def _print_json(value: object) -> None:
    print(json.dumps(value, indent=2, sort_keys=False))


def _print_issued(issued: IssuedKey, as_json: bool, what: str) -> None:
    account = issued.account
    if as_json:
        _print_json(
            {
                "account_id": account.id,
                "api_key": issued.api_key,
                "plan": account.plan.name,
                "billing": account.billing.value,
                "balance": account.balance,
            }
        )
        return
    print(
        f"{what} account {account.id}: plan {account.plan.name}, {account.billing.value} "
        f"billing, {account.balance} credits"
    )
    print(f"API key (shown once, store it now): {issued.api_key}")


def _print_account(account: Account, now: datetime) -> None:
    data = account_to_dict(account, now)
    width = max(len(k) for k in data)
    for key, value in data.items():
        print(f"{key.ljust(width)}  {'-' if value is None else value}")


# -- commands ------------------------------------------------------------------------------


def _accounts_create(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.create_account(args.plan, args.billing)
    _print_issued(issued, args.json, "created")
    return 0


def _accounts_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    now = book.clock.now()
    accounts = book.accounts()
    if args.json:
        _print_json([account_to_dict(a, now) for a in accounts])
        return 0
    rows = [
        (
            a.id,
            a.plan.name,
            a.billing.value,
            a.status(now).value,
            a.balance,
            "on" if a.overage_enabled else "off",
            _iso(a.period_end),
            a.key_prefix,
        )
        for a in accounts
    ]
    headers = ("ID", "PLAN", "BILLING", "STATUS", "BALANCE", "OVERAGE", "NEXT RESET", "KEY")
    print(_table(headers, rows))
    return 0


def _accounts_show(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.account(args.id)
    now = book.clock.now()
    if args.json:
        _print_json(account_to_dict(account, now))
    else:
        _print_account(account, now)
    return 0


def _accounts_set_active(active: bool) -> Callable[[Bookkeeper, argparse.Namespace], int]:
    def run(book: Bookkeeper, args: argparse.Namespace) -> int:
        account = book.activate(args.id) if active else book.deactivate(args.id)
        print(f"account {account.id} {'activated' if active else 'deactivated'}")
        return 0

    return run


def _accounts_cancel(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.cancel(args.id)
    print(f"account {account.id} cancelled: active until {_iso(account.cancel_at)}")
    return 0


def _keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    issued = book.rotate_key(args.id)
    if args.json:
        _print_json({"account_id": issued.account.id, "api_key": issued.api_key})
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
        _print_json(ledger_to_dict(entry))
    else:
        print(
            f"account {entry.account_id}: balance set to {entry.balance_after} "
            f"({entry.delta:+d}, ledger entry {entry.id})"
        )
    return 0


def _credits_ledger(book: Bookkeeper, args: argparse.Namespace) -> int:
    entries = book.ledger(args.id)
    if args.json:
        _print_json([ledger_to_dict(e) for e in entries])
        return 0
    rows = [
        (e.id, _iso(e.at), e.period_index, e.kind.value, f"{e.delta:+d}", e.balance_after, e.note)
        for e in entries
    ]
    print(_table(("ID", "AT", "PERIOD", "KIND", "DELTA", "BALANCE", "NOTE"), rows))
    return 0


def _usage(book: Bookkeeper, args: argparse.Namespace) -> int:
    account = book.account(args.id)
    periods = book.usage(args.id)
    if args.json:
        _print_json(
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
            _iso(p.start),
            _iso(p.end),
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
    print(_table(headers, rows))
    return 0


def _serve(book: Bookkeeper, args: argparse.Namespace) -> int:
    # The schema is migrated (by opening the store) before any worker starts.
    book.close()
    try:
        from bodygraph_server.serve import run
        from bodygraph_server.settings import Settings
    except ImportError as exc:
        raise CommandError(f"the HTTP service is not available: {exc}") from exc
    overrides: dict[str, Any] = {"database_url": args.database_url}
    if args.workers is not None:
        overrides["workers"] = args.workers
    if args.geocoder is not None:
        overrides["geocoder"] = args.geocoder
    if args.render_url is not None:
        overrides["render_url"] = args.render_url
    if args.public_url is not None:
        overrides["public_url"] = args.public_url
    if args.no_access_log:
        overrides["access_log"] = False
    settings = Settings.from_env(**overrides)
    run(settings, host=args.host, port=args.port)
    return 0


def _render_keys_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    from bodygraph_server.store.sql import SqlStore

    if not isinstance(book.store, SqlStore):
        raise CommandError("render keys live in an SQL store")
    kids = [kid for kid, _secret in book.store.render_keys()]
    if args.json:
        _print_json({"kids": kids, "signing": kids[-1] if kids else None})
    elif not kids:
        print("no render key stored yet (the service creates one at its first start, "
              "unless BODYGRAPH_RENDER_KEYS is set)")
    else:
        for kid in kids:
            print(f"{kid}{'  (signs new links)' if kid == kids[-1] else ''}")
    return 0


def _render_keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    from bodygraph_server.images.signing_keys import rotate

    key = rotate(book.store, book.clock.now())
    print(f"render key {key.kid} stored; it signs new links after the service restarts "
          "(older keys keep verifying)")
    return 0


# -- parser --------------------------------------------------------------------------------


_account_id = account_id
_non_negative = bounded_int("the balance", 0)
_port = bounded_int("port", 0, 65535)
_workers = bounded_int("workers", 1)


def build_parser() -> argparse.ArgumentParser:
    """The ``bodygraph-server`` argument parser."""
    parser = _Parser(
        prog=PROG,
        description="Administer bodygraph service accounts, keys and credits; run the service.",
        epilog=f"The database comes from {ENV_VAR} (default {DEFAULT_DATABASE_URL}).",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help=f"database URL (overrides {ENV_VAR})",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
    show = acc.add_parser("show", help="show one account")
    show.add_argument("id", type=_account_id, metavar="ID")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=_accounts_show)
    for name, active, text in (
        ("deactivate", False, "block the account (requests give ACCOUNT_INACTIVE)"),
        ("activate", True, "unblock a deactivated account"),
    ):
        sub = acc.add_parser(name, help=text)
        sub.add_argument("id", type=_account_id, metavar="ID")
        sub.set_defaults(func=_accounts_set_active(active))
    cancel = acc.add_parser("cancel", help="cancel at the end of the billing period")
    cancel.add_argument("id", type=_account_id, metavar="ID")
    cancel.set_defaults(func=_accounts_cancel)

    keys = commands.add_parser("keys", help="rotate an account's API key")
    key_actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    rotate = key_actions.add_parser("rotate", help="new key now; the old one stops working")
    rotate.add_argument("id", type=_account_id, metavar="ID")
    rotate.add_argument("--json", action="store_true", help="print account_id and api_key")
    rotate.set_defaults(func=_keys_rotate)

    overage = commands.add_parser("overage", help="enable or disable overage billing")
    overage.add_argument("action", choices=["enable", "disable"])
    overage.add_argument("id", type=_account_id, metavar="ID")
    overage.set_defaults(func=_overage)

    credits = commands.add_parser("credits", help="adjust the balance; show the ledger")
    credit_actions = credits.add_subparsers(dest="action", required=True, metavar="ACTION")
    adjust = credit_actions.add_parser("adjust", help="set the balance (recorded in the ledger)")
    adjust.add_argument("id", type=_account_id, metavar="ID")
    adjust.add_argument("--set", type=_non_negative, required=True, metavar="N")
    adjust.add_argument("--note", default="manual adjustment", help="ledger note")
    adjust.add_argument("--json", action="store_true")
    adjust.set_defaults(func=_credits_adjust)
    ledger = credit_actions.add_parser("ledger", help="list the account's ledger")
    ledger.add_argument("id", type=_account_id, metavar="ID")
    ledger.add_argument("--json", action="store_true")
    ledger.set_defaults(func=_credits_ledger)

    usage = commands.add_parser("usage", help="per-period calls, credits, overage and price")
    usage.add_argument("id", type=_account_id, metavar="ID")
    usage.add_argument("--json", action="store_true")
    usage.set_defaults(func=_usage)

    serve = commands.add_parser("serve", help="run the HTTP service (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8000)
    serve.add_argument("--workers", type=_workers, default=None)
    serve.add_argument("--geocoder", choices=["google", "offline"], default=None)
    serve.add_argument("--render-url", default=None, metavar="URL",
                       help="base of svgRenderUrl (default: this service under /render)")
    serve.add_argument("--public-url", default=None, metavar="URL",
                       help="public base URL of this service (default: the request's host)")
    serve.add_argument("--no-access-log", action="store_true",
                       help="no log line per request (uvicorn's access log)")
    serve.set_defaults(func=_serve)

    add_template_commands(commands)

    render_keys = commands.add_parser(
        "render-keys", help="render signing keys kept in the database")
    key_cmds = render_keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    keys_list = key_cmds.add_parser("list", help="list stored key ids (never the secrets)")
    keys_list.add_argument("--json", action="store_true")
    keys_list.set_defaults(func=_render_keys_list)
    keys_rotate = key_cmds.add_parser(
        "rotate", help="store a new signing key (used after a restart; old links keep working)")
    keys_rotate.set_defaults(func=_render_keys_rotate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (0 success, 1 failure, 2 bad command line)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.database_url = args.database_url or database_url_from_env()
    try:
        with Bookkeeper.open(args.database_url) as book:
            status: int = args.func(book, args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the CLI boundary: one line, never a traceback
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
