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


async def test_errors_in_the_call_s_language_over_streamable_http(url: str) -> None:
    """The tool errors of a call with ``lang`` (validation, the library's message) are said
    in it over HTTP as over stdio; without ``lang`` they are the SDK's English."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import TextContent

    from bodygraph.catalog.said import said
    from bodygraph.catalog.translations import catalog

    def say(english: str, /, **fields: object) -> str:
        return catalog("ja").pgettext("error", english).format(**fields)

    async with streamable_http_client(url) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        texts = []
        for arguments in ({"birth": {"utc": "1990-07-15T12:30:00Z"}, "year": "next"},
                          {"birth": {"utc": "1990-07-15T12:30:00Z"}, "year": 2300}):
            for lang in ("ja", None):
                asked = arguments if lang is None else {**arguments, "lang": lang}
                result = await session.call_tool("cycles", asked)
                assert result.is_error and isinstance(result.content[0], TextContent)
                texts.append(result.content[0].text)
    executing = "Error executing tool {name}: {message}"
    assert texts[0] == say(executing, name="cycles", message=say(
        "{name} must be a whole number", name="year"))
    assert texts[1].startswith("Error executing tool cycles: 1 validation error")
    english = texts[3].removeprefix("Error executing tool cycles: ")
    assert english.startswith("the solar return of 2300 reaches")
    assert texts[2] == say(executing, name="cycles", message=said(english, "ja")) != texts[3]
    assert "solar return" not in texts[2]
