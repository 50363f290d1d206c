"""``bodygraph-server webhook-secret show|rotate ID``: an account's webhook signing secret
(the one ``GET /v2/account/webhook-secret`` shows its owner)."""

from __future__ import annotations

import argparse
from typing import Any

from bodygraph.catalog.translations import catalog
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.argtypes import account_id
from bodygraph_server.cli.console import print_json, words


def _show(book: Bookkeeper, args: argparse.Namespace) -> int:
    secret = book.webhook_secret(args.id)
    if args.json:
        print_json({"account_id": args.id, "secret": secret})
    else:
        print(words(args).pgettext("admin", "webhook secret of account {account}: {secret}")
              .format(account=args.id, secret=secret))
    return 0


def _rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    secret = book.rotate_webhook_secret(args.id)
    if args.json:
        print_json({"account_id": args.id, "secret": secret})
    else:
        tr = words(args)
        print(tr.pgettext("admin", "webhook secret of account {account} rotated; webhooks are "
                          "signed with the new one from now on").format(account=args.id))
        print(tr.pgettext("admin", "webhook secret: {secret}").format(secret=secret))
    return 0


def add_webhook_commands(commands: argparse._SubParsersAction[Any],
                         lang: str = "en") -> None:
    """Register ``webhook-secret`` on the admin parser's subcommands, its help in
    ``lang``."""
    tr = catalog(lang)
    parser = commands.add_parser("webhook-secret", help=tr.pgettext(
        "admin", "show or rotate an account's webhook signing secret"))
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text, run in (
        ("show", tr.pgettext("admin", "the secret (made on first ask)"), _show),
        ("rotate", tr.pgettext("admin", "a new secret now; the old one signs nothing more"),
         _rotate),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("id", type=account_id, metavar="ID")
        action.add_argument("--json", action="store_true",
                            help=tr.pgettext("admin", "print account_id and secret"))
        action.set_defaults(func=run)
