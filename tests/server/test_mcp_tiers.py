"""The remote MCP endpoint's tools take the tier and price of their matching endpoints:
every tool of the registry maps to an operation of the service that costs 1 credit, and
a Basic key reaches, and is listed, exactly the tools whose endpoint it reaches; a body
too large for ``/mcp`` is refused as on every operation (in process)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import jsonschema
import pytest
from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.http.operation import Operation
from bodygraph_server.policy.plans import Tier, tier_allows
from bodygraph_server.resources import operations
from bodygraph_server.resources.mcp.charges import (
    MATCHING_ENDPOINTS,
    ledger_endpoint,
    matching_endpoint,
)
from bodygraph_server.resources.mcp.operations import schemas as mcp_schemas
from bodygraph_server.settings import Settings

from .conftest import new_key


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


def _message(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC message of MCP without handshake (the protocol version in ``_meta``)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    meta = {"io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSIONS[-1],
            "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": 1, "method": method,
            "params": {**(params or {}), "_meta": meta}}


def _headers(key: str, method: str) -> dict[str, str]:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return {"Authorization": f"Bearer {key}", "Mcp-Method": method,
            "MCP-Protocol-Version": MODERN_PROTOCOL_VERSIONS[-1],
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json"}


@pytest.mark.anyio
async def test_a_key_is_listed_the_tools_its_tier_may_call(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    from bodygraph_mcp.tools import TOOLS

    for plan, shown in (("hobbyist", {"simple_chart"}),
                        ("developer", {tool.__name__ for tool in TOOLS})):
        answer = await client.post("/mcp", json=_message("tools/list"),
                                   headers=_headers(new_key(book, plan), "tools/list"))
        assert answer.status_code == 200, answer.text
        assert {tool["name"] for tool in answer.json()["result"]["tools"]} == shown, plan


@pytest.mark.anyio
async def test_a_body_too_large_is_the_contract_s_413(
        client: httpx.AsyncClient, book: Bookkeeper, settings: Settings) -> None:
    key = new_key(book, "developer")
    padding = "x" * settings.max_body_bytes
    message = json.dumps(_message("tools/list", {"padding": padding})).encode()

    async def streamed() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
        for start in range(0, len(message), 4096):
            yield message[start:start + 4096]

    for body in (message, streamed()):
        answer = await client.post("/mcp", content=body, headers=_headers(key, "tools/list"))
        assert answer.status_code == 413, answer.text
        refused = answer.json()
        text = f"Request body exceeds {settings.max_body_bytes} bytes"
        assert refused["success"] is False
        assert (refused["errorCode"], refused["message"]) == ("INVALID_REQUEST_BODY", text)
        assert refused["error"]["data"] == {"code": "INVALID_REQUEST_BODY", "message": text,
                                            "status": 413}
        assert len(answer.headers["x-request-id"]) == 32
        jsonschema.validate(refused, mcp_schemas()["McpRefusal"])
    document = (await client.get("/openapi.json")).json()
    documented = document["paths"]["/mcp"]["post"]["responses"]["413"]
    assert documented["content"]["application/json"]["schema"]["$ref"].endswith("McpRefusal")
    fits = json.dumps(_message("tools/list", {"padding": padding[:-1000]})).encode()
    answer = await client.post("/mcp", content=fits, headers=_headers(key, "tools/list"))
    assert len(fits) <= settings.max_body_bytes and answer.status_code == 200, answer.text
    assert answer.json()["result"]["tools"]


@pytest.mark.anyio
async def test_a_refused_tool_call_is_said_in_its_lang(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    """The tier (403), credits (402) and rate limit (429) refusals of a tool call with
    ``lang``: the message in it (the service's error words), the code, status and
    ``retryAfter`` unchanged; English without ``lang`` or with an unknown one; an unknown
    tool refused as a JSON-RPC error, in the language too."""
    from bodygraph.catalog.translations import catalog
    from bodygraph_server.billing.accounts import Principal
    from bodygraph_server.billing.ratelimit import LIMIT

    async def call(key: str, lang: str | None, tool: str = "chart") -> dict[str, Any]:
        arguments: dict[str, Any] = {"birth": {"utc": "1990-07-15T12:30:00Z"}}
        if lang is not None:
            arguments["lang"] = lang
        answer = await client.post("/mcp", json=_message("tools/call", {
            "name": tool, "arguments": arguments}), headers={
            **_headers(key, "tools/call"), "Mcp-Name": tool})
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    def refused(answer: dict[str, Any]) -> dict[str, Any]:
        result = answer["result"]
        error: dict[str, Any] = result["structuredContent"]["error"]
        assert result["isError"] is True
        assert result["content"][0]["text"] == f"{error['code']}: {error['message']}"
        return error

    def said(english: str, lang: str) -> str:
        return catalog(lang).pgettext("service error", english)

    basic = new_key(book, "hobbyist")
    english = refused(await call(basic, None))
    assert english == {"code": "ACCESS_DENIED", "status": 403,
                       "message": "Your plan does not include this endpoint"}
    for lang in ("de", "ja"):
        assert refused(await call(basic, lang)) == {
            **english, "message": said(english["message"], lang)} != english
    assert refused(await call(basic, "xx")) == english

    issued = book.create_account("developer")
    book.adjust_credits(issued.account.id, 0)
    english = refused(await call(issued.api_key, None))
    assert english["code"] == "CREDITS_EXHAUSTED"
    assert refused(await call(issued.api_key, "ja")) == {
        **english, "message": said(english["message"], "ja")} != english

    key = new_key(book, "developer")
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    for _ in range(LIMIT):
        book.check_rate(principal)
    limited = refused(await call(key, "de"))
    assert limited["code"] == "RATE_LIMIT_EXCEEDED" and limited["status"] == 429
    assert limited["message"] == said("Rate limit exceeded", "de") != "Rate limit exceeded"
    assert limited["retryAfter"] > 0
    unknown = (await call(key, "de", "horoscope"))["error"]
    assert unknown["message"] == f"RATE_LIMIT_EXCEEDED: {limited['message']}"
    assert unknown["data"]["message"] == limited["message"]


@pytest.mark.anyio
async def test_a_basic_key_has_the_simple_chart_in_a_language(
        client: httpx.AsyncClient, book: Bookkeeper) -> None:
    """``simple_chart``'s ``lang`` over ``/mcp``: the chart's labels of the simple chart's
    keys, and the summary in the language."""
    from datetime import datetime

    import bodygraph

    key = new_key(book, "hobbyist")
    birth = {"utc": "1990-07-15T12:30:00Z"}
    answers = {}
    for lang in ("en", "de"):
        call = _message("tools/call", {"name": "simple_chart",
                                       "arguments": {"birth": birth, "lang": lang}})
        answer = await client.post("/mcp", json=call, headers={
            **_headers(key, "tools/call"), "Mcp-Name": "simple_chart"})
        assert answer.status_code == 200, answer.text
        answers[lang] = answer.json()["result"]["structuredContent"]
    german, english = answers["de"], answers["en"]
    words = bodygraph.calculate(datetime.fromisoformat(birth["utc"])).labels("de")
    assert german["labels"] == {"chart": {k: words[k] for k in german["chart"] if k in words}}
    assert german["labels"]["chart"]["type"] in german["summary"]
    assert german["summary"] != english["summary"] and german["chart"] == english["chart"]
