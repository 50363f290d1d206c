"""The rendered-image route ``GET {render_url}/<template-uuid|default>.<svg|png>?t=<token>``:
the token verified before anything is drawn, nothing stored; its answers and refusals:
docs/render.md. :func:`render_app` serves it alone, for tests or a separate image host."""

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

from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, pgettext
from bodygraph.render import PRESET_NAMES, PngUnavailableError, Theme, render_svg
from bodygraph.render.wheel import WheelInput, wheel_svg
from bodygraph_server.images.formats import (
    PNG_COST,
    PNG_MEDIA_TYPE,
    SVG_MEDIA_TYPE,
    Rasteriser,
    split_image_name,
    svg_body,
)
from bodygraph_server.images.overlay_tokens import (
    NOT_A_TRANSIT,
    Picture,
    issue_picture,
    verify_picture,
)
from bodygraph_server.images.styles import (
    STYLE_CACHE_ENTRIES,
    STYLE_TTL_SECONDS,
    NoTemplates,
    StyleCache,
    TemplateSource,
    cached,
)
from bodygraph_server.images.templates import LOOKUP_FAILED, TemplateHub, TemplateLookupError
from bodygraph_server.images.throttle import Throttle
from bodygraph_server.images.tokens import (
    DEFAULT_TEMPLATE,
    NOT_A_BODYGRAPH,
    UNSUPPORTED_VERSION,
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
)

__all__ = [
    "IMAGE_ROUTE", "IMMUTABLE", "NO_STORE", "PNG_MEDIA_TYPE", "STYLE_CACHE_ENTRIES",
    "STYLE_TTL_SECONDS", "SVG_MEDIA_TYPE", "NoTemplates", "RenderContext", "Resolver",
    "StyleCache", "TemplateLookupError", "TemplateSource", "cached", "image_endpoint",
    "parse_template", "picture_url", "render_app", "render_link", "render_routes",
    "said_in", "standalone_app",
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
                render_base: str, preset: str = "") -> str:
    """The image link of ``picture`` (a chart, a transit, a connection, a wheel) for an
    account: its active template, the newest key (blocking: the template store is asked);
    ``preset``, a shipped theme's name, styles it instead (the link's path is
    ``<preset>.svg``, the token bound to it)."""
    if preset:
        token = issue_picture(picture, keys, preset)
        return f"{render_base.rstrip('/')}/{preset}.svg?t={quote(token, safe='')}"
    template_id = hub.active_id(account_id)
    token = issue_picture(picture, keys, template_name(template_id))
    return render_link(render_base, template_id, token)


def image_language(given: list[str]) -> str | None:
    """The language of the image's words: ``en`` without ``lang``, the code given once,
    else None (refused). It is outside the signed token: it changes words only."""
    if not given:
        return SOURCE_LANGUAGE
    return given[0] if len(given) == 1 and given[0] in LANGUAGES else None


#: The refusals' messages that hold a value (the others are marked where they are written),
#: for :mod:`bodygraph_server.http.error_words`, which says them in a language.
INVALID_LANGUAGE = pgettext("service error", "lang is not a supported language or given "
                            "twice; use one of {codes}")
MESSAGES = (UNSUPPORTED_VERSION, NOT_A_BODYGRAPH, NOT_A_TRANSIT, LOOKUP_FAILED,
            INVALID_LANGUAGE)
CONTEXT = "service error"
_PHRASES = tuple((CONTEXT, message) for message in MESSAGES)
Say = Callable[[str, str], str]
"""A refusal's message in a language (``say(message, lang)``)."""


def _as_written(message: str, lang: str) -> str:
    return message


def said_in(message: str, lang: str) -> str:
    """A refusal's message in ``lang`` with the image route's own words: a message marked
    where it is written, one of :data:`MESSAGES` (its values said too) or the library's
    (:func:`bodygraph.catalog.said.said`); another stays as it is. The service's app says
    them with all its messages instead (``http/error_words.py``)."""
    if lang == SOURCE_LANGUAGE:
        return message
    from bodygraph.catalog.said import said
    from bodygraph.catalog.translations import catalog

    marked = catalog(lang).pgettext(CONTEXT, message)
    return marked if marked != message else said(message, lang, _PHRASES)


@dataclass(frozen=True, slots=True)
class _Refusals:
    """The image route's refusals, in the language a request names (``lang`` given once,
    supported: with ``Content-Language``), else as written."""

    say: Say
    lang: str | None

    def __call__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> Response:
        spoken = {} if self.lang is None else {"Content-Language": self.lang}
        if self.lang is not None:
            message = self.say(message, self.lang)
        body = json.dumps({"success": False, "errorCode": code, "message": message},
                          separators=(",", ":"), ensure_ascii=self.lang is None)
        return Response(body, status_code=status, media_type="application/json",
                        headers={"Cache-Control": NO_STORE, **SECURITY_HEADERS,
                                 **(headers or {}), **spoken})

    def too_many(self, wait: int) -> Response:
        return self(429, "RATE_LIMIT_EXCEEDED", pgettext(
            "service error", "too many images; retry later"), {"Retry-After": str(wait)})


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
    resolve: Resolver, throttle: Throttle | None = None, say: Say = _as_written
) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of ``GET /<template>.<svg|png>?t=<token>``; ``throttle``
    (default: a fresh :class:`Throttle`) limits the images per client address; ``say``
    writes a refusal's message in the language of ``lang`` (default: as written)."""
    limiter = throttle if throttle is not None else Throttle()
    rasteriser = Rasteriser()

    async def image(request: Request) -> Response:
        given_lang = request.query_params.getlist("lang")
        lang = image_language(given_lang)
        refuse = _Refusals(say, lang if given_lang else None)
        try:
            name, suffix = split_image_name(request.path_params["image"])
            template_id = None if name in PRESET_NAMES else parse_template(name)
        except ValueError:
            return refuse(404, "NOT_FOUND", pgettext(
                "service error", "no such image; use <template-uuid>.svg, default.svg, "
                "<theme>.svg or the same with .png"))
        client = request.client.host if request.client else ""
        wait = limiter.take(client)
        if wait:
            return refuse.too_many(wait)
        given = request.query_params.getlist("t")
        if not given or not given[0]:
            return refuse(400, "RENDER_TOKEN_MALFORMED", pgettext(
                "service error", "the t parameter is missing"))
        if len(given) > 1:
            return refuse(400, "RENDER_TOKEN_MALFORMED", pgettext(
                "service error", "give the t parameter once"))
        if lang is None:
            return refuse(400, "INVALID_LANGUAGE", INVALID_LANGUAGE.format(
                codes=", ".join(LANGUAGES)))
        context = resolve(request)
        try:
            payload = verify_picture(given[0], context.keys, name)
        except MalformedTokenError as exc:
            return refuse(400, "RENDER_TOKEN_MALFORMED", str(exc))
        except InvalidSignatureError as exc:
            return refuse(403, "RENDER_TOKEN_INVALID", str(exc))
        theme: Theme | None = Theme.preset(name) if name in PRESET_NAMES else None
        if template_id is not None:
            try:
                theme = await run_in_threadpool(context.styles.style_for, template_id)
            except TemplateLookupError as exc:
                return refuse(503, "TEMPLATE_STORE_UNAVAILABLE", str(exc))
        document = (wheel_svg(payload, theme, lang=lang) if isinstance(payload, WheelInput)
                    else render_svg(payload, theme, lang=lang))
        headers = {"Cache-Control": IMMUTABLE, **SECURITY_HEADERS}
        if suffix == "png":
            wait = limiter.take(client, PNG_COST - 1)  # the rest of a PNG's weight
            if wait:
                return refuse.too_many(wait)
            try:
                picture = await rasteriser.png(document)
            except PngUnavailableError:
                return refuse(503, "PNG_UNAVAILABLE", pgettext(
                    "service error", "PNG images are not available on this server (cairosvg "
                    "or the cairo library is missing); the .svg link works"))
            return Response(picture, media_type=PNG_MEDIA_TYPE, headers=headers)
        body, encoding = svg_body(document, request.headers.get("accept-encoding", ""))
        return Response(body, media_type=SVG_MEDIA_TYPE, headers={**headers, **encoding})

    return image


def render_routes(keys: KeyRing, templates: TemplateSource | None = None,
                  say: Say = said_in) -> list[Route]:
    """The route of the image endpoint with fixed keys; ``templates`` is wrapped in a
    24-hour :class:`StyleCache` unless it already is one; ``say`` says the refusals in a
    ``?lang=`` (default: :func:`said_in`)."""
    context = RenderContext(keys, cached(templates))
    return [Route(IMAGE_ROUTE, image_endpoint(lambda request: context, say=say),
                  methods=["GET"], name="render_image")]


def render_app(keys: KeyRing, templates: TemplateSource | None = None,
               say: Say = said_in) -> Starlette:
    """A Starlette app serving the images, its refusals in a ``?lang=`` (``say``, default
    :func:`said_in`); mount it (``Mount("/render", app=...)``) or run it."""
    return Starlette(routes=render_routes(keys, templates, say))


def standalone_app() -> Starlette:
    """Factory for ``uvicorn --factory bodygraph_server.images.route:standalone_app``.

    Keys come from ``BODYGRAPH_RENDER_KEYS``; without a template store every image uses
    the default theme.
    """
    return render_app(KeyRing.from_env())
