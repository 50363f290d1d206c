"""The pages for people (``/``, ``/docs``, ``/playground``), ``/openapi.json``, the icon and
their static files (the only routes outside the document), all public, under a
Content-Security-Policy that allows only this origin."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import json_response
from bodygraph_server.http.operation import Answer, Operation
from bodygraph_server.resources.pages.docs_page import STATIC_PATH, SWAGGER_PATH, docs_page
from bodygraph_server.resources.pages.landing import landing_page
from bodygraph_server.resources.pages.playground import playground_page

PLAYGROUND_PATH = "/playground"
STATIC_DIR = Path(str(resources.files("bodygraph_server") / "static"))


def swagger_ui_dir() -> Path:
    """The folder of Swagger UI's files in the ``swagger-ui-py`` package (read as data: the
    package's Python code is not imported; ``importlib.resources.files`` would import it,
    and with it jinja2 and yaml, in every worker process: docs/performance.md)."""
    spec = find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the swagger-ui-py package is not installed",
                                  name="swagger_ui")
    return Path(spec.submodule_search_locations[0]) / "static"


def content_security_policy(render_url: str = "") -> str:
    """Only this origin: scripts, styles, requests and frames; images also from ``data:``
    and from the origin of ``render_url`` when it is set."""
    images = "'self' data:"
    if render_url:
        parts = urlsplit(render_url)
        images += f" {parts.scheme}://{parts.netloc}"
    return (f"default-src 'self'; img-src {images}; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")


def page_headers(render_url: str = "") -> dict[str, str]:
    """The headers of every HTML page."""
    return {
        "Content-Security-Policy": content_security_policy(render_url),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }


Document = Callable[[str], Mapping[str, Any]]
"""The service's OpenAPI document (made from every operation, these included) with its
prose in a language (``en``: as written)."""
_LANG_REFUSAL = Answer(description=pgettext("openapi", "lang is not a supported code"),
                       media_type="text/plain", schema={"type": "string"})


def _asked(request: Request, headers: Mapping[str, str]) -> str | Response:
    """The language of ``?lang=`` (``en`` without), or the 400 of an unknown code or of
    two: a line of text listing the codes."""
    from bodygraph.catalog.translations import LANGUAGES

    given = request.query_params.getlist("lang") or ["en"]
    if len(given) != 1 or given[0] not in LANGUAGES:
        return PlainTextResponse(f"lang must be one of {', '.join(LANGUAGES)}",
                                 status_code=400, headers=dict(headers))
    return given[0]


def _language_parameter(description: str) -> dict[str, Any]:
    return {"name": "lang", "in": "query", "required": False, "description": description,
            "schema": {"$ref": "#/components/schemas/Language"}}


def _page(path: str, *, summary: str, description: str, make: Callable[[str], str],
          headers: Mapping[str, str]) -> Operation:
    """A public HTML page in the language of ``?lang=`` (English without; each language's
    page made once, on its first request; ``Content-Language`` when ``lang`` is given);
    an unknown code is 400, a line of text listing the codes."""
    made = cache(make)

    async def page(request: Request) -> Response:
        lang = _asked(request, headers)
        if isinstance(lang, Response):
            return lang
        said = {"Content-Language": lang} if "lang" in request.query_params else {}
        return HTMLResponse(made(lang), headers={**headers, **said})

    page.__name__ = "page_" + (path.strip("/") or "landing")
    return Operation(
        method="GET", path=path, summary=summary, description=description, handler=page,
        success=Answer(description="the page", media_type="text/html",
                       schema={"type": "string"}),
        tags=("pages",), operation_id="page_" + (path.strip("/") or "landing"),
        parameters=(_language_parameter(pgettext(
            "openapi", "the language of the page's words (English without)")),),
        refusals={400: _LANG_REFUSAL})


def page_operations(document: Document, render_url: str = "",
                    geocode_key_required: bool = True) -> tuple[Operation, ...]:
    """``/openapi.json``, ``/``, ``/docs`` and ``/playground``, each in the language of
    ``?lang=``; ``document`` is asked on the first request in a language
    (``geocode_key_required``: whether place names need the caller's geocoding key)."""
    headers = page_headers(render_url)
    serialised = cache(lambda lang: json_response(document(lang)).body)

    async def openapi_json(request: Request) -> Response:
        lang = _asked(request, {})
        if isinstance(lang, Response):
            return lang
        said = {"Content-Language": lang} if "lang" in request.query_params else {}
        return Response(serialised(lang), media_type="application/json", headers=said)

    icon = cache(lambda: (STATIC_DIR / "favicon.svg").read_bytes())

    async def favicon(request: Request) -> Response:  # browsers ask for it on every page
        return Response(icon(), media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    return (
        Operation(method="GET", path="/openapi.json",
                  summary=pgettext("openapi", "This document"),
                  description=pgettext(
                      "openapi", "The OpenAPI 3.1 document of the service."),
                  handler=openapi_json, tags=("pages",), operation_id="openapi",
                  success=Answer(description="the OpenAPI document",
                                 schema={"type": "object"}),
                  parameters=(_language_parameter(pgettext(
                      "openapi", "the language of the summaries and descriptions (English "
                      "without); keys, schemas, codes and examples stay the contract's")),),
                  refusals={400: _LANG_REFUSAL}),
        Operation(method="GET", path="/favicon.ico", summary=pgettext("openapi", "The icon"),
                  description=pgettext(
                      "openapi", "The service's icon (SVG), which browsers ask for."),
                  handler=favicon, tags=("pages",), operation_id="favicon",
                  success=Answer(description="the icon", media_type="image/svg+xml",
                                 schema={"type": "string"})),
        _page("/", summary=pgettext("openapi", "Front page"),
              description=pgettext(
                  "openapi", "What the service is, and links to its pages, in the language of "
                  "?lang=."),
              make=lambda lang: landing_page(document(lang), lang), headers=headers),
        _page(
            "/docs", summary=pgettext("openapi", "API docs"),
            description=pgettext(
                "openapi", "Swagger UI over this document, how to authenticate and every error "
                "code, in the language of ?lang=: the page's words, the document's summaries and "
                "Swagger UI's buttons."),
            make=lambda lang: docs_page(document(lang), geocode_key_required, lang),
            headers=headers),
        _page(
            PLAYGROUND_PATH, summary=pgettext("openapi", "Playground"),
            description=pgettext(
                "openapi", "Compute a chart with your API key and see its bodygraph, in the "
                "language of its menu."),
            make=lambda lang: playground_page(document("en")["info"]["title"],
                                              geocode_key_required, lang),
            headers=headers),
    )


def static_routes() -> list[BaseRoute]:
    """The pages' own files and Swagger UI's assets."""
    return [
        Mount(STATIC_PATH, app=StaticFiles(directory=STATIC_DIR), name="static"),
        Mount(SWAGGER_PATH, app=StaticFiles(directory=swagger_ui_dir()), name="swagger-ui"),
    ]
