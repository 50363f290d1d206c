"""The legacy v1 endpoints: flat snake_case bodies, ``HD-Api-Key``, DD-MMM-YY dates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bodygraph_server.http.endpoint import Call, Endpoint

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

V1_BODYGRAPH = "V1Bodygraph"
V1_BODYGRAPH_SIMPLE = "V1BodygraphSimple"


def full_bodygraph(call: Call, chart: Chart) -> dict[str, Any]:
    """The flat v1 chart."""
    return chart.to_v1()


def simple_bodygraph(call: Call, chart: Chart) -> dict[str, Any]:
    """The flat v1 simplified chart."""
    return chart.to_v1_simple()


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        path="/v1/bodygraphs",
        kind="v1",
        format=full_bodygraph,
        summary="Full bodygraph (legacy)",
        blocking_format=False,
        success_type=V1_BODYGRAPH,
        description="Legacy form of POST /v2/charts: flat snake_case body, date DD-MMM-YY. "
        "Advanced tier. 1 credit (shared pool with v2).",
    ),
    Endpoint(
        path="/v1/bodygraphs/simple",
        kind="v1",
        format=simple_bodygraph,
        summary="Simple bodygraph (legacy)",
        blocking_format=False,
        success_type=V1_BODYGRAPH_SIMPLE,
        description="Legacy form of POST /v2/charts/simple. Basic and Advanced tiers. "
        "1 credit.",
    ),
)
"""The v1 endpoints."""
