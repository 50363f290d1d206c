"""Every language in every place the library writes words: the command line's readable
text and JSON labels, the SVG and PNG images. For each English term or message whose
translation differs, the English text is not left as a word of the output."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest

import bodygraph
from bodygraph import Chart
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog
from bodygraph.cli import connection as connection_cli
from bodygraph.cli import penta as penta_cli
from bodygraph.cli import sensitivity as sensitivity_cli
from bodygraph.cli import stability as stability_cli
from bodygraph.cli import transit as transit_cli
from bodygraph.cli.main import main
from bodygraph.cli.report import render_text
from bodygraph.relations import connection, penta, transit
from bodygraph.relations.segments import Sensitivity
from bodygraph.relations.sensitivity import sensitivity
from bodygraph.relations.stability import Stability, stability
from bodygraph.render import (
    ConnectionInput,
    RenderInput,
    TransitInput,
    WheelInput,
    png_bytes,
    render_svg,
    wheel_svg,
)
from bodygraph.render.from_relations import connection_input, transit_input

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]
BIRTHS = [datetime(1980, 1, 3, 8, 30, tzinfo=UTC), datetime(1985, 7, 9, 14, 0, tzinfo=UTC),
          datetime(1990, 1, 3, 8, 30, tzinfo=UTC)]
AT = datetime(2024, 3, 20, 3, 6, tzinfo=UTC)
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def charts() -> list[Chart]:
    return list(bodygraph.calculate_many(BIRTHS))


@pytest.fixture(scope="module")
def stretches() -> Stability:
    return stability(BIRTHS[0], timedelta(hours=2))


@pytest.fixture(scope="module")
def segments() -> Sensitivity:
    """A window with line changes (the Moon changes line twice)."""
    return sensitivity(BIRTHS[0], timedelta(minutes=20))


@cache
def _as_word(text: str) -> re.Pattern[str]:
    """The pattern that finds ``text`` as a word (compiled once: re's own cache holds fewer
    than the catalogs' texts)."""
    return re.compile(rf"(?<![\w-]){re.escape(text)}(?![\w-])")


@cache
def _left_over(lang: str) -> list[tuple[str, str]]:
    """The English texts (without placeholders) whose ``lang`` translation differs, each
    with its name (a text of no letter, such as the number symbols ``,`` and ``.``, is no
    English word)."""
    from .extracted import all_messages

    tr = catalog(lang)
    messages = all_messages()
    kept = {t.english for t in messages  # the same word, or in the translation's own words
            if _as_word(t.english).search(tr.pgettext(t.context, t.english))}
    return [(f"[{t.context}] {t.english}", t.english) for t in messages
            if not ("{" in t.english or t.english in kept  # kept: the same word somewhere
                    or not any(c.isalpha() for c in t.english))]


@cache
def english_left_over(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """The English texts whose ``lang`` translation differs, each named, with the pattern
    that finds it as a word."""
    return [(name, _as_word(text)) for name, text in _left_over(lang)]


@cache
def _any_english(lang: str) -> re.Pattern[str]:
    """The patterns of :func:`english_left_over` as one: a word that is any of the texts
    (one search of a text says that none is in it, instead of one search per text)."""
    texts = "|".join(re.escape(text) for _, text in _left_over(lang))
    return re.compile(rf"(?<![\w-])(?:{texts})(?![\w-])")


def assert_no_english(text: str, lang: str) -> None:
    if _any_english(lang).search(text) is None:
        return
    left = [name for name, pattern in english_left_over(lang) if pattern.search(text)]
    assert left == [], f"English left in the {lang} output: {left}"


def svg_words(document: str) -> str:
    """The words an SVG shows or says: its texts, title and description (not the
    attributes, which hold codes)."""
    root = ET.fromstring(document.encode("utf-8"))
    return "\n".join("".join(e.itertext()) for e in root.iter()
                     if e.tag in (f"{SVG}text", f"{SVG}title", f"{SVG}desc"))


def images(charts: list[Chart]) -> Iterator[RenderInput | TransitInput | ConnectionInput]:
    natal = charts[0]
    yield RenderInput.from_chart(natal)
    yield transit_input(natal, transit(AT, natal=natal))
    yield connection_input(charts[0], charts[1])


def test_the_check_finds_english_left_in_an_output(charts: list[Chart]) -> None:
    with pytest.raises(AssertionError, match=r"\[center\] Sacral"):
        assert_no_english(render_text(charts[0], "de").replace("Sakral", "Sacral"), "de")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_readable_text_is_all_in_the_language(lang: str, charts: list[Chart],
                                              segments: Sensitivity,
                                              stretches: Stability) -> None:
    one, two, three = charts
    assert segments.changes
    texts = [
        stability_cli.render(stretches, lang),
        sensitivity_cli.render(segments, lang),
        render_text(one, lang),
        transit_cli.render(transit(AT, natal=one), lang),
        connection_cli.render(connection(one, two), lang),
        penta_cli.render(penta([one, two, three]), lang),
    ]
    for text in texts:
        assert_no_english(text, lang)
    assert render_text(one, lang) != render_text(one)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_svg_images_are_all_in_the_language(lang: str, charts: list[Chart]) -> None:
    for data in images(charts):
        document = render_svg(data, lang=lang)
        assert_no_english(svg_words(document), lang)
        assert svg_words(document) != svg_words(render_svg(data))
    wheel = WheelInput.from_chart(charts[0], charts[1], transit_label="Transit 2024-03-20")
    assert_no_english(svg_words(wheel_svg(wheel, lang=lang)), lang)


def test_the_english_image_is_the_one_without_a_language(charts: list[Chart]) -> None:
    for data in images(charts):
        assert render_svg(data, lang="en") == render_svg(data)


def _edges_are_background(data: bytes) -> list[str]:
    """Which edges of a PNG hold anything but the background (text running off)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        background = rgb.getpixel((0, 0))
        edges = {"left": [(0, y) for y in range(height)],
                 "right": [(width - 1, y) for y in range(height)],
                 "bottom": [(x, height - 1) for x in range(width)]}
        return [name for name, pixels in edges.items()
                if any(rgb.getpixel(p) != background for p in pixels)]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_png_images_hold_their_words_on_the_canvas(lang: str, charts: list[Chart]) -> None:
    for data in images(charts):
        assert _edges_are_background(png_bytes(data, scale=1.0, lang=lang)) == []


def test_a_cjk_font_is_installed_for_the_japanese_and_chinese_images() -> None:
    """scripts/test.sh installs fonts-noto-cjk; without it PNG text shows empty boxes."""
    fc_list = shutil.which("fc-list")
    assert fc_list is not None
    for lang in ("ja", "zh-cn"):
        found = subprocess.run([fc_list, f":lang={lang}", "family"], capture_output=True,
                               text=True, check=True).stdout
        assert found.strip(), f"no font for {lang}: apt-get install fonts-noto-cjk"


def _bodygraph(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The console command in a process of its own (what it reads from the environment)."""
    return subprocess.run([sys.executable, "-m", "bodygraph.cli.main", *args],
                          capture_output=True, text=True, env=env, check=False)


def _command(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """The same command line run by ``main`` in this process (the words it writes are the
    same; a new interpreter costs 0.5 to 2 CPU-seconds, most of it loading the engine)."""
    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as stop:  # argparse's own usage mistakes
        status = int(stop.code or 0)
    said = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, said.out, said.err)


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_chart_json_gets_a_labels_object_beside_the_usual_fields(
    lang: str, charts: list[Chart], capsys: pytest.CaptureFixture[str],
) -> None:
    done = _command(capsys, "chart", "--utc", "1980-01-03T08:30:00Z", "--lang", lang, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    labels = data.pop("labels")
    assert data == json.loads(json.dumps(charts[0].to_v2()))
    assert labels == charts[0].labels(lang)
    values = [v for value in labels.values()
              for v in (value if isinstance(value, list) else [value])]
    assert_no_english("\n".join(values), lang)  # the keys are the contract's, in English


def test_bodygraph_lang_is_the_default_and_the_locale_is_never_read() -> None:
    env = {**os.environ, "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8", "LANGUAGE": "de"}
    env.pop("BODYGRAPH_LANG", None)
    plain = _bodygraph("chart", "--utc", "1980-01-03T08:30:00Z", "--json", env=env)
    assert "labels" not in json.loads(plain.stdout)
    text = _bodygraph("chart", "--utc", "1980-01-03T08:30:00Z", env=env)
    assert "Generator" in text.stdout and "Strategy" in text.stdout
    env["BODYGRAPH_LANG"] = "fr"
    french = _bodygraph("chart", "--utc", "1980-01-03T08:30:00Z", env=env)
    assert "Stratégie" in french.stdout
    german = _bodygraph("chart", "--utc", "1980-01-03T08:30:00Z", "--lang", "de", env=env)
    assert "Strategie" in german.stdout


@pytest.mark.parametrize(("args", "env", "where"), [
    (["--lang", "xx"], {}, "--lang 'xx'"),
    ([], {"BODYGRAPH_LANG": "klingon"}, "$BODYGRAPH_LANG 'klingon'"),
])
def test_an_unknown_language_is_one_line_and_exit_status_2(args: list[str], env: dict[str, str],
                                                           where: str) -> None:
    done = _bodygraph("penta", "--utc", "1980-01-03T08:30:00Z", *args,
                      env={**os.environ, **env})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (f"bodygraph: error: {where} is not a supported language; use one "
                           f"of {', '.join(LANGUAGES)}\n")


@pytest.mark.parametrize(("lang", "family"), [("ja", "Noto Sans CJK JP"),
                                              ("zh-Hans", "Noto Sans CJK SC")])
def test_japanese_and_chinese_images_name_a_cjk_font_first(lang: str, family: str,
                                                           charts: list[Chart]) -> None:
    """cairosvg reads only the first family of ``font-family``: with the theme's Latin
    font first, the PNG's CJK words were empty boxes."""
    document = render_svg(RenderInput.from_chart(charts[0]), lang=lang)
    root = ET.fromstring(document.encode("utf-8"))
    assert root.get("font-family", "").startswith(f"'{family}',")
    assert "CJK" not in render_svg(RenderInput.from_chart(charts[0]), lang="de")


def test_cycles_and_calendar_text_are_in_the_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cycles = _command(capsys, "cycles", "--utc", "1980-01-03T08:30:00Z", "--year", "2024",
                        "--lang", "de")
    assert cycles.returncode == 0, cycles.stderr
    assert cycles.stdout.splitlines()[0].startswith("Geburt:")
    assert "Saturn-Return:" in cycles.stdout
    calendar = _command(capsys, "calendar", "--from", "2024-03-20", "--to", "2024-03-21",
                        "--body", "sun,moon", "--lang", "ja")
    assert calendar.returncode == 0, calendar.stderr
    assert "月 " in calendar.stdout and " に入る" in calendar.stdout
    assert_no_english(cycles.stdout, "de")
    assert_no_english(calendar.stdout, "ja")


@pytest.mark.parametrize("lang", ["ru", "zh-Hans"])
def test_rectify_text_is_in_the_language(lang: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    done = _command(capsys, "rectify", "--date", "1980-01-03", "--tz", "UTC", "--profile",
                    "3/5", "--type", "Generator", "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert_no_english(done.stdout, lang)
    assert done.stdout != _command(capsys, "rectify", "--date", "1980-01-03", "--tz", "UTC",
                                   "--profile", "3/5", "--type", "Generator").stdout


@pytest.mark.parametrize("lang", ["it", "ja"])
def test_astro_text_is_in_the_language(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    done = _command(capsys, "astro", "--utc", "1980-01-03T08:30:00Z", "--lat", "52.52",
                    "--lng", "13.405", "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert_no_english(done.stdout, lang)
    english = _command(capsys, "astro", "--utc", "1980-01-03T08:30:00Z", "--lat", "52.52",
                       "--lng", "13.405").stdout
    assert "Midheaven" in english and "Capricorn" in english


@pytest.mark.parametrize(("lang", "said"), [
    ("de", "bodygraph: error: --date '1990-02-30' ist kein Tag des Kalenders; schreiben Sie "
           "ihn wie 1990-05-14\n"),
    ("en", "bodygraph: error: --date '1990-02-30' is not a day of the calendar; write it like "
           "1990-05-14\n"),
])
def test_usage_mistakes_are_said_in_the_language(lang: str, said: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    done = _command(capsys, "chart", "--date", "1990-02-30", "--time", "08:30", "--tz", "UTC",
                    "--lang", lang)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", said)


def test_batch_summary_is_in_the_language(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    births = tmp_path / "births.csv"
    births.write_text("birth_utc\n1980-01-03T08:30:00Z\n", encoding="utf-8")
    done = _command(capsys, "batch", str(births), "-o", str(tmp_path / "charts.csv"),
                    "--jobs", "1", "--lang", "fr")
    assert done.returncode == 0, done.stderr
    # French counts 0 and 1 in the singular (Plural-Forms n > 1): the catalog's forms
    fr = catalog("fr")
    line = fr.pgettext("cli", "{rows} -> {output}: {charts}, {errors} ({seconds} s)")
    summary = line.split(" ({seconds}")[0].format(
        rows=fr.npgettext("cli", "{count} row", "{count} rows", 1).format(count=1),
        output=tmp_path / "charts.csv",
        charts=fr.npgettext("cli", "{count} chart", "{count} charts", 1).format(count=1),
        errors=fr.npgettext("cli", "{count} bad row", "{count} bad rows", 0).format(count=0))
    assert summary == f"1 ligne -> {tmp_path / 'charts.csv'}\u00a0: 1 carte, 0 ligne erronée"
    assert summary + " (" in done.stderr


def test_hologenetic_text_is_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    done = _command(capsys, "hologenetic", "--utc", "1980-01-03T08:30:00Z", "--lang", "de")
    assert done.returncode == 0, done.stderr
    spheres = ["Life's Work", "Radiance", "Purpose", "Attraction", "Core",
               "Vocation", "Culture", "Brand", "Activation sequence", "Venus sequence",
               "Pearl sequence", "Hologenetic profile"]
    assert [word for word in spheres if word in done.stdout] == []
    assert_no_english(done.stdout, "de")


def test_ics_events_are_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    cycles = _command(capsys, "cycles", "--utc", "1980-01-03T08:30:00Z", "--year", "2024",
                      "--lang", "de", "--ics", "-")
    assert cycles.returncode == 0, cycles.stderr
    events = cycles.stdout.replace("\r\n ", "")
    assert "SUMMARY:Saturn-Return (Durchgang 1 von " in events
    assert "Saturn return" not in events and "pass " not in events
    calendar = _command(capsys, "calendar", "--from", "2024-03-20", "--to", "2024-03-21",
                        "--body", "moon", "--lang", "fr", "--ics", "-")
    assert calendar.returncode == 0, calendar.stderr
    events = calendar.stdout.replace("\r\n ", "")
    assert "SUMMARY:Lune entre dans la porte " in events and " enters " not in events
