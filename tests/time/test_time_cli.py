"""``bodygraph sensitivity``, ``cycles`` and ``calendar``, in process."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bodygraph.cli.main import main
from bodygraph.relations.calendar import calendar
from bodygraph.relations.sensitivity import sensitivity

UTC_BIRTH = ["--utc", "1980-01-03T08:30:00Z"]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_sensitivity_json_is_the_library_answer(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "sensitivity", *UTC_BIRTH, "--window", "90m", "--json")
    birth = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
    assert printed == sensitivity(birth, timedelta(minutes=90)).to_dict()
    assert isinstance(printed, dict)
    assert (printed["from"], printed["to"]) == ("1980-01-03T07:00:00.000Z",
                                                "1980-01-03T10:00:00.000Z")
    assert set(printed["segments"][0]) == {"from", "to", "type", "profile", "authority",
                                           "definition", "incarnationCross"}


def test_sensitivity_from_a_local_birth_reads_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", "--date", "1980-01-03", "--time", "09:30", "--tz",
                 "Europe/Berlin", "--window", "2h"]) == 0
    captured = capsys.readouterr()
    assert "-> 1980-01-03 08:30:00 UTC" in captured.err
    assert "Segments" in captured.out and "profile 3/5 -> 3/6" in captured.out
    assert "Design Moon 24.6 -> 2.1; type, profile, authority, definition and cross " \
        "unchanged" in captured.out


def test_each_sensitivity_segment_says_what_changes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensitivity", *UTC_BIRTH, "--window", "2h"]) == 0
    out = capsys.readouterr().out
    segments = [line for line in out.splitlines() if line.startswith("  1980-")]
    assert len(segments) == 8
    what = [line.split(" UTC  ", 1)[1] for line in segments]
    assert len(set(what)) == len(what)  # no two lines read the same
    assert what[0].startswith("3/5 Generator, Emotional, Triple Split Definition")
    assert what[5] == ("Design Sun 48.5 -> 48.6, Design Earth 21.5 -> 21.6; profile 3/5 -> "
                       "3/6")
    assert what[3].endswith("unchanged  (the birth)")
    assert "Changes:" not in out


def test_cycles_json(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "cycles", *UTC_BIRTH, "--year", "2026", "--json")
    assert printed == {
        "solarReturn": "2026-01-02T12:23:47.000Z",
        "saturnReturn": ["2009-10-04T00:33:55.000Z"],
        "uranusOpposition": ["2024-05-31T17:58:35.000Z", "2024-12-14T13:22:36.000Z",
                             "2025-03-17T16:05:19.000Z"],
    }


def test_cycles_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cycles", *UTC_BIRTH, "--year", "2026"]) == 0
    out = capsys.readouterr().out
    assert "Solar return 2026: 2026-01-02 12:23:47 UTC" in out
    assert "Uranus opposition: 2024-05-31 17:58:35 UTC, 2024-12-14" in out


def test_calendar_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _json(capsys, "calendar", "--from", "2024-01-22", "--to", "2024-01-22",
                    "--body", "sun,earth", "--json")
    assert printed == [
        {"at": "2024-01-22T13:17:56.000Z", "body": "sun", "gate": "41", "line": "1"},
        {"at": "2024-01-22T13:17:56.000Z", "body": "earth", "gate": "31", "line": "1"},
    ]
    assert main(["calendar", "--from", "2024-03-01", "--to", "2024-03-02", "--body", "moon",
                 "--level", "line"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start, end = datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 3, 3, tzinfo=UTC)
    assert len(lines) == len(calendar(start, end, ["moon"], "line")) > 20
    assert all(" Moon " in line and " enters " in line for line in lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sensitivity", "--utc", "1700-01-01T00:00:00Z"], "outside the supported range"),
        (["sensitivity", *UTC_BIRTH, "--window", "0m"], "more than 0"),
        (["sensitivity", *UTC_BIRTH, "--window", "49h"], "at most 48 hours"),
        (["sensitivity", *UTC_BIRTH, "--window", "soon"], "not a span of time"),
        (["cycles", *UTC_BIRTH, "--year", "2300"], "outside the ephemeris"),
        (["cycles", *UTC_BIRTH, "--year", "1970"], "after the birth year"),
        (["cycles", "--utc", "2190-01-01T00:00:00Z"], "outside the ephemeris"),
        (["calendar", "--from", "1700-01-01", "--to", "1700-02-01"], "outside the ephemeris"),
        (["calendar", "--from", "2024-02-01", "--to", "2024-01-01"], "before --from"),
        (["calendar", "--from", "2024-13-01", "--to", "2024-12-01"], "not a date"),
        (["calendar", "--from", "2024-01-01", "--to", "2024-01-02", "--body", "chiron"],
         "unknown body"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str], args: list[str],
                                            message: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
