"""``bodygraph-server``: administer accounts, keys, credits and usage; start the service.
Commands, options, ``--json`` keys, the database setting and the exit statuses are stable
and documented in docs/accounts.md; the words are in ``--lang`` (docs/languages.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from bodygraph.catalog.arguments import (
    LanguageParser,
    UnknownLanguageError,
    asked_language,
    chosen_language,
)
from bodygraph.catalog.said import os_reason
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog
from bodygraph.errors import BodygraphError
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.accounts import add_account_commands
from bodygraph_server.cli.console import PROG, CommandError
from bodygraph_server.cli.jobs import add_job_commands
from bodygraph_server.cli.said import PHRASES, said
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


class _Parser(LanguageParser):
    """argparse in the asked language with one-line errors (no usage dump)
    (:class:`~bodygraph.catalog.arguments.LanguageParser`); its mistakes are read as
    argparse's and the argument types' messages. Each parser takes ``--lang``, so that it
    can be given anywhere (the last one wins); only ``bodygraph-server --help`` shows it,
    the commands' helps are as they were."""

    phrases = PHRASES
    marker = PROG  # "bodygraph-server: error:", a command's mistake too

    def __init__(self, *args: Any, shows_lang: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        text = catalog(self.lang).pgettext(
            "admin", "language of the words: {codes} (default: $BODYGRAPH_LANG, else en), "
            "before or after the command; --json stays as it is").format(
                codes=", ".join(LANGUAGES))
        self.add_argument("--lang", metavar="CODE", default=argparse.SUPPRESS,
                          help=text if shows_lang else argparse.SUPPRESS)

    def add_subparsers(self, **kwargs: Any) -> argparse._SubParsersAction[Any]:
        kwargs.setdefault("parser_class", _SubParser(self.lang))
        return super().add_subparsers(**kwargs)


class _SubParser:
    """The ``parser_class`` of a parser's subcommands: a :class:`_Parser` in ``lang``."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def __call__(self, *args: Any, **kwargs: Any) -> _Parser:
        return _Parser(*args, lang=self.lang, **kwargs)


def build_parser(lang: str = SOURCE_LANGUAGE) -> argparse.ArgumentParser:
    """The ``bodygraph-server`` argument parser, its help in ``lang``."""
    tr = catalog(lang)
    parser = _Parser(
        prog=PROG, lang=lang, shows_lang=True,
        description=tr.pgettext("admin", "Administer bodygraph service accounts, keys and "
                                "credits; run the service."),
        epilog=tr.pgettext("admin", "The database comes from {variable} (default "
                           "{url}).").format(variable=ENV_VAR, url=DEFAULT_DATABASE_URL),
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help=tr.pgettext("admin", "database URL (overrides {variable})").format(
            variable=ENV_VAR),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_account_commands(commands, lang)
    add_service_commands(commands, lang)
    add_template_commands(commands, lang)
    add_webhook_commands(commands, lang)
    add_job_commands(commands, lang)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (0 success, 1 failure, 2 bad command line, 130
    interrupted)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:  # a source checkout without Babel cannot read its catalogs: said in English
        catalog(asked_language(arguments))
    except BodygraphError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    args = build_parser(asked_language(arguments)).parse_args(arguments)
    try:
        args.lang, _ = chosen_language(getattr(args, "lang", None))
    except UnknownLanguageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    tr = catalog(args.lang)
    args.database_url = args.database_url or database_url_from_env()
    try:
        opener = getattr(args, "open_book", Bookkeeper.open)  # serve: waits for the database
        with opener(args.database_url) as book:
            status: int = args.func(book, args)
    except KeyboardInterrupt:
        print(f"{PROG}: {tr.pgettext('error', 'interrupted')}", file=sys.stderr)
        return 130
    except SettingsError as exc:  # a BODYGRAPH_* variable: a usage mistake, like its flag
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except EXPECTED_ERRORS as exc:  # one line; a bug keeps its traceback
        print(f"{PROG}: error: {_failure(exc, args.lang)}", file=sys.stderr)
        return 1
    return status


def _failure(exc: Exception, lang: str) -> str:
    """The one line of a failure in ``lang``: a file the system could not use as the
    library's command line says it (in English the system's own words, as before), else
    the message said in the language."""
    tr = catalog(lang)
    if isinstance(exc, OSError) and exc.errno is not None and lang != SOURCE_LANGUAGE:
        message = (tr.pgettext("error", "cannot use {path}: {reason}") if exc.filename
                   else tr.pgettext("error", "cannot use: {reason}"))
        return message.format(path=exc.filename, reason=os_reason(exc, lang))
    message = " ".join(str(exc).split())
    return said(message, lang) if message else tr.pgettext("admin", "the operation failed")


if __name__ == "__main__":
    sys.exit(main())
