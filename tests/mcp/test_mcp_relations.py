"""The relation tools over stdio with the SDK's client: each one's structured content is the
JSON of the matching ``bodygraph`` command with ``--json`` (run in-process here), its text
a quotable summary; bad input is a tool error with a clear message, and the server keeps
answering."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest

from bodygraph import calculate
from bodygraph import transit as transit_of
from bodygraph.cli.main import main
from bodygraph.render import render_svg
from bodygraph.render.from_relations import connection_input, transit_input

if TYPE_CHECKING:  # the SDK is imported when a test runs, not in every collecting worker
    from mcp.types import CallToolResult
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

A, B, C = "1980-01-03T08:30:00Z", "1985-07-09T14:00:00Z", "1990-01-03T08:30:00Z"
AT = "2024-03-20T03:06:00Z"
BERLIN = {"date": "1990-05-14", "time": "08:30", "place": "Berlin, Germany"}
BERLIN_CLI = ["--date", "1990-05-14", "--time", "08:30", "--tz", "Europe/Berlin"]
RELATIONS = ("transit", "connection", "penta", "sensitivity", "cycles", "calendar")


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def text_of(result: CallToolResult) -> str:
    from mcp.types import TextContent

    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


async def ok(session: SharedSession, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result


async def refused(session: SharedSession, tool: str, arguments: dict[str, Any],
                  message: str) -> None:
    """The call is a tool error saying ``message``: one line, never a traceback."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    text = text_of(result)
    assert text.startswith(f"Error executing tool {tool}: ")
    assert message in text
    assert "Traceback" not in text
    assert text != f"Error executing tool {tool}"  # never the bare text of a crash


async def test_lists_the_relation_tools(session: SharedSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(RELATIONS) <= set(tools)
    birth = tools["chart"].input_schema["properties"]["birth"]
    for name in RELATIONS:
        tool = tools[name]
        assert tool.description and f"bodygraph {name} --json" in tool.description
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
    assert tools["connection"].input_schema["required"] == ["person1", "person2"]
    for name in ("person1", "person2"):  # every birth is the one birth schema
        assert tools["connection"].input_schema["properties"][name]["properties"] == (
            birth["properties"])
    members = tools["penta"].input_schema["properties"]["members"]
    assert (members["minItems"], members["maxItems"]) == (3, 5)
    assert members["items"]["properties"] == birth["properties"]
    assert tools["transit"].input_schema["required"] == ["at"]


async def test_transit(session: SharedSession, capsys: pytest.CaptureFixture[str]) -> None:
    alone = await ok(session, "transit", {"at": AT})
    assert alone.structured_content == cli_json(capsys, "transit", "--at", AT)
    assert text_of(alone).startswith("Transit at 2024-03-20 03:06:00 UTC: Sun 25.2")
    over = await ok(session, "transit", {"at": AT, "birth": BERLIN})
    expected = cli_json(capsys, "transit", "--at", AT, *BERLIN_CLI)
    assert over.structured_content == expected and expected["natal"] is not None
    for channel in expected["natal"]["completedChannels"]:
        assert channel in text_of(over)
    assert expected["natal"]["overlay"]["type"] in text_of(over)


async def test_connection_and_penta(session: SharedSession,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    pair = await ok(session, "connection", {"person1": {"utc": A}, "person2": BERLIN})
    expected = cli_json(capsys, "connection", "--utc", A, *BERLIN_CLI)
    assert pair.structured_content == expected
    assert text_of(pair).startswith("Connection of person 1 and person 2: electromagnetic ")
    assert expected["composite"]["type"] in text_of(pair)
    group = await ok(session, "penta", {"members": [{"utc": A}, {"utc": B}, {"utc": C}]})
    expected = cli_json(capsys, "penta", "--utc", A, "--utc", B, "--utc", C)
    assert group.structured_content == expected
    assert text_of(group).startswith("Penta of 3 members: penta gates ")
    for channel in expected["channels"]:
        assert channel in text_of(group)


async def test_sensitivity_cycles_calendar(session: SharedSession,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    found = await ok(session, "sensitivity", {"birth": {"utc": A}, "window": "30m"})
    expected = cli_json(capsys, "sensitivity", "--utc", A, "--window", "30m")
    assert found.structured_content == expected
    assert f"{len(expected['changes'])} line changes" in text_of(found)
    assert "The birth lies in" in text_of(found)
    found = await ok(session, "cycles", {"birth": {"utc": A}, "year": 2026})
    assert found.structured_content == cli_json(capsys, "cycles", "--utc", A, "--year", "2026")
    assert text_of(found).startswith("Solar return 2026: 2026-01-0")
    found = await ok(session, "calendar", {"start": "2026-03-01", "end": "2026-03-10",
                                           "bodies": ["sun", "moon"]})
    expected = cli_json(capsys, "calendar", "--from", "2026-03-01", "--to", "2026-03-10",
                        "--body", "sun,moon")
    assert found.structured_content == {"ingresses": expected}
    assert text_of(found).startswith(f"{len(expected)} ingresses from 2026-03-01 to 2026-03-10")
    every = await ok(session, "calendar", {"start": "2026-03-01", "end": "2026-03-01"})
    assert every.structured_content == {"ingresses": cli_json(
        capsys, "calendar", "--from", "2026-03-01", "--to", "2026-03-01")}


async def test_render_svg_overlays(session: SharedSession) -> None:
    from mcp.types import EmbeddedResource, TextResourceContents

    natal, other = calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC)), calculate(
        datetime(1985, 7, 9, 14, 0, tzinfo=UTC))
    moment = transit_of(datetime(2024, 3, 20, 3, 6, tzinfo=UTC), natal=natal)
    for arguments, document, words in [
        ({"transit_at": AT}, render_svg(transit_input(natal, moment)),
         "With the transit at 2024-03-20 03:06:00 UTC."),
        ({"other": {"utc": B}}, render_svg(connection_input(natal, other)),
         "Connection with person 2 born 1985-07-09 14:00:00 UTC."),
    ]:
        result = await ok(session, "render_svg", {"birth": {"utc": A}, **arguments})
        assert result.structured_content is not None
        assert result.structured_content["svg"] == document
        assert text_of(result).endswith(words)
        image = result.content[1]
        assert isinstance(image, EmbeddedResource)
        assert isinstance(image.resource, TextResourceContents)
        assert image.resource.text == document


def members(n: int) -> list[dict[str, str]]:
    return [{"utc": t} for t in (A, B, C, A, B, C)[:n]]


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("penta", {"members": members(2)}, "a penta has 3 to 5 members, not 2"),
    ("penta", {"members": members(6)}, "a penta has 3 to 5 members, not 6"),
    ("penta", {"members": [*members(2), {"utc": "soon"}]}, "utc 'soon' is not an ISO 8601"),
    ("penta", {"members": [*members(2), {"date": "1990-05-14"}]},
     "the birth date or time is missing"),
    ("transit", {"at": "2250-01-01T00:00:00Z"}, "outside the supported range"),
    ("transit", {"at": "1700-01-01T00:00:00Z", "birth": BERLIN}, "outside the supported range"),
    ("transit", {"at": "2024-03-20T03:06"}, "at '2024-03-20T03:06' has no offset"),
    ("transit", {"at": AT, "birth": {"utc": "1700-01-01T00:00:00Z"}},
     "outside the supported range"),
    ("transit", {}, "at"),
    ("connection", {"person1": {"utc": A}, "person2": {"city": "Berlin"}},
     "person2.city: Extra inputs are not permitted"),
    ("connection", {"person1": {"utc": A}}, "person2"),
    ("sensitivity", {"birth": {"utc": A}, "window": "0m"}, "window"),
    ("sensitivity", {"birth": {"utc": A}, "window": "49h"}, "48"),
    ("sensitivity", {"birth": {"utc": A}, "window": "soon"}, "is not a span of time"),
    ("sensitivity", {"birth": {"utc": "1800-01-01T00:00:00Z"}}, "outside the supported range"),
    ("cycles", {"birth": {"utc": A}, "year": 2300}, "2300"),
    ("calendar", {"start": "2026-03-10", "end": "2026-03-01"}, "end comes before start"),
    ("calendar", {"start": "March", "end": "2026-03-01"}, "start 'March' is not a date"),
    ("calendar", {"start": "2026-03-01", "end": "2026-03-02", "bodies": ["chiron"]}, "chiron"),
    ("calendar", {"start": "2250-03-01", "end": "2250-03-02"}, "outside"),
    ("render_svg", {"birth": {"utc": A}, "transit_at": AT, "other": {"utc": B}},
     "give transit_at or other, not both"),
    ("render_svg", {"birth": {"utc": A}, "transit_at": "3000-01-01T00:00:00Z"},
     "outside the supported range"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), BAD,
                         ids=[f"{tool}-{message}" for tool, _, message in BAD])
async def test_bad_input_is_a_tool_error(session: SharedSession, tool: str,
                                         arguments: dict[str, Any], message: str) -> None:
    await refused(session, tool, arguments, message)


async def test_still_answers_after_errors(session: SharedSession) -> None:
    assert (await session.call_tool("penta", {"members": members(6)})).is_error
    assert (await session.call_tool("transit", {"at": "1700-01-01T00:00:00Z"})).is_error
    await ok(session, "penta", {"members": members(5)})
    await ok(session, "transit", {"at": AT})
