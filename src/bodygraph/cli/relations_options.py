"""What the commands of one or more births share: their parser's frame (help in the asked
language), and the library's bad-input errors reported as user mistakes."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import wraps

from bodygraph.catalog.translations import catalog
from bodygraph.cli.options import (
    CliError,
    Subparsers,
    add_calculation_options,
    examples_text,
    out_of_range_text,
)
from bodygraph.errors import InvalidInstantError, InvalidOptionError, OutOfRangeError

Handler = Callable[[argparse.Namespace], int]


def command_parser(subparsers: Subparsers, name: str, lang: str, summary: str,
                   description: str, examples: Sequence[str],
                   status: str) -> argparse.ArgumentParser:
    """A subcommand's parser, its help in ``lang`` (``summary`` and ``description``
    already in it), with its examples and ``status`` (:func:`exit_status`) under the
    options."""
    return subparsers.add_parser(
        name, lang=lang, help=summary, description=description,
        epilog=f"{examples_text(lang, examples)}\n\n{status}",
    )


def finish_command(parser: argparse.ArgumentParser, lang: str, json_help: str,
                   handler: Handler) -> None:
    """Add ``--json`` (``json_help`` says what it prints), the calculation options and the
    handler."""
    parser.add_argument("--json", action="store_true", help=json_help)
    add_calculation_options(
        parser.add_argument_group(catalog(lang).pgettext("help", "calculation")), lang)
    parser.set_defaults(handler=handler)


def input_errors_exit_2(handler: Handler) -> Handler:
    """Report the library's bad-input errors (an instant outside the kernel, an option
    out of bounds) as user mistakes: one line and exit status 2."""
    @wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except OutOfRangeError as exc:
            raise CliError(out_of_range_text(exc)) from None
        except (InvalidInstantError, InvalidOptionError) as exc:
            raise CliError(str(exc)) from None

    return run
