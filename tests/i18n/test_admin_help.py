"""``bodygraph-server --help`` and every command's in every language: exit status 0, its
texts from the catalogs (context ``admin``; argparse's own words in ``help``), its lines
within the terminal's width in columns (a wide character takes two); in English exactly
the help of before the translation (``english_admin_help/``, whose top-level help gains
only ``--lang``)."""

from __future__ import annotations

import argparse
import gettext
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from string import Formatter

import pytest

from bodygraph.catalog.columns import display_width
from bodygraph.catalog.translations import LANGUAGES, catalog
from bodygraph_server.cli.admin import build_parser, main

from .helps import WAYS, pseudo, run_help, squeezed

#: The English help of each command at 80 columns, as it was before it was translated.
ENGLISH = Path(__file__).parent / "english_admin_help"


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
          ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from _walk(command, (*path, name))


@cache
def _commands(lang: str = "en") -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command (the top level is ``()``) and its parser in ``lang``."""
    return dict(_walk(build_parser(lang)))


COMMANDS = tuple(_commands())


def _name(path: tuple[str, ...]) -> str:
    return "-".join(("bodygraph-server", *path))


def _help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          path: tuple[str, ...], lang: str | None = None, way: str = "before",
          columns: int = 80) -> str:
    """``bodygraph-server [COMMAND...] --help`` in ``lang`` asked ``way``, at ``columns``:
    its output (the exit status must be 0, nothing on stderr)."""
    return run_help(main, list(path), capsys, monkeypatch, lang, way, columns)


@cache
def _admin_texts() -> frozenset[str]:
    """The English texts of the context ``admin`` the code marks."""
    from .extracted import messages

    return frozenset(t.english for t in messages() if t.context == "admin")


def _shown_texts(path: tuple[str, ...]) -> list[str]:
    """The English texts a command's help shows that are whole texts of the catalogs: its
    description, its options' and its commands' helps."""
    parser = _commands()[path]
    texts = [parser.description or ""]
    for action in parser._actions:
        texts.append(action.help or "")
        texts.extend(choice.help or "" for choice in getattr(action, "_choices_actions", []))
    return [t for t in texts if t in _admin_texts()]


#: A line of option names alone (``--allow-private-callbacks, --no-allow-...``): kept whole.
_NAMES = re.compile(r" +-[^ ,]+(?: [A-Z_]+)?(?:, -[^ ,]+(?: [A-Z_]+)?)*")


def _too_wide(text: str, columns: int) -> list[str]:
    """The lines wider than ``columns``, but the usage's and the option names' (argparse
    breaks neither an option's ``[...]`` nor a name: the English usage of ``serve`` is
    wider than 80 columns too)."""
    usage = text.split("\n\n", 1)[0].splitlines()
    return [line for line in text.splitlines()
            if display_width(line) > columns and line not in usage
            and not _NAMES.fullmatch(line)]


def test_every_command_has_its_english_snapshot() -> None:
    assert sorted(f"{_name(p)}.txt" for p in COMMANDS) == sorted(
        f.name for f in ENGLISH.glob("*.txt"))


@pytest.mark.parametrize("path", COMMANDS, ids=_name)
def test_english_help_is_the_help_of_before(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch,
                                            path: tuple[str, ...]) -> None:
    expected = (ENGLISH / f"{_name(path)}.txt").read_text(encoding="utf-8")
    assert _help(capsys, monkeypatch, path) == expected
    assert _help(capsys, monkeypatch, path, "en", "after") == expected


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_help_is_in_the_language_asked(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             lang: str) -> None:
    tr = catalog(lang)
    for i, path in enumerate(COMMANDS):
        way = WAYS[(LANGUAGES.index(lang) + i) % len(WAYS)]
        for columns in (80, 50):
            out = _help(capsys, monkeypatch, path, lang, way, columns)
            assert out.startswith(f"{tr.pgettext('help', 'usage:')} bodygraph-server"), out
            assert squeezed(tr.pgettext("help", "show this help message and exit")) in \
                squeezed(out)
            for text in _shown_texts(path):
                assert squeezed(tr.pgettext("admin", text)) in squeezed(out), (path, text)
            assert _too_wide(out, columns) == [], (path, columns)
    described = _help(capsys, monkeypatch, (), lang)
    assert squeezed(tr.pgettext("admin", "Administer bodygraph service accounts, keys and "
                                 "credits; run the service.")) in squeezed(described)


def test_every_word_of_every_help_comes_from_the_catalog(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """With a catalog whose texts are all wide characters without spaces (and a ``%``),
    no English text of the context ``admin`` is left in any help, and the lines fit."""
    english = gettext.GNUTranslations.pgettext

    def pseudo_pgettext(self: gettext.GNUTranslations, context: str, message: str) -> str:
        return (pseudo(message) if context in ("admin", "help")
                else english(self, context, message))

    monkeypatch.setattr(gettext.GNUTranslations, "pgettext", pseudo_pgettext)
    for path in COMMANDS:
        for columns in (50, 80):
            out = _help(capsys, monkeypatch, path, "ja", columns=columns)
            assert out.startswith(f"{pseudo('usage:')} bodygraph-server")
            assert _too_wide(out, columns) == [], (path, columns, out)
        for text in _admin_texts():
            literal = max((lit for lit, *_ in Formatter().parse(text)), key=len)
            if len(literal.split()) > 1:
                assert literal not in out, (path, text)
        for word in ("usage:", "options:", "positional arguments:", "show this help"):
            assert word not in out, (path, word)
