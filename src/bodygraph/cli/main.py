"""The ``bodygraph`` command line: the parser of every subcommand, and errors as one line.

A subcommand is a module of this package with ``add_parser(subparsers, lang)``, which adds
its parser (its help in ``lang``) and sets ``handler`` (``args -> exit status``); list it in
:data:`SUBCOMMANDS`.
Only the module of the command being run is imported (the others cost tens of ms of
start-up); ``bodygraph --help``, and a command line naming no known command, import all.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import bodygraph
from bodygraph.catalog.arguments import (
    LanguageParser,
    UnknownLanguageError,
    asked_language,
    chosen_language,
)
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog
from bodygraph.cli.options import (
    CliError,
    examples_text,
    exit_status,
    out_of_range_text,
)
from bodygraph.cli.said import PHRASES, os_reason, said
from bodygraph.cli.stopping import TERMINATED_STATUS, Terminated, terminable
from bodygraph.errors import BodygraphError, OutOfRangeError

#: The subcommands (modules of this package), in the order ``bodygraph --help`` lists them.
SUBCOMMANDS = ("chart", "batch", "transit", "connection", "penta", "sensitivity", "stability",
               "rectify", "cycles", "calendar", "hologenetic", "astro", "wheel")


def build_parser(argv: Sequence[str] | None = None,
                 lang: str = SOURCE_LANGUAGE) -> argparse.ArgumentParser:
    """The argument parser of ``bodygraph``: with every subcommand, or only the one
    ``argv`` runs when its first word names one (the same parse, a faster start); its
    help and usage mistakes are said in ``lang``."""
    wanted = [argv[0]] if argv and argv[0] in SUBCOMMANDS else list(SUBCOMMANDS)
    modules = [importlib.import_module(f"bodygraph.cli.{name}") for name in wanted]
    example = modules[0].EXAMPLE if wanted[0] == "chart" else ""
    tr = catalog(lang)
    parser = _Parser(
        prog="bodygraph", lang=lang,
        description=tr.pgettext("help", "Exact Human Design charts (bodygraphs) from JPL "
                                "ephemerides."),
        epilog=f"{examples_text(lang, [example])}\n\n{exit_status(lang)}",
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help=tr.pgettext("help", "show the version and exit"))
    parser.add_argument("--lang", metavar="CODE", dest="lang_first",
                        help=tr.pgettext("help", "language of the words (as each command's "
                                         "--lang)"))
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in modules:
        module.add_parser(subparsers, lang)
    lang_help = tr.pgettext(
        "help", "language of the words: {codes} (default: $BODYGRAPH_LANG, else en); with "
        "--json the words come in a top-level \"labels\" object").format(
            codes=", ".join(LANGUAGES))
    for command in subparsers.choices.values():
        command.add_argument("--lang", metavar="CODE", help=lang_help)
    return parser


class _Parser(LanguageParser):
    """The command line's parser in the asked language (:class:`LanguageParser`): its
    usage mistakes read as argparse's messages and ``batch``'s lines; its subcommands'
    parsers are of this class too."""

    phrases = PHRASES


class _Version(argparse.Action):
    """``--version``, looking the version up only when asked (it costs tens of ms)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"bodygraph {bodygraph.__version__}")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bodygraph`` console script: the exit status (0 done, 1 the
    work failed or some rows are bad, 2 a usage mistake, 130 interrupted, 143 terminated;
    see :func:`~bodygraph.cli.options.exit_status`)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    asked = asked_language(arguments)
    try:  # a source checkout without Babel cannot read its catalogs: said in English
        catalog(asked)
    except BodygraphError as exc:
        print(f"bodygraph: error: {exc}", file=sys.stderr)
        return 1
    parser = build_parser(arguments, asked)
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        _resolve_language(args)
    except CliError as exc:
        print(f"bodygraph: error: {exc}", file=sys.stderr)
        return 2
    tr = catalog(args.lang)
    try:
        with terminable():
            status: int = args.handler(args)
    except CliError as exc:
        print(f"bodygraph: error: {exc.text(args.lang)}", file=sys.stderr)
        return 2
    except OutOfRangeError as exc:  # a value that cannot be used (the relations: status 2)
        print(f"bodygraph: error: {said(out_of_range_text(exc), args.lang)}", file=sys.stderr)
        return 1
    except BodygraphError as exc:
        print(f"bodygraph: error: {said(str(exc), args.lang)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated)
        print("bodygraph: " + tr.pgettext("error", "interrupted"), file=sys.stderr)
        return TERMINATED_STATUS if isinstance(exc, Terminated) else 130
    except BrokenPipeError:
        return 0
    except (UnicodeEncodeError, UnicodeDecodeError) as exc:  # a lone surrogate, say
        print("bodygraph: error: " + tr.pgettext(
            "error", "a text cannot be encoded ({reason})").format(reason=exc.reason),
            file=sys.stderr)
        return 2
    except OSError as exc:  # files we were asked to read or write
        message = (tr.pgettext("error", "cannot use {path}: {reason}") if exc.filename
                   else tr.pgettext("error", "cannot use: {reason}"))
        print("bodygraph: error: " + message.format(path=exc.filename,
                                                    reason=os_reason(exc, args.lang)),
              file=sys.stderr)
        return 1
    return status


def _resolve_language(args: argparse.Namespace) -> None:
    """Set ``args.lang`` to the language asked (``--lang``, else ``$BODYGRAPH_LANG``, else
    English; never the locale) and ``args.lang_asked`` to whether one was asked, so that
    ``--json`` adds its words; an unknown code is a usage mistake."""
    try:
        args.lang, args.lang_asked = chosen_language(args.lang or getattr(args, "lang_first",
                                                                         None))
    except UnknownLanguageError as exc:
        raise CliError(str(exc)) from None


if __name__ == "__main__":
    raise SystemExit(main())
