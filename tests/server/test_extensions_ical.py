"""``Accept: text/calendar`` on /v2/calendar and /v2/cycles, in process: the iCalendar
document read back by vobject (a parser sharing no code with the icalendar library that
writes it) holds the same instants as the JSON answer and is the command line's ``--ics``;
1 credit; an Accept of nothing the endpoint answers is 406 in the error envelope, free."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import vobject

from bodygraph.cli.main import main as cli
from bodygraph_server.billing.accounts import Bookkeeper

from .conftest import new_key, v2_headers
from .test_endpoints import balance
from .test_extensions import ONE, PLACE, cli_args

pytestmark = pytest.mark.anyio

CALENDAR = {"from": "2024-03-01", "to": "2024-03-31", "bodies": ["sun", "moon", "mars"]}
ICAL = "text/calendar"


def _events(document: bytes) -> list[Any]:
    parsed = vobject.readOne(document.decode("utf-8"), validate=True)
    assert parsed.validate(raiseException=True)
    return list(parsed.contents.get("vevent", []))


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _ask(client: httpx.AsyncClient, key: str, path: str, body: Any, accept: str,
               geocode: str | None = None) -> httpx.Response:
    return await client.post(path, json=body,
                             headers={**v2_headers(key, geocode=geocode), "Accept": accept})


def _cli_ics(tmp_path: Path, *argv: str) -> bytes:
    target = tmp_path / "out.ics"
    assert cli([*argv, "--ics", str(target)]) == 0
    return target.read_bytes()


async def test_calendar_as_icalendar(client: httpx.AsyncClient, book: Bookkeeper,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = new_key(book)
    before = balance(book, key)
    answer = await _ask(client, key, "/v2/calendar", CALENDAR, ICAL)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/calendar; charset=utf-8"
    assert answer.headers["vary"] == "Accept"
    assert balance(book, key) == before - 1
    events = _events(answer.content)
    listed = (await _ask(client, key, "/v2/calendar", CALENDAR, "application/json")).json()
    ingresses = listed["data"]
    assert len(events) == len(ingresses) > 30
    assert [e.dtstart.value for e in events] == [_instant(i["at"]) for i in ingresses]
    assert all(e.dtstart.value.utcoffset().total_seconds() == 0 for e in events)
    assert events[0].summary.value.endswith(f"enters gate {ingresses[0]['gate']}")
    assert len({e.uid.value for e in events}) == len(events)
    assert answer.content == _cli_ics(tmp_path, "calendar", "--from", CALENDAR["from"],
                                      "--to", CALENDAR["to"], "--body", "sun,moon,mars")
    capsys.readouterr()
    assert balance(book, key) == before - 2


async def test_cycles_as_icalendar(client: httpx.AsyncClient, book: Bookkeeper,
                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = new_key(book)
    body = {**ONE, "year": 2030}
    answer = await _ask(client, key, "/v2/cycles", body, "text/calendar, */*;q=0.1")
    assert answer.status_code == 200, answer.text
    events = _events(answer.content)
    data = (await _ask(client, key, "/v2/cycles", body, "*/*")).json()["data"]
    returns = [data["solarReturn"], *data["saturnReturn"], *data["uranusOpposition"]]
    assert [e.dtstart.value for e in events] == [_instant(at) for at in returns]
    assert len(events) == 5 and events[0].summary.value == "Solar return 2030"
    assert answer.content == _cli_ics(tmp_path, "cycles", *cli_args(ONE), "--year", "2030")
    capsys.readouterr()
    # a birth by place name: the same document as by its coordinates' zone
    placed = await _ask(client, key, "/v2/cycles", {**PLACE, "year": 2031}, "text/*",
                        geocode="geo-key")
    assert placed.status_code == 200 and placed.headers["content-type"].startswith(ICAL)
    assert _events(placed.content)[0].summary.value == "Solar return 2031"


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_icalendar_in_a_language_is_the_command_lines(
        client: httpx.AsyncClient, book: Bookkeeper, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], lang: str) -> None:
    key = new_key(book)
    calendar = await client.post(f"/v2/calendar?lang={lang}", json=CALENDAR,
                                 headers={**v2_headers(key), "Accept": ICAL})
    assert calendar.status_code == 200, calendar.text
    assert calendar.headers["content-language"] == lang
    assert "enters gate" not in calendar.text
    assert calendar.content == _cli_ics(tmp_path, "calendar", "--from", CALENDAR["from"],
                                        "--to", CALENDAR["to"], "--body", "sun,moon,mars",
                                        "--lang", lang)
    cycles = await _ask(client, key, "/v2/cycles", {**ONE, "year": 2030, "lang": lang}, ICAL)
    assert cycles.headers["content-language"] == lang
    assert "Solar return" not in cycles.text
    assert cycles.content == _cli_ics(tmp_path, "cycles", *cli_args(ONE), "--year", "2030",
                                      "--lang", lang)
    capsys.readouterr()


@pytest.mark.parametrize("path", ["/v2/calendar", "/v2/cycles"])
@pytest.mark.parametrize("accept", ["application/xml", "text/calendar;q=0, application/json;q=0",
                                    "image/*", "garbage"])
async def test_an_accept_of_nothing_answered_is_406(client: httpx.AsyncClient,
                                                    book: Bookkeeper, path: str,
                                                    accept: str) -> None:
    key = new_key(book)
    before = balance(book, key)
    body = CALENDAR if path == "/v2/calendar" else {**ONE, "year": 2030}
    answer = await _ask(client, key, path, body, accept)
    assert answer.status_code == 406, answer.text
    shape = answer.json()
    assert (shape["success"], shape["errorCode"], shape["type"], shape["data"]) == (
        False, "INVALID_REQUEST_BODY", "", None)
    assert "text/calendar" in shape["message"]
    assert balance(book, key) == before


@pytest.mark.parametrize("accept", ["application/json", "*/*", "",
                                    "text/calendar;q=0.2, application/json"])
async def test_json_stays_the_default(client: httpx.AsyncClient, book: Bookkeeper,
                                      accept: str) -> None:
    answer = await _ask(client, new_key(book), "/v2/calendar", CALENDAR, accept)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["type"] == "CalendarResult"


async def test_refusals_stay_json(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    answer = await _ask(client, key, "/v2/cycles", {**ONE, "year": 1980}, ICAL)
    assert answer.status_code == 422
    assert answer.json()["errorCode"] == "INVALID_REQUEST_BODY"
    answer = await _ask(client, key, "/v2/calendar", {**CALENDAR, "to": "2023-01-01"}, ICAL)
    assert answer.status_code == 422
