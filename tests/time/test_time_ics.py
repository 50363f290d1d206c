"""``bodygraph calendar --ics`` and ``cycles --ics``, and :mod:`bodygraph.relations.ical`:
the files read back by vobject, a parser that shares no code with the icalendar library
that writes them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import vobject

from bodygraph.cli.main import main
from bodygraph.relations.calendar import calendar, calendar_columns
from bodygraph.relations.common import to_second
from bodygraph.relations.cycles import cycles_of
from bodygraph.relations.ical import ENGLISH, EVENTS_STAMP, PRODID, cycles_to_ical, to_ical

UTC_BIRTH = ["--utc", "1980-01-03T08:30:00Z"]
SCRIPT = Path(sys.executable).with_name("bodygraph")


def _read(document: bytes) -> Any:
    """The document as vobject reads and validates it (DTSTAMP and UID in every event)."""
    parsed = vobject.readOne(document.decode("utf-8"), validate=True)
    assert parsed.validate(raiseException=True)
    return parsed


def _events(document: bytes) -> list[Any]:
    return list(_read(document).contents.get("vevent", []))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[Any, bytes]:
    """Run a command with ``--json`` and ``--ics FILE``: its JSON and the file's bytes."""
    target = Path(args[-1])
    assert main([*args[:-1], "--json", "--ics", str(target)]) == 0
    return json.loads(capsys.readouterr().out), target.read_bytes()


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _check_lines(document: bytes) -> None:
    """RFC 5545 section 3.1: lines end in CRLF and are at most 75 octets long."""
    assert document.endswith(b"\r\n")
    lines = document.split(b"\r\n")[:-1]
    assert all(b"\n" not in line and b"\r" not in line for line in lines)
    assert max(len(line) for line in lines) <= 75


def test_calendar_file_holds_the_json_ingresses(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    printed, document = _run(capsys, "calendar", "--from", "2024-01-01", "--to", "2024-01-31",
                             "--body", "sun,moon,northNode", str(tmp_path / "jan.ics"))
    events = _events(document)
    assert len(events) == len(printed) > 40
    assert [e.dtstart.value for e in events] == [_instant(i["at"]) for i in printed]
    assert all(e.dtstart.value.utcoffset().total_seconds() == 0 for e in events)
    assert re.findall(rb"DTSTART:(\d{8}T\d{6}Z)\r\n", document) and b"DTSTART;" not in document
    assert all(not hasattr(e, "dtend") and not hasattr(e, "duration") for e in events)
    uids = [e.uid.value for e in events]
    assert len(set(uids)) == len(uids)
    names = {"sun": "Sun", "moon": "Moon", "northNode": "North Node"}
    assert [e.summary.value for e in events] == [
        f"{names[i['body']]} enters gate {i['gate']}" for i in printed]
    assert {i["body"] for i in printed} == set(names)
    assert all(e.dtstamp.value == EVENTS_STAMP for e in events)
    assert events[0].description.value == f"{events[0].summary.value} (by line " \
        f"{printed[0]['line']}) at {printed[0]['at'][:19].replace('T', ' ')} UTC."
    calendar_props = _read(document)
    assert calendar_props.prodid.value == PRODID and calendar_props.version.value == "2.0"
    _check_lines(document)


def test_same_request_same_bytes_and_overlaps_share_uids(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    first = ["calendar", "--from", "2024-03-01", "--to", "2024-03-20", "--body", "moon,mars"]
    _, once = _run(capsys, *first, str(tmp_path / "a.ics"))
    _, again = _run(capsys, *first, str(tmp_path / "b.ics"))
    assert once == again
    _, later = _run(capsys, "calendar", "--from", "2024-03-10", "--to", "2024-03-31",
                    "--body", "moon", str(tmp_path / "c.ics"))
    before = {e.uid.value: (e.dtstart.value, e.summary.value) for e in _events(once)}
    after = {e.uid.value: (e.dtstart.value, e.summary.value) for e in _events(later)}
    overlap = {uid: what for uid, what in before.items()
               if what[0] > datetime(2024, 3, 10, tzinfo=UTC) and what[1].startswith("Moon")}
    assert len(overlap) >= 5
    assert all(after[uid] == what for uid, what in overlap.items())
    assert len(set(before) | set(after)) == len(before) + len(after) - len(overlap)


def test_uids_tell_levels_and_node_kinds_apart() -> None:
    start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 4, 1, tzinfo=UTC)
    true, mean = (calendar(start, end, ["sun", "northNode"], node=node)
                  for node in ("true", "mean"))

    def uids(found: list[Any], node: Any, level: Any = "gate") -> dict[str, str]:
        document = to_ical(found, level, node=node)
        return {e.uid.value: e.summary.value for e in _events(document)}

    sun_true = {u for u, s in uids(true, "true").items() if s.startswith("Sun")}
    sun_mean = {u for u, s in uids(mean, "mean").items() if s.startswith("Sun")}
    assert sun_true == sun_mean and len(sun_true) > 10
    # the same node entries, read as true or mean nodes, are different events
    node_only = [i for i in true if i.body.value == "northNode"]
    assert node_only
    assert not set(uids(node_only, "true")) & set(uids(node_only, "mean"))
    assert not set(uids(true, "true")) & set(uids(true, "true", "line"))
    assert all("enters line" in s for s in uids(true, "true", "line").values())
    line_event = _events(to_ical(true[:1], "line"))[0]
    assert line_event.description.value == f"{line_event.summary.value} at " \
        f"{to_second(true[0].at).strftime('%Y-%m-%d %H:%M:%S')} UTC."


def test_columns_give_the_same_document() -> None:
    start, end = datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 5, 9, tzinfo=UTC)
    columns = calendar_columns(start, end, ["moon", "venus"], "line")
    assert len(columns) > 20
    assert to_ical(columns, "line", first="2024-05-01", last="2024-05-08") == \
        to_ical(calendar(start, end, ["moon", "venus"], "line"), "line", first="2024-05-01",
                last="2024-05-08")


def test_cycles_file_holds_the_json_instants(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    printed, document = _run(capsys, "cycles", *UTC_BIRTH, "--year", "2026",
                             str(tmp_path / "cycles.ics"))
    events = _events(document)
    wanted = [printed["solarReturn"], *printed["saturnReturn"], *printed["uranusOpposition"]]
    assert [e.dtstart.value for e in events] == [_instant(t) for t in wanted]
    assert [e.summary.value for e in events] == [
        "Solar return 2026", "Saturn return (pass 1 of 1)", "Uranus opposition (pass 1 of 3)",
        "Uranus opposition (pass 2 of 3)", "Uranus opposition (pass 3 of 3)"]
    assert len({e.uid.value for e in events}) == 5
    _check_lines(document)
    # another year's file: the same Saturn and Uranus events, a new solar return
    _, other = _run(capsys, "cycles", *UTC_BIRTH, "--year", "2027", str(tmp_path / "b.ics"))
    assert [e.uid.value for e in _events(other)][1:] == [e.uid.value for e in events][1:]
    assert _events(other)[0].uid.value != events[0].uid.value
    # another birth: other events
    later = cycles_to_ical(cycles_of(datetime(1980, 1, 3, 8, 31, tzinfo=UTC), 2026))
    assert not {e.uid.value for e in _events(later)} & {e.uid.value for e in events}


def test_long_translated_words_are_folded_at_75_octets() -> None:
    found = cycles_of(datetime(1980, 1, 3, 8, 30, tzinfo=UTC), 2026)
    long_words = replace(ENGLISH, solar_return="太陽回帰 {year} " + "日本語の長い説明 " * 12,
                         cycles_name="Sonnenrückkehr " * 10)
    document = cycles_to_ical(found, words=long_words)
    _check_lines(document)
    assert max(len(line) for line in document.split(b"\r\n")) > 70  # folding was needed
    parsed = _read(document)
    assert parsed.vevent.summary.value == long_words.solar_return.format(year=2026)
    assert parsed.contents["name"][0].value == "Sonnenrückkehr " * 10


def test_an_empty_range_is_a_calendar_without_events(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    printed, document = _run(capsys, "calendar", "--from", "2024-01-02", "--to", "2024-01-02",
                             "--body", "pluto", str(tmp_path / "none.ics"))
    assert printed == [] and _events(document) == []
    _check_lines(document)


def test_ics_to_standard_output(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["cycles", *UTC_BIRTH, "--year", "2026", "--ics", "-"]) == 0
    out = capsysbinary.readouterr().out
    assert out.startswith(b"BEGIN:VCALENDAR\r\n") and b"Solar return: " not in out
    assert len(_events(out)) == 5


def test_console_script_writes_the_same_bytes(tmp_path: Path) -> None:
    """The real ``bodygraph`` process: ``--ics FILE`` beside the text, ``--ics -`` alone on
    standard output, both the bytes the library writes (CRLF kept, nothing else)."""
    args = [str(SCRIPT), "cycles", *UTC_BIRTH, "--year", "2026"]
    target = tmp_path / "cycles.ics"
    to_file = subprocess.run([*args, "--ics", str(target)], capture_output=True, timeout=300,
                             check=False)
    assert to_file.returncode == 0, to_file.stderr
    assert b"Solar return 2026: 2026-01-02 12:23:47 UTC" in to_file.stdout
    to_stdout = subprocess.run([*args, "--ics", "-"], capture_output=True, timeout=300,
                               check=False)
    assert to_stdout.returncode == 0, to_stdout.stderr
    wanted = cycles_to_ical(cycles_of(datetime(1980, 1, 3, 8, 30, tzinfo=UTC), 2026))
    assert target.read_bytes() == to_stdout.stdout == wanted


def test_ics_to_standard_output_with_json_is_a_usage_mistake(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cycles", *UTC_BIRTH, "--json", "--ics", "-"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("bodygraph: error: --ics - and --json both print to standard "
                            "output: give --ics a file\n")


def test_a_file_that_cannot_be_written_fails_in_one_line(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    target = tmp_path / "missing" / "x.ics"
    assert main(["calendar", "--from", "2024-01-01", "--to", "2024-01-02", "--body", "sun",
                 "--ics", str(target)]) == 1
    err = capsys.readouterr().err
    assert err == f"bodygraph: error: cannot use {target}: No such file or directory\n"
    assert not target.parent.exists()


def test_without_the_icalendar_library_the_extra_is_named(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "icalendar", None)  # import icalendar then fails
    target = tmp_path / "x.ics"
    assert main(["cycles", *UTC_BIRTH, "--ics", str(target)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and not target.exists()
    assert captured.err == ("bodygraph: error: iCalendar output needs the icalendar library: "
                            "pip install 'bodygraph[ics]'\n")
    # without --ics nothing needs it
    assert main(["cycles", *UTC_BIRTH, "--year", "2026"]) == 0
