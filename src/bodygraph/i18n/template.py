"""The gettext template (``bodygraph/locale/bodygraph.pot``) made from :func:`terms`, and the
catalogs' files: where each lives and how they are read."""

from __future__ import annotations

from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from string import Formatter

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from bodygraph.catalog.translations import DOMAIN, LANGUAGES, SOURCE_LANGUAGE, locale_folder
from bodygraph.i18n.terms import Term, terms

#: The folder of the catalogs in a source checkout (``src/bodygraph/locale``).
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: The source checkout's root, and the ``pybabel extract`` mapping of the messages the code
#: marks with ``pgettext`` (the command line's and the images' words).
ROOT = LOCALE_DIR.parent.parent.parent
EXTRACT_MAPPING = ROOT / "babel.cfg"
#: The calls ``pybabel extract`` reads: gettext's (``npgettext(context, singular, plural,
#: n)`` a message with a count), the tables' ``counted(context, singular, plural, field)``
#: and the command line's ``usage_error(context, text, ...)`` (``-k usage_error:1c,2
#: -k counted:1c,2,3`` on pybabel's command line).
KEYWORDS = {**DEFAULT_KEYWORDS, "usage_error": ((1, "c"), 2), "counted": ((1, "c"), 2, 3)}
#: What each context of the code's messages holds (beside the terms' contexts).
MESSAGE_CONTEXTS: dict[str, str] = {
    "cli": "The command line's readable output",
    "error": ("Error messages: the library's (also said by the service and the MCP tools), "
              "the command lines' and the MCP tools' own"),
    "help": "The command line's --help (options, metavars and file names stay as written)",
    "image": "The words of the bodygraph and wheel images",
    "zodiac sign": "The zodiac signs (the wheel image)",
    "service error": "The HTTP service's error messages",
    "page": "The words of the service's playground page",
    "account": "The words of the service's account answers (labels)",
    "mcp": "The MCP tools' one-line summaries",
    "admin": ("The service's admin command line (bodygraph-server): its --help, output and "
              "error lines (commands, options, metavars and values stay as written)"),
    "number": ("How numbers are written in prose (help, progress and summary lines, "
               "messages): CLDR's number symbols of the language"),
    "openapi": "The OpenAPI document's summaries and descriptions (/openapi.json?lang=)",
}
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
#: A fixed creation date, so that the template changes only when a term does.
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
#: Translator comments starting with this mark a term for review by a native speaker.
REVIEW = "review:"
#: Translator comments starting with this say why a translation is the English term itself.
SAME = "same:"


def translated_languages() -> tuple[str, ...]:
    """The languages that have a catalog (all but the source)."""
    return tuple(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE)


def catalog_path(lang: str) -> Path:
    """The PO file of a language in a source checkout."""
    return LOCALE_DIR / locale_folder(lang) / "LC_MESSAGES" / f"{DOMAIN}.po"


def messages() -> list[Term]:
    """The messages the code marks with ``pgettext(context, text)`` (``pybabel extract``
    with :data:`EXTRACT_MAPPING`), in file and line order, each (context, text) once; the
    note says where each is used and which placeholders to keep."""
    with EXTRACT_MAPPING.open() as mapping:
        method_map, options_map = parse_mapping_cfg(mapping)  # type: ignore[no-untyped-call]
    found: dict[tuple[str, str], list[str]] = {}
    plurals: dict[tuple[str, str], str] = {}
    for filename, _, text, _, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        if context is None:
            continue
        if isinstance(text, tuple) and len(text) == 2 and all(
                isinstance(t, str) for t in text):
            plurals[(context, text[0])] = text[1]
            text = text[0]
        if not isinstance(text, str):
            continue
        found.setdefault((context, text), []).append(Path(filename).stem)
    out = []
    for (context, text), files in found.items():
        plural = plurals.get((context, text), "")
        fields = sorted(_fields(text) | _fields(plural))
        keep = f" Keep {', '.join('{' + f + '}' for f in fields)}." if fields else ""
        forms = (" One translation per plural form of the language (msgstr[0], msgstr[1] "
                 "...: the Plural-Forms header says which number takes which).") if plural else ""
        where = ", ".join(dict.fromkeys(files))
        out.append(Term(context, text, f"{MESSAGE_CONTEXTS[context]} ({where}).{keep}{forms}",
                        plural))
    return out


def all_messages() -> list[Term]:
    """Everything a catalog translates: the terms of the tables, then the code's
    messages."""
    return [*terms(), *messages()]


def template() -> Catalog:
    """The template: one message per term and per message of the code, with its context
    and its translator note."""
    out = Catalog(domain=DOMAIN, project="bodygraph", version="",
                  copyright_holder="bodygraph developers", msgid_bugs_address="",
                  creation_date=_EPOCH, revision_date=_EPOCH, fuzzy=False)
    for t in all_messages():
        out.add((t.english, t.plural) if t.plural else t.english, ("", "") if t.plural else "",
                context=t.context, auto_comments=[t.note] if t.note else [])
    return out


def template_bytes() -> bytes:
    """The template as its ``.pot`` file holds it."""
    buffer = BytesIO()
    write_po(buffer, template(), width=100, omit_header=False, sort_output=False)
    return buffer.getvalue()


def read_catalog(lang: str) -> Catalog:
    """The PO file of a language, parsed."""
    with catalog_path(lang).open("rb") as source:
        return read_po(source, locale=locale_folder(lang), domain=DOMAIN)


def _fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a text."""
    return {name for _, name, _, _ in Formatter().parse(text) if name is not None}


def catalog_problems(catalog: Catalog, wanted: list[Term]) -> list[str]:
    """What keeps ``catalog`` from being complete for the terms ``wanted``: a term missing,
    untranslated or fuzzy, a placeholder lost or added, a translation equal to the English
    term that no ``same:`` comment explains, a message no term asks for."""
    problems: list[str] = []
    keys = {(t.context, t.english) for t in wanted}
    for t in wanted:
        where = f"[{t.context}] {t.english!r}"
        message = catalog.get(t.english, context=t.context)
        if message is None:
            problems.append(f"{where}: missing")
            continue
        if t.plural:
            problems += _plural_problems(catalog, message, t, where)
            continue
        text = message.string
        # a number's group separator may be a space (CLDR's French and Russian symbols)
        if not isinstance(text, str) or not (text.strip() or (text and t.context == "number")):
            problems.append(f"{where}: not translated")
            continue
        if message.fuzzy:
            problems.append(f"{where}: fuzzy")
        if _fields(text) != _fields(t.english):
            problems.append(f"{where}: placeholders {_fields(text)} instead of "
                            f"{_fields(t.english)}")
        same = any(c.startswith(SAME) for c in message.user_comments)
        if text == t.english and not same:
            problems.append(f"{where}: left in English (no '{SAME}' comment says why)")
    for message in catalog:
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if key and (message.context, key) not in keys:
            problems.append(f"[{message.context}] {message.id!r}: no such term")
    return problems


def _plural_problems(catalog: Catalog, message: Message, t: Term, where: str) -> list[str]:
    """What keeps a message with a count from being complete: not a plural entry of
    ``t.plural``, a plural form (of the catalog's ``nplurals``) empty or missing, one without
    the English plural's placeholders (every form is used for some count), fuzzy."""
    if not isinstance(message.id, tuple) or message.id[1] != t.plural:
        return [f"{where}: not the plural entry {t.plural!r}"]
    raw = message.string
    forms = tuple(str(f or "") for f in (raw if isinstance(raw, tuple | list) else (raw,)))
    problems = []
    if len(forms) != catalog.num_plurals or not all(f.strip() for f in forms):
        problems.append(f"{where}: {sum(1 for f in forms if f.strip())} of "
                        f"{catalog.num_plurals} plural forms translated")
    if message.fuzzy:
        problems.append(f"{where}: fuzzy")
    for n, form in enumerate(forms):
        if form.strip() and _fields(form) != _fields(t.plural):
            problems.append(f"{where}: plural form {n} has placeholders {_fields(form)} "
                            f"instead of {_fields(t.plural)}")
    same = any(c.startswith(SAME) for c in message.user_comments)
    if set(forms) <= {t.english, t.plural} and not same:
        problems.append(f"{where}: left in English (no '{SAME}' comment says why)")
    return problems
