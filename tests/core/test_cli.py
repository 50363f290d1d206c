"""The ``bodygraph`` console script, run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import bodygraph
from bodygraph.cli.main import main
from bodygraph.model.contract import json_schema

SCRIPT = Path(sys.executable).with_name("bodygraph")
EXAMPLE = ["chart", "--utc", "1980-01-03T08:30:00Z"]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_console_script_prints_a_readable_chart() -> None:
    result = run(*EXAMPLE)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in ("Generator", "3/5", "Emotional", "Right Angle Cross of Tension",
                     "Triple Split Definition", "PRL DRL", "Design", "Personality",
                     "Perfected Form", "48.5", "38.3"):
        assert expected in out
    assert result.stderr == ""


def test_json_is_exactly_to_v2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*EXAMPLE, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    from datetime import UTC, datetime

    assert printed == bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC)).to_v2()
    jsonschema.validate(printed, json_schema("chart-result"))


def test_v1_json_and_mean_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*EXAMPLE, "--json", "--v1", "--node", "mean"]) == 0
    printed = json.loads(capsys.readouterr().out)
    jsonschema.validate(printed, json_schema("v1-bodygraph"))
    assert "north_node" in printed["activations"]["personality"]


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["chart", "--utc", "1980-01-03T08:30"], "has no offset", 2),
        (["chart", "--utc", "yesterday"], "not an ISO 8601", 2),
        (["chart", "--utc", "1700-01-01T00:00Z"], "outside the supported range", 1),
        (["chart"], "give the birth instant", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--date", "1980-01-03"], "not both", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--v1"], "--v1 goes with --json", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--ephemeris", "/nonexistent.bsp"],
         "not found", 1),
    ],
)
def test_errors_are_one_line_without_traceback(args: list[str], message: str, status: int) -> None:
    result = run(*args)
    assert result.returncode == status
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("bodygraph: error: ")


def test_bad_environment_kernel_is_one_line() -> None:
    result = run(*EXAMPLE, env={"BODYGRAPH_EPHEMERIS": "/nonexistent.bsp"})
    assert result.returncode == 1
    assert "BODYGRAPH_EPHEMERIS" in result.stderr or "not found" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_command_prints_help() -> None:
    result = run()
    assert result.returncode == 2
    assert "chart" in result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert bodygraph.__version__ in result.stdout


def test_geocoder_choices_match_the_places_package() -> None:
    from bodygraph.cli.main import GEOCODERS
    from bodygraph.geo import places

    assert tuple(places.GEOCODERS) == GEOCODERS


@pytest.mark.parametrize(
    ("args", "stderr_parts"),
    [
        (["--date", "1990-05-14", "--time", "08:30", "--place", "Berlin, Germany"],
         ["Berlin, Germany", "Europe/Berlin", "UTC+02:00", "06:30:00 UTC"]),
        (["--date", "1990-05-14", "--time", "08:30", "--lat", "52.52", "--lng", "13.405"],
         ["52.5200, 13.4050", "Europe/Berlin", "06:30:00 UTC"]),
        (["--date", "2021-03-28", "--time", "02:30", "--tz", "Europe/Berlin"],
         ["UTC+01:00", "01:30:00 UTC", "does not exist there"]),
        (["--date", "2021-10-31", "--time", "02:30", "--tz", "Europe/Berlin"],
         ["UTC+02:00", "00:30:00 UTC", "occurs twice"]),
        (["--date", "1850-06-01", "--time", "12:00", "--tz", "Europe/Berlin"],
         ["UTC+00:53:28", "11:06:32 UTC"]),
    ],
)
def test_local_time_options(args: list[str], stderr_parts: list[str]) -> None:
    result = run("chart", *args, "--json")
    assert result.returncode == 0, result.stderr
    for part in stderr_parts:
        assert part in result.stderr
    data = json.loads(result.stdout)
    utc_line = next(line for line in result.stderr.splitlines() if "->" in line)
    assert data["birthDateUtc"][11:19] == utc_line.split("-> ")[1][11:19]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--date", "1990-05-14", "--time", "08:30"], "exactly one of"),
        (["--date", "1990-05-14", "--time", "08:30", "--lat", "52"], "--lat and --lng together"),
        (["--date", "1990-05-14", "--time", "08:30", "--tz", "UTC", "--lat", "1", "--lng", "2"],
         "exactly one of"),
        (["--date", "1990-02-30", "--time", "08:30", "--tz", "UTC"], "no day"),
        (["--date", "1990-02-03", "--time", "24:00", "--tz", "UTC"], "no time"),
        (["--date", "1990-02-03", "--time", "08:30", "--tz", "Mars/Base"], "tz database"),
        (["--date", "1990-02-03", "--time", "08:30", "--lat", "95", "--lng", "0"], "atitude"),
        (["--date", "1990-02-03", "--time", "08:30", "--place", "Amsterdma, Netherlands"],
         "Amsterdam"),
        (["--date", "1990-02-03", "--time", "08:30", "--place", "Berlin", "--geocoder", "google"],
         "key"),
    ],
)
def test_local_time_errors(args: list[str], message: str) -> None:
    result = run("chart", *args)
    assert result.returncode in (1, 2)
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_svg_and_png_files(tmp_path: Path) -> None:
    svg, png = tmp_path / "chart.svg", tmp_path / "chart.image"
    result = run(*EXAMPLE, "--svg", str(svg), "--png", str(png))
    assert result.returncode == 0, result.stderr
    assert svg.read_text("utf-8").startswith("<svg") or "<svg" in svg.read_text("utf-8")[:200]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # PNG whatever the suffix says


def test_unwritable_image_path_is_one_line(tmp_path: Path) -> None:
    result = run(*EXAMPLE, "--svg", str(tmp_path / "missing-dir" / "chart.svg"))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
