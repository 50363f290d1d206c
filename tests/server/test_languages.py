"""``lang`` on the v2 operations in process: without it the answer is what it was; with it
``data`` is unchanged, ``labels`` holds its words in the language under the same keys and
``Content-Language`` says which; an unknown language is 400 INVALID_LANGUAGE, charged
nothing; v1 ignores it."""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES, english_body_name, term
from bodygraph.render import render_svg
from bodygraph.render.from_relations import connection_input
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.resources import service_document

from .conftest import new_key, v1_headers, v2_headers
from .test_endpoints import balance

pytestmark = pytest.mark.anyio

ONE = {"birthdate": "1990-05-14", "birthtime": "08:30", "lat": 52.52, "lng": 13.405}
TWO = {"birthdate": "1985-07-09", "birthtime": "14:00", "lat": 40.7128, "lng": -74.006}
THREE = {"birthdate": "1979-11-23", "birthtime": "23:05", "lat": -33.8688, "lng": 151.2093}
AT = "2024-03-20T03:06:00Z"
SUPPORTED = ", ".join(LANGUAGES)


def one_chart() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 5, 14, 8, 30, tzinfo=ZoneInfo("Europe/Berlin")))


def two_chart() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1985, 7, 9, 14, 0, tzinfo=ZoneInfo("America/New_York")))


async def post(client: httpx.AsyncClient, key: str, path: str, body: Any,
               query: str = "") -> httpx.Response:
    return await client.post(path + query, json=body, headers=v2_headers(key))


def without_time(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "timestamp"}


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_chart_labels_are_the_librarys(client: httpx.AsyncClient, book: Bookkeeper,
                                             lang: str) -> None:
    key = new_key(book)
    plain = await post(client, key, "/v2/charts/coordinates", ONE)
    asked = await post(client, key, "/v2/charts/coordinates", ONE, f"?lang={lang}")
    assert asked.status_code == 200, asked.text
    assert "content-language" not in plain.headers
    assert asked.headers["content-language"] == lang
    body = asked.json()
    assert body["data"] == plain.json()["data"]
    assert set(body) == set(plain.json()) | {"labels"}
    assert body["labels"] == one_chart().labels(lang)
    assert list(body["labels"]) == [k for k in body["data"] if k in body["labels"]]
    start = plain.content.index(b'"data":')  # data's bytes too: the same, labels after
    assert asked.content.startswith(plain.content[start:-1], asked.content.index(b'"data":'))
    # the body's member does the same
    by_body = await post(client, key, "/v2/charts/coordinates", {**ONE, "lang": lang})
    assert by_body.json()["labels"] == body["labels"]
    assert by_body.headers["content-language"] == lang


async def test_without_lang_the_answer_is_unchanged(client: httpx.AsyncClient,
                                                    book: Bookkeeper) -> None:
    key = new_key(book)
    first = await post(client, key, "/v2/charts/coordinates", ONE)
    # Accept-Language is never read
    second = await client.post("/v2/charts/coordinates", json=ONE,
                               headers={**v2_headers(key), "Accept-Language": "de"})
    assert without_time(first.json()) == without_time(second.json())
    assert "labels" not in second.json() and "content-language" not in second.headers
    assert first.content[first.content.index(b'"success"'):] == \
        second.content[second.content.index(b'"success"'):]


async def test_simple_chart_labels(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    body = (await post(client, key, "/v2/charts/simple", {
        "birthdate": "1990-05-14", "birthtime": "08:30", "location": "Berlin, Germany"},
        "?lang=fr")).json()
    assert body["labels"] == {"type": term("type", body["data"]["type"], "fr"),
                              "centers": [term("center", c, "fr")
                                          for c in body["data"]["centers"]]}


@pytest.mark.parametrize(("query", "body", "problem"), [
    ("?lang=xx", {}, "lang is not a supported language"),
    ("?lang=", {}, "lang is not a supported language"),
    ("?lang=DE", {}, "lang is not a supported language"),
    ("?lang=de&lang=fr", {}, "give lang once"),
    ("", {"lang": "klingon"}, "lang is not a supported language"),
    ("", {"lang": 3}, "lang is not a supported language"),
    ("?lang=de", {"lang": "fr"}, "lang ist zweimal"),  # said in the query's language
])
async def test_an_unknown_language_is_refused_and_not_charged(
        client: httpx.AsyncClient, book: Bookkeeper, query: str, body: dict[str, Any],
        problem: str) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/charts/coordinates", {**ONE, **body}, query)
    assert response.status_code == 400
    refusal = response.json()
    assert refusal["errorCode"] == "INVALID_LANGUAGE"
    assert refusal["message"].startswith(problem)
    assert refusal["message"].endswith(SUPPORTED)
    assert balance(book, key) == before


async def test_the_order_of_checks(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    no_key = await client.post("/v2/charts/coordinates?lang=xx", json=ONE)
    assert no_key.json()["errorCode"] == "API_KEY_MISSING"
    key = new_key(book)
    # the body's lang is read with the body: a body that is not JSON is refused as such
    broken = await client.post("/v2/charts/coordinates", content=b'{"lang": "xx",',
                               headers=v2_headers(key))
    assert broken.json()["errorCode"] == "INVALID_REQUEST_BODY"
    # ... and before its fields
    fields = await post(client, key, "/v2/charts/coordinates",
                        {**ONE, "lat": 500, "lang": "xx"})
    assert fields.json()["errorCode"] == "INVALID_LANGUAGE"
    basic = new_key(book, "hobbyist")
    tier = await post(client, basic, "/v2/charts/coordinates", ONE, "?lang=xx")
    assert tier.json()["errorCode"] == "ACCESS_DENIED"


async def test_v1_ignores_lang(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    body = {"birthdate": "14-May-90", "birthtime": "08:30", "location": "Berlin, Germany"}
    plain = await client.post("/v1/bodygraphs", json=body, headers=v1_headers(key))
    asked = await client.post("/v1/bodygraphs?lang=xx", json={**body, "lang": "yy"},
                              headers=v1_headers(key))
    assert asked.status_code == 200
    assert asked.json() == plain.json() and "content-language" not in asked.headers


async def test_relations_labels(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    """The words themselves (tests/server/test_labels_agree.py: they are the results' own
    and the command line's); the picture of a connection in the language."""
    key = new_key(book)
    found = (await post(client, key, "/v2/transits", {"at": AT, "natal": ONE, "lang": "de"}
                        )).json()
    overlay, words = found["data"]["natal"]["overlay"], found["labels"]["natal"]["overlay"]
    assert words["type"] == term("type", overlay["type"], "de")
    assert words["centers"] == [term("center", c, "de") for c in overlay["centers"]]
    assert found["labels"]["activations"]["northNode"] == term("body", "North Node", "de")
    drawn = (await post(client, key, "/v2/connections",
                        {"people": [ONE, TWO], "visual": True}, "?lang=ja")).json()
    composite = drawn["data"]["composite"]
    assert drawn["labels"]["composite"]["type"] == term("type", composite["type"], "ja")
    link = urlsplit(drawn["svgRenderUrl"])
    assert link.query.endswith("&lang=ja")
    image = await client.get(f"{link.path}?{link.query}")
    assert image.status_code == 200
    assert image.text == render_svg(connection_input(one_chart(), two_chart()), lang="ja")


async def test_time_searches_labels(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    found = (await post(client, key, "/v2/sensitivity", {**ONE, "windowMinutes": 60},
                        "?lang=es")).json()
    data, labels = found["data"], found["labels"]
    assert len(labels["changes"]) == len(data["changes"]) > 0
    for change, label in zip(data["changes"], labels["changes"], strict=True):
        assert label == {"side": term("side", change["side"].capitalize(), "es"),
                         "body": term("body", english_body_name(change["body"]), "es")}
    for segment, label in zip(data["segments"], labels["segments"], strict=True):
        assert label["type"] == term("type", segment["type"], "es")
        assert label["incarnationCross"] != segment["incarnationCross"]
        assert re.search(r"\(\d+/\d+ \| \d+/\d+\)$", label["incarnationCross"])
    calendar = (await post(client, key, "/v2/calendar",
                           {"from": "2024-01-01", "to": "2024-01-02", "lang": "zh-Hans"})).json()
    assert calendar["labels"] == [{"body": term("body", english_body_name(i["body"]), "zh-Hans")}
                                  for i in calendar["data"]]


async def test_batch_labels_per_item(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    bad = {**TWO, "lat": 100}
    answer = (await post(client, key, "/v2/charts/batch", {"births": [ONE, bad], "lang": "nl"})
              ).json()
    assert answer["labels"] == {"results": [one_chart().labels("nl"), {
        "message": "births[1]: lat moet een getal van -90 tot 90 zijn"}]}
    assert answer["data"]["results"][1]["errorCode"] == "INVALID_LATITUDE"


async def test_visual_link_carries_the_language(client: httpx.AsyncClient,
                                                book: Bookkeeper) -> None:
    key = new_key(book)
    plain = (await post(client, key, "/v2/visual-charts/coordinates", ONE)).json()
    asked = (await post(client, key, "/v2/visual-charts/coordinates", ONE, "?lang=pt")).json()
    assert asked["svgRenderUrl"] == plain["svgRenderUrl"] + "&lang=pt"
    assert asked["labels"] == one_chart().labels("pt")
    assert asked["data"] == plain["data"]


def test_the_document_states_lang_for_every_v2_operation() -> None:
    document = service_document()
    assert document["components"]["schemas"]["Language"]["enum"] == list(LANGUAGES)
    language = {"$ref": "#/components/schemas/Language"}
    for path, item in document["paths"].items():
        for operation in item.values():
            names = {p["name"]: p for p in operation["parameters"]}
            if path.startswith("/render/") or path in ("/", "/playground", "/docs",
                                                       "/openapi.json"):  # their own
                assert names["lang"]["schema"] == language
                continue
            if not path.startswith("/v2/"):
                assert "lang" not in names, path
                continue
            assert names["lang"]["in"] == "query" and names["lang"]["schema"] == language
            assert "INVALID_LANGUAGE" in operation["responses"]["400"]["description"]
            success = next(status for status in operation["responses"] if status < "300")
            answer = operation["responses"][success]
            labelled = success == "200" and "application/json" in answer["content"]
            # labels only on a 200 JSON answer: not the 202 of a job, not a streamed result
            assert ("Content-Language" in answer["headers"]) == labelled, path
            assert labelled or path.startswith("/v2/jobs"), path
            for media_type, body in operation.get("requestBody", {}).get(
                    "content", {}).items():  # lang is a member of a JSON body only
                if media_type == "application/json":
                    assert body["schema"]["allOf"][1]["properties"]["lang"] == language
                else:
                    assert "allOf" not in body["schema"], path


async def test_refusals_speak_the_asked_language(client: httpx.AsyncClient,
                                                 book: Bookkeeper) -> None:
    key = new_key(book)
    lat = await post(client, key, "/v2/charts/coordinates", {**ONE, "lat": 500}, "?lang=de")
    assert lat.status_code == 400 and lat.json()["errorCode"] == "INVALID_LATITUDE"
    assert lat.json()["message"] == "lat muss eine Zahl von -90 bis 90 sein"
    assert lat.headers["content-language"] == "de"
    by_body = await post(client, key, "/v2/charts/coordinates",
                         {**ONE, "lat": 500, "lang": "fr"})
    assert by_body.json()["message"] == "lat doit être un nombre de -90 à 90"
    located = await post(client, key, "/v2/connections",
                         {"people": [ONE, {**TWO, "birthdate": "1985-13-40"}]}, "?lang=es")
    assert located.json() == {**located.json(), "errorCode": "INVALID_BIRTHDATE",
                              "message": "people[1]: birthdate debe ser AAAA-MM-DD"}
    missing = await post(client, key, "/v2/cycles", ONE, "?lang=ja")
    assert missing.json()["errorCode"] == "MISSING_REQUIRED_FIELD"
    assert missing.json()["message"] == "必須フィールドがありません: year"
    no_key = await client.post("/v2/charts/coordinates?lang=ru", json=ONE)
    assert no_key.json()["errorCode"] == "API_KEY_MISSING"
    assert no_key.json()["message"] == "Отсутствует ключ API"
    # without lang, and on v1, the contract's English
    plain = await post(client, key, "/v2/charts/coordinates", {**ONE, "lat": 500})
    assert plain.json()["message"] == "lat must be a number from -90 to 90"
    assert "content-language" not in plain.headers
    v1 = await client.post("/v1/bodygraphs?lang=de", json={}, headers=v1_headers(key))
    assert v1.json()["message"] == "Missing required field: birthdate"


RECTIFY = {"date": "1980-01-03", "lat": 51.5074, "lng": -0.1278}


@pytest.mark.parametrize(("body", "query", "start"), [
    ({**RECTIFY, "constraints": {"type": "Generatr"}}, "?lang=de", "unbekannter Typ"),
    ({**RECTIFY, "constraints": {"colour": "red"}}, "?lang=ja", "不明な条件"),
    ({**RECTIFY, "constraints": {"profile": 3}}, "?lang=fr", "constraints.profile doit"),
    # the library's messages the catalogs did not hold before (English until then)
    ({**RECTIFY, "constraints": {"cross": "Foo"}}, "?lang=de",
     "unbekanntes Inkarnationskreuz 'Foo'; schreiben Sie seinen Namen wie"),
    ({**RECTIFY, "constraints": {"gates": [99]}}, "?lang=ja",
     "ゲート 99 は存在しません\uff1b1〜64 のゲートを使ってください"),
    ({**ONE, "boundMinutes": 5000}, "?lang=it", "boundMinutes deve essere"),
    ({"people": {"a": 1}}, "?lang=fr", "people doit être une liste de 2 naissances, et n'est"),
])
async def test_option_refusals_speak_the_asked_language(
        client: httpx.AsyncClient, book: Bookkeeper, body: dict[str, Any], query: str,
        start: str) -> None:
    """INVALID_OPTION (the library's own message, or the service's) and the service's
    other checks of an extension's members, in the language."""
    key = new_key(book)
    path = ("/v2/stability/coordinates" if "boundMinutes" in body else "/v2/connections"
            if "people" in body else "/v2/rectifications")
    plain = (await post(client, key, path, body)).json()
    asked = await post(client, key, path, body, query)
    assert asked.json()["errorCode"] == plain["errorCode"]
    assert asked.json()["message"].startswith(start), (plain, asked.json())
    assert asked.headers["content-language"] == query.removeprefix("?lang=")


async def test_a_batch_slots_refusal_is_labelled(client: httpx.AsyncClient,
                                                 book: Bookkeeper) -> None:
    key = new_key(book)
    answer = (await post(client, key, "/v2/charts/batch",
                         {"births": [{**ONE, "lat": 100}]}, "?lang=it")).json()
    slot = answer["data"]["results"][0]
    assert slot["message"] == "births[0]: lat must be a number from -90 to 90"
    assert answer["labels"] == {"results": [
        {"message": "births[0]: lat deve essere un numero da -90 a 90"}]}


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_service_message_is_translated(lang: str) -> None:
    from bodygraph.catalog.translations import Counted
    from bodygraph_server.http.error_words import LOCATED, MESSAGES, WITH_REQUEST_ID, translated

    forms = [english for m in (*MESSAGES, LOCATED, WITH_REQUEST_ID)
             for english in ((m.singular, m.plural) if isinstance(m, Counted) else (m,))]
    for english in forms:
        filled = english.format_map({name: f"<{name}>" for name in re.findall(
            r"\{(\w+)\}", english)}) if "{" in english else english
        if english in (LOCATED, WITH_REQUEST_ID):
            filled = english.format(where="people", message="Not found",
                                    request_id="abc")
        assert translated(filled, lang) != filled, (lang, english)


def test_labels_beside_any_envelope() -> None:
    from bodygraph_server.http.language import _labelled

    compact = b'{"success":true,"data":{"type":"Projector"},"svgRenderUrl":"https://x/a.svg?t=k"}'
    assert _labelled(compact, "de") == (
        b'{"success":true,"data":{"type":"Projector"},"svgRenderUrl":"https://x/a.svg?t=k'
        b'&lang=de","labels":{"type":"Projektor"}}')
    spaced = b'{"success": true, "data": [{"type": "Generator"}, {"at": "x"}]}\n'
    assert _labelled(spaced, "fr") == (
        b'{"success":true,"data":[{"type":"Generator"},{"at":"x"}],"labels":[{"type":'
        b'"G\xc3\xa9n\xc3\xa9rateur"},{}]}')
    # labels the handler wrote (a library result's own) are kept as they are
    own = b'{"success":true,"data":{"type":"Projector"},"labels":{"type":"mine"}}'
    assert _labelled(own, "de") == own
    assert _labelled(b'{"success":false,"data":null}', "de") is None
    assert _labelled(b"not json", "de") is None


@pytest.mark.parametrize("lang", [code for code in LANGUAGES if code != "en"])
async def test_the_docs_page_in_a_language(client: httpx.AsyncClient, lang: str) -> None:
    """``/docs?lang=``: the page's own words and the error codes' messages in the language
    (Swagger UI, drawn by its script, stays English); an unknown code is 400."""
    from bodygraph.catalog.translations import catalog
    from bodygraph_server.http.error_words import translated
    from bodygraph_server.http.errors import ERROR_TABLE

    say = catalog(lang).pgettext
    english = (await client.get("/docs")).text
    page = await client.get(f"/docs?lang={lang}")
    assert page.status_code == 200 and f"<html lang='{lang}'>" in page.text
    for heading in ("Authentication", "Endpoints", "Error codes"):
        assert f"<h2>{html.escape(say('page', heading))}</h2>" in page.text
        assert f"<h2>{heading}</h2>" in english
    untranslated = [spec.message for spec in ERROR_TABLE.values()
                    if translated(spec.message, lang) == spec.message]
    assert untranslated == []
    for spec in ERROR_TABLE.values():
        assert f"<td>{html.escape(translated(spec.message, lang))}</td>" in page.text
    assert f"href='playground?lang={lang}'" in page.text
    assert (await client.get("/docs?lang=xx")).status_code == 400
