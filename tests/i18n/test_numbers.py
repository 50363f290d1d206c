"""Numbers in prose as each language writes them (the catalogs' context ``number``, CLDR's
symbols), the help's headings with the language's colon, the list joiner and the wheel's
own image helps; English as before."""

from __future__ import annotations

import io
import re

import pytest

from bodygraph.catalog.numbers import DECIMAL, GROUP, grouped_in, number_text, percent_text
from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog, locale_folder
from bodygraph.cli.main import main

from .helps import run_help

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]
NBSP, NNBSP = "\u00a0", "\u202f"


def _help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          *args: str) -> str:
    monkeypatch.setattr("bodygraph.cli.batch.default_jobs", lambda: 2)
    return run_help(main, list(args), capsys, monkeypatch)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_catalog_holds_cldr_s_number_symbols(lang: str) -> None:
    """The one definition of a language's separators is its catalog, holding CLDR's
    symbols (checked against Babel's CLDR data, a development dependency only)."""
    import babel
    from babel import numbers

    cldr = "pt_BR" if lang == "pt" else locale_folder(lang)  # pt is Brazilian usage
    tr = catalog(lang)
    assert tr.pgettext("number", GROUP) == numbers.get_group_symbol(cldr)
    assert tr.pgettext("number", DECIMAL) == numbers.get_decimal_symbol(cldr)
    pattern = babel.Locale.parse(cldr).percent_formats[None].pattern
    assert percent_text(0.5, lang, 0) == pattern.replace("#,##0", "50")


def test_de_fr_ru_write_twenty_thousand_their_way() -> None:
    assert number_text(20_000, "de") == "20.000"
    assert number_text(20_000, "fr") == f"20{NNBSP}000"
    assert number_text(20_000, "ru") == f"20{NBSP}000"
    assert [number_text(20_000, lang) for lang in ("es", "it", "pt", "nl")] == ["20.000"] * 4
    assert [number_text(20_000, lang) for lang in ("ja", "zh-Hans")] == ["20,000"] * 2
    assert number_text(1_234_567.25, "de", 1) == "1.234.567,2"
    assert percent_text(0.123, "fr") == f"12,3{NBSP}%"


@pytest.mark.parametrize("value", [0, 7, 999, 1000, 20_000, 1_234_567, -45_000, 3.14159,
                                   12_345.678, 0.05])
@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_english_is_python_s_own_grouping(value: float, decimals: int) -> None:
    expected = (f"{value:,}" if isinstance(value, int) and not decimals
                else f"{value:,.{decimals}f}")
    assert number_text(value, "en", decimals) == expected


@pytest.mark.parametrize("share", [0.0, 0.001, 0.1235, 0.5, 0.61725, 0.999, 1.0])
@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_english_percent_is_python_s_own(share: float, decimals: int) -> None:
    assert percent_text(share, "en", decimals) == f"{share:.{decimals}%}"


def test_only_a_grouped_number_is_rewritten_inside_a_message() -> None:
    assert grouped_in("1,000,000", "de") == "1.000.000"
    assert grouped_in("12,345.5", "fr") == f"12{NNBSP}345,5"
    for kept in ("38.3", "1,2", "52.52, 13.40", "1000", "Berlin, Germany", "1,000,00"):
        assert grouped_in(kept, "de") == kept


@pytest.mark.parametrize(("lang", "default"), [
    ("en", "20,000"), ("de", "20.000"), ("fr", f"20{NNBSP}000"), ("ru", f"20{NBSP}000"),
    ("ja", "20,000")])
def test_batch_help_writes_the_chunk_size_as_the_language_does(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lang: str,
        default: str) -> None:
    text = _help(capsys, monkeypatch, "batch", "--lang", lang)
    help_of_chunk = re.sub(r"[ \n]+", " ",  # ASCII: a no-break space stays
                           text.split("--chunk-size ROWS", 2)[2].split("--jobs")[0])
    assert default in help_of_chunk, help_of_chunk
    if lang != "en":
        assert "20,000" not in help_of_chunk or lang == "ja"


def test_the_progress_bar_writes_its_numbers_as_the_language_does() -> None:
    from bodygraph.batch.progress import Progress

    def drawn(lang: str) -> str:
        out = io.StringIO()
        bar = Progress(20_000, out, enabled=True, lang=lang)
        bar.update(12_345, 1_500)
        return out.getvalue()

    english, german, french = drawn("en"), drawn("de"), drawn("fr")
    assert " 61.7% 12,345/20,000  " in english and "1,500 bad" in english
    assert f" 61,7{NBSP}% 12.345/20.000  " in german and "1.500 fehlerhaft" in german
    assert f"12{NNBSP}345/20{NNBSP}000" in french
    assert "rows/s" not in german + french


def test_the_batch_summary_writes_its_seconds_as_the_language_does(
        tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    births = folder / "births.csv"
    births.write_text("birth_utc\n1990-05-14T08:30:00Z\n", encoding="utf-8")
    lines = {}
    for lang in ("en", "de", "ja"):
        assert main(["batch", str(births), "-o", str(folder / "charts.csv"), "--jobs", "1",
                     "--no-progress", "--lang", lang]) == 0
        lines[lang] = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.search(r"\(\d+\.\d s\)$", lines["en"]), lines["en"]
    assert re.search(r"\(\d+,\d s\)$", lines["de"]), lines["de"]
    assert re.search(r"\uff08\d+\.\d 秒\uff09$", lines["ja"]), lines["ja"]  # full-width ()


def test_a_service_refusal_writes_its_limit_as_the_language_does() -> None:
    from bodygraph_server.http.error_words import translated

    message = "a job takes at most 1,000,000 births"
    assert translated(message, "en") == message
    assert "1.000.000" in translated(message, "de")
    assert f"1{NBSP}000{NBSP}000" in translated(message, "ru")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_heading_colon_is_the_catalog_s(lang: str) -> None:
    """argparse writes ``:`` after a heading: the catalog's ``{title}:`` must end with it
    (what stands before it is the language's)."""
    assert catalog(lang).pgettext("help", "{title}:").endswith(":")


def test_french_headings_have_a_space_before_the_colon(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def headings(lang: str) -> list[str]:
        text = _help(capsys, monkeypatch, "wheel", "--lang", lang)
        return [line for line in text.splitlines() if line.endswith(":")
                and not line[0].isspace()]

    french = headings("fr")
    assert f"options{NBSP}:" in french, french
    assert all(line.endswith((f"{NBSP}:", " :")) for line in french), french
    german = headings("de")
    assert len(german) == len(french)
    assert not any(line.endswith((f"{NBSP}:", " :")) for line in german), german


@pytest.mark.parametrize("lang", LANGUAGES)
def test_wheel_has_its_own_image_helps(capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """``wheel`` writes only images: its ``--svg``/``--png`` helps are not the ``also
    write ...`` of the commands that print text too."""
    from bodygraph.cli.images import IMAGE_HELPS

    tr = catalog(lang)
    text = re.sub(r"\s+", " ", _help(capsys, monkeypatch, "wheel", "--lang", lang))
    for own, also in zip(IMAGE_HELPS["wheel"], IMAGE_HELPS["bodygraph"], strict=True):
        assert not own.startswith("also") and also.startswith("also")
        assert tr.pgettext("help", own) in text
        assert tr.pgettext("help", own) != tr.pgettext("help", also)


def test_the_theme_list_uses_the_catalog_s_joiner(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from bodygraph.cli.images import OTHER_THEMES
    from bodygraph.render import PRESET_NAMES

    assert {"light", *OTHER_THEMES} == set(PRESET_NAMES)
    english = re.sub(r"\s+", " ", _help(capsys, monkeypatch, "wheel"))
    assert "light (default), dark, print, high-contrast" in english
    for lang in ("ja", "zh-Hans"):
        joined = re.sub(r"\s+", "", _help(capsys, monkeypatch, "wheel", "--lang", lang))
        assert "dark、print、high-contrast" in joined, lang
