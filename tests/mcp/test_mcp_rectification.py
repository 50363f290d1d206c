"""The tools ``stability`` and ``rectify`` over stdio with the SDK's client: the structured
content is the JSON of ``bodygraph stability|rectify --json`` (run in-process here), the
text a quotable summary; bad input is a tool error naming what to change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from test_mcp_relations import cli_json, ok, refused, text_of

if TYPE_CHECKING:
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

A = "1980-01-03T08:30:00Z"
LONDON = ["--date", "1980-01-03", "--lat", "51.5074", "--lng", "-0.1278"]


async def test_lists_the_tools(session: SharedSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    for name in ("stability", "rectify"):
        tool = tools[name]
        assert tool.description and f"bodygraph {name} --json" in tool.description
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
    assert tools["stability"].input_schema["required"] == ["birth"]
    assert tools["rectify"].input_schema["required"] == ["date"]
    assert "open_centers" in tools["rectify"].input_schema["properties"]


async def test_stability(session: SharedSession, capsys: pytest.CaptureFixture[str]) -> None:
    result = await ok(session, "stability", {"birth": {"utc": A}, "bound": "6h"})
    assert result.structured_content == cli_json(capsys, "stability", "--utc", A,
                                                 "--bound", "6h")
    text = text_of(result)
    assert text.startswith("Born 1980-01-03 08:30:00 UTC, within 6 h either side: ")
    assert "profile 3/5 from before 02:30:00 to 10:14:16" in text


async def test_rectify(session: SharedSession, capsys: pytest.CaptureFixture[str]) -> None:
    result = await ok(session, "rectify", {
        "date": "1980-01-03", "lat": 51.5074, "lng": -0.1278, "profile": "3/5",
        "type": "Generator", "authority": "Emotional"})
    expected = cli_json(capsys, "rectify", *LONDON, "--profile", "3/5", "--type",
                        "Generator", "--authority", "Emotional")
    assert result.structured_content == expected
    assert text_of(result).startswith(
        "Birth times that fit, in Europe/London: 1980-01-03 00:00:00 GMT to 1980-01-03 "
        "10:14:16 GMT")


async def test_rectify_at_a_place_over_a_range(session: SharedSession,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    arguments = {"date": "1980-01-03", "to_date": "1980-01-04", "from_time": "06:00",
                 "to_time": "20:00", "place": "London, United Kingdom",
                 "centers": ["Sacral"], "open_centers": ["Head"], "gates": [38],
                 "activations": ["personality.sun=38"], "channels": ["34-57"]}
    result = await ok(session, "rectify", arguments)
    expected = cli_json(
        capsys, "rectify", "--date", "1980-01-03", "--to-date", "1980-01-04", "--from-time",
        "06:00", "--to-time", "20:00", "--place", "London, United Kingdom", "--center",
        "Sacral", "--open-center", "Head", "--gate", "38", "--activation",
        "personality.sun=38", "--channel", "34-57")
    assert result.structured_content == expected


async def test_nothing_fits_is_an_answer(session: SharedSession) -> None:
    result = await ok(session, "rectify", {"date": "1980-01-03", "tz": "Europe/London",
                                           "type": "Reflector", "centers": ["Sacral"]})
    assert result.structured_content is not None
    assert result.structured_content["windows"] == []
    assert text_of(result).startswith("No birth time from 1980-01-03 00:00:00 UTC")


DAY = {"date": "1980-01-03", "tz": "Europe/London"}
BAD = [
    ("rectify", DAY, "give at least one constraint"),
    ("rectify", {**DAY, "type": "Generatr"}, "use one of: Generator"),
    ("rectify", {**DAY, "profile": "1/5"}, "1/3, 1/4"),
    ("rectify", {**DAY, "profile": "3/5", "to_date": "1980-01-12"}, "at most 7 days"),
    ("rectify", {"date": "1980-01-03", "profile": "3/5"}, "give exactly one of place"),
    ("rectify", {**DAY, "lat": 51.5, "profile": "3/5"}, "lat and lng together"),
    ("rectify", {**DAY, "tz": "Mars/Base", "profile": "3/5"}, "Mars/Base"),
    ("stability", {"birth": {"utc": A}, "bound": "49h"}, "48 hours"),
    ("stability", {"birth": {"utc": A}, "bound": "soon"}, "is not a span of time"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), BAD,
                         ids=[f"{tool}-{message}" for tool, _, message in BAD])
async def test_bad_input_is_a_tool_error(session: SharedSession, tool: str,
                                         arguments: dict[str, Any], message: str) -> None:
    await refused(session, tool, arguments, message)
