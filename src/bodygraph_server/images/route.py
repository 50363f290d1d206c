"""The rendered-image route: ``GET {render_url}/<template-uuid|default>.svg?t=<token>``.

The token is verified before anything is drawn
(:func:`bodygraph_server.images.overlay_tokens.verify_picture`: a chart, a transit over a
natal chart or a connection);
nothing of the request, the token or the image is stored. The style comes from the
caller's template through a :class:`TemplateSource`, cached in process for 24 hours;
an unknown template renders with the default theme.

Responses:

``200``  ``image/svg+xml``, ``Cache-Control: public, max-age=31536000, immutable``
``400``  ``RENDER_TOKEN_MALFORMED``: no ``t`` parameter, ``t`` given twice, or text that
         cannot be a token (:data:`~bodygraph_server.images.tokens.TOKEN_PATTERN`)
``403``  ``RENDER_TOKEN_INVALID``: the signature does not verify (changed token, unknown key,
         a version-2 token under another template than the one it was issued for)
``404``  ``NOT_FOUND``: the path is not ``<uuid>.svg`` (canonical lower-case UUID) or
         ``default.svg``
``429``  ``RATE_LIMIT_EXCEEDED``: the client fetched too many images
         (:mod:`bodygraph_server.images.throttle`), with ``Retry-After``
``503``  ``TEMPLATE_STORE_UNAVAILABLE``: the template source failed (:class:`TemplateLookupError`)

Every refusal is a small JSON body with ``Cache-Control: no-store``.

The service (:func:`bodygraph_server.app.create_app`) mounts the route under ``/render``
(or the path of the configured ``render_url``) with the keys and templates of its
lifespan (:func:`image_endpoint` with a per-request resolver); :func:`render_app` serves
it with fixed keys, for tests or a separate image host.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote
from uuid import UUID

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bodygraph.render import Theme, render_svg
from bodygraph_server.images.overlay_tokens import verify_picture
from bodygraph_server.images.templates import TemplateLookupError
from bodygraph_server.images.throttle import Throttle
from bodygraph_server.images.tokens import (
    DEFAULT_TEMPLATE,
    InvalidSignatureError,
    KeyRing,
    MalformedTokenError,
)

SVG_MEDIA_TYPE = "image/svg+xml"
IMMUTABLE = "public, max-age=31536000, immutable"
NO_STORE = "no-store"
STYLE_TTL_SECONDS = 24 * 3600.0
STYLE_CACHE_ENTRIES = 10_000
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
}


class TemplateSource(Protocol):
    """Where template styles come from (the service's store backs it).

    ``style_for`` is blocking (it runs in a worker thread); it returns ``None`` for an
    unknown template and raises :class:`TemplateLookupError` when it cannot answer.
    """

    def style_for(self, template_id: UUID) -> Theme | None:
        """The theme of template ``template_id``, or ``None`` if there is no such template."""


class NoTemplates:
    """A source without templates: every image uses the default theme."""

    def style_for(self, template_id: UUID) -> Theme | None:
        """Always ``None``."""
        del template_id
        return None


@dataclass(frozen=True, slots=True)
class _Entry:
    theme: Theme | None
    expires: float


class StyleCache:
    """A bounded, time-limited cache in front of a :class:`TemplateSource`.

    Answers (including "no such template") are kept ``ttl`` seconds; at most
    ``max_entries`` are kept, the least recently used dropped first. Thread-safe.
    """

    def __init__(
        self,
        source: TemplateSource,
        *,
        ttl: float = STYLE_TTL_SECONDS,
        max_entries: int = STYLE_CACHE_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0 or max_entries < 1:
            raise ValueError("ttl and max_entries must be positive")
        self._source = source
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[UUID, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def style_for(self, template_id: UUID) -> Theme | None:
        """The cached theme, asking the source when absent or expired."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(template_id)
            if entry is not None and entry.expires > now:
                self._entries.move_to_end(template_id)
                return entry.theme
        theme = self._source.style_for(template_id)
        with self._lock:
            self._entries[template_id] = _Entry(theme, now + self._ttl)
            self._entries.move_to_end(template_id)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return theme

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


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


def render_link(render_url: str, template_id: UUID | None, token: str) -> str:
    """The ``svgRenderUrl`` of a token: ``{render_url}/<uuid|default>.svg?t=<token>``."""
    name = template_name(template_id)
    return f"{render_url.rstrip('/')}/{name}.svg?t={quote(token, safe='')}"


def _refusal(status: int, code: str, message: str,
             headers: dict[str, str] | None = None) -> Response:
    body = json.dumps({"success": False, "errorCode": code, "message": message},
                      separators=(",", ":"))
    return Response(body, status_code=status, media_type="application/json",
                    headers={"Cache-Control": NO_STORE, **SECURITY_HEADERS, **(headers or {})})


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What the image route needs: the keys that verify tokens and the (cached) styles."""

    keys: KeyRing
    styles: TemplateSource


Resolver = Callable[[Request], RenderContext]
"""Finds the :class:`RenderContext` of a request (fixed, or from the app's lifespan)."""

IMAGE_ROUTE = "/{template}.svg"


def image_endpoint(
    resolve: Resolver, throttle: Throttle | None = None
) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of ``GET /<template>.svg?t=<token>``; ``throttle`` (default:
    a fresh :class:`Throttle`) limits the images per client address."""
    limiter = throttle if throttle is not None else Throttle()

    async def image(request: Request) -> Response:
        name = request.path_params["template"]
        try:
            template_id = parse_template(name)
        except ValueError:
            return _refusal(404, "NOT_FOUND", "no such image; use <template-uuid>.svg or "
                                              "default.svg")
        wait = limiter.take(request.client.host if request.client else "")
        if wait:
            return _refusal(429, "RATE_LIMIT_EXCEEDED", "too many images; retry later",
                            {"Retry-After": str(wait)})
        given = request.query_params.getlist("t")
        if not given or not given[0]:
            return _refusal(400, "RENDER_TOKEN_MALFORMED", "the t parameter is missing")
        if len(given) > 1:
            return _refusal(400, "RENDER_TOKEN_MALFORMED", "give the t parameter once")
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
        document = render_svg(payload, theme)
        return Response(document, media_type=SVG_MEDIA_TYPE,
                        headers={"Cache-Control": IMMUTABLE, **SECURITY_HEADERS})

    return image


def cached(templates: TemplateSource | None) -> StyleCache:
    """``templates`` behind a 24-hour :class:`StyleCache` (unless it already is one);
    ``None``: the default theme for every image."""
    source = templates if templates is not None else NoTemplates()
    return source if isinstance(source, StyleCache) else StyleCache(source)


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
