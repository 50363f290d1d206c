"""The legacy v1 endpoints: flat snake_case bodies, ``HD-Api-Key``, DD-MMM-YY dates."""

from __future__ import annotations

from operator import methodcaller

from bodygraph_server.http.endpoint import Endpoint

V1_BODYGRAPH = "V1Bodygraph"
V1_BODYGRAPH_SIMPLE = "V1BodygraphSimple"


def _flat(path: str, method: str, summary: str, success_type: str, description: str) -> Endpoint:
    """A v1 endpoint answering with ``chart.<method>()`` as it is (no envelope)."""
    result = methodcaller(method)
    return Endpoint(path=path, kind="v1", format=lambda call, chart: result(chart),
                    summary=summary, blocking_format=False, success_type=success_type,
                    description=description)


ENDPOINTS: tuple[Endpoint, ...] = (
    _flat("/v1/bodygraphs", "to_v1", "Full bodygraph (legacy)", V1_BODYGRAPH,
          "Legacy form of POST /v2/charts: flat snake_case body, date DD-MMM-YY. "
          "Advanced tier. 1 credit (shared pool with v2)."),
    _flat("/v1/bodygraphs/simple", "to_v1_simple", "Simple bodygraph (legacy)",
          V1_BODYGRAPH_SIMPLE,
          "Legacy form of POST /v2/charts/simple. Basic and Advanced tiers. 1 credit."),
)
"""The v1 endpoints."""
