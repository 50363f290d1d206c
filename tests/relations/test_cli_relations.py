"""``bodygraph transit``, ``connection`` and ``penta``, run in-process."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from bodygraph import calculate, connection, penta, transit
from bodygraph.cli.main import main

A, B, C = "1980-01-03T08:30:00Z", "1985-07-09T14:00:00Z", "1990-01-03T08:30:00Z"
AT = "2024-03-20T03:06:00Z"


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_transit_alone(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "transit", "--at", AT)
    assert data == transit(_utc(AT)).to_dict()
    assert data["at"] == "2024-03-20T03:06:00.000Z"
    assert data["natal"] is None
    assert len(data["activations"]) == 13
    assert all(a.count(".") == 1 for a in data["activations"].values())
    assert all("-" in c for c in data["channelsShort"])


def test_transit_over_a_utc_birth(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "transit", "--at", AT, "--utc", A)
    assert data == transit(_utc(AT), natal=calculate(_utc(A))).to_dict()
    assert set(data["natal"]) == {"completedChannels", "newCenters", "overlay"}
    assert set(data["natal"]["overlay"]) == {"type", "definition", "authority", "centers",
                                             "channelsShort"}


def test_transit_over_a_local_birth(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "transit", "--at", AT, "--date", "1990-05-14", "--time", "08:30",
                 "--tz", "Europe/Berlin")
    natal = calculate(datetime(1990, 5, 14, 6, 30, tzinfo=UTC))
    assert data == transit(_utc(AT), natal=natal).to_dict()


def test_connection(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "connection", "--utc", A, "--utc", B)
    assert data == connection(calculate(_utc(A)), calculate(_utc(B))).to_dict()
    assert all(entry["person"] in (1, 2) for entry in data["dominance"] + data["compromise"])


def test_connection_and_penta_take_local_births(capsys: pytest.CaptureFixture[str]) -> None:
    berlin = ["--date", "1990-05-14", "--time", "08:30", "--tz", "Europe/Berlin"]
    paris = ["--date", "1985-07-09", "--tz", "Europe/Paris", "--time", "16:00"]
    at_sea = ["--date", "1990-01-03", "--time", "08:30", "--lat", "0", "--lng", "0"]
    local = [calculate(datetime(1990, 5, 14, 6, 30, tzinfo=UTC)), calculate(_utc(B)),
             calculate(_utc(C))]
    data = _json(capsys, "connection", "--utc", A, *berlin)
    assert data == connection(calculate(_utc(A)), local[0]).to_dict()
    data = _json(capsys, "penta", *berlin, *paris, *at_sea)
    assert data == penta(local).to_dict()
    assert data["members"] == ["1990-05-14T06:30:00.000Z", "1985-07-09T14:00:00.000Z",
                               "1990-01-03T08:30:00.000Z"]


def test_penta(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "penta", "--utc", A, "--utc", B, "--utc", C)
    assert data == penta([calculate(_utc(t)) for t in (A, B, C)]).to_dict()
    assert list(data) == ["members", "gates", "channels"]


@pytest.mark.parametrize(("args", "words"), [
    (["transit", "--at", AT, "--utc", A], ["Transit at 2024-03-20 03:06:00 UTC", "Sun",
                                           "Completed channels", "Overlay"]),
    (["connection", "--utc", A, "--utc", B], ["Electromagnetic", "Companionship",
                                              "Dominance", "Compromise", "Composite"]),
    (["penta", "--utc", A, "--utc", B, "--utc", C], ["Penta of 3 members", "Missing gates"]),
])
def test_readable_text(capsys: pytest.CaptureFixture[str], args: list[str],
                       words: list[str]) -> None:
    assert main(args) == 0
    out = capsys.readouterr().out
    for word in words:
        assert word in out
    assert "{" not in out


@pytest.mark.parametrize(("args", "message"), [
    (["transit", "--at", "1700-01-01T00:00:00Z"], "outside the supported range"),
    (["transit", "--at", "2250-01-01T00:00:00Z"], "outside the supported range"),
    (["transit", "--at", AT, "--utc", "1750-01-01T00:00:00Z"], "outside the supported range"),
    (["transit", "--at", "2024-03-20T03:06"], "--at '2024-03-20T03:06' has no offset"),
    (["transit", "--at", "soon"], "not an ISO 8601"),
    (["connection", "--utc", A], "a connection is of two births, not 1"),
    (["connection", "--utc", A, "--utc", B, "--utc", C], "of two births, not 3"),
    (["connection", "--utc", A, "--date", "1990-05-14", "--time", "08:30"],
     "exactly one of --tz ZONE, --place TEXT or --lat/--lng"),
    (["connection", "--utc", A, "--utc", "1700-01-01T00:00Z"], "outside the supported range"),
    (["penta", "--utc", A, "--utc", B], "3 to 5 members, not 2"),
    (["penta", *[x for t in (A, B, C, A, B, C) for x in ("--utc", t)]],
     "3 to 5 members, not 6"),
])
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                            args: list[str], message: str) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("bodygraph: error: ")
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def _listed(text: str, heading: str) -> list[str]:
    """The channel short names listed under ``heading`` (one a line) in readable text."""
    lines = text.split(f"  {heading:<19} ", 1)[1].splitlines()
    shorts = [lines[0].split()[0]]
    for line in lines[1:]:
        if not line.startswith(" " * 22):
            break
        shorts.append(line.split()[0])
    return shorts


def _numeric(shorts: list[str]) -> bool:
    return shorts == sorted(shorts, key=lambda s: tuple(int(g) for g in s.split("-")))


def test_readable_text_orders_gates_and_channels_as_numbers(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["penta", "--utc", A, "--utc", "1983-01-03T08:30:00Z", "--utc", C]) == 0
    out = capsys.readouterr().out
    assert _listed(out, "Channels") == ["2-14", "13-33"]  # not "13-33" then "2-14"
    assert main(["transit", "--at", AT, "--utc", A]) == 0
    out = capsys.readouterr().out
    gates = out.split("  Gates", 1)[1].splitlines()[0].split(",")
    assert [int(g) for g in gates] == sorted(int(g) for g in gates)
    overlay = _listed(out.split("Overlay", 1)[1], "Channels")
    assert overlay[0] == "6-59" and overlay[-1] == "47-64" and _numeric(overlay)
    assert main(["connection", "--utc", A, "--utc", B]) == 0
    out = capsys.readouterr().out
    for heading in ("Electromagnetic", "Dominance", "Compromise", "Channels"):
        assert _numeric(_listed(out, heading)), heading
    assert _listed(out, "Dominance")[0] == "6-59"


def test_json_keeps_the_reference_services_text_order(
    capsys: pytest.CaptureFixture[str]
) -> None:
    data = _json(capsys, "transit", "--at", AT, "--utc", A)
    overlay = data["natal"]["overlay"]["channelsShort"]
    assert overlay == sorted(overlay) and overlay.index("47-64") < overlay.index("6-59")
