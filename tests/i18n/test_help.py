"""Every command's ``--help`` in every language: its texts from the catalogs (context
``help``), argparse's own words too, its lines within the terminal's width in columns (a
wide character takes two); in English exactly the help of before the translation."""

from __future__ import annotations

import gettext
import re
from functools import cache
from pathlib import Path
from string import Formatter

import pytest

from bodygraph.catalog.translations import LANGUAGES, catalog
from bodygraph.cli.columns import display_width, wrap
from bodygraph.cli.main import SUBCOMMANDS, build_parser, main

from .helps import WAYS, pseudo, run_help, squeezed

#: ``bodygraph --help`` and each command's.
HELPS = ("bodygraph", *SUBCOMMANDS)
#: The English help of each command at 80 columns, as it was before it was translated.
ENGLISH = Path(__file__).parent / "english_help"


def _args(name: str) -> list[str]:
    return [] if name == "bodygraph" else [name]


def _help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str,
          lang: str | None = None, way: str = "before", columns: int = 80) -> str:
    """``bodygraph [NAME] --help`` in ``lang`` asked ``way``, at ``columns``: its output
    (the exit status must be 0, nothing on stderr)."""
    return run_help(main, _args(name), capsys, monkeypatch, lang, way, columns)


@cache
def _descriptions() -> dict[str, str]:
    """Each help's description in English (its first paragraph: a text of the
    catalogs)."""
    parser = build_parser()
    found = {"bodygraph": parser.description or ""}
    assert parser._subparsers is not None
    for action in parser._subparsers._group_actions:
        for name, command in (getattr(action, "choices", None) or {}).items():
            found[name] = command.description or ""
    return {name: text.split("\n\n")[0] for name, text in found.items()}


def _too_wide(text: str, columns: int) -> list[str]:
    """The lines wider than ``columns``, but for the examples (commands, kept whole) and,
    below 80 columns, the usage's (argparse does not break an option's ``[...]``: at 50
    columns the English usage is wider too)."""
    usage = text.split("\n\n", 1)[0].splitlines() if columns < 80 else []
    return [line for line in text.splitlines()
            if display_width(line) > columns and not line.startswith("  bodygraph ")
            and line not in usage]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", HELPS)
def test_every_help_is_in_the_language_asked(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             name: str, lang: str) -> None:
    way = WAYS[(LANGUAGES.index(lang) + HELPS.index(name)) % len(WAYS)]
    tr = catalog(lang)
    for columns in (80, 50):
        out = _help(capsys, monkeypatch, name, lang, way, columns)
        assert out.startswith(f"{tr.pgettext('help', 'usage:')} bodygraph"), out[:80]
        assert squeezed(tr.pgettext("help", _descriptions()[name])) in squeezed(out)
        assert squeezed(tr.pgettext("help", "show this help message and exit")) in \
            squeezed(out)
        assert _too_wide(out, columns) == []


@pytest.mark.parametrize("name", HELPS)
def test_english_help_is_the_help_of_before(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch,
                                            name: str) -> None:
    monkeypatch.setattr("bodygraph.cli.batch.default_jobs", lambda: 2)  # "every core, here 2"
    expected = (ENGLISH / f"{name}.txt").read_text(encoding="utf-8")
    assert _help(capsys, monkeypatch, name) == expected
    assert _help(capsys, monkeypatch, name, "en", "after") == expected


@pytest.mark.parametrize("name", HELPS)
def test_every_word_of_a_help_comes_from_the_catalog(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     name: str) -> None:
    """With a catalog whose help texts are all wide characters without spaces (and a
    ``%``), no English text of the help is left, and the lines still fit."""
    from .extracted import messages

    english = gettext.GNUTranslations.pgettext

    def pseudo_pgettext(self: gettext.GNUTranslations, context: str, message: str) -> str:
        return pseudo(message) if context == "help" else english(self, context, message)

    monkeypatch.setattr(gettext.GNUTranslations, "pgettext", pseudo_pgettext)
    for columns in (50, 80):
        out = _help(capsys, monkeypatch, name, "ja", columns=columns)
        assert out.startswith(f"{pseudo('usage:')} bodygraph")
        assert squeezed(pseudo(_descriptions()[name])) in squeezed(out)
        assert _too_wide(out, columns) == []
    kept = out.splitlines()
    for t in messages():
        literal = next(iter(Formatter().parse(t.english)))[0]
        if t.context == "help" and len(literal.split()) > 1:
            assert not any(literal in line for line in kept), (t.english, out)
    for word in ("usage:", "options:", "positional arguments:", "show this help",
                 "exit status:", "examples:"):
        assert word not in out, word


def test_a_text_of_wide_characters_wraps_by_columns() -> None:
    text = "出生時刻の前後どこまで調べるか：2h（既定）、90m、…（最大 48h）。--json で出力します。"  # noqa: RUF001
    for width in range(12, 40):
        lines = wrap(text, width, "  ", "  ")
        assert all(display_width(line) <= width for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert not any(line.strip()[0] in "、。）：" for line in lines), lines  # noqa: RUF001
    assert wrap("an English text", 12, "  ", "  ") == ["  an English", "  text"]  # textwrap


def test_batch_help_says_what_the_library_documents() -> None:
    """``batch --help`` has its own texts (whole texts of the catalogs); in English they
    are the ``bodygraph.batch`` docstring's, as plain text (no reST marks)."""
    import bodygraph.batch

    documented = (bodygraph.batch.__doc__ or "").split("\n\n", 1)[1]
    plain = re.sub(r"``(.+?)``", r"\1", re.sub(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`", r"\1",
                                                documented))
    paragraphs = [" ".join(p.split()) for p in plain.strip().split("\n\n")]
    parser = build_parser(["batch"])
    assert parser._subparsers is not None
    batch = parser._subparsers._group_actions[0].choices["batch"]  # type: ignore[index]
    assert [" ".join(p.split()) for p in (batch.description or "").split("\n\n")] == paragraphs
