"""The glossary page of a language (``docs/glossary/<lang>.md``): every term, its
translation and the translator's note, made from the language's catalog by
``scripts/make_glossary.py``."""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog

from bodygraph.i18n.template import REVIEW, SAME, catalog_path, read_catalog
from bodygraph.i18n.terms import CONTEXTS, terms

#: The English name of each language, for titles.
LANGUAGE_NAMES: dict[str, str] = {
    "de": "German", "nl": "Dutch", "es": "Spanish", "fr": "French",
    "pt": "Portuguese (Brazil)", "it": "Italian", "ru": "Russian", "ja": "Japanese",
    "zh-Hans": "Chinese (Simplified)",
}
GLOSSARY_DIR = Path("docs") / "glossary"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _sources(catalog: Catalog) -> list[str]:
    """The addresses the header comment of a catalog lists."""
    return [line.lstrip("# ").strip() for line in catalog.header_comment.splitlines()
            if line.lstrip("# ").startswith("http")]


def glossary(lang: str) -> str:
    """The Markdown glossary of a language."""
    catalog = read_catalog(lang)
    name = LANGUAGE_NAMES[lang]
    rows: dict[str, list[str]] = {}
    review = same = 0
    for t in terms():
        message = catalog.get(t.english, context=t.context)
        translation = message.string if message is not None else ""
        comments = list(message.user_comments) if message is not None else []
        review += any(c.startswith(REVIEW) for c in comments)
        same += any(c.startswith(SAME) for c in comments)
        note = "; ".join(c.removeprefix(REVIEW).removeprefix(SAME).strip() if c.startswith(
            SAME) else c for c in comments)
        rows.setdefault(t.context, []).append(
            f"| {_cell(t.english)} | {_cell(str(translation))} | {_cell(note)} |")
    sources = _sources(catalog)
    out = [
        f"# {name} glossary (`{lang}`)",
        "",
        f"Every term the library translates, in {name}: generated from "
        f"`src/bodygraph/locale/{catalog_path(lang).parent.parent.name}/LC_MESSAGES/"
        "bodygraph.po` by `scripts/make_glossary.py` (do not edit this page; edit the "
        "catalog, see [Translating](../translating.md)).",
        "",
        f"- {len(terms())} terms; {review} marked **review** (no established usage was found "
        "for them, or usage is split: a native speaker should check them); "
        f"{same} written as in English on purpose (the note says why).",
        "- Sources (Human Design material in this language the terms were checked "
        "against): " + (", ".join(f"<{s}>" for s in sources) if sources else
                        "none found; every term is marked for review."),
        "",
    ]
    for context, title in CONTEXTS.items():
        out += [f"## {title}", "", f"| English | {name} | Note |", "| --- | --- | --- |",
                *rows.get(context, []), ""]
    return "\n".join(out)
