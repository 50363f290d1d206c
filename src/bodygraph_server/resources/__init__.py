"""The service's resource families, each a package declaring its operations, request
bodies, result schemas and handlers together; :func:`operations` gathers them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bodygraph_server.http.operation import Handler, Operation


def schemas() -> dict[str, Any]:
    """Every family's components schemas (request bodies, results, envelopes)."""
    from bodygraph_server.http.validation import input_schemas
    from bodygraph_server.resources.accounts import operations as accounts
    from bodygraph_server.resources.astrology import operations as astrology
    from bodygraph_server.resources.batch import operations as batch
    from bodygraph_server.resources.charts import operations as charts
    from bodygraph_server.resources.jobs import operations as jobs
    from bodygraph_server.resources.mcp import operations as mcp
    from bodygraph_server.resources.rectification import operations as rectification
    from bodygraph_server.resources.relations import operations as relations
    from bodygraph_server.resources.render import operations as render
    from bodygraph_server.resources.time_searches import operations as time_searches
    from bodygraph_server.resources.v1 import operations as v1
    from bodygraph_server.resources.visual import operations as visual

    return {**charts.schemas(), **v1.schemas(), **input_schemas(), **relations.schemas(),
            **time_searches.schemas(), **batch.schemas(), **visual.schemas(),
            **render.schemas(), **astrology.schemas(), **rectification.schemas(),
            **mcp.schemas(), **accounts.schemas(), **jobs.schemas()}


def operations(*, render_path: str, image: Handler,
               document: Callable[[str], Mapping[str, Any]], render_url: str = "",
               geocode_key_required: bool = True) -> tuple[Operation, ...]:
    """Every operation of the service: the v2 and v1 families, the image route at
    ``render_path`` (served by ``image``), the health checks and the pages (which show
    ``document`` in a language, asked on their first request in it)."""
    from bodygraph_server.resources.accounts import operations as accounts
    from bodygraph_server.resources.astrology import operations as astrology
    from bodygraph_server.resources.batch import operations as batch
    from bodygraph_server.resources.charts import operations as charts
    from bodygraph_server.resources.health import operations as health
    from bodygraph_server.resources.jobs import operations as jobs
    from bodygraph_server.resources.mcp.operations import mcp_operations
    from bodygraph_server.resources.pages.operations import page_operations
    from bodygraph_server.resources.rectification import operations as rectification
    from bodygraph_server.resources.relations import operations as relations
    from bodygraph_server.resources.render.operations import render_operations
    from bodygraph_server.resources.time_searches import operations as time_searches
    from bodygraph_server.resources.v1 import operations as v1
    from bodygraph_server.resources.visual import operations as visual

    return (
        *charts.OPERATIONS, *visual.OPERATIONS, *relations.OPERATIONS,
        *time_searches.OPERATIONS, *rectification.OPERATIONS, *batch.OPERATIONS,
        *jobs.OPERATIONS, *astrology.OPERATIONS, *accounts.OPERATIONS, *v1.OPERATIONS,
        *mcp_operations(),
        *render_operations(render_path, image), *health.OPERATIONS,
        *page_operations(document, render_url, geocode_key_required),
    )


def service_document(*, render_path: str = "/render",
                     geocode_key_required: bool = True) -> dict[str, Any]:
    """The OpenAPI document of every operation (handlers unused: for tests and tools)."""
    from bodygraph_server.http.openapi import openapi_document

    async def unused(request: Any) -> Any:  # pragma: no cover - never served
        raise AssertionError("a documented operation only")

    every = operations(render_path=render_path, image=unused, document=lambda lang: {},
                       geocode_key_required=geocode_key_required)
    return openapi_document(every, schemas(), geocode_key_required=geocode_key_required)
