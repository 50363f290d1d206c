"""The catalogs: the template is the tables' terms, every language translates every term
(placeholders intact, English only where a comment says why), the glossary pages are up to
date and the wheel's compiled catalogs say what the PO files say."""

from __future__ import annotations

import gettext
import importlib.util
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, locale_folder

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def _messages(catalog: Any) -> list[tuple[Any, ...]]:
    return [(m.context, m.id, " ".join(m.auto_comments)) for m in catalog if m.id]


def test_the_committed_template_is_the_one_the_tables_make() -> None:
    from babel.messages.pofile import read_po

    from bodygraph.i18n.template import TEMPLATE, template

    with TEMPLATE.open("rb") as source:
        committed = read_po(source)
    assert _messages(committed) == _messages(template()), (
        "the terms or the code's messages changed: run scripts/make_catalog_template.py, "
        "then pybabel update "
        "(docs/translating.md)")


def test_every_term_has_one_context_and_english_text() -> None:
    from bodygraph.i18n.terms import CONTEXTS, terms

    found = terms()
    keys = [(t.context, t.english) for t in found]
    assert len(keys) == len(set(keys))
    assert {t.context for t in found} == set(CONTEXTS)
    assert len([t for t in found if t.context == "gate"]) == 64
    assert len([t for t in found if t.context == "channel"]) == 36
    assert len([t for t in found if t.context == "center"]) == 9
    assert len([t for t in found if t.context == "body"]) == 13


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_language_translates_every_term_and_message(lang: str) -> None:
    from bodygraph.i18n.template import catalog_problems, read_catalog

    from .extracted import all_messages

    assert catalog_problems(read_catalog(lang), all_messages()) == []


def test_the_code_s_messages_are_extracted_by_context() -> None:
    """The command line's words, its errors, the images' words and the signs are in the
    template beside the terms (pybabel extract with babel.cfg)."""
    from bodygraph.i18n.template import MESSAGE_CONTEXTS

    from .extracted import messages

    found = {(t.context, t.english) for t in messages()}
    assert {context for context, _ in found} == set(MESSAGE_CONTEXTS)
    assert ("cli", "not-self theme: {theme}") in found
    assert ("error", "cannot use {path}: {reason}") in found
    assert ("help", "show this help message and exit") in found  # argparse's words too
    assert ("image", "Both persons") in found
    assert len([1 for context, _ in found if context == "zodiac sign"]) == 12


def test_every_pgettext_call_of_the_code_is_extracted() -> None:
    """Python's own parser finds every ``pgettext(context, text)`` (and the command
    line's ``usage_error(context, text, ...)``) of literals in the
    extracted folders, also inside f-strings, where pybabel's extractor does not look."""
    import ast

    from .extracted import messages

    extracted = {(t.context, t.english) for t in messages()}
    called = set()
    for folder in ("catalog", "cli", "render"):
        for path in (ROOT / "src" / "bodygraph" / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                name = (node.func.attr if isinstance(node, ast.Call)
                        and isinstance(node.func, ast.Attribute) else
                        node.func.id if isinstance(node, ast.Call)
                        and isinstance(node.func, ast.Name) else None)
                if (name in ("pgettext", "usage_error") and isinstance(node, ast.Call)
                        and len(node.args) == 2
                        and all(isinstance(a, ast.Constant) for a in node.args)):
                    called.add((node.args[0].value, node.args[1].value))
    assert len(called) > 100
    assert called - extracted == set()


def test_every_plural_call_of_the_code_is_extracted_with_its_plural() -> None:
    """Every ``npgettext(context, singular, plural, n)`` and table entry
    ``counted(context, singular, plural, field)`` of literals is a plural entry of the
    template (``msgid_plural`` its plural)."""
    import ast

    from .extracted import messages

    extracted = {(t.context, t.english): t.plural for t in messages()}
    called = {}
    for folder in (ROOT / "src" / "bodygraph", ROOT / "src" / "bodygraph_server",
                   ROOT / "src" / "bodygraph_mcp"):
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = (func.attr if isinstance(func, ast.Attribute) else
                        func.id if isinstance(func, ast.Name) else None)
                if (name in ("npgettext", "counted") and len(node.args) == 4
                        and all(isinstance(a, ast.Constant) for a in node.args[:3])):
                    context, singular, plural = (a.value for a in node.args[:3])
                    called[(context, singular)] = plural
    assert len(called) >= 20
    assert {key: extracted.get(key) for key in called} == called


def test_a_message_added_to_the_code_and_not_translated_fails_the_check() -> None:
    from bodygraph.i18n.template import catalog_problems, read_catalog
    from bodygraph.i18n.terms import Term

    from .extracted import all_messages

    catalog = read_catalog("ja")
    added = [*all_messages(), Term("cli", "Nobody translated {this}")]
    assert catalog_problems(catalog, added) == [
        "[cli] 'Nobody translated {this}': missing"]
    catalog.get("Transit at {instant}", context="cli").string = "トランジット {when}"
    assert catalog_problems(catalog, all_messages()) == [
        "[cli] 'Transit at {instant}': placeholders {'when'} instead of {'instant'}"]


def test_a_term_added_to_the_tables_and_not_translated_fails_the_check() -> None:
    from bodygraph.i18n.template import catalog_problems, read_catalog
    from bodygraph.i18n.terms import Term

    from .extracted import all_messages

    catalog = read_catalog("de")
    added = [*all_messages(), Term("gate", "A Gate Nobody Translated")]
    assert catalog_problems(catalog, added) == [
        "[gate] 'A Gate Nobody Translated': missing"]


def test_the_check_finds_empty_english_and_broken_translations() -> None:
    from bodygraph.i18n.template import catalog_problems, read_catalog

    from .extracted import all_messages

    catalog = read_catalog("fr")
    catalog.get("Projector", context="type").string = ""
    catalog.get("Reflector", context="type").string = "Reflector"
    catalog.get("Right Angle Cross of {name}", context="cross title").string = "Croix"
    catalog.add("Nothing", "Rien", context="gate")
    assert catalog_problems(catalog, all_messages()) == [
        "[type] 'Projector': not translated",
        "[type] 'Reflector': left in English (no 'same:' comment says why)",
        "[cross title] 'Right Angle Cross of {name}': placeholders set() instead of "
        "{'name'}",
        "[gate] 'Nothing': no such term",
    ]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_language_names_its_sources_or_marks_every_term_for_review(lang: str) -> None:
    from bodygraph.i18n.glossary import _sources
    from bodygraph.i18n.template import MESSAGE_CONTEXTS, REVIEW, read_catalog

    catalog = read_catalog(lang)
    if not _sources(catalog):
        unmarked = [m.id for m in catalog if m.id and m.context not in ("body", "side", "relation",
                                                                        "channel title")
                    and m.context not in MESSAGE_CONTEXTS
                    and not any(c.startswith(REVIEW) for c in m.user_comments)]
        assert unmarked == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_glossary_page_is_up_to_date(lang: str) -> None:
    from bodygraph.i18n.glossary import glossary

    page = ROOT / "docs" / "glossary" / f"{lang}.md"
    assert page.read_text(encoding="utf-8") == glossary(lang), (
        "run scripts/make_glossary.py")


def test_the_wheel_build_hook_compiles_what_the_po_files_say(tmp_path: Path) -> None:
    from bodygraph.catalog.translations import catalog
    from bodygraph.i18n.terms import terms

    spec = importlib.util.spec_from_file_location("build_catalogs",
                                                  ROOT / "scripts" / "build_catalogs.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    written = hook.compile_catalogs(ROOT / "src" / "bodygraph" / "locale", tmp_path)
    assert sorted(written.values()) == sorted(
        f"bodygraph/locale/{locale_folder(lang)}/LC_MESSAGES/bodygraph.mo"
        for lang in TRANSLATED)
    for lang in TRANSLATED:
        mo = tmp_path / locale_folder(lang) / "LC_MESSAGES" / "bodygraph.mo"
        with mo.open("rb") as source:
            compiled = gettext.GNUTranslations(source)
        for t in terms():
            assert compiled.pgettext(t.context, t.english) == catalog(lang).pgettext(
                t.context, t.english)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"][
        "path"] == "scripts/build_catalogs.py"
    assert any(r.startswith("babel") for r in project["build-system"]["requires"])


def test_a_compiled_catalog_as_new_as_its_po_file_is_the_one_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel ships both files with one timestamp: the .mo is read, the PO is not parsed."""
    import os

    from bodygraph.catalog import translations

    po = ROOT / "src" / "bodygraph" / "locale" / "de" / "LC_MESSAGES" / "bodygraph.po"
    package = tmp_path / "bodygraph" / "locale" / "de" / "LC_MESSAGES"
    package.mkdir(parents=True)
    (package / "bodygraph.po").write_bytes(b"not a catalog")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as source:
        parsed = read_po(source, locale="de")
    parsed.get("Projector", context="type").string = "Projektor (kompiliert)"
    with (package / "bodygraph.mo").open("wb") as sink:
        write_mo(sink, parsed)
    stamp = (package / "bodygraph.po").stat().st_mtime
    os.utime(package / "bodygraph.mo", (stamp, stamp))
    monkeypatch.setattr(translations.resources, "files", lambda _: tmp_path / "bodygraph")
    assert gettext.GNUTranslations(translations._compiled("de")).pgettext(
        "type", "Projector") == "Projektor (kompiliert)"


def test_a_source_checkout_without_babel_says_so_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A PO file and no compiled catalog nor Babel to compile it: the library's error names
    Babel, and the command says it in one line (status 1), not a traceback."""
    import sys

    from bodygraph.catalog import translations
    from bodygraph.cli.main import main
    from bodygraph.errors import BodygraphError

    package = tmp_path / "bodygraph" / "locale" / "de" / "LC_MESSAGES"
    package.mkdir(parents=True)
    (package / "bodygraph.po").write_bytes(
        (ROOT / "src" / "bodygraph" / "locale" / "de" / "LC_MESSAGES" / "bodygraph.po")
        .read_bytes())
    monkeypatch.setattr(translations.resources, "files", lambda _: tmp_path / "bodygraph")
    for module in ("babel", "babel.messages", "babel.messages.mofile",
                   "babel.messages.pofile"):
        monkeypatch.setitem(sys.modules, module, None)
    translations.catalog.cache_clear()
    try:
        with pytest.raises(BodygraphError, match=r"install Babel \(pip install babel\)"):
            translations.catalog("de")
        for command in (["chart", "--utc", "1980-01-03T08:30:00Z", "--lang", "de"],
                        ["chart", "--lang", "de", "--no-such-option"]):
            assert main(command) == 1
            said = capsys.readouterr()
            assert said.out == ""
            assert said.err == ("bodygraph: error: the de catalog of this install is not "
                                "compiled: install Babel (pip install babel) or install "
                                "bodygraph from a wheel\n")
    finally:
        translations.catalog.cache_clear()
