"""The service's front page, ``GET /``: what the service is and links to its pages for
people (``/docs``, ``/playground``) and to ``/openapi.json``, in the language of its menu
(``?lang=``, the catalogs' context ``page``)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.resources.pages.docs_page import STATIC_PATH, nav_bar
from bodygraph_server.resources.pages.playground import language_menu

#: The front page's links: relative address, name, what it offers (in English, marked).
LINKS = (
    ("docs", pgettext("page", "API docs"), pgettext(
        "page", "every endpoint in Swagger UI (try them with your key), how to "
        "authenticate, every error code")),
    ("playground", pgettext("page", "Playground"), pgettext(
        "page", "compute a chart and see its bodygraph, with your key")),
    ("openapi.json", "openapi.json", pgettext(
        "page", "the machine-readable description (OpenAPI 3.1), for generating clients")),
)

#: The line under the links (``{version}``, ``{v2}``, ``{v1}``: the version, the paths).
HINT = pgettext("page", "Version {version}. The chart endpoints live under {v2} (and the "
                "legacy {v1}) and need an API key.")


def landing_page(document: Mapping[str, Any], lang: str = "en") -> str:
    """The HTML of ``/`` in ``lang`` for the service described by the OpenAPI
    ``document`` (the document in that language: its description is shown)."""
    from bodygraph.catalog.translations import catalog

    say = catalog(lang).pgettext
    info = document["info"]
    title = html.escape(info["title"])
    query = "" if lang == "en" else f"?lang={lang}"
    items = "".join(
        f"<li><a href='{href}{query}'>{html.escape(say('page', name))}</a>: "
        f"{html.escape(say('page', what))}</li>" for href, name, what in LINKS)
    hint = html.escape(say("page", HINT)).format(
        version=html.escape(info["version"]), v2="<code>/v2</code>", v1="<code>/v1</code>")
    return "".join([
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title}</title>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(info["title"], lang),
        f"<main class='landing'>{language_menu(lang, say)}<h1>{title}</h1>",
        f"<p>{html.escape(info['description'])}</p>",
        f"<ul class='links'>{items}</ul>",
        f"<p class='hint'>{hint}</p>",
        f"</main><script src='{STATIC_PATH[1:]}/languages.js'></script></body></html>",
    ])
