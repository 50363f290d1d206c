"""The streamable HTTP option: ``python -m bodygraph_mcp --transport streamable-http``
serves the same tools at http://127.0.0.1:PORT/mcp, driven by the SDK's HTTP client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server.support import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    port = free_port()
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "bodygraph_mcp", "--transport", "streamable-http",
         "--port", str(port)],
        env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "the MCP server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(15)


async def test_tools_over_streamable_http(url: str) -> None:
    from mcp import ClientSession  # imported here, not in every collecting worker
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"chart", "render_svg", "transit", "connection", "penta"} <= names
        result = await session.call_tool("chart", {"birth": {"utc": "1990-07-15T12:30:00Z"}})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["chart"]["type"] == "Projector"
