"""The MCP server as an assistant uses it: started as a subprocess
(``python -m bodygraph_mcp``, what the ``bodygraph-mcp`` command runs) and driven over
stdio by the official SDK's client. One server process for this folder's modules in a
pytest worker (conftest.py); every bad input is a tool error with a clear message, and the
server keeps answering."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest

import bodygraph
from bodygraph.model.contract import json_schema
from bodygraph.render import svg

if TYPE_CHECKING:  # the SDK is imported when a test runs, not in every collecting worker
    from mcp.types import CallToolResult
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

BERLIN = {"date": "1990-07-15", "time": "14:30", "place": "Berlin, Germany"}


def expected() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


async def call(session: SharedSession, tool: str, birth: dict[str, Any]) -> CallToolResult:
    return await session.call_tool(tool, {"birth": birth})


def summary_of(result: CallToolResult) -> str:
    from mcp.types import TextContent

    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


async def test_lists_the_tools_with_schemas(session: SharedSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"chart", "simple_chart", "render_svg", "transit", "connection",
                          "penta", "sensitivity", "cycles", "calendar", "hologenetic",
                          "astro", "wheel", "stability", "rectify"}
    for tool in (tools["chart"], tools["render_svg"]):
        assert tool.description
        assert tool.input_schema["required"] == ["birth"]
        birth = tool.input_schema["properties"]["birth"]
        assert set(birth["properties"]) == {"date", "time", "place", "lat", "lng", "utc"}
        assert birth["additionalProperties"] is False
        assert tool.output_schema is not None
        assert tool.annotations is not None and tool.annotations.read_only_hint
    chart_schema = tools["chart"].output_schema
    assert chart_schema is not None
    assert chart_schema["properties"]["chart"]["title"] == "ChartResult"


async def test_chart_at_a_place(session: SharedSession) -> None:
    import jsonschema

    result = await call(session, "chart", BERLIN)
    assert not result.is_error
    data = result.structured_content
    assert data is not None
    assert data["chart"] == expected().to_v2()
    jsonschema.validate(data["chart"], json_schema("chart-result"))
    assert data["birth"] == {
        "utc": "1990-07-15T12:30:00.000Z", "local": "1990-07-15T14:30:00+02:00",
        "zone": "Europe/Berlin", "place": "Berlin, Germany (52.5244° N, 13.4105° E)",
        "lat": 52.52437, "lng": 13.41053, "wallTime": "unique", "placeNote": None,
    }
    text = summary_of(result)
    assert text == data["summary"]
    chart = expected()
    for part in (chart.type.value, f"Profile {chart.profile}", chart.incarnation_cross,
                 "Europe/Berlin", "1990-07-15 12:30:00 UTC"):
        assert part in text


async def test_simple_chart(session: SharedSession) -> None:
    import jsonschema

    result = await call(session, "simple_chart", BERLIN)
    assert not result.is_error and result.structured_content is not None
    data = result.structured_content
    assert data["chart"] == expected().to_v2_simple()
    jsonschema.validate(data["chart"], json_schema("chart-simple-result"))
    full = await call(session, "chart", BERLIN)
    assert full.structured_content is not None
    assert data["summary"] == full.structured_content["summary"] == summary_of(result)
    assert data["birth"] == full.structured_content["birth"]


async def test_a_place_of_several_says_which_was_taken(session: SharedSession) -> None:
    result = await call(session, "chart", {"date": "1990-07-15", "time": "14:30",
                                           "place": "Springfield"})
    assert not result.is_error and result.structured_content is not None
    birth = result.structured_content["birth"]
    assert birth["place"].startswith("Springfield, Missouri, United States (")
    note = birth["placeNote"]
    assert note.startswith("several places are called Springfield: took Springfield, "
                           "Missouri, United States (the most populous); others: "
                           "Springfield, Massachusetts, United States; Springfield, Illinois")
    assert 'add the region or country to choose one, e.g. "Springfield, Massachusetts' in note
    assert note in summary_of(result)
    chosen = await call(session, "chart", {"date": "1990-07-15", "time": "14:30",
                                           "place": "Springfield, Illinois"})
    assert chosen.structured_content is not None
    assert chosen.structured_content["birth"]["placeNote"] is None
    assert chosen.structured_content["birth"]["place"].startswith("Springfield, Illinois")


async def test_chart_at_coordinates_and_at_an_instant(session: SharedSession) -> None:
    at = await call(session, "chart", {"date": "1990-07-15", "time": "14:30", "lat": 52.52,
                                       "lng": 13.405})
    utc = await call(session, "chart", {"utc": "1990-07-15T12:30:00Z"})
    for result in (at, utc):
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["chart"] == expected().to_v2()
    assert at.structured_content is not None and utc.structured_content is not None
    assert at.structured_content["birth"]["place"] is None
    assert at.structured_content["birth"]["zone"] == "Europe/Berlin"
    assert utc.structured_content["birth"]["local"] is None


async def test_render_svg(session: SharedSession) -> None:
    from mcp.types import EmbeddedResource, TextResourceContents

    result = await call(session, "render_svg", BERLIN)
    assert not result.is_error and result.structured_content is not None
    document = svg(expected())
    assert result.structured_content["svg"] == document
    assert result.structured_content["mimeType"] == "image/svg+xml"
    image = result.content[1]
    assert isinstance(image, EmbeddedResource)
    assert isinstance(image.resource, TextResourceContents)
    assert (image.resource.mime_type, image.resource.text) == ("image/svg+xml", document)
    assert "Profile" in summary_of(result)


BAD = [
    ({"date": "1990-07-15", "time": "14:30", "place": "Qqqxzv Wwwjjk"},
     "no place found for 'Qqqxzv Wwwjjk'"),
    ({"date": "2500-01-01", "time": "12:00", "place": "Berlin, Germany"},
     "outside the supported range"),
    ({"utc": "1700-01-01T00:00:00Z"}, "outside the supported range"),
    ({"date": "1990-07-15", "time": "25:61", "place": "Berlin"}, "there is no time '25:61'"),
    ({"date": "1990-07-15", "time": "2:30 pm", "place": "Berlin"}, "a birth time must be"),
    ({"date": "15.07.1990", "time": "14:30", "place": "Berlin"}, "a birth date must be"),
    ({"date": "1990-02-30", "time": "14:30", "place": "Berlin"}, "there is no day"),
    ({"date": "1990-07-15", "time": "14:30", "lat": 95.0, "lng": 0.0},
     "latitude 95.0 is outside -90 to 90"),
    ({"date": "1990-07-15", "time": "14:30", "lat": 52.5}, "the birth place is missing"),
    ({"date": "1990-07-15", "time": "14:30"}, "the birth place is missing"),
    ({"date": "1990-07-15", "place": "Berlin"}, "the birth date or time is missing"),
    ({"utc": "1990-07-15T12:30:00Z", "place": "Berlin"}, "utc goes alone"),
    ({"utc": "1990-07-15T12:30"}, "has no offset"),
    ({"utc": "yesterday"}, "is not an ISO 8601 date-time"),
    ({"date": "1990-07-15", "time": "14:30", "lat": "north", "lng": 0.0},
     "birth.lat: Input should be a valid number"),
    ({"date": "1990-07-15", "time": "14:30", "city": "Berlin"},
     "birth.city: Extra inputs are not permitted"),
]


@pytest.mark.parametrize("tool", ["chart", "render_svg"])
@pytest.mark.parametrize(("birth", "message"), BAD, ids=[m for _, m in BAD])
async def test_bad_input_is_a_tool_error(session: SharedSession, tool: str,
                                         birth: dict[str, Any], message: str) -> None:
    result = await call(session, tool, birth)
    assert result.is_error
    assert result.structured_content is None
    text = summary_of(result)
    assert text.startswith(f"Error executing tool {tool}: ")
    assert message in text
    assert "Traceback" not in text


async def test_still_answers_after_errors(session: SharedSession) -> None:
    assert (await call(session, "chart", {"utc": "yesterday"})).is_error
    missing = await session.call_tool("chart", {})
    assert missing.is_error and "birth" in summary_of(missing)
    assert not (await call(session, "chart", BERLIN)).is_error
