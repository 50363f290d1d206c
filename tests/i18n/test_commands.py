"""Every command of the command line in every language: its readable text, and with
``--json`` the ``"labels"`` beside the usual fields (the same keys as the JSON's words),
hold no English word of the tables or messages where a translation exists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE
from bodygraph.cli.main import main
from bodygraph.relations import connection, penta, transit
from bodygraph.relations.astro import astro
from bodygraph.relations.calendar import calendar
from bodygraph.relations.constraints import constraints
from bodygraph.relations.cycles import cycles_of
from bodygraph.relations.rectification import rectify
from bodygraph.relations.sensitivity import sensitivity
from bodygraph.relations.stability import stability
from tests.i18n.test_outputs import assert_no_english

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]
UTC_BIRTH = ["--utc", "1980-01-03T08:30:00Z"]
#: One run of every command that prints words (``wheel`` only draws; ``batch`` below).
COMMANDS: dict[str, list[str]] = {
    "chart": ["chart", *UTC_BIRTH],
    "chart at a place": ["chart", "--date", "1990-05-14", "--time", "08:30", "--place",
                         "Springfield"],  # notes: the local time, several places so called
    "transit": ["transit", "--at", "2024-03-20T03:06:00Z", *UTC_BIRTH],
    "transit alone": ["transit", "--at", "2024-03-20T03:06:00Z"],
    "connection": ["connection", *UTC_BIRTH, "--utc", "1985-07-09T14:00:00Z"],
    "penta": ["penta", *UTC_BIRTH, "--utc", "1985-07-09T14:00:00Z",
              "--utc", "1990-01-03T08:30:00Z"],
    "sensitivity": ["sensitivity", *UTC_BIRTH, "--window", "20m"],
    "stability": ["stability", *UTC_BIRTH, "--bound", "2h"],
    "rectify": ["rectify", "--date", "1980-01-03", "--from-time", "07:00", "--to-time",
                "10:00", "--tz", "UTC", "--profile", "3/5", "--type", "Generator"],
    "cycles": ["cycles", *UTC_BIRTH, "--year", "2024"],
    "calendar": ["calendar", "--from", "2024-03-20", "--to", "2024-03-21",
                 "--body", "sun,moon,mars"],
    "hologenetic": ["hologenetic", *UTC_BIRTH],
    "astro": ["astro", *UTC_BIRTH, "--lat", "70", "--lng", "10"],  # polar: the note
}


def _run(capsys: pytest.CaptureFixture[str], args: list[str], *, notes: bool = False) -> str:
    """What a command prints (and with ``notes`` its notes on stderr)."""
    assert main(args) == 0
    said = capsys.readouterr()
    return said.out + said.err if notes else said.out


@cache
def _plain_json(name: str) -> str:
    """The ``--json`` of a command without a language (computed once a session)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main([*COMMANDS[name], "--json"]) == 0
    return out.getvalue()


def strings(value: Any) -> Iterator[str]:
    """Every text a JSON value holds."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_mirrors(labels: Any, data: Any, where: str = "labels") -> None:
    """``labels`` has only keys ``data`` has at the same place, lists of the same length,
    and texts (never numbers) at its leaves."""
    if isinstance(labels, dict):
        assert isinstance(data, dict), where
        for key, value in labels.items():
            assert key in data, f"{where}.{key} is not a key of the JSON"
            assert_mirrors(value, data[key], f"{where}.{key}")
    elif isinstance(labels, list):
        assert isinstance(data, list) and len(labels) == len(data), where
        for i, (value, item) in enumerate(zip(labels, data, strict=True)):
            assert_mirrors(value, item, f"{where}[{i}]")
    else:
        assert isinstance(labels, str) and labels, where


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_command_speaks_the_language(lang: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    for name, args in COMMANDS.items():
        text = _run(capsys, [*args, "--lang", lang], notes=True)
        assert_no_english(text, lang)
        english = _run(capsys, args, notes=True)
        if name != "transit alone":  # its words are the bodies' names: Mars is Mars
            assert text != english, name


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_json_has_its_labels_in_the_language(lang: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for name, args in COMMANDS.items():
        data = json.loads(_run(capsys, [*args, "--lang", lang, "--json"]))
        plain = json.loads(_plain_json(name))
        items = data if isinstance(data, list) else [data]
        for item, usual in zip(items, plain if isinstance(plain, list) else [plain],
                               strict=True):
            labels = item.pop("labels")
            assert item == usual, name
            if name != "hologenetic":  # the shape of its --labels file: by sphere
                assert_mirrors(labels, usual, name)
            assert_no_english("\n".join(strings(labels)), lang)
        assert items, name


def test_json_without_a_language_has_no_labels(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BODYGRAPH_LANG", raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    for name in COMMANDS:
        assert "labels" not in _plain_json(name), name
    monkeypatch.setenv("BODYGRAPH_LANG", "es")
    data = json.loads(_run(capsys, [*COMMANDS["penta"], "--json"]))
    assert data["labels"]["channels"] == [
        "El Canal del Pródigo (13-33)", "El Canal del Pulso (2-14)"]


def test_batch_speaks_the_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    births = tmp_path / "births.csv"
    births.write_text("date,time,location\n1990-05-14,08:30,Berlin\n"
                      "1990-05-14,08:30,Xyzzyplace\n1990-02-30,08:30,Berlin\n"
                      "1990-05-14,8h,Berlin\n", encoding="utf-8")
    for lang in TRANSLATED:
        assert main(["batch", str(births), "-o", str(tmp_path / "charts.csv"), "--jobs", "1",
                     "--progress", "--lang", lang]) == 1  # bad rows
        said = capsys.readouterr()
        assert said.err.count("PLACE_NOT_FOUND") == 1, said.err  # codes stay
        for english in ("row ", "rows/s", "February", "no place found", "there is no day",
                        "a birth time must"):
            assert english not in said.err, (lang, said.err)
        assert_no_english(said.out + said.err, lang)


def test_batch_writes_its_error_column_in_the_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``batch --lang``: the ``error`` cells in the language, the ``error_code`` cells and
    every other column as without it; without a language the file is the English one."""
    import csv

    monkeypatch.delenv("BODYGRAPH_LANG", raising=False)
    births = tmp_path / "births.csv"
    births.write_text("date,time,location\n1990-05-14,08:30,Berlin\n"
                      "1990-05-14,08:30,Xyzzyplace\n1990-02-30,08:30,Berlin\n"
                      "1990-05-14,8h,Berlin\n1990-05-14,08:30,\n", encoding="utf-8")

    def rows(*more: str) -> tuple[bytes, list[dict[str, str]]]:
        out = tmp_path / f"charts{len(more)}.csv"
        assert main(["batch", str(births), "-o", str(out), "--jobs", "1", *more]) == 1
        capsys.readouterr()
        with out.open(newline="", encoding="utf-8") as f:
            return out.read_bytes(), list(csv.DictReader(f))

    plain, english = rows()
    assert rows("--lang", "en")[0] == plain
    assert [r["error"] for r in english] == [
        "", "no place found for 'Xyzzyplace' (no place of that name, nor one spelt like it)",
        "there is no day 1990-02-30 in the calendar (February has 28 days in 1990)",
        "a birth time must be written H:MM or HH:MM, optionally :SS (24-hour, like 08:30), "
        "not '8h'", "location is empty"]
    _, german = rows("--lang", "de")
    assert [r["error"] for r in german] == [
        "", "kein Ort gefunden für 'Xyzzyplace' (kein Ort dieses Namens und keiner, der "
        "ähnlich geschrieben wird)",
        "den Tag 1990-02-30 gibt es im Kalender nicht (Februar hat 28 Tage im Jahr 1990)",
        german[3]["error"], "location ist leer"]
    assert german[3]["error"] != english[3]["error"]
    for plain_row, german_row in zip(english, german, strict=True):
        assert {**german_row, "error": ""} == {**plain_row, "error": ""}
    _, japanese = rows("--lang", "ja")
    assert [r["error_code"] for r in japanese] == [r["error_code"] for r in english]
    assert japanese[4]["error"] == "location が空です"


BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    """One result of each relation, as the library gives it."""
    one, two, three = bodygraph.calculate_many(
        [BIRTH, datetime(1985, 7, 9, 14, 0, tzinfo=UTC), datetime(1990, 1, 3, 8, 30, tzinfo=UTC)])
    at = datetime(2024, 3, 20, 3, 6, tzinfo=UTC)
    return {
        "transit": transit(at, natal=one),
        "connection": connection(one, two),
        "penta": penta([one, two, three]),
        "sensitivity": sensitivity(BIRTH, timedelta(minutes=20)),
        "stability": stability(BIRTH, timedelta(hours=2)),
        "rectify": rectify(BIRTH.date(), constraints(type="Generator"), zone=UTC,
                           from_time=time(7), to_time=time(10)),
        "cycles": cycles_of(BIRTH, 2024),
        "ingress": calendar(at, at + timedelta(days=1))[0],
        "astro": astro(BIRTH, 70.0, 10.0),
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_result_labels_the_words_of_its_json(lang: str, results: dict[str, Any]) -> None:
    for name, result in results.items():
        assert_mirrors(result.labels(lang), result.to_dict(), name)


def test_english_labels_are_the_words_the_json_writes(results: dict[str, Any]) -> None:
    """Where the JSON holds a term (not a code), its English label is that term."""
    overlay = results["transit"].labels("en")["natal"]["overlay"]
    data = results["transit"].to_dict()["natal"]["overlay"]
    assert {k: overlay[k] for k in ("type", "authority", "definition", "centers")} == {
        k: data[k] for k in ("type", "authority", "definition", "centers")}
    for segment, words in zip(results["sensitivity"].to_dict()["segments"],
                              results["sensitivity"].labels("en")["segments"], strict=True):
        assert words == {k: segment[k] for k in words}
    stability_data = results["stability"].to_dict()["properties"]
    for key, words in results["stability"].labels("en")["properties"].items():
        assert words["value"] == stability_data[key]["value"]
    windows = results["rectify"].to_dict()["windows"]
    assert windows
    for window, words in zip(windows, results["rectify"].labels("en")["windows"], strict=True):
        assert words["chart"] == {k: window["chart"][k] for k in words["chart"]}
    astro_data = results["astro"].to_dict()
    astro_words = results["astro"].labels("en")
    assert astro_words["houses"] == {k: astro_data["houses"][k] for k in ("system", "note")}
    assert astro_words["activations"]["design"]["sun"]["sign"] == (
        astro_data["activations"]["design"]["sun"]["sign"])


def test_labels_name_channels_as_the_chart_does(results: dict[str, Any]) -> None:
    chart = bodygraph.calculate(BIRTH)
    long_names = dict(zip(chart.to_v2()["channelsShort"], chart.labels("de")["channelsLong"],
                          strict=True))
    words = results["transit"].labels("de")["natal"]["overlay"]["channelsShort"]
    shorts = results["transit"].to_dict()["natal"]["overlay"]["channelsShort"]
    assert [w for w, s in zip(words, shorts, strict=True) if s in long_names] == [
        long_names[s] for s in shorts if s in long_names]
    assert all(w.endswith(f"({s})") for w, s in zip(words, shorts, strict=True))


def test_the_languages_page_examples_run() -> None:
    import doctest

    page = Path(__file__).resolve().parents[2] / "docs" / "languages.md"
    failed, tried = doctest.testfile(str(page), module_relative=False)
    assert (failed, tried > 0) == (0, True)


#: Usage mistakes and failed work, each an error line of its own kind (CLI's, library's,
#: argparse's).
MISTAKES: list[list[str]] = [
    ["chart", "--utc", "1700-01-01T00:00:00Z"],
    ["chart", "--date", "1990-05-14", "--time", "08:30", "--place", "Xyzzyplace"],
    ["chart", "--date", "1990-05-14", "--time", "08:30", "--tz", "Europe/Nowhere"],
    ["chart", "--date", "1990-05-14", "--time", "08:30", "--lat", "95", "--lng", "10"],
    ["chart", "--v1", *UTC_BIRTH],
    ["chart", *UTC_BIRTH, "--svg", "no-such-folder/chart.svg"],
    ["chart", *UTC_BIRTH, "--theme", "nope", "--svg", "unused.svg"],
    ["transit", "--at", "2300-01-01T00:00:00Z"],
    ["connection", *UTC_BIRTH],
    ["penta", *UTC_BIRTH, "--utc", "1981-01-03T08:30:00Z"],
    ["sensitivity", *UTC_BIRTH, "--window", "3x"],
    ["stability", *UTC_BIRTH, "--bound", "100h"],
    ["rectify", "--date", "1980-01-03", "--tz", "UTC"],
    ["rectify", "--date", "1980-01-03", "--tz", "UTC", "--type", "Gen"],
    ["rectify", "--date", "1980-01-03", "--tz", "UTC", "--profile", "7/9"],
    ["rectify", "--date", "1980-01-03", "--to-date", "1980-02-03", "--tz", "UTC",
     "--type", "Generator"],
    ["cycles", *UTC_BIRTH, "--year", "2300"],
    ["calendar", "--from", "2024-01-05", "--to", "2024-01-01"],
    ["calendar", "--from", "2024-01-01", "--to", "2024-01-02", "--body", "sun,foo"],
    ["astro", *UTC_BIRTH, "--houses", "koch"],
    ["astro", *UTC_BIRTH, "--lat", "90", "--lng", "0"],
    ["wheel", *UTC_BIRTH],
    ["batch", "missing-births.csv", "-o", "unused.csv"],
    ["batch", "missing-births.csv", "-o", "unused.txt"],
    ["hologenetic", *UTC_BIRTH, "--labels", "pack.json"],
    ["rectify", "--date", "1980-01-03", "--tz", "UTC", "--cross", "Foo"],
    ["rectify", "--date", "1980-01-03", "--tz", "UTC", "--gate", "99"],
    ["chart", "--nope"],
    ["chart", "--node", "foo", *UTC_BIRTH],
]


def _said(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = main(args)
    except SystemExit as exc:  # argparse's own mistakes
        status = int(str(exc.code))
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_error_line_is_in_the_language(lang: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BODYGRAPH_LANG", raising=False)
    (tmp_path / "pack.json").write_text('{"keys": {"99": {}}}', encoding="utf-8")
    for args in MISTAKES:
        status, out, english = _said(args, capsys)
        assert status in (1, 2) and out == "", args
        said = _said([*args, "--lang", lang], capsys)
        assert said[:2] == (status, ""), args
        line = said[2]
        assert line.count("\n") == 1 and line.startswith("bodygraph"), line
        assert line != english, f"{args}: still in English: {line}"
        assert_no_english(_without_values(line), lang)


def _without_values(line: str) -> str:
    """An error line without the list of values an option takes after "one of:" (they are
    typed as the contract writes them: ``--type Generator``), nor the house systems, nor
    the example of a cross's name (typed in English too)."""
    import re

    for value in ("placidus", "whole-sign", "'Right Angle Cross of the Sphinx'"):
        line = line.replace(value, "")
    return re.sub(r"(?<=[:\uff1a]) ?[^;\uff1b]*?(Generator|Head)[^;\uff1b\n]*", "", line)


def test_errors_say_the_library_and_argparse_in_the_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _said(["chart", "--date", "1990-05-14", "--time", "08:30", "--place", "Xyzzyplace",
                  "--lang", "de"], capsys)[2] == (
        "bodygraph: error: kein Ort gefunden für 'Xyzzyplace' (kein Ort dieses Namens und "
        "keiner, der ähnlich geschrieben wird)\n")
    assert _said(["chart", "--node", "foo", *UTC_BIRTH, "--lang=fr"], capsys)[2] == (
        "bodygraph chart: error: argument --node : choix invalide : 'foo' (choisissez parmi "
        "'true', 'mean') (voir bodygraph chart --help)\n")
    assert _said(["cycles", *UTC_BIRTH, "--year", "2300", "--lang", "es"], capsys)[2] == (
        "bodygraph: error: el retorno solar de 2300 llega a 2299-12-30 20:30:41 UTC, fuera de "
        "la efeméride (1800-04-04 a 2199-12-31 UTC); para otras fechas pase un kernel mayor "
        "(--ephemeris BSP o $BODYGRAPH_EPHEMERIS)\n")


def test_the_library_s_formerly_english_messages_are_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages the command line printed in English before every library message had its
    pattern: a label pack's mistake, an unknown cross, a batch output's format."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pack.json").write_text('{"keys": {"99": {}}}', encoding="utf-8")
    labels = ["hologenetic", *UTC_BIRTH, "--labels", "pack.json"]
    assert _said(labels, capsys)[2] == (
        "bodygraph: error: --labels pack.json: the label pack names key '99': keys are 1 to "
        "64\n")
    assert _said([*labels, "--lang", "de"], capsys)[2] == (
        "bodygraph: error: --labels pack.json: das Label-Paket nennt den Schlüssel '99': "
        "Schlüssel gehen von 1 bis 64\n")
    assert _said([*labels, "--lang", "ja"], capsys)[2] == (
        "bodygraph: error: --labels pack.json: ラベルパックがキー '99' を挙げています\uff1a"
        "キーは 1〜64 です\n")
    cross = ["rectify", "--date", "1980-01-03", "--tz", "UTC", "--cross", "Foo", "--lang", "de"]
    assert _said(cross, capsys)[2].startswith(
        "bodygraph: error: unbekanntes Inkarnationskreuz 'Foo'; schreiben Sie")
    output = ["batch", "births.csv", "-o", "charts.txt", "--lang", "ja"]
    assert _said(output, capsys) == (2, "", (
        "bodygraph: error: charts.txt に書き込めません\uff1a出力は .csv か .parquet の"
        "ファイルにしてください\n"))


def test_a_message_no_pattern_knows_stays_as_the_library_wrote_it() -> None:
    from bodygraph.cli.said import said

    assert said("something new went wrong", "de") == "something new went wrong"
    assert said("no place found for 'X'", "en") == "no place found for 'X'"
    assert said("no place found for 'X'", "ja") == "'X' に当たる場所が見つかりません"


def test_lang_before_the_command_counts_as_the_command_s(
        capsys: pytest.CaptureFixture[str]) -> None:
    before = _run(capsys, ["--lang", "de", *COMMANDS["penta"]])
    assert before == _run(capsys, [*COMMANDS["penta"], "--lang", "de"])
    assert before.startswith("Penta aus 3 Mitgliedern")
    assert _run(capsys, ["--lang", "de", *COMMANDS["penta"], "--lang", "fr"]) == _run(
        capsys, [*COMMANDS["penta"], "--lang", "fr"])
    assert _said(["--lang", "xx", *COMMANDS["penta"]], capsys)[:2] == (2, "")


def test_the_v1_object_gets_its_labels_under_its_own_keys(
        capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(_run(capsys, [*COMMANDS["chart"], "--json", "--v1", "--lang", "it"]))
    labels = data.pop("labels")
    assert set(labels) <= set(data)
    assert labels["incarnation_cross"].startswith("Croce d'Angolo Destro")
    assert labels["type"] == "Generatore"
