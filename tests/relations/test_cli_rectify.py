"""``bodygraph stability`` and ``bodygraph rectify``: JSON, readable text, bad input."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bodygraph.cli.main import main
from bodygraph.relations import constraints, rectify, stability

BIRTH = ["--utc", "1980-01-03T08:30:00Z"]
LONDON = ["--date", "1980-01-03", "--tz", "Europe/London"]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main([*args, "--json"]) == 0
    printed: dict[str, object] = json.loads(capsys.readouterr().out)
    return printed


def test_stability_json_is_the_library_answer(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "stability", *BIRTH, "--bound", "6h")
    birth = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
    assert printed == stability(birth, timedelta(hours=6)).to_dict()
    assert printed["birth"] == "1980-01-03T08:30:00.000Z"
    local = _json(capsys, "stability", "--date", "1980-01-03", "--time", "08:30", "--tz",
                  "Europe/London", "--bound", "6h")
    assert local == printed


def test_stability_reads_as_the_issue_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stability", *BIRTH]) == 0
    out = capsys.readouterr().out
    assert "how far each value holds either side (times UTC, bound 12 h)" in out
    assert ("  profile 3/5 from before 1980-01-02 20:30:00 to 10:14:16 (more than 12 h "
            "earlier, 1 h 44 min later)") in out
    assert ("  definition Triple Split Definition from 1980-01-02 22:10:06 to 16:22:22 "
            "(10 h 19 min earlier, 7 h 52 min later)") in out
    assert "  Moon 62.4 from 08:28:19 to 10:15:25 (1 min earlier, 1 h 45 min later)" in out
    assert "Activations (design):" in out


def test_rectify_json_is_the_library_answer(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "rectify", *LONDON, "--profile", "3/5", "--type", "Generator",
                    "--authority", "Emotional")
    expected = rectify(date(1980, 1, 3), constraints(profile="3/5", type="Generator",
                                                     authority="Emotional"),
                       zone=ZoneInfo("Europe/London")).to_dict()
    assert printed == expected
    assert printed["searched"] == {"from": "1980-01-03T00:00:00.000Z",
                                   "to": "1980-01-04T00:00:00.000Z",
                                   "fromLocal": "1980-01-03T00:00:00+00:00",
                                   "toLocal": "1980-01-04T00:00:00+00:00",
                                   "zone": "Europe/London"}
    windows = printed["windows"]
    assert isinstance(windows, list) and windows
    assert set(windows[0]) == {"from", "to", "fromLocal", "toLocal", "fromPass", "toPass",
                               "chart"}
    assert set(windows[0]["chart"]) == {"type", "profile", "authority", "definition",
                                        "incarnationCross"}


def test_rectify_by_place_and_every_kind_of_constraint(
        capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "rectify", "--date", "1980-01-03", "--place",
                    "London, United Kingdom", "--from-time", "06:00", "--to-time", "12:00",
                    "--activation", "personality.sun=38.3", "--activation", "design.sun=48",
                    "--center", "Sacral", "--channel", "57-10", "--gate", "38",
                    "--strategy", "To Respond", "--definition", "Triple Split",
                    "--cross", "38/39/48/21")
    assert printed["searched"] == {"from": "1980-01-03T06:00:00.000Z",
                                   "to": "1980-01-03T12:00:00.000Z",
                                   "fromLocal": "1980-01-03T06:00:00+00:00",
                                   "toLocal": "1980-01-03T12:00:00+00:00",
                                   "zone": "Europe/London"}
    assert printed["windows"]


def test_rectify_reads_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rectify", *LONDON, "--profile", "3/5", "--type", "Generator"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Searched 1980-01-03 00:00:00 GMT to 1980-01-04 00:00:00 GMT "
                          "(Europe/London)")
    assert ("  1980-01-03 00:00:00 GMT to 1980-01-03 10:14:16 GMT  (UTC 00:00:00 to "
            "10:14:16)") in out
    assert "3/5 Generator, Emotional authority, Triple Split Definition" in out
    assert main(["rectify", *LONDON, "--type", "Reflector", "--center", "Sacral"]) == 0
    assert "No birth time in the search fits all the constraints." in capsys.readouterr().out


def test_a_utc_time_on_another_day_than_the_local_one_has_its_date(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rectify", "--date", "1980-01-03", "--tz", "Asia/Tokyo", "--profile",
                 "3/5"]) == 0
    out = capsys.readouterr().out
    assert ("1980-01-03 00:06:02 JST to 1980-01-03 07:10:06 JST  (UTC 1980-01-02 15:06:02 "
            "to 1980-01-02 22:10:06)") in out
    assert ("1980-01-03 07:10:06 JST to 1980-01-03 19:14:16 JST  (UTC 1980-01-02 22:10:06 "
            "to 10:14:16)") in out


def test_rectify_marks_the_passes_of_a_fold(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rectify", "--date", "2024-10-27", "--tz", "Europe/London", "--from-time",
                 "01:15", "--to-time", "01:45", "--activation", "personality.moon=59"]) == 0
    out = capsys.readouterr().out
    assert ("2024-10-27 01:15:00 BST (first pass) to 2024-10-27 01:45:00 GMT (second pass)"
            in out)


@pytest.mark.parametrize(("args", "message"), [
    (["rectify", *LONDON], "give at least one constraint: --type, --profile"),
    (["rectify", *LONDON, "--profile", "1/5"], "profile '1/5' does not exist; use one of"),
    (["rectify", *LONDON, "--type", "Manifesting"], "unknown type 'Manifesting'; use one of"),
    (["rectify", *LONDON, "--authority", "Heart"], "unknown authority 'Heart'; use one of"),
    (["rectify", *LONDON, "--definition", "Double"], "unknown definition"),
    (["rectify", *LONDON, "--strategy", "Wait"], "unknown strategy"),
    (["rectify", *LONDON, "--center", "Heart"], "unknown center 'Heart'"),
    (["rectify", *LONDON, "--channel", "1-2"], "unknown channel '1-2'"),
    (["rectify", *LONDON, "--gate", "65"], "gate '65' does not exist"),
    (["rectify", *LONDON, "--activation", "personality.sun=38.9"], "line 9"),
    (["rectify", *LONDON, "--cross", "Cross of Nothing"], "unknown incarnation cross"),
    (["rectify", *LONDON, "--type", "Generator", "--to-date", "1980-01-10"],
     "is 8 days; give at most 7 days"),
    (["rectify", *LONDON, "--type", "Generator", "--to-date", "1980-01-02"], "before the first"),
    (["rectify", *LONDON, "--type", "Generator", "--from-time", "25:00"], "time"),
    (["rectify", "--date", "1980-13-03", "--tz", "Europe/London", "--type", "Generator"],
     "no day"),
    (["rectify", "--date", "1980-01-03", "--type", "Generator"], "give exactly one of --tz"),
    (["rectify", *LONDON, "--lat", "51.5", "--lng", "0", "--type", "Generator"],
     "give exactly one of --tz"),
    (["rectify", "--date", "1980-01-03", "--lat", "51.5", "--type", "Generator"],
     "--lat and --lng together"),
    (["rectify", "--date", "1980-01-03", "--tz", "Mars/Olympus", "--type", "Generator"],
     "Mars/Olympus"),
    (["rectify", "--date", "1700-01-03", "--tz", "Europe/London", "--type", "Generator"],
     "outside the ephemeris"),
    (["stability", *BIRTH, "--bound", "49h"], "at most 48 hours"),
    (["stability", *BIRTH, "--bound", "0m"], "more than 0"),
    (["stability", *BIRTH, "--bound", "later"], "--bound 'later' is not a span of time"),
    (["stability", "--utc", "1700-01-01T00:00:00Z"], "outside the supported range"),
])
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                            args: list[str], message: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
