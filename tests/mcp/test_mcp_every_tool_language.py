"""Every tool the server lists, called through the SDK's client with ``lang="de"``: its
summary is the catalogs' German sentences (none of the English ones left) and its words
(``labels``, or the picture) are German. The sentences are read from the catalogs."""

from __future__ import annotations

import re
from functools import cache
from string import Formatter
from typing import TYPE_CHECKING, Any

import pytest

from bodygraph.i18n.template import read_catalog

if TYPE_CHECKING:
    from shared_session import SharedSession

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

BERLIN = {"date": "1990-07-15", "time": "14:30", "place": "Berlin, Germany"}
OTHER = {"utc": "1985-01-02T03:04:00Z"}
THIRD = {"date": "2001-11-30", "time": "06:15", "lat": 40.4168, "lng": -3.7038}
AT = "2024-03-20T03:06:00Z"
#: Each tool's calls (a picture tool's overlays each once): a listed tool missing here
#: fails the test.
CALLS: dict[str, list[dict[str, Any]]] = {
    "chart": [{"birth": BERLIN}],
    "simple_chart": [{"birth": BERLIN}],
    "render_svg": [{"birth": BERLIN}, {"birth": BERLIN, "transit_at": AT},
                   {"birth": BERLIN, "other": OTHER}],
    "transit": [{"at": AT}, {"at": AT, "birth": BERLIN}],
    "connection": [{"person1": BERLIN, "person2": OTHER}],
    "penta": [{"members": [BERLIN, OTHER, THIRD]}],
    "sensitivity": [{"birth": BERLIN, "window": "1h"}],
    "cycles": [{"birth": BERLIN, "year": 2024}],
    "calendar": [{"start": "2024-01-01", "end": "2024-01-01"}],
    "hologenetic": [{"birth": BERLIN}],
    "astro": [{"birth": BERLIN}, {"birth": OTHER}],
    "wheel": [{"birth": BERLIN}, {"birth": BERLIN, "transit_at": AT}],
    "stability": [{"birth": BERLIN, "bound": "1h"}],
    "rectify": [{"date": "1990-07-15", "place": "Berlin, Germany", "from_time": "14:00",
                 "to_time": "15:00", "profile": "6/2"},
                {"date": "1990-07-15", "tz": "Europe/Berlin", "from_time": "14:00",
                 "to_time": "14:05", "type": "Reflector"}],
}


def _fixed(text: str) -> list[str]:
    """The fixed words of a message (its text between fields), each of 4 letters or more."""
    parts = (literal.strip(" .,;:()") for literal, *_ in Formatter().parse(text))
    return [part for part in parts if len(part) >= 4]


@cache
def sentences() -> tuple[frozenset[str], frozenset[str]]:
    """The fixed words of the summaries' sentences (context ``mcp``, every plural form):
    the English ones German does not share, and the German ones English does not."""
    english: set[str] = set()
    german: set[str] = set()
    for message in read_catalog("de"):
        if message.context != "mcp":
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        forms = [message.string] if isinstance(message.string, str) else list(message.string)
        for text in ids:
            english.update(_fixed(text))
        for text in forms:
            german.update(_fixed(str(text)))
    return frozenset(english - german), frozenset(german - english)


def _texts(value: object) -> list[str]:
    """The texts in a JSON value."""
    if isinstance(value, dict):
        return [t for item in value.values() for t in _texts(item)]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    return [value] if isinstance(value, str) else []


def _has(text: str, words: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text) is not None


async def _called(session: SharedSession, tool: str,
                  arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, (tool, arguments, text)
    assert result.structured_content is not None
    assert result.structured_content.get("summary", text) == text
    return text, result.structured_content


def test_the_catalog_has_sentences_of_both() -> None:
    english, german = sentences()
    assert "Born" in english and "Geboren" in german


async def test_every_tool_says_its_summary_and_words_in_lang(session: SharedSession) -> None:
    listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == set(CALLS)
    english_words, german_words = sentences()
    for tool in listed.tools:
        assert "lang" in tool.input_schema["properties"], tool.name
        for arguments in CALLS[tool.name]:
            plain, plain_content = await _called(session, tool.name, {**arguments,
                                                                       "lang": "en"})
            said, content = await _called(session, tool.name, {**arguments, "lang": "de"})
            assert said != plain, (tool.name, said)
            left = [words for words in english_words if _has(said, words)]
            assert not left, (tool.name, left, said)
            assert any(_has(said, words) for words in german_words), (tool.name, said)
            assert any(_has(plain, words) for words in english_words), (tool.name, plain)
            if "svg" in content:  # a picture: its words are drawn in the language
                assert content["svg"] != plain_content["svg"], tool.name
            else:  # the data's words (when it has any: no window fits has none)
                english = plain_content["labels"]
                assert content["labels"] != english or not _texts(english), tool.name
