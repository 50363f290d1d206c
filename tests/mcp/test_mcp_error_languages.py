"""A tool call's errors in its ``lang`` over stdio with the SDK's client: the library's
messages, the tools' own and the arguments' validation (rebuilt per failing field from
pydantic's kind of error), each whole in the language; without ``lang`` the English as
before; an unknown code said in English, naming the codes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from bodygraph.catalog.said import said
from bodygraph.catalog.translations import LANGUAGES, catalog

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

UTC = "1990-07-15T12:30:00Z"
HOW = ("give date and time with a place or with lat and lng, or give utc alone (e.g. date "
       "1990-07-15, time 14:30, place 'Berlin, Germany')")
#: Words of the English messages that no translation keeps.
ENGLISH = ("Error executing", "must be", "required", "give ", "members", "validation",
           "Input should")


def text_of(result: CallToolResult) -> str:
    """The text of a tool error (the SDK's channel: ``isError`` with one text block)."""
    from mcp.types import TextContent

    assert result.is_error and len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def say(lang: str, english: str, /, **fields: Any) -> str:
    """One of the tools' messages (context ``error``) as the catalog of ``lang`` says it."""
    return catalog(lang).pgettext("error", english).format(**fields)


def executing(lang: str, tool: str, message: str) -> str:
    return say(lang, "Error executing tool {name}: {message}", name=tool, message=message)


async def call(session: SharedSession, tool: str, arguments: dict[str, Any],
               lang: str | None) -> str:
    asked = arguments if lang is None else {**arguments, "lang": lang}
    return text_of(await session.call_tool(tool, asked))


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_a_library_error_in_the_language(session: SharedSession, lang: str) -> None:
    members = [{"utc": UTC}, {"utc": "2000-01-01T00:00:00Z"}]
    text = await call(session, "penta", {"members": members}, lang)
    assert text == executing(lang, "penta", said("a penta has 3 to 5 members, not 2", lang))
    day = {"date": "1990-02-30", "time": "14:30", "lat": 0, "lng": 0}
    text = await call(session, "chart", {"birth": day}, lang)
    english = "there is no day 1990-02-30 in the calendar (February has 28 days in 1990)"
    assert text == executing(lang, "chart", said(english, lang))
    assert not any(word in text for word in (*ENGLISH, "February", "calendar"))


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_a_tool_s_own_refusal_in_the_language(session: SharedSession, lang: str) -> None:
    how = say(lang, HOW)
    text = await call(session, "chart", {"birth": {"utc": UTC, "lat": 1.0}}, lang)
    assert text == executing(lang, "chart", say(lang, "utc goes alone: {how}", how=how))
    text = await call(session, "render_svg", {"birth": {"utc": UTC}, "transit_at": UTC,
                                              "other": {"utc": UTC}}, lang)
    assert text == executing(lang, "render_svg", say(
        lang, "give transit_at or other, not both: one overlay per picture"))
    text = await call(session, "transit", {"at": "2024-03-20T03:06"}, lang)
    assert text == executing(lang, "transit", say(
        lang, "{name} {text!r} has no offset; add Z for UTC (1990-07-15T12:30:00Z)",
        name="at", text="2024-03-20T03:06"))
    assert not any(word in text for word in (*ENGLISH, "offset"))


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_failed_validation_in_the_language(session: SharedSession, lang: str) -> None:
    """The SDK's own check of the arguments (pydantic's), each failing field said from
    its kind and place: a wrong type, a value not among the choices, a missing one."""
    text = await call(session, "calendar", {"start": 1, "end": "2024-01-01",
                                            "level": "minute", "bodies": "sun"}, lang)
    assert text == executing(lang, "calendar", "; ".join((
        say(lang, "{name} must be a string", name="start"),
        say(lang, "{name} must be a list", name="bodies"),
        say(lang, "{name} must be one of {choices}", name="level", choices="gate, line"))))
    text = await call(session, "rectify", {"gates": ["a", 3.5]}, lang)
    assert text == executing(lang, "rectify", "; ".join((
        say(lang, "{name} is required", name="date"),
        *(say(lang, "{name} must be a whole number", name=f"gates[{i}]") for i in (0, 1)))))
    # a birth's fields, checked by the tool: the same words, then how to give a birth
    text = await call(session, "chart", {"birth": {"utc": UTC, "lat": "north", "city": 1}},
                      lang)
    assert text == executing(lang, "chart", say(lang, "{problems} ({how})", how=say(
        lang, HOW), problems="; ".join((
            say(lang, "{name} must be a number", name="birth.lat"),
            say(lang, "{name} is not known here; leave it out", name="birth.city")))))
    assert not any(word in text for word in ENGLISH)


async def test_without_lang_the_errors_are_english_as_before(session: SharedSession) -> None:
    text = await call(session, "calendar", {"start": 1, "end": "2024-01-01"}, None)
    assert text.startswith("Error executing tool calendar: 1 validation error for "
                           "calendarArguments\nstart\n  Input should be a valid string")
    text = await call(session, "chart", {"birth": {"utc": UTC, "lat": "north"}}, None)
    assert text == ("Error executing tool chart: birth.lat: Input should be a valid number, "
                    f"unable to parse string as a number ({HOW})")
    text = await call(session, "chart", {"birth": {"utc": UTC, "lat": 1.0}}, None)
    assert text == f"Error executing tool chart: utc goes alone: {HOW}"
    text = await call(session, "penta", {"members": [{"utc": UTC}]}, None)
    assert text == "Error executing tool penta: a penta has 3 to 5 members, not 1"
    # English asked: the tools' words, as the other languages get them
    text = await call(session, "calendar", {"start": 1, "end": "2024-01-01"}, "en")
    assert text == "Error executing tool calendar: start must be a string"


async def test_an_unknown_language_is_said_in_english(session: SharedSession) -> None:
    text = await call(session, "chart", {"birth": 5}, "xx")
    assert text == ("Error executing tool chart: birth must be an object; lang 'xx' is not a "
                    f"supported language; use one of {', '.join(LANGUAGES)}")
    text = await call(session, "chart", {"birth": {"utc": UTC}}, "zh_Hans")
    assert text.endswith("lang 'zh_Hans' is not a supported language; use one of en, de, nl, "
                         "es, fr, pt, it, ru, ja, zh-Hans")


async def test_an_unknown_tool_in_the_language(session: SharedSession) -> None:
    text = await call(session, "horoscope", {}, "de")
    assert text == say("de", "Unknown tool: {name}", name="horoscope") != (
        "Unknown tool: horoscope")
    assert await call(session, "horoscope", {}, None) == "Unknown tool: horoscope"


def test_every_kind_of_failure_has_its_words() -> None:
    """Out of range, too few or too many items, a malformed date-time or date, not true or
    false, and a kind without words of its own ("is not valid"), as pydantic reports
    them (no tool takes such arguments yet: a model of them, checked in-process)."""
    from datetime import date, datetime

    from pydantic import BaseModel, Field, HttpUrl, ValidationError

    from bodygraph_mcp.tool_errors import problems

    class Arguments(BaseModel):
        year: int = Field(ge=1800, le=2199)
        hours: float = Field(gt=0, lt=48.5)
        members: list[int] = Field(min_length=3, max_length=5)
        at: datetime
        day: date
        shown: bool
        link: HttpUrl

    def said_of(arguments: dict[str, Any]) -> str:
        with pytest.raises(ValidationError) as failed:
            Arguments.model_validate(arguments)
        return problems(failed.value, "de")

    low = said_of({"year": 1700, "hours": 0, "members": [1], "at": "yesterday",
                   "day": "2024-13-01", "shown": "perhaps", "link": "no link"})
    assert low == "; ".join((
        say("de", "{name} must be at least {limit}", name="year", limit=1800),
        say("de", "{name} must be more than {limit}", name="hours", limit=0),
        say("de", "{name} must have at least {count} items", name="members", count=3),
        say("de", "{name} must be an ISO 8601 date-time like 1990-07-15T12:30:00Z",
            name="at"),
        say("de", "{name} must be a date YYYY-MM-DD", name="day"),
        say("de", "{name} must be true or false", name="shown"),
        say("de", "{name} is not valid", name="link")))
    high = said_of({"year": 2300, "hours": 49, "members": [1] * 6, "at": UTC,
                    "day": "2024-01-01", "shown": True, "link": "https://example.com"})
    assert high == "; ".join((
        say("de", "{name} must be at most {limit}", name="year", limit=2199),
        say("de", "{name} must be less than {limit}", name="hours", limit="48,5"),
        say("de", "{name} must have at most {count} items", name="members", count=5)))
    assert "must" not in low + high and "muss" in high
