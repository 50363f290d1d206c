"""The service's front page, ``GET /``: what the service is and links to its pages for
people (``/docs``, ``/playground``) and to ``/openapi.json``."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from bodygraph_server.resources.pages.docs_page import STATIC_PATH, nav_bar

#: The front page's links: relative address, name, what it offers.
LINKS = (
    ("docs", "API docs", "every endpoint in Swagger UI (try them with your key), how to "
     "authenticate, every error code"),
    ("playground", "Playground", "compute a chart and see its bodygraph, with your key"),
    ("openapi.json", "openapi.json", "the machine-readable description (OpenAPI 3.1), for "
     "generating clients"),
)


def landing_page(document: Mapping[str, Any]) -> str:
    """The HTML of ``/`` for the service described by the OpenAPI ``document``."""
    info = document["info"]
    title = html.escape(info["title"])
    items = "".join(
        f"<li><a href='{href}'>{html.escape(name)}</a>: {html.escape(what)}</li>"
        for href, name, what in LINKS
    )
    return "".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title}</title>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(info["title"]),
        f"<main class='landing'><h1>{title}</h1>",
        f"<p>{html.escape(info['description'])}</p>",
        f"<ul class='links'>{items}</ul>",
        f"<p class='hint'>Version {html.escape(info['version'])}. The chart endpoints live "
        "under <code>/v2</code> (and the legacy <code>/v1</code>) and need an API key.</p>",
        "</main></body></html>",
    ])
