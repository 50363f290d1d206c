"""The astrology tools over stdio with the SDK's client: ``hologenetic`` and ``astro`` give
exactly the JSON of ``bodygraph hologenetic|astro --json`` (run in-process here), ``wheel``
the SVG of ``bodygraph wheel --svg``; bad input is a tool error naming what is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_mcp_relations import cli_json, ok, refused, text_of

from bodygraph.cli.main import main
from bodygraph.render import PRESET_NAMES
from bodygraph.rules.houses import HOUSE_SYSTEMS

if TYPE_CHECKING:  # the SDK is imported when a test runs, not in every collecting worker
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

A = "1980-01-03T08:30:00Z"
BERLIN = {"date": "1990-07-15", "time": "14:30", "place": "Berlin, Germany"}
BERLIN_CLI = ["--date", "1990-07-15", "--time", "14:30", "--place", "Berlin, Germany"]
SOUTH = {"date": "1979-11-23", "time": "23:05", "lat": -33.8688, "lng": 151.2093}
SOUTH_CLI = ["--date", "1979-11-23", "--time", "23:05", "--lat", "-33.8688",
             "--lng", "151.2093"]


async def test_lists_the_astrology_tools(session: SharedSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    for name in ("hologenetic", "astro", "wheel"):
        tool = tools[name]
        assert tool.description and tool.input_schema["required"] == ["birth"]
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint
    houses = tools["astro"].input_schema["properties"]["houses"]
    assert tuple(houses["enum"]) == HOUSE_SYSTEMS and houses["default"] == "placidus"
    theme = tools["wheel"].input_schema["properties"]["theme"]
    assert tuple(theme["enum"]) == PRESET_NAMES


async def test_hologenetic(session: SharedSession, capsys: pytest.CaptureFixture[str]) -> None:
    found = await ok(session, "hologenetic", {"birth": {"utc": A}})
    expected = cli_json(capsys, "hologenetic", "--utc", A)
    assert found.structured_content == expected
    assert text_of(found).startswith(
        f"Hologenetic profile: Life's Work {expected['activation']['lifesWork']}, ")
    assert text_of(found).endswith("Born 1980-01-03 08:30:00 UTC.")


async def test_astro(session: SharedSession, capsys: pytest.CaptureFixture[str]) -> None:
    for birth, args in ((BERLIN, BERLIN_CLI), (SOUTH, SOUTH_CLI)):
        for houses in HOUSE_SYSTEMS:
            found = await ok(session, "astro", {"birth": birth, "houses": houses})
            expected = cli_json(capsys, "astro", *args, "--houses", houses)
            assert found.structured_content == expected
            assert f"; {houses} houses." in text_of(found)
    alone = await ok(session, "astro", {"birth": {"utc": A}})
    assert alone.structured_content == cli_json(capsys, "astro", "--utc", A)
    assert alone.structured_content["angles"] is None
    assert text_of(alone).endswith("No angles or houses: the birth has no place.")
    polar = await ok(session, "astro", {"birth": {**SOUTH, "lat": -78.5}})
    assert polar.structured_content["houses"]["system"] == "whole-sign"
    assert "Note: Placidus houses are undefined at latitude -78.5" in text_of(polar)


async def test_wheel(session: SharedSession, tmp_path: Path) -> None:
    from mcp.types import EmbeddedResource, TextResourceContents

    path = tmp_path / "wheel.svg"
    assert main(["wheel", "--utc", A, "--svg", str(path), "--theme", "dark",
                 "--transit-at", "2027-01-01T00:00:00Z"]) == 0
    found = await ok(session, "wheel", {"birth": {"utc": A}, "theme": "dark",
                                        "transit_at": "2027-01-01T00:00:00Z"})
    assert found.structured_content is not None
    document = found.structured_content["svg"]
    assert document == path.read_text(encoding="utf-8")
    assert found.structured_content["mimeType"] == "image/svg+xml"
    assert text_of(found).endswith("With the sky at 2027-01-01 00:00:00 UTC as the outer ring.")
    image = found.content[1]
    assert isinstance(image, EmbeddedResource)
    assert isinstance(image.resource, TextResourceContents)
    assert image.resource.text == document


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("astro", {"birth": {**SOUTH, "lat": 90}}, "the poles have no Ascendant"),
    ("astro", {"birth": {**SOUTH, "lat": -91}}, "-91"),
    ("astro", {"birth": {"utc": A}, "houses": "koch"}, "'placidus' or 'whole-sign'"),
    ("astro", {"birth": {"date": "1990-07-15"}}, "the birth date or time is missing"),
    ("hologenetic", {"birth": {"utc": "1700-01-01T00:00:00Z"}}, "outside the supported range"),
    ("wheel", {"birth": {"utc": A}, "theme": "neon"}, "'light', 'dark', 'print' or"),
    ("wheel", {"birth": {"utc": A}, "transit_at": "3000-01-01T00:00:00Z"},
     "outside the supported range"),
    ("wheel", {"birth": {"utc": A}, "transit_at": "2027-01-01"}, "has no offset"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), BAD,
                         ids=[f"{tool}-{message}" for tool, _, message in BAD])
async def test_bad_input_is_a_tool_error(session: SharedSession, tool: str,
                                         arguments: dict[str, Any], message: str) -> None:
    await refused(session, tool, arguments, message)
