"""What the subcommands share: the user-mistake error, the exit statuses, help texts in
plain text, and the calculation and geocoding options with what they build."""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from bodygraph.calculator import Calculator, default_calculator
from bodygraph.catalog.translations import catalog
from bodygraph.errors import OutOfRangeError
from bodygraph.geo.providers import DEFAULT_GEOCODER, GEOCODERS

if TYPE_CHECKING:
    from bodygraph.geo.places import Geocoder

#: What ``add_parser(subparsers)`` of a subcommand module receives.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
#: Where options go: a parser or one of its argument groups.
Options: TypeAlias = "argparse.ArgumentParser | argparse._ArgumentGroup"


class CliError(Exception):
    """A user mistake, reported as one line and exit status 2; one made by
    :func:`usage_error` can also be said in another language (:meth:`text`)."""

    def __init__(self, message: str, template: str | None = None,
                 fields: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.fields = dict(fields or {})

    def text(self, lang: str) -> str:
        """The message in ``lang`` (the catalogs' context ``error``; a field that is a
        library error or message is said in ``lang`` too, see :mod:`bodygraph.cli.said`)."""
        from bodygraph.cli.said import said

        if self.template is None:
            return said(str(self), lang)
        fields = {name: said(str(value), lang) if isinstance(value, str | BaseException)
                  else value for name, value in self.fields.items()}
        return catalog(lang).pgettext("error", self.template).format(**fields)


def usage_error(context: str, template: str, **fields: object) -> CliError:
    """A :class:`CliError` of the message ``template`` (in ``context``, always ``"error"``:
    ``pybabel extract`` reads these calls as it reads ``pgettext``) with its ``fields``."""
    if context != "error":
        raise ValueError(f"usage errors are in the context 'error', not {context!r}")
    return CliError(template.format(**fields), template, fields)


#: What every exit status of ``bodygraph`` means (the end of each ``--help``).
EXIT_STATUS: Final = """exit status:
  0    done
  1    the work failed: a value could not be used (an unknown place, a date outside the
       ephemeris, ...), a file could not be read or written, or (batch) some rows are
       bad: they are in the output with error_code and error
  2    a usage mistake: an unknown option, a missing or malformed argument
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM); batch removes its unfinished output, as for 130"""

#: How the command line says to use a larger kernel (the end of an out-of-range error).
LARGER_KERNEL: Final = "pass a larger kernel (--ephemeris BSP or $BODYGRAPH_EPHEMERIS)"

#: An entry of a table in a help text: "  2    a usage mistake ..." (a term, two spaces),
#: or of a list: "* birth_utc: ...".
_ENTRY: Final = re.compile(r"( +\S+ {2,}|\* )(\S.*)")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help with the description and epilog reflowed to the terminal's width
    (``$COLUMNS``): a paragraph of plain lines is filled; in a block of indented lines
    (examples, the exit statuses) or of list items each line is kept, except that a table
    entry ("  2    a usage mistake: ...") or a list item ("* birth_utc: ...") and its
    deeper-indented continuation lines are filled under the entry's text."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(_fill_block(block, width, indent)
                            for block in text.strip("\n").split("\n\n"))


def _fill_block(block: str, width: int, indent: str) -> str:
    lines = block.splitlines()
    if not any(line.startswith((" ", "* ")) for line in lines):
        return textwrap.fill(" ".join(line.strip() for line in lines), width,
                             initial_indent=indent, subsequent_indent=indent)
    out: list[str] = []
    head, words = "", ""
    for line in lines:
        entry = _ENTRY.fullmatch(line)
        if head and not entry and line.startswith(" " * len(head)) and line.strip():
            words += " " + line.strip()
            continue
        if head:
            out.append(textwrap.fill(words, width, initial_indent=indent + head,
                                     subsequent_indent=indent + " " * len(head)))
            head, words = "", ""
        if entry:
            head, words = entry.group(1), entry.group(2)
        else:
            out.append(indent + line)
    if head:
        out.append(textwrap.fill(words, width, initial_indent=indent + head,
                                 subsequent_indent=indent + " " * len(head)))
    return "\n".join(out)


_ROLE: Final = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`")
_LITERAL: Final = re.compile(r"``(.+?)``")


def plain_text(text: str) -> str:
    """reStructuredText from a docstring as the plain text of a ``--help``: roles
    (``:func:`name```) and literals (````text````) lose their marks.

    >>> plain_text("a ``row`` of :data:`~bodygraph.columnar.COLUMNS`")
    'a row of bodygraph.columnar.COLUMNS'
    """
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text))


def with_labels(args: argparse.Namespace, data: dict[str, Any],
                labels: Callable[[str], Any]) -> dict[str, Any]:
    """``data``, and when a language was asked (``--lang`` or ``$BODYGRAPH_LANG``, never
    the locale) a ``"labels"`` member beside its fields: ``labels(lang)``."""
    if getattr(args, "lang_asked", False):
        return {**data, "labels": labels(args.lang)}
    return data


def json_text(args: argparse.Namespace, data: dict[str, Any],
              labels: Callable[[str], Any]) -> str:
    """The ``--json`` of a command: ``data`` :func:`with_labels`."""
    return json.dumps(with_labels(args, data, labels), indent=2, ensure_ascii=False)


def add_calculation_options(options: Options) -> None:
    """``--node`` and ``--ephemeris``."""
    options.add_argument("--node", choices=("true", "mean"), default="true",
                         help="lunar node: true (osculating, default) or mean")
    options.add_argument("--ephemeris", metavar="BSP",
                         help="JPL kernel to use (default: $BODYGRAPH_EPHEMERIS or the shipped "
                         "DE440)")


def add_geocoder_options(options: Options, *, looked_up: str) -> None:
    """``--geocoder`` and ``--geocode-key``; ``looked_up`` names what the geocoder reads."""
    options.add_argument("--geocoder", choices=GEOCODERS, default=DEFAULT_GEOCODER,
                         help=f"how {looked_up} is looked up (default: the offline gazetteer)")
    options.add_argument("--geocode-key", metavar="KEY", help="your Google geocoding key")


def out_of_range_text(error: OutOfRangeError, served: str = "births") -> str:
    """``error`` in the command line's words: ``served`` names what the range is of
    (``births``; ``instants`` for a transit's time) and the remedy names ``--ephemeris``."""
    return error.explain(served=served, remedy=LARGER_KERNEL)


def calculator_from(args: argparse.Namespace) -> Calculator:
    """The calculator of ``--ephemeris`` (or the default one)."""
    return Calculator(args.ephemeris) if args.ephemeris else default_calculator(None)


def geocoder_from(args: argparse.Namespace) -> Geocoder:
    """The geocoder of ``--geocoder`` and ``--geocode-key``."""
    from bodygraph.geo.places import (  # the gazetteer code: only when used
        GeocodeKeyMissingError,
        geocoder_for,
    )

    try:
        return geocoder_for(args.geocoder, args.geocode_key)
    except GeocodeKeyMissingError as exc:
        raise CliError(str(exc)) from None  # said in the language by CliError.text


def note_if_plain(command: str, lang: str = "en") -> None:
    """One line on stderr (in ``lang``) when numba is missing: ``command`` (a batch, or a
    search over many instants) then runs the engine as plain Python, tens of times
    slower."""
    from bodygraph.ephemeris.fast.jit import FAST_EXTRA, can_compile

    if not can_compile():
        print(catalog(lang).pgettext(
            "cli", "note: numba is not installed, so charts are computed as plain Python; "
            "{extra} makes {command} much faster").format(extra=FAST_EXTRA, command=command),
            file=sys.stderr)
