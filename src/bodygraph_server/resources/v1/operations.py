"""The legacy v1 operations: flat snake_case bodies, ``HD-Api-Key``, DD-MMM-YY dates."""

from __future__ import annotations

from operator import methodcaller
from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.operation import Operation
from bodygraph_server.resources.charts.flow import ChartEndpoint, chart_operation

V1_BODYGRAPH = "V1Bodygraph"
V1_BODYGRAPH_SIMPLE = "V1BodygraphSimple"


def _flat(path: str, method: str, *, summary: str, success_type: str,
          description: str) -> ChartEndpoint:
    """A v1 endpoint answering with ``chart.<method>()`` as it is (no envelope)."""
    result = methodcaller(method)
    return ChartEndpoint(path=path, kind="v1", format=lambda request, chart: result(chart),
                         summary=summary, blocking_format=False, success_type=success_type,
                         description=description)


ENDPOINTS: tuple[ChartEndpoint, ...] = (
    _flat("/v1/bodygraphs", "to_v1", summary=pgettext("openapi", "Full bodygraph (legacy)"),
          success_type=V1_BODYGRAPH,
          description=pgettext(
              "openapi", "Legacy form of POST /v2/charts: flat snake_case body, date DD-MMM-YY. "
              "Advanced tier. 1 credit (shared pool with v2).")),
    _flat("/v1/bodygraphs/simple", "to_v1_simple",
          summary=pgettext("openapi", "Simple bodygraph (legacy)"),
          success_type=V1_BODYGRAPH_SIMPLE,
          description=pgettext(
              "openapi", "Legacy form of POST /v2/charts/simple. Basic and Advanced tiers. 1 "
              "credit.")),
)
"""The v1 endpoints."""
OPERATIONS: tuple[Operation, ...] = tuple(chart_operation(e) for e in ENDPOINTS)


def schemas() -> dict[str, Any]:
    """The v1 result schemas (the library's own)."""
    from bodygraph_server.resources.chart_values import embedded

    return {V1_BODYGRAPH: embedded("v1-bodygraph"),
            V1_BODYGRAPH_SIMPLE: embedded("v1-bodygraph-simple")}
