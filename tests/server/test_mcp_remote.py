"""End to end: the remote MCP endpoint ``/mcp`` of the service under a real uvicorn, driven
by the official MCP SDK's streamable-HTTP client with an API key: the tools of the
registry, each call charged in the ledger, tiers, the rate limit, bad keys, inactive
accounts."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.billing.ratelimit import LIMIT
from bodygraph_server.store import open_store, sqlite_path

from .support import LiveServer, Server, shared_served, tls_context

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180), pytest.mark.slow]

BERLIN = {"date": "1990-07-15", "time": "14:30", "lat": 52.52, "lng": 13.405}


class Site:
    """The shared server, its bookkeeping and its database's usage log."""

    def __init__(self, server: Server, book: Bookkeeper) -> None:
        self.server = server
        self.book = book
        self.url = server.base_url + "/mcp"

    def account(self, plan: str = "developer") -> tuple[int, str]:
        issued = self.book.create_account(plan)
        return issued.account.id, issued.api_key

    def charges(self, account: int) -> list[tuple[str, str, int]]:
        """The account's usage log: (endpoint, status, credits) in order."""
        url = self.server.env["BODYGRAPH_DATABASE_URL"]
        query = ("SELECT endpoint, status, credits FROM usage_log WHERE account_id = {} "
                 "ORDER BY id")
        if url.startswith("postgresql"):
            import psycopg

            with psycopg.connect(url) as conn:
                rows = conn.execute(query.format("%s"), (account,)).fetchall()
        else:
            with sqlite3.connect(sqlite_path(url)) as db:
                rows = db.execute(query.format("?"), (account,)).fetchall()
        return [(str(e), str(s), int(c)) for e, s, c in rows]


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(*shared_served(pytestconfig, tmp_path_factory))


@asynccontextmanager
async def connected(site: Site, key: str | None) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session with ``Authorization: Bearer key``."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    async with create_mcp_http_client(headers=headers) as http, \
            streamable_http_client(site.url, http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def expected() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


def refusal_of(result: CallToolResult) -> dict[str, Any]:
    """The contract's refusal a tool error carries (its text says the same)."""
    from mcp.types import TextContent

    assert result.is_error and result.structured_content is not None
    error: dict[str, Any] = result.structured_content["error"]
    text = result.content[0]
    assert isinstance(text, TextContent)
    assert text.text == f"{error['code']}: {error['message']}"
    return error


async def test_tools_of_the_registry_and_charges_in_the_ledger(site: Site) -> None:
    from bodygraph_mcp.tools import TOOLS

    account, key = site.account()
    balance = site.book.account(account).balance
    async with connected(site, key) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(listed) == {tool.__name__ for tool in TOOLS}
        assert listed["chart"].output_schema is not None
        result = await session.call_tool("chart", {"birth": BERLIN})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["chart"] == expected().to_v2()
        transit = await session.call_tool("transit", {"at": "2024-03-20T03:06:00Z"})
        assert not transit.is_error
        # bad input: the tool's own error, nothing charged
        bad = await session.call_tool("chart", {"birth": {"date": "1990-02-30",
                                                          "time": "14:30", "lat": 0, "lng": 0}})
        assert bad.is_error and (bad.structured_content or {}).get("error") is None
    assert site.charges(account) == [("/mcp/chart", "committed", 1),
                                     ("/mcp/transit", "committed", 1),
                                     ("/mcp/chart", "released", 0)]
    assert site.book.account(account).balance == balance - 2
    assert site.book.audit(account).balanced
    assert [period.calls for period in site.book.usage(account)][-1] == 2


async def test_a_basic_key_gets_the_simple_chart_only(site: Site) -> None:
    account, key = site.account("hobbyist")
    async with connected(site, key) as session:
        simple = await session.call_tool("simple_chart", {"birth": BERLIN})
        assert not simple.is_error and simple.structured_content is not None
        assert simple.structured_content["chart"] == expected().to_v2_simple()
        for tool, arguments in (("chart", {"birth": BERLIN}),
                                ("transit", {"at": "2024-03-20T03:06:00Z"})):
            refused = await session.call_tool(tool, arguments)
            assert refusal_of(refused) == {
                "code": "ACCESS_DENIED", "status": 403,
                "message": "Your plan does not include this endpoint"}
    assert site.charges(account) == [("/mcp/simple_chart", "committed", 1)]


async def test_errors_in_the_call_s_language(site: Site) -> None:
    """A call with ``lang``: the tier's refusal and the tool's own error in it, each whole
    (the code unchanged); the bad input costs nothing."""
    from mcp.types import TextContent

    from bodygraph.catalog.translations import catalog

    account, key = site.account("hobbyist")
    async with connected(site, key) as session:
        refused = await session.call_tool("chart", {"birth": BERLIN, "lang": "de"})
        assert refusal_of(refused) == {
            "code": "ACCESS_DENIED", "status": 403, "message": catalog("de").pgettext(
                "service error", "Your plan does not include this endpoint")}
        bad = await session.call_tool("simple_chart", {"birth": {"utc": 1990}, "lang": "ja"})
    said = catalog("ja").pgettext
    assert bad.is_error and isinstance(bad.content[0], TextContent)
    assert bad.content[0].text == said("error", "Error executing tool {name}: {message}").format(
        name="simple_chart", message=said("error", "{problems} ({how})").format(
            problems=said("error", "{name} must be a string").format(name="birth.utc"),
            how=said("error", "give date and time with a place or with lat and lng, or give "
                     "utc alone (e.g. date 1990-07-15, time 14:30, place 'Berlin, Germany')")))
    assert site.charges(account) == [("/mcp/simple_chart", "released", 0)]


def _fill_the_window(book: Bookkeeper, key: str) -> Principal:
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    for _ in range(LIMIT):
        book.check_rate(principal)
    return principal


async def test_past_the_rate_limit_a_call_is_refused_429(site: Site) -> None:
    from mcp.shared.exceptions import MCPError

    account, key = site.account()
    async with connected(site, key) as session:
        _fill_the_window(site.book, key)  # the store's windows, which the server counts in
        refused = await session.call_tool("chart", {"birth": BERLIN})
        error = refusal_of(refused)
        assert error["code"] == "RATE_LIMIT_EXCEEDED" and error["status"] == 429
        assert 0 < error["retryAfter"] <= 60
        # the other messages count too, and are refused as JSON-RPC errors
        with pytest.raises(MCPError, match="RATE_LIMIT_EXCEEDED") as raised:
            await session.list_tools()
        assert raised.value.error.data["status"] == 429
    assert site.charges(account) == []


def _raw(site: Site, key: str, message: dict[str, Any],
         client: httpx.Client | None = None) -> httpx.Response:
    """One JSON-RPC message to ``/mcp`` in the protocol without handshake (over
    ``client``'s kept-alive connection, if given)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    version = MODERN_PROTOCOL_VERSIONS[-1]
    params = {**message.get("params", {}), "_meta": {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}}}
    named = {"Mcp-Name": params["name"]} if "name" in params else {}
    post = httpx.post if client is None else client.post
    return post(site.url, headers={
        "Authorization": f"Bearer {key}", "MCP-Protocol-Version": version,
        "Mcp-Method": message["method"], **named,
        "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, **message, "params": params},
        **({"verify": tls_context(), "timeout": 30} if client is None else {}))


def test_the_endpoint_s_own_requests_reach_the_limit(site: Site) -> None:
    """Every request to /mcp counts toward the key's limit: the 101st message in a minute,
    a tool call, is refused RATE_LIMIT_EXCEEDED (429) and costs nothing."""
    account, key = site.account()
    seen = []
    with httpx.Client(verify=tls_context(), timeout=30) as client:
        for _ in range(LIMIT):
            answer = _raw(site, key, {"method": "tools/list"}, client)
            assert answer.status_code == 200, answer.text
            seen.append(int(answer.headers["ratelimit"].split("r=")[1].split(";")[0]))
    assert seen == list(range(LIMIT - 1, -1, -1))
    answer = _raw(site, key, {"method": "tools/call",
                              "params": {"name": "chart", "arguments": {"birth": BERLIN}}})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert result["structuredContent"]["error"]["status"] == 429
    assert site.charges(account) == []


async def test_without_credits_a_call_is_refused_402(site: Site) -> None:
    account, key = site.account()
    site.book.adjust_credits(account, 0, "test: no credits left")
    async with connected(site, key) as session:
        refused = await session.call_tool("chart", {"birth": BERLIN})
        assert refusal_of(refused) == {"code": "CREDITS_EXHAUSTED", "status": 402,
                                       "message": "No credits left and overage is disabled"}
    assert site.charges(account) == []
    assert site.book.audit(account).balanced


async def test_a_bad_or_missing_key_is_refused_401(site: Site) -> None:
    for headers, code in (({}, "API_KEY_MISSING"),
                          ({"Authorization": "Bearer hd_not_a_key"}, "API_KEY_INVALID"),
                          ({"Authorization": "Basic abc"}, "UNAUTHORIZED")):
        answer = httpx.post(site.url, headers={**headers, "Accept": "application/json, "
                                               "text/event-stream"},
                            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                            verify=tls_context())
        assert answer.status_code == 401, answer.text
        body = answer.json()
        assert body["errorCode"] == code and body["success"] is False
        assert body["error"]["data"] == {"code": code, "message": body["message"],
                                         "status": 401}
        assert answer.headers["www-authenticate"].startswith("Bearer")
    from mcp.shared.exceptions import MCPError

    with pytest.raises(ExceptionGroup) as raised:
        async with connected(site, "hd_not_a_key"):
            pass
    error = raised.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, MCPError)
    assert error.message == "API_KEY_INVALID: API key invalid or deactivated"


async def test_an_inactive_account_is_refused(site: Site) -> None:
    from mcp.shared.exceptions import MCPError

    account, key = site.account()
    async with connected(site, key) as session:
        site.book.deactivate(account)
        refused = await session.call_tool("chart", {"birth": BERLIN})
        assert refusal_of(refused) == {"code": "ACCOUNT_INACTIVE", "status": 403,
                                       "message": "Account is inactive"}
        with pytest.raises(MCPError, match="ACCOUNT_INACTIVE") as raised:
            await session.list_tools()
        assert raised.value.error.data["code"] == "ACCOUNT_INACTIVE"
    assert site.charges(account) == []


def test_a_call_in_the_protocol_without_handshake_is_charged_too(site: Site) -> None:
    account, key = site.account()
    answer = _raw(site, key, {"method": "tools/call",
                              "params": {"name": "chart", "arguments": {"birth": BERLIN}}})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["structuredContent"]["chart"] == expected().to_v2(), result
    assert site.charges(account) == [("/mcp/chart", "committed", 1)]


def test_the_endpoint_is_an_operation_of_the_openapi_document(site: Site) -> None:
    document = httpx.get(site.server.base_url + "/openapi.json", verify=tls_context()).json()
    operation = document["paths"]["/mcp"]["post"]
    assert operation["security"] == [{"bearerAuth": []}]
    assert {"200", "401", "429"} <= set(operation["responses"])
    assert "Access tiers: Basic, Advanced." in operation["description"]
    _account, key = site.account()
    stream = httpx.get(site.url, headers={"Authorization": f"Bearer {key}",
                                          "Accept": "text/event-stream"}, verify=tls_context())
    assert stream.status_code == 405 and stream.json()["errorCode"] == "METHOD_NOT_ALLOWED"
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    for status, headers, body in ((406, {"Accept": "text/html"}, ping),
                                  (400, {"Content-Type": "text/plain"}, ping),
                                  (400, {}, b'{"jsonrpc": "2.0", "id": 1')):
        refused = httpx.post(site.url, content=body, verify=tls_context(), headers={
            "Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json", **headers})
        assert refused.status_code == status, refused.text
        assert str(status) in operation["responses"]
        if refused.headers.get("content-type", "").startswith("application/json"):
            assert set(refused.json()["error"]) >= {"code", "message"}


PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.mark.postgres
async def test_on_postgresql_with_two_workers(tmp_path: Path) -> None:
    import psycopg

    schema = "bgmcp_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = f"{PG_ADMIN_URL}?options={quote(f'-csearch_path={schema}')}"
    book = Bookkeeper(open_store(url))  # migrates before the server starts
    server = LiveServer({"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_GEOCODER": "offline",
                         "BODYGRAPH_WARM_UP": "0"}, workers=2, log=tmp_path / "server.log")
    try:
        server.wait_ready()
        site = Site(server, book)
        account, key = site.account()
        async with connected(site, key) as session:
            for _ in range(3):  # the calls may reach either worker: no session to keep
                result = await session.call_tool("chart", {"birth": BERLIN})
                assert result.structured_content is not None
                assert result.structured_content["chart"] == expected().to_v2()
        basic, basic_key = site.account("hobbyist")
        async with connected(site, basic_key) as session:
            refused = await session.call_tool("transit", {"at": "2024-03-20T03:06:00Z"})
            assert refusal_of(refused)["code"] == "ACCESS_DENIED"
        assert site.charges(account) == [("/mcp/chart", "committed", 1)] * 3
        assert site.charges(basic) == []
        assert book.audit(account).balanced
    finally:
        server.stop()
        book.close()
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
