"""The MCP server as an assistant starts it: a subprocess (``python -m bodygraph_mcp``, what
the ``bodygraph-mcp`` command runs) driven over stdio by the official SDK's client, one
server process for the test modules of this folder (one per xdist worker that runs them):
every tool is a function of its arguments, so the modules do not see each other."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the SDK is imported by the fixture: every worker collects this folder
    from mcp import ClientSession

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="package")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="package")
async def session(anyio_backend: str) -> AsyncIterator[ClientSession]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    params = StdioServerParameters(command=sys.executable, args=["-m", "bodygraph_mcp"],
                                   env={"PYTHONPATH": path})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client
