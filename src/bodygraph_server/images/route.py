"""The rendered-image route: ``GET {render_url}/<template-uuid|default>.<svg|png>?t=<token>``.

The token is verified before anything is drawn
(:func:`bodygraph_server.images.overlay_tokens.verify_picture`: a chart, a transit over a
natal chart or a connection);
nothing of the request, the token or the image is stored. The style comes from the
caller's template through a :class:`TemplateSource`, cached in process for 24 hours;
an unknown template renders with the default theme. The ``.png`` path is the ``.svg``
path plus rasterisation: the same token, checks and refusals
(:mod:`bodygraph_server.images.formats`).

Responses:

``200``  ``image/svg+xml`` (gzip when accepted, ``Vary: Accept-Encoding``) or
         ``image/png``, ``Cache-Control: public, max-age=31536000, immutable``
``400``  ``RENDER_TOKEN_MALFORMED``: no ``t`` parameter, ``t`` given twice, or text that
         cannot be a token (:data:`~bodygraph_server.images.tokens.TOKEN_PATTERN`)
``403``  ``RENDER_TOKEN_INVALID``: the signature does not verify (changed token, unknown key,
         a token of version 2 or later under another template than the one it was
         issued for)
``404``  ``NOT_FOUND``: the path is not ``<uuid>.svg``/``<uuid>.png`` (canonical lower-case
         UUID) or ``default.svg``/``default.png``
``429``  ``RATE_LIMIT_EXCEEDED``: the client fetched too many images
         (:mod:`bodygraph_server.images.throttle`; every request takes one image
         before the checks, a PNG the rest of its weight,
         :data:`~bodygraph_server.images.formats.PNG_COST` images, before it is
         rasterised), with ``Retry-After``
``503``  ``TEMPLATE_STORE_UNAVAILABLE``: the template source failed (:class:`TemplateLookupError`);
         ``PNG_UNAVAILABLE``: a PNG was asked for and cairosvg or the cairo library is missing

Every refusal is a small JSON body with ``Cache-Control: no-store``.

The service (:func:`bodygraph_server.app.create_app`) mounts the route under ``/render``
(or the path of the configured ``render_url``) with the keys and templates of its
lifespan (:func:`image_endpoint` with a per-request resolver); :func:`render_app` serves
it with fixed keys, for tests or a separate image host.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import quote
from uuid import UUID

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE
from bodygraph.render import PngUnavailableError, Theme, render_svg
from bodygraph_server.images.formats import (
    PNG_COST,
    PNG_MEDIA_TYPE,
    SVG_MEDIA_TYPE,
    Rasteriser,
    split_image_name,
    svg_body,
)
from bodygraph_server.images.overlay_tokens import Picture, issue_picture, verify_picture
from bodygraph_server.images.styles import (
    STYLE_CACHE_ENTRIES,
    STYLE_TTL_SECONDS,
    NoTemplates,
    StyleCache,
    TemplateSource,
    cached,
)
from bodygraph_server.images.templates import TemplateHub, TemplateLookupError
from bodygraph_server.images.throttle import Throttle
from bodygraph_server.images.tokens import (
    DEFAULT_TEMPLATE,
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
)

__all__ = [
    "IMAGE_ROUTE", "IMMUTABLE", "NO_STORE", "PNG_MEDIA_TYPE", "STYLE_CACHE_ENTRIES",
    "STYLE_TTL_SECONDS", "SVG_MEDIA_TYPE", "NoTemplates", "RenderContext", "Resolver",
    "StyleCache", "TemplateLookupError", "TemplateSource", "cached", "image_endpoint",
    "parse_template", "picture_url", "render_app", "render_link", "render_routes",
    "standalone_app",
    "template_name",
]

IMMUTABLE = "public, max-age=31536000, immutable"
NO_STORE = "no-store"
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
}


def parse_template(name: str) -> UUID | None:
    """``None`` for ``default``; the UUID for a canonical (lower-case, hyphenated) UUID
    text; else ``ValueError``."""
    if name == DEFAULT_TEMPLATE:
        return None
    value = UUID(name)
    if str(value) != name:
        raise ValueError(f"{name!r} is not a canonical UUID")
    return value


def template_name(template_id: UUID | None) -> str:
    """The name of a template in a link's path (and in its token): ``default`` or the
    canonical UUID."""
    return DEFAULT_TEMPLATE if template_id is None else str(template_id)


def render_link(render_url: str, template_id: UUID | None, token: str,
                suffix: str = "svg") -> str:
    """The ``svgRenderUrl`` of a token: ``{render_url}/<uuid|default>.svg?t=<token>``
    (with ``suffix="png"``: the PNG of the same image)."""
    name = template_name(template_id)
    return f"{render_url.rstrip('/')}/{name}.{suffix}?t={quote(token, safe='')}"


def picture_url(picture: Picture, *, account_id: int, keys: KeyRing, hub: TemplateHub,
                render_base: str) -> str:
    """The image link of ``picture`` (a chart, a transit, a connection) for an account:
    its active template, the newest key (blocking: the template store is asked)."""
    template_id = hub.active_id(account_id)
    token = issue_picture(picture, keys, template_name(template_id))
    return render_link(render_base, template_id, token)


def image_language(given: list[str]) -> str | None:
    """The language of the image's words: ``en`` without ``lang``, the code given once,
    else None (refused). It is outside the signed token: it changes words only."""
    if not given:
        return SOURCE_LANGUAGE
    return given[0] if len(given) == 1 and given[0] in LANGUAGES else None


def _refusal(status: int, code: str, message: str,
             headers: dict[str, str] | None = None) -> Response:
    body = json.dumps({"success": False, "errorCode": code, "message": message},
                      separators=(",", ":"))
    return Response(body, status_code=status, media_type="application/json",
                    headers={"Cache-Control": NO_STORE, **SECURITY_HEADERS, **(headers or {})})


def _too_many(wait: int) -> Response:
    return _refusal(429, "RATE_LIMIT_EXCEEDED", "too many images; retry later",
                    {"Retry-After": str(wait)})


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What the image route needs: the keys that verify tokens and the (cached) styles."""

    keys: KeyRing
    styles: TemplateSource


Resolver = Callable[[Request], RenderContext]
"""Finds the :class:`RenderContext` of a request (fixed, or from the app's lifespan)."""

IMAGE_ROUTE = "/{image}"
"""One path segment, ``<template>.svg`` or ``<template>.png`` (any other name is a JSON 404)."""


def image_endpoint(
    resolve: Resolver, throttle: Throttle | None = None
) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of ``GET /<template>.<svg|png>?t=<token>``; ``throttle``
    (default: a fresh :class:`Throttle`) limits the images per client address."""
    limiter = throttle if throttle is not None else Throttle()
    rasteriser = Rasteriser()

    async def image(request: Request) -> Response:
        try:
            name, suffix = split_image_name(request.path_params["image"])
            template_id = parse_template(name)
        except ValueError:
            return _refusal(404, "NOT_FOUND", "no such image; use <template-uuid>.svg, "
                                              "default.svg or the same with .png")
        client = request.client.host if request.client else ""
        wait = limiter.take(client)
        if wait:
            return _too_many(wait)
        given = request.query_params.getlist("t")
        if not given or not given[0]:
            return _refusal(400, "RENDER_TOKEN_MALFORMED", "the t parameter is missing")
        if len(given) > 1:
            return _refusal(400, "RENDER_TOKEN_MALFORMED", "give the t parameter once")
        lang = image_language(request.query_params.getlist("lang"))
        if lang is None:
            return _refusal(400, "INVALID_LANGUAGE", "lang is not a supported language "
                            f"or given twice; use one of {', '.join(LANGUAGES)}")
        context = resolve(request)
        try:
            payload = verify_picture(given[0], context.keys, name)
        except MalformedTokenError as exc:
            return _refusal(400, "RENDER_TOKEN_MALFORMED", str(exc))
        except InvalidSignatureError as exc:
            return _refusal(403, "RENDER_TOKEN_INVALID", str(exc))
        theme: Theme | None = None
        if template_id is not None:
            try:
                theme = await run_in_threadpool(context.styles.style_for, template_id)
            except TemplateLookupError as exc:
                return _refusal(503, "TEMPLATE_STORE_UNAVAILABLE", str(exc))
        document = render_svg(payload, theme, lang=lang)
        headers = {"Cache-Control": IMMUTABLE, **SECURITY_HEADERS}
        if suffix == "png":
            wait = limiter.take(client, PNG_COST - 1)  # the rest of a PNG's weight
            if wait:
                return _too_many(wait)
            try:
                picture = await rasteriser.png(document)
            except PngUnavailableError:
                return _refusal(503, "PNG_UNAVAILABLE", "PNG images are not available on "
                                "this server (cairosvg or the cairo library is missing); "
                                "the .svg link works")
            return Response(picture, media_type=PNG_MEDIA_TYPE, headers=headers)
        body, encoding = svg_body(document, request.headers.get("accept-encoding", ""))
        return Response(body, media_type=SVG_MEDIA_TYPE, headers={**headers, **encoding})

    return image


def render_routes(keys: KeyRing, templates: TemplateSource | None = None) -> list[Route]:
    """The route of the image endpoint with fixed keys; ``templates`` is wrapped in a
    24-hour :class:`StyleCache` unless it already is one."""
    context = RenderContext(keys, cached(templates))
    return [Route(IMAGE_ROUTE, image_endpoint(lambda request: context), methods=["GET"],
                  name="render_image")]


def render_app(keys: KeyRing, templates: TemplateSource | None = None) -> Starlette:
    """A Starlette app serving the images; mount it (``Mount("/render", app=...)``) or run it."""
    return Starlette(routes=render_routes(keys, templates))


def standalone_app() -> Starlette:
    """Factory for ``uvicorn --factory bodygraph_server.images.route:standalone_app``.

    Keys come from ``BODYGRAPH_RENDER_KEYS``; without a template store every image uses
    the default theme.
    """
    return render_app(KeyRing.from_env())
