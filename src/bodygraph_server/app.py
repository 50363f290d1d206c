"""The Starlette application: the operations of every resource family as routes, the
middleware (trusted hosts, the gate), the exception handlers and the lifespan."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import date, time
from functools import cache
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from bodygraph.calculator import warm_up as warm_calculator
from bodygraph.errors import BodygraphError
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.commits import CommitBatcher
from bodygraph_server.billing.deliveries import DeliveryJournal, journal_folder, watch_deliveries
from bodygraph_server.billing.opening import open_waiting
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.billing.sweep import stale_after, sweep_forever, sweep_stale
from bodygraph_server.calendar_cache import CalendarCache
from bodygraph_server.charting import ChartSource, LibraryCharts
from bodygraph_server.execution.service import job_store, job_worker
from bodygraph_server.execution.worker import waking
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http.error_words import translated
from bodygraph_server.http.gate import Gate
from bodygraph_server.http.hosts import TrustedHosts
from bodygraph_server.http.openapi import openapi_document
from bodygraph_server.http.operation import Operation, routes_of
from bodygraph_server.http.refusals import EXCEPTION_HANDLERS
from bodygraph_server.images.route import StyleCache, image_endpoint
from bodygraph_server.images.signing_keys import signing_keys
from bodygraph_server.images.templates import SqlTemplateStore, TemplateHub
from bodygraph_server.resources import operations, schemas
from bodygraph_server.resources.pages.operations import static_routes
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
from bodygraph_server.store.webhook_deliveries import SqlWebhookOutbox
from bodygraph_server.webhooks import WebhookSender, record_job_end

if TYPE_CHECKING:
    from bodygraph_server.store.async_request_path import AsyncRequestPath

LOG = logging.getLogger("bodygraph_server")


async def warm_up(charts: ChartSource, settings: Settings) -> None:
    """Compute one chart so the ephemeris, the compiled engine and the time-zone data (and
    the offline gazetteer) are loaded before the first request. Failures are logged (by
    type only) and left for requests to report."""
    try:
        warm_calculator()  # the compiled engine: one chart alone would run as plain Python
        await charts.from_coordinates(date(2000, 1, 1), time(12, 0), 51.5, 0.0)
        if settings.geocoder == "offline":
            await charts.from_place(date(2000, 1, 1), time(12, 0), "London, United Kingdom",
                                    "warm-up")
    except BodygraphError as exc:
        LOG.warning("warm-up chart failed (%s); requests will report the error",
                    type(exc).__name__)


def freeze_long_lived() -> None:
    """Move everything the worker made before serving out of the garbage collector's sight
    (``gc.freeze``): those long-lived objects (numba's, the MCP server's among them) would
    otherwise be scanned by every full collection, a pause in the middle of requests
    (docs/performance.md). Called once the last of them (the operations' running parts)
    exists."""
    gc.collect()
    gc.freeze()


async def _services(
    config: Settings, book: Bookkeeper, charts: ChartSource, threads: BookThreads, *,
    loop_statements: AsyncRequestPath | None,
) -> Services:
    """The long-lived parts of one worker: keys from the settings or the database,
    templates over the bookkeeping store (when it is an SQL store)."""
    keys = await threads.run(signing_keys, config.render_keys, book.store, book.clock.now())
    store = book.store
    hub = TemplateHub(SqlTemplateStore(store))
    requests = RequestBook(book, threads.run, loop_statements)
    months = CalendarCache(SqlCalendarBlocks(store), book.clock.now)
    journal = DeliveryJournal(book, journal_folder(config.database_url, config.journal_dir),
                              stale_after(config).total_seconds())
    await threads.run(journal.open)
    sender = WebhookSender(SqlWebhookOutbox(store), book.webhook_secret, clock=book.clock,
                           allow_private=config.allow_private_callbacks)
    return Services(settings=config, book=book, charts=charts, book_threads=threads,
                    keys=keys, templates=hub, styles=StyleCache(hub), requests=requests,
                    commits=CommitBatcher(requests), calendar=months, deliveries=journal,
                    jobs=job_store(store, config, on_end=record_job_end), webhooks=sender)


def _loop_statements(book: Bookkeeper) -> AsyncRequestPath | None:
    """The request path's statements on the event loop: on PostgreSQL under asyncio."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio): bookkeeping threads only
        return None
    return book.store.async_request_path()


def create_app(
    settings: Settings | None = None,
    *,
    book: Bookkeeper | None = None,
    charts: ChartSource | None = None,
    extra_operations: Sequence[Operation] = (),
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The service as an ASGI app.

    ``settings`` default to :meth:`Settings.from_env`. Without ``book`` the lifespan opens
    the bookkeeping at ``settings.database_url`` (and closes it at shutdown); without
    ``charts`` the library computes charts with ``settings.geocoder``.
    ``extra_operations`` join the service's (routes and OpenAPI); ``extra_routes`` are
    mounted as they are (outside ``/v1`` and ``/v2`` the gate only adds request ids).
    """
    config = settings if settings is not None else Settings.from_env()
    geocode_key_required = caller_key_required(config.geocoder)
    image = image_endpoint(lambda request: services_of(request.scope).render_context(),
                           say=translated)  # refusals in a ?lang=: http/error_words.py
    every = (*operations(render_path=config.render_path, image=image,
                         document=lambda lang: documents(lang), render_url=config.render_url,
                         geocode_key_required=geocode_key_required),
             *extra_operations)

    @cache
    def documents(lang: str) -> dict[str, Any]:
        """The OpenAPI document, its prose in ``lang`` (each language's made once)."""
        return openapi_document(every, schemas(), geocode_key_required=geocode_key_required,
                                lang=lang)

    documents("en")  # made at the start, as before: a bad operation stops the start
    routes: list[BaseRoute] = [*routes_of(every), *static_routes(), *extra_routes]

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
        loop_statements = None
        try:
            loop_statements = _loop_statements(bookkeeper)
            if loop_statements is not None:
                await loop_statements.open()
            services = await _services(config, bookkeeper, source, threads,
                                       loop_statements=loop_statements)
            try:
                await services.run_bookkeeping(sweep_stale, bookkeeper, config)
            except StoreError as exc:  # the next round (sweep_forever) tries again
                LOG.warning("reservation sweep at start-up failed (%s)", exc)
            if config.warm_up:
                await warm_up(source, config)
            journal = services.deliveries
            if journal is not None:  # a dead worker's charges are settled before serving
                await services.run_bookkeeping(journal.recover_dead)
            async with anyio.create_task_group() as background, AsyncExitStack() as running:
                background.start_soon(sweep_forever, bookkeeper, config, services.run_bookkeeping)
                if journal is not None:
                    background.start_soon(watch_deliveries, journal, services.run_bookkeeping)
                for operation in every:  # what operations need running (the MCP sessions)
                    if operation.running is not None:
                        await running.enter_async_context(operation.running(services))
                if services.webhooks is not None:  # every process sends the due webhooks
                    running.push_async_callback(services.webhooks.aclose)
                    background.start_soon(services.webhooks.run)
                if config.jobs and services.jobs is not None:
                    background.start_soon(job_worker(
                        services.jobs, config, bookkeeper.clock.now,
                        on_end=waking(services.job_ended)).run)
                if config.warm_up:
                    freeze_long_lived()
                yield {SCOPE_KEY: services}
                background.cancel_scope.cancel()
            if journal is not None:
                await services.run_bookkeeping(journal.close)
        finally:
            threads.close()
            if loop_statements is not None:
                with anyio.CancelScope(shield=True):
                    await loop_statements.close()
            if isinstance(source, LibraryCharts):  # its geocoding HTTP client
                with anyio.CancelScope(shield=True):
                    await source.aclose()
            if owned:
                bookkeeper.close()

    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHosts, allowed_hosts=config.trusted_hosts),
                    Middleware(Gate)],
        exception_handlers=dict(EXCEPTION_HANDLERS),
        lifespan=lifespan,
    )
    app.router.redirect_slashes = False
    app.state.operations = every
    return app
