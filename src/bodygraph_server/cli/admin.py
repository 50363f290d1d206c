"""``bodygraph-server``: administer accounts, keys, credits and usage; start the service.
Commands, options, ``--json`` keys, the database setting and the exit statuses are stable
and documented in docs/accounts.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.accounts import add_account_commands
from bodygraph_server.cli.console import PROG, CommandError
from bodygraph_server.cli.jobs import add_job_commands
from bodygraph_server.cli.service import add_service_commands
from bodygraph_server.cli.templates import add_template_commands
from bodygraph_server.cli.webhook_secrets import add_webhook_commands
from bodygraph_server.settings import SettingsError
from bodygraph_server.store import (
    DEFAULT_DATABASE_URL,
    ENV_VAR,
    StoreError,
    database_url_from_env,
)

#: What a command can fail with that the user can act on: printed as one line. Anything
#: else is a bug and shows its traceback.
EXPECTED_ERRORS = (CommandError, StoreError, OSError, ValueError)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message} (see {self.prog} --help)\n")


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

    add_account_commands(commands)
    add_service_commands(commands)
    add_template_commands(commands)
    add_webhook_commands(commands)
    add_job_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (0 success, 1 failure, 2 bad command line)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.database_url = args.database_url or database_url_from_env()
    try:
        opener = getattr(args, "open_book", Bookkeeper.open)  # serve: waits for the database
        with opener(args.database_url) as book:
            status: int = args.func(book, args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except SettingsError as exc:  # a BODYGRAPH_* variable: a usage mistake, like its flag
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except EXPECTED_ERRORS as exc:  # one line; a bug keeps its traceback
        message = " ".join(str(exc).split()) or "the operation failed"
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
