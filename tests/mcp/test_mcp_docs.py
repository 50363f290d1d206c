"""docs/mcp.md lists every tool the server offers, and its example calls work."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.anyio]

DOC = (Path(__file__).parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# bodygraph_mcp (the SDK) is imported by the tests, not in every worker that collects them.


def test_every_tool_is_in_the_table() -> None:
    from bodygraph_mcp.tools import TOOLS

    listed = re.findall(r"^\| `(\w+)` \| ", DOC.split("## Tools", 1)[1], re.M)
    assert set(listed) >= {tool.__name__ for tool in TOOLS}
    for tool in TOOLS:
        assert f"`{tool.__name__}`" in DOC


async def test_example_calls_work() -> None:
    from bodygraph_mcp.server import create_server
    from bodygraph_mcp.tools import TOOLS

    calls = [json.loads(line) for line in re.findall(r'^(\{"name": .*\})$', DOC, re.M)]
    assert {call["name"] for call in calls} >= {tool.__name__ for tool in TOOLS} - {
        "render_svg"}
    server = create_server()
    for call in calls:
        result = await server.call_tool(call["name"], call["arguments"])
        assert not result.is_error, call
        assert result.structured_content


def test_the_remote_rules_name_every_tool_s_matching_endpoint() -> None:
    """"The remote endpoint" names each tool with the endpoint whose tier it takes
    (``resources/mcp/charges.py``): written out, or ``/v2/<name>``."""
    from bodygraph_server.resources.mcp.charges import MATCHING_ENDPOINTS

    rules = DOC[DOC.index("**The rules**"):DOC.index("A **refused tool call**")]
    for tool, endpoint in MATCHING_ENDPOINTS.items():
        assert f"`{tool}`" in rules, tool
        assert f"`{endpoint}`" in rules or endpoint == f"/v2/{tool}", (tool, endpoint)
