"""The MCP server as an assistant starts it: a subprocess (``python -m bodygraph_mcp``, what
the ``bodygraph-mcp`` command runs) driven over stdio by the official SDK's client, one
server process for every test module of this folder in a pytest worker, however the
scheduler hands them out (shared_session.py): every tool is a function of its arguments,
so the modules do not see each other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from shared_session import SharedSession, shared_session


@pytest.fixture(scope="package")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def session() -> Iterator[SharedSession]:
    with shared_session() as connected:
        yield connected
