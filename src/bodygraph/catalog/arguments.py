"""argparse in a language, for the library's command line and the service's: the help's
formatter (texts wrapped by terminal columns), a parser whose own words and usage mistakes
are in the language, argparse's messages, and the language a command line asks for."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, Final, NoReturn

from bodygraph.catalog.columns import display_width, wrap
from bodygraph.catalog.said import Phrases, said
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog, pgettext

#: The environment variable whose value is the default of ``--lang``.
LANG_VARIABLE: Final = "BODYGRAPH_LANG"

#: argparse's messages of a usage mistake (Python's own words).
ARGPARSE_MESSAGES: tuple[str, ...] = (
    pgettext("error", "unrecognized arguments: {arguments}"),
    pgettext("error", "the following arguments are required: {names}"),
    pgettext("error", "one of the arguments {names} is required"),
    pgettext("error", "argument {name}: invalid choice: {value} (choose from {choices})"),
    pgettext("error", "argument {name}: invalid {kind} value: {value}"),
    pgettext("error", "argument {name}: expected one argument"),
    pgettext("error", "argument {name}: expected at least one argument"),
    pgettext("error", "argument {name}: not allowed with argument {other}"),
    pgettext("error", "argument {name}: ignored explicit argument {value}"),
    pgettext("error", "ambiguous option: {option} could match {matches}"),
)
#: argparse's messages as :func:`~bodygraph.catalog.said.said` reads them.
ARGPARSE_PHRASES: Phrases = tuple(("error", m) for m in ARGPARSE_MESSAGES)


class UnknownLanguageError(ValueError):
    """A language code that is not one of :data:`LANGUAGES` (said in English: no catalog
    can be chosen)."""


def asked_language(arguments: Sequence[str]) -> str:
    """The language a command line asks for before it is parsed (for argparse's own
    messages): the last ``--lang CODE`` or ``--lang=CODE``, else ``$BODYGRAPH_LANG``, else
    English; an unknown code is English (its error comes after parsing)."""
    given = os.environ.get(LANG_VARIABLE) or None
    for i, word in enumerate(arguments):
        if word == "--":
            break
        if word == "--lang" and i + 1 < len(arguments):
            given = arguments[i + 1]
        elif word.startswith("--lang="):
            given = word.removeprefix("--lang=")
    return given if given in LANGUAGES else SOURCE_LANGUAGE


def chosen_language(given: str | None) -> tuple[str, bool]:
    """The language of a parsed command line and whether one was asked: ``given`` (its
    ``--lang``), else ``$BODYGRAPH_LANG``, else English; never the locale. An unknown code
    raises :class:`UnknownLanguageError`."""
    where = "--lang"
    if given is None and os.environ.get(LANG_VARIABLE):
        given, where = os.environ[LANG_VARIABLE], f"${LANG_VARIABLE}"
    if given is not None and given not in LANGUAGES:
        raise UnknownLanguageError(f"{where} {given!r} is not a supported language; use one "
                                   f"of {', '.join(LANGUAGES)}")
    return given or SOURCE_LANGUAGE, given is not None


#: An entry of a table in a help text: "  2    a usage mistake ..." (a term, two spaces),
#: or of a list: "* birth_utc: ...".
_ENTRY: Final = re.compile(r"( +\S+ {2,}|\* )(\S.*)")
#: White space as argparse folds it in an option's help (ASCII: a no-break space stays).
_SPACES: Final = re.compile(r"[ \t\n\r\f\v]+")
#: Stands for each column of the usage prefix while argparse lays the usage out by
#: characters (a prefix of wide characters takes more columns than characters).
_PREFIX_COLUMN: Final = "\x1f"


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help in the language ``lang``, its lines fitting the terminal's width
    (``$COLUMNS``) in columns (a wide character takes two): argparse's ``usage:`` in the
    language; the headings wrapped, their colon as the language writes it; the description
    and epilog reflowed: a paragraph of plain lines is filled; in a block of indented lines
    (examples, the exit statuses) or of list items each line is kept, except that a table
    entry ("  2    a usage mistake: ...") or a list item ("* birth_utc: ...") and its
    deeper-indented continuation lines are filled under the entry's text. An option's help
    is literal text (a ``%`` is a percent sign)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None, *, lang: str = SOURCE_LANGUAGE) -> None:
        super().__init__(prog, indent_increment, max_help_position, width)
        tr = catalog(lang)
        self._prefix = tr.pgettext("help", "usage:") + " "
        #: A heading as the language writes it before its colon (argparse adds the colon):
        #: the catalog's ``{title}:`` without its last character (``{title} :`` in French).
        self._heading = tr.pgettext("help", "{title}:").removesuffix(":")

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[argparse._MutuallyExclusiveGroup],
                  prefix: str | None = None) -> None:
        if prefix is None:
            prefix = _PREFIX_COLUMN * display_width(self._prefix)
        super().add_usage(usage, actions, groups, prefix)

    def format_help(self) -> str:
        return super().format_help().replace(
            _PREFIX_COLUMN * display_width(self._prefix), self._prefix, 1)

    def start_section(self, heading: str | None) -> None:
        if heading:  # argparse does not wrap a heading: its lines, the colon after the last
            heading = "\n".join(wrap(self._heading.format(title=heading),
                                     self._width - self._current_indent - 1))
        super().start_section(heading)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return None if action.help is None else action.help.replace("%", "%%")

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(_SPACES.sub(" ", text).strip(" "), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(_fill_block(block, width, indent)
                            for block in text.strip("\n").split("\n\n"))


def help_formatter(lang: str) -> Callable[..., HelpFormatter]:
    """The ``formatter_class`` of a parser whose help is in ``lang``."""
    return partial(HelpFormatter, lang=lang)


def _fill_block(block: str, width: int, indent: str) -> str:
    lines = block.splitlines()
    if not any(line.startswith((" ", "* ")) for line in lines):
        return "\n".join(wrap(" ".join(line.strip() for line in lines), width,
                              initial_indent=indent, subsequent_indent=indent))
    out: list[str] = []
    head, words = "", ""
    for line in lines:
        entry = _ENTRY.fullmatch(line)
        if head and not entry and line.startswith(" " * len(head)) and line.strip():
            words += " " + line.strip()
            continue
        if head:
            out.extend(wrap(words, width, initial_indent=indent + head,
                            subsequent_indent=indent + " " * len(head)))
            head, words = "", ""
        if entry:
            head, words = entry.group(1), entry.group(2)
        else:
            out.append(indent + line)
    if head:
        out.extend(wrap(words, width, initial_indent=indent + head,
                        subsequent_indent=indent + " " * len(head)))
    return "\n".join(out)


class LanguageParser(argparse.ArgumentParser):
    """argparse's parser whose help is in ``lang`` (its own words too: ``usage:``, its
    headings and ``-h``'s help) and whose usage mistakes are one line (argparse prints the
    usage first) in ``lang``, the language the command line asks for
    (:func:`asked_language`); make its subcommands' parsers of the same class.
    :attr:`phrases` are the messages its mistakes are read as (argparse's, and a command
    line's own); :attr:`marker` names the program before ``: error:`` (None: the parser's
    ``prog``, a subcommand's with its command)."""

    phrases: Phrases = ARGPARSE_PHRASES
    marker: str | None = None

    def __init__(self, *args: Any, lang: str = SOURCE_LANGUAGE, **kwargs: Any) -> None:
        kwargs.update(formatter_class=help_formatter(lang), add_help=False)
        super().__init__(*args, **kwargs)
        self.lang = lang
        tr = catalog(lang)
        # argparse's two default groups: their titles are attributes argparse documents
        # as not public, set here so that they are in the language (and the same words
        # whatever the Python version)
        self._positionals.title = tr.pgettext("help", "positional arguments")
        self._optionals.title = tr.pgettext("help", "options")
        self.add_argument("-h", "--help", action="help",
                          help=tr.pgettext("help", "show this help message and exit"))

    def error(self, message: str) -> NoReturn:
        line = catalog(self.lang).pgettext("error", "{message} (see {prog} --help)").format(
            message=said(message, self.lang, self.phrases), prog=self.prog)
        self.exit(2, f"{self.marker or self.prog}: error: {line}\n")
