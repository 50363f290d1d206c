"""The ``bodygraph`` command line: ``main([...])`` in-process, and once the real console
script as a user runs it (proof that the entry point works)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import bodygraph
from bodygraph.calculator import Calculator
from bodygraph.catalog.translations import LANGUAGES, term
from bodygraph.cli import options
from bodygraph.cli.main import build_parser, main
from bodygraph.cli.report import body_label
from bodygraph.geo import places
from bodygraph.model.contract import json_schema

SCRIPT = Path(sys.executable).with_name("bodygraph")
EXAMPLE = ["chart", "--utc", "1980-01-03T08:30:00Z"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``bodygraph ARGS`` in this process: the exit status, stdout and stderr."""
    try:
        status = main(list(args))
    except SystemExit as exc:  # argparse's own exits (--version, --help, usage errors)
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def test_console_script_prints_a_readable_chart() -> None:
    result = subprocess.run(
        [str(SCRIPT), *EXAMPLE], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in ("Generator", "3/5", "Emotional", "Right Angle Cross of Tension",
                     "Triple Split Definition", "PRL DRL", "Design", "Personality",
                     "Perfected Form", "48.5", "38.3"):
        assert expected in out
    assert result.stderr == ""


def test_json_is_exactly_to_v2(capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    status, out, err = run(capsys, *EXAMPLE, "--json")
    assert status == 0, err
    printed = json.loads(out)
    assert printed == bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC)).to_v2()
    jsonschema.validate(printed, json_schema("chart-result"))
    assert err == ""


def test_v1_json_and_mean_node(capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    status, out, _ = run(capsys, *EXAMPLE, "--json", "--v1", "--node", "mean")
    assert status == 0
    printed = json.loads(out)
    jsonschema.validate(printed, json_schema("v1-bodygraph"))
    assert "north_node" in printed["activations"]["personality"]


def _one_line_error(err: str) -> None:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("bodygraph: error: ")


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["chart", "--utc", "1980-01-03T08:30"], "has no offset", 2),
        (["chart", "--utc", "yesterday"], "not an ISO 8601", 2),
        (["chart", "--utc", "1700-01-01T00:00Z"], "births from 1800-04-04", 1),
        (["chart", "--utc", "9999-12-31T23:00-05:00"], "not an instant of the calendar", 2),
        (["chart"], "give the birth instant", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--date", "1980-01-03"], "not both", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--v1"], "--v1 goes with --json", 2),
        (["chart", "--utc", "1980-01-03T08:30Z", "--ephemeris", "/nonexistent.bsp"],
         "not found", 1),
    ],
)
def test_errors_are_one_line_without_traceback(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str, status: int
) -> None:
    returned, _, err = run(capsys, *args)
    assert returned == status
    assert message in err
    _one_line_error(err)


def test_bad_environment_kernel_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BODYGRAPH_EPHEMERIS", "/nonexistent.bsp")
    # as in a fresh process: no shared calculator made before the variable was set
    monkeypatch.setattr(options, "default_calculator", Calculator)
    status, _, err = run(capsys, *EXAMPLE)
    assert status == 1
    assert "BODYGRAPH_EPHEMERIS" in err or "not found" in err
    assert "Traceback" not in err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys)
    assert status == 2
    assert "chart" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert bodygraph.__version__ in out


def test_geocoder_choices_are_the_places_package_names() -> None:
    subcommands = build_parser()._subparsers
    assert subcommands is not None
    choices = subcommands._group_actions[0].choices or {}
    for name in ("chart", "batch"):
        geocoder = next(a for a in choices[name]._actions if a.dest == "geocoder")
        assert tuple(geocoder.choices or ()) == places.GEOCODERS == ("offline", "google")
        assert geocoder.default == "offline"


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
def test_local_time_options(
    capsys: pytest.CaptureFixture[str], args: list[str], stderr_parts: list[str]
) -> None:
    status, out, err = run(capsys, "chart", *args, "--json")
    assert status == 0, err
    for part in stderr_parts:
        assert part in err
    data = json.loads(out)
    utc_line = next(line for line in err.splitlines() if "->" in line)
    assert data["birthDateUtc"][11:19] == utc_line.split("-> ")[1][11:19]


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["--date", "1990-05-14", "--time", "08:30"], "exactly one of", 2),
        (["--date", "1990-05-14", "--time", "08:30", "--lat", "52"], "--lat and --lng together",
         2),
        (["--date", "1990-05-14", "--time", "08:30", "--tz", "UTC", "--lat", "1", "--lng", "2"],
         "exactly one of", 2),
        (["--date", "1990-02-30", "--time", "08:30", "--tz", "UTC"],
         "--date '1990-02-30' is not a day of the calendar; write it like 1990-05-14", 2),
        (["--date", "1990-5-14", "--time", "08:30", "--tz", "UTC"],
         "--date '1990-5-14' is not a day of the calendar; write it like 1990-05-14", 2),
        (["--date", "1990-02-03", "--time", "24:00", "--tz", "UTC"],
         "--time '24:00' is not a time of day; write it like 08:30", 2),
        (["--date", "1990-02-03", "--time", "08:30", "--tz", "Mars/Base"],
         "--tz: 'Mars/Base' is not in the tz database", 2),
        (["--date", "1990-02-03", "--time", "08:30", "--lat", "95", "--lng", "0"],
         "--lat/--lng: latitude 95.0", 2),
        (["--date", "1990-02-03", "--time", "08:30", "--place", "Amsterdma, Netherlands"],
         "Amsterdam", 1),
        (["--date", "1990-02-03", "--time", "08:30", "--place", "Berlin", "--geocoder", "google"],
         "--geocode-key", 2),
    ],
)
def test_local_time_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str, status: int
) -> None:
    returned, _, err = run(capsys, "chart", *args)
    assert returned == status, err
    assert message in err
    _one_line_error(err)


#: A malformed value of each birth option: each command that takes a birth answers 2.
_MALFORMED_BIRTHS = [
    (["--date", "1990-02-30", "--time", "08:30", "--tz", "UTC"],
     "--date '1990-02-30' is not a day"),
    (["--date", "1990-02-03", "--time", "25:30", "--tz", "UTC"], "--time '25:30' is not a time"),
    (["--date", "1990-02-03", "--time", "08:30", "--tz", "Europe/Nowhere"], "--tz:"),
    (["--date", "1990-02-03", "--time", "08:30", "--lat", "91", "--lng", "0"], "--lat/--lng:"),
    (["--date", "1990-02-03", "--time", "08:30", "--lat", "0", "--lng", "nan"], "--lat/--lng:"),
    (["--date", "1990-02-03", "--time", "08:30", "--place", "  "], "--place:"),
    (["--utc", "not-a-date"], "--utc 'not-a-date'"),
]
_OTHERS = ["--utc", "1980-01-03T08:30:00Z", "--utc", "1985-07-09T14:00:00Z"]
_COMMANDS = {
    "chart": ["chart"],
    "transit": ["transit", "--at", "2024-03-20T03:06:00Z"],
    "connection": ["connection", *_OTHERS[:2]],
    "penta": ["penta", *_OTHERS],
    "sensitivity": ["sensitivity"],
    "cycles": ["cycles"],
}


@pytest.mark.parametrize("command", list(_COMMANDS))
@pytest.mark.parametrize(("birth", "message"), _MALFORMED_BIRTHS)
def test_a_malformed_birth_is_a_usage_mistake_in_every_command(
    capsys: pytest.CaptureFixture[str], command: str, birth: list[str], message: str
) -> None:
    returned, out, err = run(capsys, *_COMMANDS[command], *birth)
    assert (returned, out) == (2, ""), err
    assert message in err
    _one_line_error(err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["transit", "--at", "2024-03-20T03:06:00Z", "--utc", "1980-01-03T08:30:00Z",
          "--svg", "x.svg", "--theme", "neon"],
         "--theme 'neon' is not a theme; use one of light, dark, print, high-contrast"),
        (["cycles", "--utc", "1980-01-03T08:30:00Z", "--year", "99999999999999999999"],
         "--year 99999999999999999999 is not a year"),
        (["transit", "--at", "0001-01-01T00:00:00+05:00"], "--at '0001-01-01T00:00:00+05:00'"),
        (["calendar", "--from", "2026-01-01", "--to", "9999-12-31"], "the calendar reaches"),
        (["calendar", "--from", "2026-02-30", "--to", "2026-03-01"], "--from '2026-02-30'"),
    ],
)
def test_other_malformed_arguments_are_usage_mistakes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    returned, out, err = run(capsys, *args)
    assert (returned, out) == (2, ""), err
    assert message in err
    _one_line_error(err)
    assert not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize(
    ("args", "status", "served"),
    [
        (["chart", "--utc", "1700-01-01T00:00:00Z"], 1, "births from"),
        (["transit", "--at", "1500-01-01T00:00:00Z"], 2, "instants from"),
        (["transit", "--at", "2024-03-20T03:06:00Z", "--utc", "1750-01-01T00:00:00Z"], 2,
         "births from"),
        (["cycles", "--utc", "1980-01-03T08:30:00Z", "--year", "2300"], 2,
         "the solar return of 2300 reaches"),
        (["calendar", "--from", "1700-01-01", "--to", "1700-02-01"], 2, "the calendar reaches"),
        (["sensitivity", "--utc", "2199-12-30T10:00:00Z", "--window", "48h"], 2,
         "the window reaches"),
    ],
)
def test_outside_the_ephemeris_speaks_of_the_flag(
    capsys: pytest.CaptureFixture[str], args: list[str], status: int, served: str
) -> None:
    returned, _, err = run(capsys, *args)
    assert returned == status, err
    assert served in err
    assert "--ephemeris BSP or $BODYGRAPH_EPHEMERIS" in err
    assert "ephemeris=" not in err and "calculator" not in err
    assert ("births" in err) == (served == "births from")
    _one_line_error(err)


def test_svg_and_png_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    svg, png = tmp_path / "chart.svg", tmp_path / "chart.image"
    status, _, err = run(capsys, *EXAMPLE, "--svg", str(svg), "--png", str(png))
    assert status == 0, err
    assert svg.read_text("utf-8").startswith("<svg") or "<svg" in svg.read_text("utf-8")[:200]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # PNG whatever the suffix says


def test_unwritable_image_path_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, *EXAMPLE, "--svg", str(tmp_path / "missing-dir" / "chart.svg"))
    assert status != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


_LOCAL = ["chart", "--date", "1990-02-03", "--time", "08:30"]


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        ([*_LOCAL, "--place", "\ud800Berlin"], "not text (U+D800 at position 1)", 2),
        ([*_LOCAL, "--place", "Ber\x00lin"], "not text (U+0000 at position 4)", 2),
        ([*_LOCAL, "--place", "x" * 201], "the most is 200", 2),
        ([*_LOCAL, "--place", "ab, ab"], "no place found for 'ab, ab'", 1),
        ([*_LOCAL, "--tz", "\ud800"], "not a time zone name", 2),
        (["chart", "--date", "\udcff", "--time", "08:30", "--tz", "UTC"],
         "--date '\\udcff' is not a day of the calendar", 2),
        ([*EXAMPLE, "--svg", "\ud800.svg"], "cannot be encoded", 2),
    ],
)
def test_text_that_cannot_be_encoded_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str, status: int
) -> None:
    returned, _, err = run(capsys, *args)
    assert (returned, message in err) == (status, True), err
    _one_line_error(err)
    err.encode("utf-8")  # the message holds escapes, not the characters themselves


def _helps() -> dict[str, str]:
    parser = build_parser()
    subcommands = parser._subparsers
    assert subcommands is not None
    helps = {"bodygraph": parser.format_help()}
    for action in subcommands._group_actions:
        for name, sub in getattr(action, "choices", {}).items():
            helps[name] = sub.format_help()
    return helps


def test_help_texts_are_plain_text_and_say_what_the_exit_status_means() -> None:
    helps = _helps()
    assert {"bodygraph", "chart", "batch"} <= set(helps)
    for name, text in helps.items():
        assert "``" not in text and not re.search(r":[a-z]+:`", text), name
        assert "exit status:" in text, name
        for status, meaning in ((0, "done"), (1, "the work failed"), (2, "a usage mistake"),
                                (130, "interrupted"), (143, "terminated")):
            assert re.search(rf"^  {status} +{meaning}", text, re.MULTILINE), (name, status)
    assert "error_code" in helps["batch"]


def test_the_readme_documents_the_exit_statuses() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text("utf-8")
    section = readme.split("## The command line", 1)[1].split("\n## ", 1)[0]
    for status in ("0", "1", "2", "130", "143"):
        assert re.search(rf"`{status}`", section), status
    assert "error_code" in section


def test_readable_channels_in_numeric_order_json_in_text_order(
    capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, *EXAMPLE)
    assert status == 0
    listed = [line.split()[0] for line in
              out.split("  Channels", 1)[1].split("\n\n", 1)[0].splitlines()]
    assert listed == ["6-59", "10-57", "13-33", "37-40", "39-55", "47-64"]
    status, out, _ = run(capsys, *EXAMPLE, "--json")
    assert json.loads(out)["channelsShort"] == ["10-57", "13-33", "37-40", "39-55", "47-64",
                                                "6-59"]


def test_help_is_reflowed_to_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    for name, text in _helps().items():
        examples = [line for line in text.splitlines() if line.startswith("  bodygraph ")]
        for line in text.splitlines():
            assert len(line) <= 60 or line in examples, (name, line)
    monkeypatch.setenv("COLUMNS", "200")
    wide = _helps()["sensitivity"]
    assert "activations changes line (the design side moving with the birth), exact" in wide
    assert re.search(r"^  2    a usage mistake or bad input: .* an instant outside", wide,
                     re.MULTILINE)


@pytest.mark.parametrize("args", [
    ("chart", "--lat", "abc"), ("chrt",), ("transit", "--utc", "1980-01-03T08:30:00Z"),
    ("batch", "in.csv"), ("chart", "--no-such-option"),
])
def test_a_usage_mistake_argparse_finds_is_one_line(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert err.startswith("bodygraph") and "error: " in err and "--help)" in err, err


def test_help_claims_only_the_options_a_command_has() -> None:
    helps = _helps()
    for name in ("chart", "transit", "connection"):
        assert "--theme" in helps[name] and "--svg" in helps[name], name
    for name in ("penta", "sensitivity", "cycles", "calendar"):
        for option in ("--theme", "--svg", "--png", "image"):
            assert option not in helps[name], (name, option)
    for name in ("transit", "sensitivity", "cycles", "calendar"):
        assert "number of births" not in helps[name], name
    assert "place" not in helps["calendar"]


def test_an_ambiguous_place_says_which_was_taken(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "chart", "--date", "1990-05-14", "--time", "08:30",
                           "--place", "Springfield", "--json")
    assert status == 0, err
    notes = [line for line in err.splitlines() if line.startswith("bodygraph: note: ")]
    assert notes == [
        "bodygraph: note: several places are called Springfield: took Springfield, Missouri, "
        "United States (the most populous); others: Springfield, Massachusetts, United States; "
        "Springfield, Illinois, United States; Springfield, Oregon, United States; "
        "Springfield, Ohio, United States; Springfield, Virginia, United States; add the region "
        'or country to choose one, e.g. "Springfield, Massachusetts, United States" (--place)'
    ]
    json.loads(out)
    status, _, err = run(capsys, "chart", "--date", "1990-05-14", "--time", "08:30",
                         "--place", "Springfield, Illinois")
    assert status == 0 and "note:" not in err and "Springfield, Illinois" in err


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sensitivity_names_activations_as_the_chart_report_does(lang: str) -> None:
    from bodygraph.cli import sensitivity as command
    from bodygraph.cli.report import render_text
    from bodygraph.relations.sensitivity import sensitivity

    result = sensitivity(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    text = command.render(result, lang)
    report = render_text(bodygraph.calculate(result.birth), lang)
    assert result.changes
    for change in result.changes:
        side = command.activation_label(str(change.side), change.body, lang)
        assert f"{side} {change.before} -> {change.after}" in text
        side_word, body_word = (term("side", str(change.side).capitalize(), lang),
                                body_label(change.body, lang))
        assert side == f"{side_word} {body_word}"
        assert side_word in report and body_word in report  # the report's own words
    if lang == "en":
        assert "Personality Moon 62.3 -> 62.4;" in text
        assert "Design Sun 48.5 -> 48.6, Design Earth 21.5 -> 21.6;" in text
