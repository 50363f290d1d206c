"""The service's pages for people: ``/`` (:mod:`.landing`), ``/docs`` (Swagger UI,
:mod:`.docs_page`), ``/playground`` (:mod:`.playground`), the files they load and the
icon (``static/favicon.svg``, also at ``/favicon.ico``).

Everything the pages load is served here: the pages' own scripts and styles from
``bodygraph_server/static`` under ``/docs/static``, and Swagger UI's assets, bundled by the
``swagger-ui-py`` package, under ``/docs/swagger-ui``. The pages carry a
Content-Security-Policy that allows only this origin (plus ``data:`` images, which Swagger
UI's stylesheet uses for its icons, and the render host when ``render_url`` points
elsewhere, for the playground's chart image). Outside ``/v1`` and ``/v2`` the gate asks for
no key: the pages are public, and they call only the public API with the key a person
types in.
"""

from __future__ import annotations

from importlib import resources
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from bodygraph_server.http.docs_page import STATIC_PATH, SWAGGER_PATH, docs_page
from bodygraph_server.http.landing import landing_page
from bodygraph_server.http.playground import playground_page

PLAYGROUND_PATH = "/playground"
STATIC_DIR = Path(str(resources.files("bodygraph_server") / "static"))


def swagger_ui_dir() -> Path:
    """The folder of Swagger UI's files in the ``swagger-ui-py`` package (read as data: the
    package's Python code is not imported; ``importlib.resources.files`` would import it,
    and with it jinja2 and yaml, some 35-65 ms of CPU in every worker process)."""
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


def page_routes(document: dict[str, Any], render_url: str = "",
                geocode_key_required: bool = True) -> list[BaseRoute]:
    """``/``, ``/docs``, ``/playground`` and their assets, for ``create_app``
    (``geocode_key_required``: whether place names need the caller's geocoding key)."""
    headers = page_headers(render_url)
    landing_html = landing_page(document)
    docs_html = docs_page(document, geocode_key_required)
    playground_html = playground_page(document["info"]["title"], geocode_key_required)
    icon = (STATIC_DIR / "favicon.svg").read_bytes()

    async def landing(request: Request) -> Response:
        return HTMLResponse(landing_html, headers=headers)

    async def docs(request: Request) -> Response:
        return HTMLResponse(docs_html, headers=headers)

    async def playground(request: Request) -> Response:
        return HTMLResponse(playground_html, headers=headers)

    async def favicon(request: Request) -> Response:  # browsers ask for it on every page
        return Response(icon, media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    return [
        Route("/", landing, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route(PLAYGROUND_PATH, playground, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Mount(STATIC_PATH, app=StaticFiles(directory=STATIC_DIR), name="static"),
        Mount(SWAGGER_PATH, app=StaticFiles(directory=swagger_ui_dir()), name="swagger-ui"),
    ]
