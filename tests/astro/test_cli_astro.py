"""``bodygraph astro``: the JSON of the issue, the readable text, and bad input as one line
with exit status 2."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from bodygraph.catalog.translations import LANGUAGES
from bodygraph.cli.astro import astro_text
from bodygraph.cli.columns import display_width
from bodygraph.cli.main import main
from bodygraph.relations.astro import astro


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def test_json_with_a_place(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "astro", "--date", "1990-05-14", "--time", "08:30",
                            "--lat", "52.52", "--lng", "13.405", "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"activations", "angles", "houses"}
    assert set(data["activations"]) == {"personality", "design"}
    assert len(data["activations"]["design"]) == 13
    sun = data["activations"]["personality"]["sun"]
    assert set(sun) == {"gateLine", "longitude", "sign", "degree", "minute", "second",
                        "retrograde"}
    assert set(data["angles"]) == {"ascendant", "midheaven"}
    assert data["houses"]["system"] == "placidus" and len(data["houses"]["cusps"]) == 12
    assert data["houses"]["note"] is None
    assert "06:30:00 UTC" in err  # Berlin, summer time
    expected = astro(datetime(1990, 5, 14, 6, 30, tzinfo=UTC), 52.52, 13.405).to_dict()
    assert data == expected


def test_utc_with_coordinates_whole_sign_and_tz(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "astro", "--utc", "1990-05-14T06:30:00Z", "--lat", "-33.9",
                          "--lng", "18.4", "--houses", "whole-sign", "--json")
    assert status == 0
    houses = json.loads(out)["houses"]
    assert houses["system"] == "whole-sign" and houses["cusps"][0] % 30 == 0
    status, out, _ = _run(capsys, "astro", "--date", "1990-05-14", "--time", "08:30", "--tz",
                          "Europe/Berlin", "--lat", "52.52", "--lng", "13.405", "--json")
    assert status == 0
    assert json.loads(out) == astro(datetime(1990, 5, 14, 6, 30, tzinfo=UTC), 52.52,
                                    13.405).to_dict()


def test_without_a_place_angles_and_houses_are_null(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "astro", "--utc", "1980-01-03T08:30:00Z", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["angles"] is None and data["houses"] is None
    status, out, _ = _run(capsys, "astro", "--utc", "1980-01-03T08:30:00Z")
    assert status == 0 and "12°06'49\" Capricorn" in out and "give the place" in out


def test_beyond_the_polar_circle_a_note_and_whole_sign(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "astro", "--utc", "1990-05-14T06:30:00Z", "--lat", "78.2",
                          "--lng", "15.6")
    assert status == 0
    assert "Houses (whole-sign)" in out and "undefined at latitude 78.2" in out


@pytest.mark.parametrize(("args", "words"), [
    (["--lat", "91", "--lng", "0"], "outside -90 to 90"),
    (["--lat", "-90", "--lng", "0"], "pole"),
    (["--lat", "10", "--lng", "200"], "outside -180 to 180"),
    (["--lat", "10"], "together"),
    (["--houses", "placidus"], "needs the place"),
    (["--lat", "10", "--lng", "0", "--houses", "koch"], "not a house system"),
    (["--tz", "Europe/Berlin"], "not both"),
])
def test_bad_input_is_one_line_and_status_2(
        capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    status, _, err = _run(capsys, "astro", "--utc", "1990-05-14T06:30:00Z", *args)
    assert status == 2
    assert err.startswith("bodygraph: error: ") and len(err.strip().splitlines()) == 1
    assert words in err and "Traceback" not in err


def test_a_place_gives_the_coordinates_and_the_zone(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "astro", "--date", "1990-05-14", "--time", "08:30",
                            "--place", "Berlin, Germany", "--json")
    assert status == 0
    found = re.search(r"\(([\d.]+)° N, ([\d.]+)° E\)", err)
    assert found is not None and "06:30:00 UTC" in err
    lat, lng = float(found.group(1)), float(found.group(2))
    data = json.loads(out)
    expected = astro(datetime(1990, 5, 14, 6, 30, tzinfo=UTC), lat, lng).to_dict()
    assert data["activations"] == expected["activations"]
    assert data["angles"]["ascendant"] == pytest.approx(expected["angles"]["ascendant"],
                                                        abs=0.01)  # 4 decimals in the note
    status, _, err = _run(capsys, "astro", "--date", "1990-05-14", "--time", "08:30",
                          "--place", "Berlin", "--lat", "1", "--lng", "2")
    assert status == 2 and "not both" in err


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_columns_line_up_in_every_language(lang: str) -> None:
    """Every body's row starts its two positions at the same terminal column, however long
    the language's names of bodies and signs."""
    data = astro(datetime(1980, 1, 3, 8, 30, tzinfo=UTC), 51.5, -0.1).to_dict()
    rows = astro_text(data, lang).splitlines()

    def columns(row: str) -> list[int]:
        return [display_width(row[:m.start()]) for m in re.finditer("°", row)]

    positions = {tuple(columns(row)) for row in rows[1:14]}
    assert len(positions) == 1 and len(next(iter(positions))) == 2, rows[:14]
