"""What ``bodygraph transit``, ``connection`` and ``penta`` share: their parser's frame,
and the library's bad-input errors reported as user mistakes."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import wraps

from bodygraph.cli.options import (
    CliError,
    HelpFormatter,
    Subparsers,
    add_calculation_options,
    out_of_range_text,
)
from bodygraph.errors import InvalidInstantError, InvalidOptionError, OutOfRangeError

Handler = Callable[[argparse.Namespace], int]

def exit_status(*, births: bool = True, images: bool = False, count: bool = False,
                ics: bool = False, malformed: str = "") -> str:
    """What the exit status of a relations command means (issue 12: an instant outside
    the kernel is bad input here, status 2), naming only what the command takes: a birth
    (``births``), ``--svg``/``--png``/``--theme`` (``images``), a number of births
    (``count``), ``--ics`` (``ics``); ``malformed`` names its own malformed arguments."""
    failed = ["a kernel that cannot be read"]
    if births:
        failed.insert(0, "an unknown place")
    if images:
        failed.append("an image that cannot be drawn or written (--png without cairo)")
    if ics:
        failed.append("an --ics file that cannot be written (or --ics without the ics extra)")
    if births:
        malformed = ", ".join(filter(None, [
            "a date or time that does not exist", f"an unknown --tz{' or --theme' * images}",
            malformed]))
    mistakes = ["an unknown option", f"a malformed argument ({malformed})",
                "an instant outside the ephemeris (1800-04-04..2199-12-31)"]
    if count:
        mistakes.append("a wrong number of births")
    return ("exit status:\n  0    done\n"
            f"  1    the work failed: {', '.join(failed)}\n"
            f"  2    a usage mistake or bad input: {', '.join(mistakes)}\n"
            "  130  interrupted (Ctrl-C)\n  143  terminated (SIGTERM)")


def command_parser(subparsers: Subparsers, name: str, summary: str, description: str,
                   examples: Sequence[str], status: str) -> argparse.ArgumentParser:
    """A subcommand's parser with its examples and ``status`` (:func:`exit_status`)
    under the options."""
    return subparsers.add_parser(
        name, help=summary, description=description,
        epilog="examples:\n" + "\n".join(f"  {example}" for example in examples)
        + f"\n\n{status}",
        formatter_class=HelpFormatter,
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
        except OutOfRangeError as exc:
            raise CliError(out_of_range_text(exc)) from None
        except (InvalidInstantError, InvalidOptionError) as exc:
            raise CliError(str(exc)) from None

    return run
