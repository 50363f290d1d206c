"""``?lang=`` on the front page and ``/openapi.json`` in process: the front page's words,
links and ``Content-Language`` in the language; the document's summaries and parameter
descriptions as the catalogs translate them (context ``openapi``), everything else as in
English; without ``lang`` both are what they are in English."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from string import Formatter
from typing import Any

import httpx
import pytest
from babel.messages.catalog import Message

from bodygraph.catalog.translations import LANGUAGES, catalog
from bodygraph.i18n.template import SAME, read_catalog
from bodygraph_server.http.openapi import CONTEXT
from bodygraph_server.resources.pages.landing import HINT, LINKS

pytestmark = pytest.mark.anyio

TRANSLATED = [code for code in LANGUAGES if code != "en"]
SUPPORTED = ", ".join(LANGUAGES)


def operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def prose_differences(english: Any, there: Any, where: str = "") -> list[str]:
    """Where ``there`` differs from ``english`` other than in a ``summary`` or
    ``description``'s text."""
    if isinstance(english, dict) and isinstance(there, dict):
        if english.keys() != there.keys():
            return [where]
        return [d for key in english for d in (
            [] if key in ("summary", "description") and isinstance(english[key], str)
            and isinstance(there[key], str) else prose_differences(
                english[key], there[key], f"{where}/{key}"))]
    if isinstance(english, list) and isinstance(there, list) and len(english) == len(there):
        return [d for i, (a, b) in enumerate(zip(english, there, strict=True))
                for d in prose_differences(a, b, f"{where}/{i}")]
    return [] if english == there else [where]


def entry_of(text: str, entries: dict[str, Message]) -> tuple[Message, dict[str, str]]:
    """The catalog entry whose English is ``text``, or the pattern that makes it with the
    most words of its own (with the values of its ``{fields}``)."""
    if text in entries:
        return entries[text], {}
    found: list[tuple[int, Message, dict[str, str]]] = []
    for english, message in entries.items():
        parts = list(Formatter().parse(english))
        pattern = "".join(re.escape(literal) + (f"(?P<{name}>.+)" if name else "")
                          for literal, name, _, _ in parts)
        matched = re.fullmatch(pattern, text) if "{" in english else None
        if matched:
            words = sum(len(literal.strip()) for literal, _, _, _ in parts)
            found.append((words, message, matched.groupdict()))
    assert found, f"{text!r} is not in the catalogs"
    _, message, values = max(found, key=lambda one: one[0])
    return message, values


@pytest.mark.parametrize("lang", TRANSLATED)
async def test_the_openapi_document_in_a_language(client: httpx.AsyncClient,
                                                  lang: str) -> None:
    plain = await client.get("/openapi.json")
    assert plain.status_code == 200 and "content-language" not in plain.headers
    assert (await client.get("/openapi.json?lang=en")).content == plain.content
    asked = await client.get(f"/openapi.json?lang={lang}")
    assert asked.status_code == 200 and asked.headers["content-language"] == lang
    english, there = plain.json(), asked.json()
    assert prose_differences(english, there) == []  # keys, schemas, codes: the contract's
    entries = {str(m.id): m for m in read_catalog(lang) if m.context == CONTEXT}
    say = catalog(lang).pgettext
    left: list[str] = []
    for (name, one), (_, other) in zip(operations(english), operations(there), strict=True):
        texts = [(one["summary"], other["summary"])] + [
            (p["description"], q["description"]) for p, q in zip(
                one["parameters"], other["parameters"], strict=True)]
        for text, said in texts:
            entry, values = entry_of(text, entries)
            assert said == say(CONTEXT, str(entry.id)).format(**values), name
            same = any(c.startswith(SAME) for c in entry.user_comments)
            if said == text and not same:
                left.append(f"{name}: {text}")
    assert left == []
    for (name, one), (_, other) in zip(operations(english), operations(there), strict=True):
        text = one["description"].split("\n\n")[0]  # without the "Access tiers" line
        if text in entries:  # a description written whole where it is declared
            assert other["description"].startswith(say(CONTEXT, text)), name
        assert other["description"] != one["description"], name  # every one is marked
    assert there["info"]["description"] == say(CONTEXT, english["info"]["description"])
    assert there["info"]["description"] != english["info"]["description"]


async def test_the_openapi_document_refuses_an_unknown_language(
        client: httpx.AsyncClient) -> None:
    for query in ("lang=xx", "lang=", "lang=DE", "lang=de&lang=fr"):
        refused = await client.get(f"/openapi.json?{query}")
        assert refused.status_code == 400, query
        assert refused.text == f"lang must be one of {SUPPORTED}"
        assert refused.headers["content-type"].startswith("text/plain")


@pytest.mark.parametrize("lang", TRANSLATED)
async def test_the_front_page_in_a_language(client: httpx.AsyncClient, lang: str) -> None:
    say = catalog(lang).pgettext
    english = await client.get("/")
    page = await client.get(f"/?lang={lang}")
    assert page.status_code == 200 and page.headers["content-language"] == lang
    assert "content-language" not in english.headers
    assert f"<html lang='{lang}'>" in page.text and "<html lang='en'>" in english.text
    for href, name, what in LINKS:
        assert f"<li><a href='{href}'>{html.escape(name)}</a>: {html.escape(what)}</li>" \
            in english.text
        assert (f"<li><a href='{href}?lang={lang}'>{html.escape(say('page', name))}</a>: "
                f"{html.escape(say('page', what))}</li>") in page.text
        assert say("page", what) != what
    for href in ("./", "docs", "playground", "openapi.json"):  # the bar keeps the language
        assert f"href='{href}?lang={lang}'" in page.text
    document = (await client.get(f"/openapi.json?lang={lang}")).json()
    assert f"<p>{html.escape(document['info']['description'])}</p>" in page.text
    assert f"<option value='{lang}' lang='{lang}' selected>" in page.text
    assert "languages.js" in page.text
    version = html.escape(document["info"]["version"])
    for text, said in ((english.text, HINT), (page.text, say("page", HINT))):
        assert html.escape(said).format(version=version, v2="<code>/v2</code>",
                                        v1="<code>/v1</code>") in text
    assert say("page", HINT) != HINT


async def test_the_front_page_refuses_an_unknown_language(client: httpx.AsyncClient) -> None:
    for query in ("lang=xx", "lang=", "lang=de&lang=fr"):
        refused = await client.get(f"/?{query}")
        assert refused.status_code == 400 and refused.text == f"lang must be one of {SUPPORTED}"


async def test_the_docs_page_lists_the_summaries_in_its_language(
        client: httpx.AsyncClient) -> None:
    """``/docs?lang=``'s table of endpoints shows the document's summaries in the language
    (Swagger UI's, drawn in a browser: tests/server/test_docs_languages_browser.py)."""
    english = (await client.get("/openapi.json")).json()
    document = (await client.get("/openapi.json?lang=ja")).json()
    page = (await client.get("/docs?lang=ja")).text
    for (_, one), (_, other) in zip(operations(english), operations(document), strict=True):
        assert f"<td>{html.escape(other['summary'])}</td>" in page
        assert other["summary"] != one["summary"]
