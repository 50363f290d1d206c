"""The ``/docs`` page: Swagger UI over the OpenAPI document (its assets served by this
service) and, below it, the rules Swagger UI does not show: authentication, every code."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.errors import ERROR_TABLE

#: Where the pages' own scripts and styles are served, and Swagger UI's bundled assets
#: (relative to the service root; the pages link them relatively).
STATIC_PATH = "/docs/static"
SWAGGER_PATH = "/docs/swagger-ui"

#: Swagger UI's own words (buttons, headings) by the component that draws them, as its
#: plugin API names the components: ``static/docs.js`` wraps each one with a plugin that
#: says its words in the page's language (docs/languages.md, Swagger UI's words).
SWAGGER_WORDS: dict[str, tuple[str, ...]] = {
    "TryItOutButton": (pgettext("page", "Try it out"), pgettext("page", "Cancel"),
                       pgettext("page", "Reset")),
    "execute": (pgettext("page", "Execute"),),
    "clear": (pgettext("page", "Clear"),),
    "authorizeBtn": (pgettext("page", "Authorize"),),
    "authorizationPopup": (pgettext("page", "Available authorizations"),),
    "auths": (pgettext("page", "Authorize"), pgettext("page", "Logout"),
              pgettext("page", "Close")),
    "parameters": (pgettext("page", "Parameters"), pgettext("page", "No parameters"),
                   pgettext("page", "Name"), pgettext("page", "Description"),
                   pgettext("page", "Request body")),
    "responses": (pgettext("page", "Responses"), pgettext("page", "Code"),
                  pgettext("page", "Description"), pgettext("page", "Links")),
    "response": (pgettext("page", "Media type"),),
    "liveResponse": (pgettext("page", "Server response"), pgettext("page", "Code"),
                     pgettext("page", "Details"), pgettext("page", "Request URL"),
                     pgettext("page", "Responses")),
    "responseBody": (pgettext("page", "Response body"), pgettext("page", "Download")),
    "Models": (pgettext("page", "Schemas"),),
}


def swagger_words(lang: str) -> dict[str, dict[str, str]]:
    """:data:`SWAGGER_WORDS` in ``lang``: each component's English words and their
    translation (none in English: Swagger UI draws its own)."""
    from bodygraph.catalog.translations import catalog

    if lang == "en":
        return {}
    say = catalog(lang).pgettext
    return {name: {word: say("page", word) for word in words}
            for name, words in SWAGGER_WORDS.items()}


def _say(lang: str) -> Callable[[str], str]:
    """The page's words (context ``page``) in ``lang``, HTML-escaped."""
    from bodygraph.catalog.translations import catalog

    say = catalog(lang).pgettext
    return lambda text: html.escape(say("page", text))


def nav_bar(title: str, lang: str = "en") -> str:
    """The links at the top of every page in ``lang`` (relative: the service may sit
    under a path; the title leads to the front page; the links in a language keep it)."""
    say = _say(lang)
    docs, playground = say(pgettext("page", "API docs")), say(pgettext("page", "Playground"))
    query = "" if lang == "en" else f"?lang={lang}"
    return (f"<nav class='bar'><a class='home' href='./{query}'>{html.escape(title)}</a> "
            f"<a href='docs{query}'>{docs}</a> "
            f"<a href='playground{query}'>{playground}</a> "
            f"<a href='openapi.json{query}'>openapi.json</a></nav>")


def geocode_key_rule(required: bool, lang: str = "en") -> str:
    """Whether place names need ``HD-Geocode-Key`` on this service (HTML, in ``lang``)."""
    header = "<code>HD-Geocode-Key</code>"
    if required:
        return _say(lang)(pgettext(
            "page", "Place-name endpoints also need {header}: your own key of the Google "
            "Geocoding API, with which the place is looked up.")).format(header=header)
    return _say(lang)(pgettext(
        "page", "Place names are looked up in this service's own gazetteer: {header} is "
        "not needed (and ignored if given).")).format(header=header)


def _endpoints(document: Mapping[str, Any], say: Callable[[str], str]) -> str:
    rows = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            rows.append(
                f"<tr><td>{method.upper()}</td><td><code>{html.escape(path)}</code></td>"
                f"<td>{html.escape(op['summary'])}</td></tr>"
            )
    heads = (say(pgettext("page", "method")), say(pgettext("page", "path")),
             say(pgettext("page", "what")))
    return ("<table><tr>" + "".join(f"<th>{head}</th>" for head in heads) + "</tr>"
            + "".join(rows) + "</table>")


def docs_page(document: Mapping[str, Any], geocode_key_required: bool = True,
              lang: str = "en") -> str:
    """The HTML of ``/docs`` in ``lang``: Swagger UI over ``/openapi.json?lang=`` (drawn by
    the browser; its own words from :func:`swagger_words`), then authentication (and
    whether place names need the caller's geocoding key), the endpoints (their summaries
    as ``document``, the document in ``lang``, writes them) and every error code with its
    default message in ``lang``, as plain HTML."""
    from bodygraph_server.http.error_words import translated

    say = _say(lang)
    title = html.escape(document["info"]["title"])
    codes = "".join(
        f"<tr><td><code>{code.value}</code></td><td>{spec.status}</td>"
        f"<td>{html.escape(translated(spec.message, lang))}</td></tr>"
        for code, spec in ERROR_TABLE.items()
    )
    authentication = say(pgettext(
        "page", "v2: {bearer} (the {authorize} button above, scheme {scheme}); v1: {v1}."
    )).format(bearer="<code>Authorization: Bearer &lt;API_KEY&gt;</code>",
              authorize="<em>Authorize</em>", scheme="<code>bearerAuth</code>",
              v1="<code>HD-Api-Key: &lt;API_KEY&gt;</code>")
    limits = say(pgettext(
        "page", "Limit: 100 requests per minute per key (headers {headers} on 429). Every "
        "successful chart costs 1 credit, also from this page.")).format(
        headers="<code>ratelimit-policy</code>, <code>ratelimit</code>, "
        "<code>Retry-After</code>")
    noscript = say(pgettext(
        "page", "The interactive reference needs JavaScript; the rules below and {link} "
        "(OpenAPI 3.1) do not.")).format(link="<a href='openapi.json'>/openapi.json</a>")
    words = {"docs": say(pgettext("page", "API docs")),
             "authentication": say(pgettext("page", "Authentication")),
             "endpoints": say(pgettext("page", "Endpoints")),
             "codes": say(pgettext("page", "Error codes")),
             "message": say(pgettext("page", "default message"))}
    return "".join([
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title} {html.escape(document['info']['version'])}: "
        f"{words['docs']}</title>",
        f"<link rel='stylesheet' href='{SWAGGER_PATH[1:]}/swagger-ui.css'>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(document["info"]["title"], lang),
        "<div id='swagger-ui' data-words='",
        html.escape(json.dumps(swagger_words(lang), ensure_ascii=False), quote=True),
        f"'><noscript>{noscript}</noscript></div>",
        "<main class='rules'>",
        f"<h2>{words['authentication']}</h2><p>{authentication} ",
        geocode_key_rule(geocode_key_required, lang), f" {limits}</p>",
        f"<h2>{words['endpoints']}</h2><div class='scroll'>",
        _endpoints(document, say), "</div>",
        f"<h2>{words['codes']}</h2><div class='scroll'><table><tr>"
        f"<th>errorCode</th><th>HTTP</th><th>{words['message']}</th></tr>", codes,
        "</table></div></main>",
        f"<script src='{SWAGGER_PATH[1:]}/swagger-ui-bundle.js'></script>",
        f"<script src='{STATIC_PATH[1:]}/docs.js'></script>",
        "</body></html>",
    ])
