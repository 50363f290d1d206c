"""``GET /health`` (200 while the database answers, else 503 with Retry-After) and
``GET /health/live`` (always 200): public, for load balancers."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.http.envelope import json_response
from bodygraph_server.http.errors import RETRY_AFTER_OUTAGE
from bodygraph_server.http.operation import Answer, Operation
from bodygraph_server.services import Services, services_of
from bodygraph_server.store import StoreError

LOG = logging.getLogger("bodygraph_server")

_STATUS = {"type": "object", "required": ["status"],
           "properties": {"status": {"enum": ["ok", "unavailable"]},
                          "database": {"enum": ["up", "down"]}}}


async def readiness(services: Services) -> Response:
    """``/health``: 200 ``{"status": "ok", "database": "up"}`` when the database answers a
    query, else 503 ``{"status": "unavailable", "database": "down"}`` with Retry-After
    (a load balancer takes the worker out of rotation; ``/health/live`` stays 200)."""
    try:
        await services.run_bookkeeping(services.book.store.ping)
    except StoreError as exc:
        LOG.warning("health check: database unavailable (%s)", exc)
        return json_response({"status": "unavailable", "database": "down"}, 503,
                             {"Retry-After": str(RETRY_AFTER_OUTAGE)})
    return json_response({"status": "ok", "database": "up"})


async def health(request: Request) -> Response:
    """Readiness of this worker."""
    return await readiness(services_of(request.scope))


async def alive(request: Request) -> Response:
    """Liveness of this worker."""
    return json_response({"status": "ok"})


OPERATIONS: tuple[Operation, ...] = (
    Operation(method="GET", path="/health", summary="Readiness",
              description="200 while the database answers a query; else 503 with "
              "Retry-After (take the worker out of rotation).",
              handler=health, tags=("health",), operation_id="health",
              success=Answer(description="ready", schema=_STATUS),
              refusals={503: Answer(
                  description="the database is unavailable", schema=_STATUS,
                  headers={"Retry-After": {"description": "seconds to wait",
                                           "schema": {"type": "integer"}}})}),
    Operation(method="GET", path="/health/live", summary="Liveness",
              description="Always 200 while the process serves requests.",
              handler=alive, tags=("health",), operation_id="health_live",
              success=Answer(description="alive", schema=_STATUS)),
)
