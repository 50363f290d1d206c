"""``GET /health`` (200 while the database answers and stores a write and a Redis
rate-limit store answers, else 503 with Retry-After) and ``GET /health/live`` (always 200):
public, for load balancers."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph_server.billing.ratelimit import RateLimitStoreUnavailableError, RedisRateLimiter
from bodygraph_server.http.envelope import json_response
from bodygraph_server.http.errors import RETRY_AFTER_OUTAGE
from bodygraph_server.http.operation import Answer, Operation
from bodygraph_server.services import Services, services_of
from bodygraph_server.store import StoreError

LOG = logging.getLogger("bodygraph_server")

_STATUS = {"type": "object", "required": ["status"],
           "properties": {"status": {"enum": ["ok", "unavailable"]},
                          "database": {"enum": ["up", "down", "read-only"]},
                          "rateLimit": {"enum": ["up", "down"]}}}


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
        await services.run_bookkeeping(store.ping)
        state = "read-only"
        await services.run_bookkeeping(store.check_writable)
    except StoreError as exc:
        LOG.warning("health check: database %s (%s)", state, exc)
        return json_response({"status": "unavailable", "database": state}, 503,
                             {"Retry-After": str(RETRY_AFTER_OUTAGE)})
    limiter = services.book.rate_limiter
    if not isinstance(limiter, RedisRateLimiter):  # its windows live in the database
        return json_response({"status": "ok", "database": "up"})
    try:
        await services.run_bookkeeping(limiter.ping)
    except RateLimitStoreUnavailableError as exc:
        LOG.warning("health check: rate-limit store down (%s)", exc)
        return json_response({"status": "unavailable", "database": "up", "rateLimit": "down"},
                             503, {"Retry-After": str(RETRY_AFTER_OUTAGE)})
    return json_response({"status": "ok", "database": "up", "rateLimit": "up"})


async def health(request: Request) -> Response:
    """Readiness of this worker."""
    return await readiness(services_of(request.scope))


async def alive(request: Request) -> Response:
    """Liveness of this worker."""
    return json_response({"status": "ok"})


OPERATIONS: tuple[Operation, ...] = (
    Operation(method="GET", path="/health", summary=pgettext("openapi", "Readiness"),
              description=pgettext(
                  "openapi", "200 while the database answers a query and stores a write (and a "
                  "Redis rate-limit store answers); else 503 with Retry-After (take the worker "
                  "out of rotation)."),
              handler=health, tags=("health",), operation_id="health",
              success=Answer(description="ready", schema=_STATUS),
              refusals={503: Answer(
                  description="the database is unavailable or read-only, or the rate-limit "
                  "store is down", schema=_STATUS,
                  headers={"Retry-After": {"description": "seconds to wait",
                                           "schema": {"type": "integer"}}})}),
    Operation(method="GET", path="/health/live", summary=pgettext("openapi", "Liveness"),
              description=pgettext(
                  "openapi", "Always 200 while the process serves requests."),
              handler=alive, tags=("health",), operation_id="health_live",
              success=Answer(description="alive", schema=_STATUS)),
)
