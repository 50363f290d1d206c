"""The SDK's client session with the stdio server, shared by every MCP test of a pytest
worker (tests/mcp/conftest.py): the client and its subprocess live in an event loop of
their own, in a thread (anyio's blocking portal), for the whole pytest session.

Held by an async fixture instead, the connection would keep anyio's test runner (one
event loop for every async test of the worker) alive from the first MCP test to the end of
the session: the service's and the client's async tests run after these in a worker would
share that loop, and an error left in it by one would be raised in another."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the SDK is imported when the session starts, not in collecting workers
    from anyio.from_thread import BlockingPortal
    from mcp import ClientSession
    from mcp.types import CallToolResult, ListToolsResult

SRC = Path(__file__).resolve().parents[2] / "src"
T = TypeVar("T")


class SharedSession:
    """What the tests call of :class:`mcp.ClientSession`, from any test's event loop: each
    call runs in the portal's loop, where the client's streams are, and is awaited."""

    def __init__(self, portal: BlockingPortal, client: ClientSession) -> None:
        self._portal, self._client = portal, client

    async def list_tools(self) -> ListToolsResult:
        return await self._run(self._client.list_tools)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        return await self._run(partial(self._client.call_tool, name, arguments))

    async def _run(self, call: Callable[[], Awaitable[T]]) -> T:
        return await asyncio.wrap_future(self._portal.start_task_soon(call))


@asynccontextmanager
async def _connected() -> AsyncIterator[ClientSession]:
    """``python -m bodygraph_mcp`` (what the ``bodygraph-mcp`` command runs) started by the
    SDK's stdio client, and the initialized session with it."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    params = StdioServerParameters(command=sys.executable, args=["-m", "bodygraph_mcp"],
                                   env={"PYTHONPATH": path})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


@contextmanager
def shared_session() -> Iterator[SharedSession]:
    """The server started and the session initialized; on exit both closed (stdin closed,
    the server's exit awaited), as an assistant leaves."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal("asyncio") as portal, \
            portal.wrap_async_context_manager(_connected()) as client:
        yield SharedSession(portal, client)
