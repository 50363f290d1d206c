"""The ``/docs`` page: Swagger UI over the OpenAPI document (its assets served by this
service) and, below it, the rules Swagger UI does not show: authentication, every code."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from bodygraph_server.http.errors import ERROR_TABLE

#: Where the pages' own scripts and styles are served, and Swagger UI's bundled assets
#: (relative to the service root; the pages link them relatively).
STATIC_PATH = "/docs/static"
SWAGGER_PATH = "/docs/swagger-ui"


def nav_bar(title: str) -> str:
    """The links at the top of every page (relative: the service may sit under a path;
    the title leads to the front page)."""
    return (f"<nav class='bar'><a class='home' href='./'>{html.escape(title)}</a> "
            "<a href='docs'>API docs</a> <a href='playground'>Playground</a> "
            "<a href='openapi.json'>openapi.json</a></nav>")


def geocode_key_rule(required: bool) -> str:
    """Whether place names need ``HD-Geocode-Key`` on this service (HTML)."""
    if required:
        return ("Place-name endpoints also need <code>HD-Geocode-Key</code>: your own key "
                "of the Google Geocoding API, with which the place is looked up.")
    return ("Place names are looked up in this service's own gazetteer: "
            "<code>HD-Geocode-Key</code> is not needed (and ignored if given).")


def _endpoints(document: Mapping[str, Any]) -> str:
    rows = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            rows.append(
                f"<tr><td>{method.upper()}</td><td><code>{html.escape(path)}</code></td>"
                f"<td>{html.escape(op['summary'])}</td></tr>"
            )
    return ("<table><tr><th>method</th><th>path</th><th>what</th></tr>"
            + "".join(rows) + "</table>")


def docs_page(document: Mapping[str, Any], geocode_key_required: bool = True) -> str:
    """The HTML of ``/docs``: Swagger UI over ``/openapi.json`` (drawn by the browser), then
    authentication (and whether place names need the caller's geocoding key), the
    endpoints and every error code as plain HTML."""
    title = html.escape(document["info"]["title"])
    codes = "".join(
        f"<tr><td><code>{code.value}</code></td><td>{spec.status}</td>"
        f"<td>{html.escape(spec.message)}</td></tr>"
        for code, spec in ERROR_TABLE.items()
    )
    return "".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title} {html.escape(document['info']['version'])}: API docs</title>",
        f"<link rel='stylesheet' href='{SWAGGER_PATH[1:]}/swagger-ui.css'>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(document["info"]["title"]),
        "<div id='swagger-ui'><noscript>The interactive reference needs JavaScript; the "
        "rules below and <a href='openapi.json'>/openapi.json</a> (OpenAPI 3.1) do not."
        "</noscript></div>",
        "<main class='rules'>",
        "<h2>Authentication</h2><p>v2: <code>Authorization: Bearer &lt;API_KEY&gt;</code> "
        "(the <em>Authorize</em> button above, scheme <code>bearerAuth</code>); v1: "
        "<code>HD-Api-Key: &lt;API_KEY&gt;</code>. ", geocode_key_rule(geocode_key_required),
        " Limit: 100 requests per minute per key (headers "
        "<code>ratelimit-policy</code>, <code>ratelimit</code>, <code>Retry-After</code> "
        "on 429). Every successful chart costs 1 credit, also from this page.</p>",
        "<h2>Endpoints</h2><div class='scroll'>", _endpoints(document), "</div>",
        "<h2>Error codes</h2><div class='scroll'><table><tr><th>errorCode</th><th>HTTP</th>"
        "<th>default message</th></tr>", codes, "</table></div></main>",
        f"<script src='{SWAGGER_PATH[1:]}/swagger-ui-bundle.js'></script>",
        f"<script src='{STATIC_PATH[1:]}/docs.js'></script>",
        "</body></html>",
    ])
