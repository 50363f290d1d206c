"""The remote MCP endpoint's tools take the tier and price of their matching endpoints:
every tool of the registry maps to an operation of the service that costs 1 credit, and
a Basic key reaches exactly the tools whose endpoint it reaches."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.http.operation import Operation
from bodygraph_server.policy.plans import Tier, tier_allows
from bodygraph_server.resources import operations
from bodygraph_server.resources.mcp.charges import (
    MATCHING_ENDPOINTS,
    ledger_endpoint,
    matching_endpoint,
)


def _operations() -> dict[str, Operation]:
    async def unused(request: Request) -> Response:  # pragma: no cover - never served
        raise AssertionError

    every = operations(render_path="/render", image=unused, document=lambda lang: {})
    return {op.path: op for op in every if op.method == "POST"}


def test_every_tool_has_an_operation_costing_one_credit() -> None:
    from bodygraph_mcp.tools import TOOLS

    by_path = _operations()
    for tool in (tool.__name__ for tool in TOOLS):
        assert tool in MATCHING_ENDPOINTS, f"{tool}: name its matching endpoint"
        operation = by_path.get(matching_endpoint(tool))
        assert operation is not None, f"{tool}: no operation at {matching_endpoint(tool)}"
        assert operation.cost == 1 and operation.key == "bearer"


def test_a_basic_key_reaches_the_simple_chart_only() -> None:
    from bodygraph_mcp.tools import TOOLS

    basic = {tool.__name__ for tool in TOOLS
             if tier_allows(Tier.BASIC, matching_endpoint(tool.__name__))}
    assert basic == {"simple_chart"}
    assert tier_allows(Tier.BASIC, "/mcp")
    assert not tier_allows(Tier.BASIC, matching_endpoint("a_tool_not_mapped"))
    assert matching_endpoint("a_tool_not_mapped") == ledger_endpoint("a_tool_not_mapped")
    assert _operations()["/mcp"].tiers == (Tier.BASIC, Tier.ADVANCED)
