"""What a running app holds: settings, the bookkeeping, the chart source and the render
parts (signing keys, templates, the 24-hour style cache).

Created in the app's lifespan (or handed in by tests) and reached from a request through
:func:`services_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from bodygraph_server.accounts import Bookkeeper
from bodygraph_server.charting import ChartSource
from bodygraph_server.render import RenderContext, StyleCache
from bodygraph_server.settings import Settings
from bodygraph_server.templates import TemplateHub
from bodygraph_server.tokens import KeyRing

SCOPE_KEY = "bodygraph.services"

T = TypeVar("T")


def bookkeeping_threads(database_url: str) -> int:
    """How many bookkeeping calls may run at once in one process: 1 for SQLite (its writes
    are serialized anyway, and waiting in one queue beats SQLite's sleeping busy handler),
    8 for PostgreSQL."""
    return 1 if database_url.lower().startswith("sqlite") else 8


@dataclass(frozen=True, slots=True)
class Services:
    """The long-lived resources of one worker process."""

    settings: Settings
    book: Bookkeeper
    charts: ChartSource
    book_limiter: anyio.CapacityLimiter
    keys: KeyRing
    """Render signing keys: the newest signs ``svgRenderUrl`` tokens, all verify."""
    templates: TemplateHub
    """The accounts' render templates (active template ids, styles)."""
    styles: StyleCache
    """``templates`` behind the image route's 24-hour style cache."""

    def render_context(self) -> RenderContext:
        """What the image route needs."""
        return RenderContext(self.keys, self.styles)

    async def booked(self, call: Callable[..., T], *args: Any) -> T:
        """Run a blocking bookkeeping call in a worker thread, at most
        ``book_limiter.total_tokens`` at once."""
        return await anyio.to_thread.run_sync(call, *args, limiter=self.book_limiter)


class ServicesMissingError(RuntimeError):
    """A request arrived before the lifespan created the services."""


def services_of(scope: Mapping[str, Any]) -> Services:
    """The services of the app serving ``scope`` (from the lifespan state)."""
    state = scope.get("state") or {}
    services = state.get(SCOPE_KEY)
    if not isinstance(services, Services):
        raise ServicesMissingError("the app's lifespan has not run (no services)")
    return services
