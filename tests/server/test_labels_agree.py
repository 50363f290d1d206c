"""One definition of the words of each result: the service's ``labels`` (``?lang=``) equal
the ``"labels"`` the command line's ``--json --lang`` prints for the same input, in every
family that has both."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from bodygraph import calculate
from bodygraph.cli.main import main
from bodygraph_server.billing.accounts import Bookkeeper

from .conftest import new_key, v2_headers

pytestmark = pytest.mark.anyio

ONE = {"birthdate": "1990-05-14", "birthtime": "08:30", "lat": 52.52, "lng": 13.405}
TWO = {"birthdate": "1985-07-09", "birthtime": "14:00", "lat": 40.7128, "lng": -74.006}
THREE = {"birthdate": "1979-11-23", "birthtime": "23:05", "lat": -33.8688, "lng": 151.2093}
ONE_ARGS = ["--date", "1990-05-14", "--time", "08:30", "--lat", "52.52", "--lng", "13.405"]
AT = "2024-03-20T03:06:00Z"


def utc(year: int, month: int, day: int, hour: int, minute: int, zone: str) -> list[str]:
    """``--utc`` of a local birth (the service finds the same zone from the point)."""
    birth = calculate(datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(zone)))
    return ["--utc", birth.birth_utc.strftime("%Y-%m-%dT%H:%M:%SZ")]


def people(count: int) -> list[str]:
    births = [utc(1990, 5, 14, 8, 30, "Europe/Berlin"), utc(1985, 7, 9, 14, 0,
              "America/New_York"), utc(1979, 11, 23, 23, 5, "Australia/Sydney")]
    return [arg for birth in births[:count] for arg in birth]


#: family: (path, body, command line, language)
FAMILIES: dict[str, tuple[str, dict[str, Any], list[str], str]] = {
    "chart": ("/v2/charts/coordinates", ONE, ["chart", *ONE_ARGS], "de"),
    "transit": ("/v2/transits", {"at": AT, "natal": ONE},
                ["transit", "--at", AT, *ONE_ARGS], "ja"),
    "transit alone": ("/v2/transits", {"at": AT}, ["transit", "--at", AT], "fr"),
    "connection": ("/v2/connections", {"people": [ONE, TWO]},
                   ["connection", *people(2)], "es"),
    "penta": ("/v2/pentas", {"people": [ONE, TWO, THREE]}, ["penta", *people(3)], "ru"),
    "sensitivity": ("/v2/sensitivity", {**ONE, "windowMinutes": 20},
                    ["sensitivity", *ONE_ARGS, "--window", "20m"], "pt"),
    "cycles": ("/v2/cycles", {**ONE, "year": 2024},
               ["cycles", *ONE_ARGS, "--year", "2024"], "it"),
    "stability": ("/v2/stability/coordinates", {**ONE, "boundMinutes": 120},
                  ["stability", *ONE_ARGS, "--bound", "2h"], "nl"),
    "rectification": ("/v2/rectifications", {
        "date": "1980-01-03", "lat": 51.5074, "lng": -0.1278, "fromTime": "07:00",
        "toTime": "10:00", "constraints": {"profile": "3/5", "type": "Generator"}},
        ["rectify", "--date", "1980-01-03", "--lat", "51.5074", "--lng", "-0.1278",
         "--from-time", "07:00", "--to-time", "10:00", "--profile", "3/5", "--type",
         "Generator"], "zh-Hans"),
    "hologenetic": ("/v2/hologenetic-profiles/coordinates", ONE,
                    ["hologenetic", *ONE_ARGS], "de"),
    "astro": ("/v2/astro/coordinates", ONE, ["astro", *ONE_ARGS], "fr"),
    "astro polar": ("/v2/astro/coordinates", {**ONE, "lat": 70.0, "lng": 10.0},
                    ["astro", "--date", "1990-05-14", "--time", "08:30", "--lat", "70",
                     "--lng", "10"], "ja"),
}


def printed(capsys: pytest.CaptureFixture[str], args: list[str]) -> Any:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("family", FAMILIES)
async def test_the_services_labels_are_the_command_lines(
        client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str],
        family: str) -> None:
    path, body, args, lang = FAMILIES[family]
    answer = await client.post(f"{path}?lang={lang}", json=body, headers=v2_headers(
        new_key(book)))
    assert answer.status_code == 200, answer.text
    served = answer.json()
    cli = printed(capsys, [*args, "--json", "--lang", lang])
    assert served["data"] == {k: v for k, v in cli.items() if k != "labels"}
    assert served["labels"] == cli["labels"]
    assert served["labels"]  # every family here has words
    assert answer.headers["content-language"] == lang


async def test_the_calendars_labels_are_each_ingresss(
        client: httpx.AsyncClient, book: Bookkeeper,
        capsys: pytest.CaptureFixture[str]) -> None:
    answer = (await client.post("/v2/calendar?lang=ru", headers=v2_headers(new_key(book)),
                                json={"from": "2024-03-20", "to": "2024-03-21",
                                      "bodies": ["sun", "moon", "mars"]})).json()
    cli = printed(capsys, ["calendar", "--from", "2024-03-20", "--to", "2024-03-21",
                           "--body", "sun,moon,mars", "--json", "--lang", "ru"])
    assert answer["data"] == [{k: v for k, v in i.items() if k != "labels"} for i in cli]
    assert answer["labels"] == [i["labels"] for i in cli]
    assert len(cli) > 2
