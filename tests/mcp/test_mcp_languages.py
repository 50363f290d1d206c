"""``lang`` on the MCP tools over stdio with the SDK's client: ``labels`` beside the
unchanged data (the library result's own ``labels(lang)``), pictures drawn in the
language, an unknown code a tool error naming the codes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, get_args
from zoneinfo import ZoneInfo

import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES, term
from bodygraph.relations import transit as transit_of
from bodygraph.relations.labels import ingress_labels
from bodygraph.render import svg
from bodygraph_mcp.languages import Language

if TYPE_CHECKING:
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

BERLIN = {"date": "1990-07-15", "time": "14:30", "place": "Berlin, Germany"}
AT = "2024-03-20T03:06:00Z"


def berlin() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


def test_the_tools_take_the_librarys_languages() -> None:
    assert get_args(Language) == LANGUAGES


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_chart_in_every_language(session: SharedSession, lang: str) -> None:
    plain = await session.call_tool("chart", {"birth": BERLIN})
    asked = await session.call_tool("chart", {"birth": BERLIN, "lang": lang})
    assert not asked.is_error
    assert plain.structured_content is not None and asked.structured_content is not None
    labels = asked.structured_content.pop("labels")
    said = asked.structured_content.pop("summary")
    english = plain.structured_content.pop("summary")
    assert asked.structured_content == plain.structured_content
    assert labels == {"chart": berlin().labels(lang)}
    # the summary in the language: the chart's words and the sentence
    assert labels["chart"]["type"] in said and labels["chart"]["incarnationCross"] in said
    assert (said == english) == (lang == "en")
    assert asked.content[0].text == said  # type: ignore[union-attr]
    assert "labels" not in plain.structured_content


async def test_relations_and_pictures_in_a_language(session: SharedSession) -> None:
    transit = await session.call_tool("transit", {"at": AT, "birth": BERLIN, "lang": "de"})
    content = transit.structured_content
    assert content is not None
    labels = content.pop("labels")
    summary = transit.content[0].text  # type: ignore[union-attr]
    assert "It defines the channels" not in summary and "Er definiert die Kan" in summary
    at = datetime.fromisoformat(AT)
    assert labels == transit_of(at, natal=berlin()).labels("de")
    assert labels["natal"]["overlay"]["type"] == term(
        "type", content["natal"]["overlay"]["type"], "de")
    calendar = await session.call_tool("calendar", {"start": "2024-01-01", "end": "2024-01-01",
                                                    "lang": "ja"})
    assert calendar.structured_content is not None
    ingresses = calendar.structured_content["ingresses"]
    assert calendar.structured_content["labels"] == {"ingresses": [
        ingress_labels(bodygraph.Body(i["body"]), "ja") for i in ingresses]}
    picture = await session.call_tool("render_svg", {"birth": BERLIN, "lang": "fr"})
    assert picture.structured_content is not None
    assert picture.structured_content["svg"] == svg(berlin(), lang="fr")


async def test_an_unknown_language_is_a_tool_error(session: SharedSession) -> None:
    refused = await session.call_tool("chart", {"birth": BERLIN, "lang": "xx"})
    assert refused.is_error
    text = refused.content[0].text  # type: ignore[union-attr]
    assert "lang" in text and "zh-Hans" in text


async def test_astrology_and_rectification_tools_take_lang(session: SharedSession) -> None:
    """Their labels are the library results' own; the wheel is drawn in the language."""
    from bodygraph.relations import stability
    from bodygraph.relations.labels import hologenetic_labels, sign_name
    from bodygraph.rules.hologenetic import hologenetic_profile

    profile = await session.call_tool("hologenetic", {"birth": BERLIN, "lang": "de"})
    assert profile.structured_content is not None
    assert profile.structured_content["labels"] == hologenetic_labels(
        hologenetic_profile(berlin()), "de")
    astro = await session.call_tool("astro", {"birth": BERLIN, "lang": "ja"})
    assert astro.structured_content is not None
    sun = astro.structured_content["activations"]["personality"]["sun"]["sign"]
    assert astro.structured_content["labels"]["activations"]["personality"]["sun"] == {
        "sign": sign_name(sun, "ja")}
    assert "houses" in astro.structured_content["labels"]
    steady = await session.call_tool("stability", {"birth": BERLIN, "bound": "1h",
                                                   "lang": "fr"})
    assert steady.structured_content is not None
    from bodygraph.cli.sensitivity import parse_window

    assert steady.structured_content["labels"] == stability(
        berlin().birth_utc, parse_window("1h")).labels("fr")
    wheel = await session.call_tool("wheel", {"birth": BERLIN, "lang": "ja"})
    assert wheel.structured_content is not None
    assert sign_name("Cancer", "ja") in wheel.structured_content["svg"]
    plain = await session.call_tool("astro", {"birth": BERLIN})
    assert plain.structured_content is not None and "labels" not in plain.structured_content


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_every_summary_speaks_the_language(session: SharedSession, lang: str) -> None:
    """No sentence of the English summaries is left in another language's."""
    calls = {"hologenetic": {"birth": BERLIN}, "astro": {"birth": BERLIN},
             "stability": {"birth": BERLIN, "bound": "1h"},
             "rectify": {"date": "1990-07-15", "place": "Berlin, Germany",
                         "from_time": "14:00", "to_time": "15:00", "profile": "6/2"},
             "wheel": {"birth": BERLIN, "transit_at": AT}}
    for tool, arguments in calls.items():
        english = await session.call_tool(tool, arguments)
        asked = await session.call_tool(tool, {**arguments, "lang": lang})
        said = asked.content[0].text  # type: ignore[union-attr]
        plain = english.content[0].text  # type: ignore[union-attr]
        assert not asked.is_error and said != plain, (tool, said)
        for sentence in ("Hologenetic profile:", "Zodiac positions born", "either side:",
                         "Birth times that fit", "No birth time from", "Born ",
                         "as the outer ring", "Ascendant "):
            assert sentence not in said, (tool, sentence, said)
