"""The Starlette application: routes, the gate middleware, error handlers, lifespan.

``create_app(settings)`` is the only constructor. Tests may hand in an open
:class:`~bodygraph_server.billing.accounts.Bookkeeper` (which the app then does not close) and a
:class:`~bodygraph_server.charting.ChartSource`.

The app serves the v2 chart endpoints, the visual-chart endpoints
(:mod:`bodygraph_server.http.visual`), the v1 endpoints, the image route under
``settings.render_path`` (``/render`` by default; :mod:`bodygraph_server.images.route`),
``/openapi.json``, ``/`` (a front page), ``/docs``, ``/playground``
(:mod:`bodygraph_server.http.pages`),
``/health`` (readiness: 503 while the database is down) and ``/health/live`` (liveness:
always 200). ``extra_endpoints`` lets more chart
endpoints join (same checks, charging, OpenAPI); ``extra_routes`` are mounted as they are.
The extensions beyond the contract (:mod:`bodygraph_server.http.relations`,
:mod:`bodygraph_server.http.batch`) are endpoints with a body server of their own.

The lifespan opens the bookkeeping, loads the render signing keys
(:mod:`bodygraph_server.images.signing_keys`), binds the templates, releases abandoned
reservations and keeps sweeping them (:mod:`bodygraph_server.billing.sweep`), and keeps
the worker's delivery journal, settling dead workers' charges at once
(:mod:`bodygraph_server.billing.deliveries`). Requests whose ``Host`` is not in
``settings.trusted_hosts`` are refused first (:mod:`bodygraph_server.http.hosts`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import date, time
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from bodygraph.calculator import warm_up as warm_calculator
from bodygraph.errors import BodygraphError
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.commits import CommitBatcher
from bodygraph_server.billing.deliveries import DeliveryJournal, journal_folder, watch_deliveries
from bodygraph_server.billing.opening import open_waiting
from bodygraph_server.billing.ratelimit import RateLimitStoreUnavailableError, RedisRateLimiter
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.billing.sweep import stale_after, sweep_forever, sweep_stale
from bodygraph_server.calendar_cache import CalendarCache
from bodygraph_server.charting import ChartSource, LibraryCharts
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http import v1, v2
from bodygraph_server.http.batch import BATCH_ENDPOINT
from bodygraph_server.http.endpoint import Endpoint, handler
from bodygraph_server.http.envelope import error_response, json_response
from bodygraph_server.http.errors import RETRY_AFTER_OUTAGE, ApiError, ErrorCode
from bodygraph_server.http.gate import Gate, api_version
from bodygraph_server.http.hosts import TrustedHosts
from bodygraph_server.http.openapi import openapi_document
from bodygraph_server.http.pages import page_routes
from bodygraph_server.http.relations import RELATION_ENDPOINTS
from bodygraph_server.http.time_searches import TIME_ENDPOINTS
from bodygraph_server.http.visual import VISUAL_ENDPOINTS, visual_handler
from bodygraph_server.images.route import IMAGE_ROUTE, StyleCache, image_endpoint
from bodygraph_server.images.signing_keys import signing_keys
from bodygraph_server.images.templates import SqlTemplateStore, TemplateHub
from bodygraph_server.services import (
    SCOPE_KEY,
    BookThreads,
    Services,
    bookkeeping_threads,
    services_of,
)
from bodygraph_server.settings import Settings
from bodygraph_server.store import StoreError
from bodygraph_server.store.calendar_blocks import SqlCalendarBlocks

if TYPE_CHECKING:
    from bodygraph_server.store.async_calls import AsyncRequestCalls

LOG = logging.getLogger("bodygraph_server")

_HTTP_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


async def _http_error(request: Request, exc: Exception) -> Response:
    """Routing refusals (unknown path, wrong method) in the body format of the path."""
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, ErrorCode.INVALID_REQUEST_BODY)
    error = ApiError(code, status=exc.status_code, headers=exc.headers)
    return error_response(error, legacy=api_version(request.url.path) == "v1")


async def warm_up(charts: ChartSource, settings: Settings) -> None:
    """Compute one chart so the ephemeris, the compiled engine and the time-zone data (and
    the offline gazetteer) are loaded before the first request. Failures are logged (by
    type only) and left for requests to report.

    Then everything loaded so far is moved out of the garbage collector's sight
    (``gc.freeze``): those ~10^5 long-lived objects (numba's among them) would otherwise
    be scanned by every full collection, a pause of ~60 ms in the middle of requests."""
    try:
        warm_calculator()  # the compiled engine: one chart alone would run as plain Python
        await charts.from_coordinates(date(2000, 1, 1), time(12, 0), 51.5, 0.0)
        if settings.geocoder == "offline":
            await charts.from_place(date(2000, 1, 1), time(12, 0), "London, United Kingdom",
                                    "warm-up")
    except BodygraphError as exc:
        LOG.warning("warm-up chart failed (%s); requests will report the error",
                    type(exc).__name__)
    gc.collect()
    gc.freeze()


async def readiness(services: Services) -> Response:
    """``/health``: 200 ``{"status": "ok", "database": "up"}`` when the database answers a
    query and stores a write (what a charge needs), else 503 ``{"status": "unavailable",
    "database": "down"}`` (unreachable) or ``"read-only"`` (it answers, but a write fails:
    read-only files or server, a full disk, a write lock held elsewhere) with Retry-After
    (a load balancer takes the worker out of rotation; ``/health/live`` stays 200). With
    a Redis rate-limit store the body adds ``"rateLimit": "up"`` or ``"down"`` (503)."""
    store = services.book.store
    state = "down"
    try:
        await services.booked(store.ping)
        state = "read-only"
        await services.booked(store.check_writable)
    except StoreError as exc:
        LOG.warning("health check: database %s (%s)", state, exc)
        return json_response({"status": "unavailable", "database": state}, 503,
                             {"Retry-After": str(RETRY_AFTER_OUTAGE)})
    limiter = services.book.rate_limiter
    if not isinstance(limiter, RedisRateLimiter):  # its windows live in the database
        return json_response({"status": "ok", "database": "up"})
    try:
        await services.booked(limiter.ping)
    except RateLimitStoreUnavailableError as exc:
        LOG.warning("health check: rate-limit store down (%s)", exc)
        return json_response({"status": "unavailable", "database": "up", "rateLimit": "down"},
                             503, {"Retry-After": str(RETRY_AFTER_OUTAGE)})
    return json_response({"status": "ok", "database": "up", "rateLimit": "up"})


async def _services(
    config: Settings, book: Bookkeeper, charts: ChartSource, threads: BookThreads,
    on_loop: AsyncRequestCalls | None,
) -> Services:
    """The long-lived parts of one worker: keys from the settings or the database,
    templates over the bookkeeping store (when it is an SQL store)."""
    keys = await threads.run(signing_keys, config.render_keys, book.store, book.clock.now())
    store = book.store
    hub = TemplateHub(SqlTemplateStore(store))
    requests = RequestBook(book, threads.run, on_loop)
    months = CalendarCache(SqlCalendarBlocks(store), book.clock.now)
    journal = DeliveryJournal(book, journal_folder(config.database_url),
                              stale_after(config).total_seconds())
    await threads.run(journal.open)
    return Services(config, book, charts, threads, keys, hub, StyleCache(hub), requests,
                    CommitBatcher(requests), months, journal)


def _on_loop(book: Bookkeeper) -> AsyncRequestCalls | None:
    """The request path's statements on the event loop: on PostgreSQL under asyncio."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio): bookkeeping threads only
        return None
    return book.store.on_loop()


def create_app(
    settings: Settings | None = None,
    *,
    book: Bookkeeper | None = None,
    charts: ChartSource | None = None,
    extra_endpoints: Sequence[Endpoint] = (),
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The service as an ASGI app.

    ``settings`` default to :meth:`Settings.from_env`. Without ``book`` the lifespan opens
    the bookkeeping at ``settings.database_url`` (and closes it at shutdown); without
    ``charts`` the library computes charts with ``settings.geocoder``.
    ``extra_endpoints`` join the chart endpoints (same checks, charging, errors, OpenAPI);
    ``extra_routes`` are mounted as they are (outside ``/v1`` and ``/v2`` the gate only
    adds request ids).
    """
    config = settings if settings is not None else Settings.from_env()
    endpoints: tuple[Endpoint, ...] = (
        *v2.ENDPOINTS, *VISUAL_ENDPOINTS, *RELATION_ENDPOINTS, *TIME_ENDPOINTS, BATCH_ENDPOINT,
        *extra_endpoints, *v1.ENDPOINTS
    )
    geocode_key_required = caller_key_required(config.geocoder)
    document = openapi_document(endpoints, render_path=config.render_path,
                                geocode_key_required=geocode_key_required)

    async def openapi_json(request: Request) -> Response:
        return json_response(document)

    async def health(request: Request) -> Response:
        return await readiness(services_of(request.scope))

    async def alive(request: Request) -> Response:
        return json_response({"status": "ok"})

    routes: list[BaseRoute] = [
        Route(e.path, visual_handler(e) if e in VISUAL_ENDPOINTS else handler(e),
              methods=["POST"], name=e.path)
        for e in endpoints
    ]
    image = image_endpoint(lambda request: services_of(request.scope).render_context())
    routes += [
        Route("/openapi.json", openapi_json, methods=["GET"]),
        *page_routes(document, config.render_url, geocode_key_required),
        Route("/health", health, methods=["GET"]),
        Route("/health/live", alive, methods=["GET"]),
        Mount(config.render_path,
              routes=[Route(IMAGE_ROUTE, image, methods=["GET"], name="render_image")]),
        *extra_routes,
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        owned = book is None
        bookkeeper = book
        if bookkeeper is None:  # waits (retrying) while the database is unavailable
            bookkeeper = await anyio.to_thread.run_sync(
                lambda: open_waiting(
                    config.database_url,
                    rate_limit_url=config.rate_limit_url or None,
                    busy_timeout=config.sqlite_busy_timeout,
                ),
                abandon_on_cancel=True,
            )
        source = charts
        if source is None:
            source = LibraryCharts(config.geocoder, config.geocoder_url)
        threads = BookThreads(bookkeeping_threads(config.database_url))
        on_loop = None
        try:
            on_loop = _on_loop(bookkeeper)
            if on_loop is not None:
                await on_loop.open()
            services = await _services(config, bookkeeper, source, threads, on_loop)
            try:
                await services.booked(sweep_stale, bookkeeper, config)
            except StoreError as exc:  # the next round (sweep_forever) tries again
                LOG.warning("reservation sweep at start-up failed (%s)", exc)
            if config.warm_up:
                await warm_up(source, config)
            journal = services.deliveries
            if journal is not None:  # a dead worker's charges are settled before serving
                await services.booked(journal.recover_dead)
            async with anyio.create_task_group() as background:
                background.start_soon(sweep_forever, bookkeeper, config, services.booked)
                if journal is not None:
                    background.start_soon(watch_deliveries, journal, services.booked)
                yield {SCOPE_KEY: services}
                background.cancel_scope.cancel()
            if journal is not None:
                await services.booked(journal.close)
        finally:
            threads.close()
            if on_loop is not None:
                with anyio.CancelScope(shield=True):
                    await on_loop.close()
            if isinstance(source, LibraryCharts):  # its geocoding HTTP client
                with anyio.CancelScope(shield=True):
                    await source.aclose()
            if owned:
                bookkeeper.close()

    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHosts, allowed_hosts=config.trusted_hosts),
                    Middleware(Gate)],
        exception_handlers={HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    return app
