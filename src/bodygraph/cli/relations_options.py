"""What ``bodygraph transit``, ``connection`` and ``penta`` share: their parser's frame,
and the library's bad-input errors reported as user mistakes."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import wraps

from bodygraph.cli.options import CliError, Subparsers, add_calculation_options
from bodygraph.errors import InvalidInstantError, InvalidOptionError, OutOfRangeError

Handler = Callable[[argparse.Namespace], int]


def command_parser(subparsers: Subparsers, name: str, summary: str, description: str,
                   examples: Sequence[str]) -> argparse.ArgumentParser:
    """A subcommand's parser with its examples under the options."""
    return subparsers.add_parser(
        name, help=summary, description=description,
        epilog="examples:\n" + "\n".join(f"  {example}" for example in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def finish_command(parser: argparse.ArgumentParser, what: str, handler: Handler) -> None:
    """Add ``--json`` (print ``what`` as JSON), the calculation options and the handler."""
    parser.add_argument("--json", action="store_true", help=f"print the {what} as JSON")
    add_calculation_options(parser.add_argument_group("calculation"))
    parser.set_defaults(handler=handler)


def input_errors_exit_2(handler: Handler) -> Handler:
    """Report the library's bad-input errors (an instant outside the kernel, an option
    out of bounds) as user mistakes: one line and exit status 2."""
    @wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (OutOfRangeError, InvalidInstantError, InvalidOptionError) as exc:
            raise CliError(str(exc)) from None

    return run
