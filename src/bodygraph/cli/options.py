"""What the subcommands share: the user-mistake error, the help's exit statuses and examples
(its formatter in the asked language: :mod:`bodygraph.catalog.arguments`), and the
calculation and geocoding options with what they build."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from bodygraph.calculator import Calculator, default_calculator
from bodygraph.catalog.translations import catalog, pgettext
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


def exit_status(lang: str, failed: str | None = None, mistake: str | None = None) -> str:
    """What each exit status of a command means (the end of its ``--help``), in ``lang``:
    ``failed`` (status 1) and ``mistake`` (status 2) are the command's own whole texts,
    already in ``lang``; without them, those of every command."""
    tr = catalog(lang)
    heading = tr.pgettext("help", "exit status:")
    done = tr.pgettext("help", "done")
    failed = failed or tr.pgettext(
        "help", "the work failed: a value could not be used (an unknown place, a date outside "
        "the ephemeris, ...), a file could not be read or written, or (batch) some rows are "
        "bad: they are in the output with error_code and error")
    mistake = mistake or tr.pgettext(
        "help", "a usage mistake: an unknown option, a missing or malformed argument")
    interrupted = tr.pgettext("help", "interrupted")
    terminated = tr.pgettext(
        "help", "terminated (SIGTERM); an unfinished output file is removed, as for 130")
    return (f"{heading}\n  0    {done}\n  1    {failed}\n  2    {mistake}\n"
            f"  130  {interrupted}\n  143  {terminated}")


def examples_text(lang: str, examples: Sequence[str]) -> str:
    """The examples of a ``--help`` under their heading (``example:`` for one)."""
    tr = catalog(lang)
    heading = (tr.pgettext("help", "example:") if len(examples) == 1
               else tr.pgettext("help", "examples:"))
    return heading + "".join(f"\n  {example}" for example in examples)


#: How the command line says to use a larger kernel (the end of an out-of-range error).
LARGER_KERNEL: Final = "pass a larger kernel (--ephemeris BSP or $BODYGRAPH_EPHEMERIS)"

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


def add_calculation_options(options: Options, lang: str) -> None:
    """``--node`` and ``--ephemeris``, their help in ``lang``."""
    tr = catalog(lang)
    options.add_argument("--node", choices=("true", "mean"), default="true",
                         help=tr.pgettext("help", "lunar node: {true} (osculating, default) "
                                          "or {mean}").format(true="true", mean="mean"))
    options.add_argument("--ephemeris", metavar="BSP",
                         help=tr.pgettext("help", "JPL kernel to use (default: "
                                          "$BODYGRAPH_EPHEMERIS or the shipped DE440)"))


#: The help of ``--geocoder``, by what the geocoder reads.
GEOCODER_HELPS: Final = {
    "--place": pgettext("help", "how --place is looked up (default: the offline gazetteer)"),
    "a location column": pgettext("help", "how a location column is looked up (default: the "
                                  "offline gazetteer)"),
}


def add_geocoder_options(options: Options, lang: str, *, looked_up: str) -> None:
    """``--geocoder`` and ``--geocode-key``, their help in ``lang``; ``looked_up`` names
    what the geocoder reads (a key of :data:`GEOCODER_HELPS`)."""
    tr = catalog(lang)
    options.add_argument("--geocoder", choices=GEOCODERS, default=DEFAULT_GEOCODER,
                         help=tr.pgettext("help", GEOCODER_HELPS[looked_up]))
    options.add_argument("--geocode-key", metavar="KEY",
                         help=tr.pgettext("help", "your Google geocoding key"))


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


def note_if_plain(command: str, lang: str) -> None:
    """One line on stderr (in ``lang``) when numba is missing: ``command`` (a batch, or a
    search over many instants) then runs the engine as plain Python, tens of times
    slower."""
    from bodygraph.ephemeris.fast.jit import FAST_EXTRA, can_compile

    if not can_compile():
        print(catalog(lang).pgettext(
            "cli", "note: numba is not installed, so charts are computed as plain Python; "
            "{extra} makes {command} much faster").format(extra=FAST_EXTRA, command=command),
            file=sys.stderr)
