"""Chart.labels(lang) and ChartTable.to_pandas(lang=...): the word fields of to_v2() in
each language under the same keys, English exactly as to_v2() writes it, a typed error
for an unknown code, and nothing loaded at import."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

import bodygraph
from bodygraph import Chart, InvalidOptionError, UnsupportedLanguageError
from bodygraph.catalog.tables import tables
from bodygraph.catalog.translations import (
    LANGUAGES,
    WORD_FIELDS,
    cross_text,
    term,
    translate_texts,
)
from bodygraph.columnar import _WORD_COLUMNS, _coded
from bodygraph.rules.text import incarnation_cross

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
#: Births every 1000 hours from 1950: many types, crosses, variables and channels.
BIRTHS = [datetime(1950, 1, 1, tzinfo=UTC) + timedelta(hours=1000 * i) for i in range(300)]


@pytest.fixture(scope="module")
def charts() -> list[Chart]:
    return list(bodygraph.calculate_many(BIRTHS))


def test_languages_lists_english_and_the_nine_translations() -> None:
    assert bodygraph.languages() == bodygraph.LANGUAGES == (
        "en", "de", "nl", "es", "fr", "pt", "it", "ru", "ja", "zh-Hans")


def test_english_labels_are_the_word_fields_of_to_v2(charts: list[Chart]) -> None:
    for chart in charts:
        v2 = chart.to_v2()
        assert chart.labels("en") == {key: v2[key] for key in WORD_FIELDS}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_labels_translate_every_word_field_under_the_same_keys(
        lang: str, charts: list[Chart]) -> None:
    for chart in charts:
        english, labels = chart.to_v2(), chart.labels(lang)
        assert list(labels) == list(WORD_FIELDS)
        assert set(labels) <= set(english)
        for key, value in labels.items():
            assert type(value) is type(english[key])
            if isinstance(value, list):
                assert len(value) == len(english[key]) and all(value)
            else:
                assert value or not english[key]
        assert labels["type"] == term("type", english["type"], lang)
        assert labels["incarnationCross"].endswith(english["incarnationCross"][
            english["incarnationCross"].index(" ("):])
        assert [c.split(" (")[-1] for c in labels["channelsLong"]] == [
            c.split(" (")[-1] for c in english["channelsLong"]]


def test_labels_use_the_terms_of_each_language() -> None:
    chart = bodygraph.calculate(datetime(1990, 5, 17, 10, 30, tzinfo=UTC))
    assert [chart.labels(lang)["type"] for lang in LANGUAGES] == [
        "Projector", "Projektor", "Projector", "Proyector", "Projecteur", "Projetor",
        "Proiettore", "Проектор", "プロジェクター", "投射者"]
    german = chart.labels("de")
    assert german["incarnationCross"] == "Rechtwinkliges Kreuz der Ansteckung (8/14 | 30/29)"
    assert german["channelsLong"][1] == "Kanal des verlorenen Sohnes (13-33)"
    assert german["centers"] == ["Ajna", "G", "Kopf", "Wurzel", "Solarplexus", "Kehle"]
    assert chart.labels("zh-Hans")["definition"] == "三分人"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_cross_of_the_tables_is_written_in_every_language(lang: str) -> None:
    t = tables()
    profiles = {angle: next(p for p, a in t.profile_angles.items() if a == angle)
                for angle in {x.angle for x in t.crosses.values()}}
    for x in t.crosses.values():
        english = incarnation_cross(profiles[x.angle], x.personality_sun,
                                    x.personality_earth, x.design_sun, x.design_earth)
        written = cross_text(english, lang)
        assert term("cross", x.name, lang) in written
        assert written != english


def test_an_unknown_language_is_a_typed_error_naming_the_supported_codes() -> None:
    chart = bodygraph.calculate(datetime(1990, 5, 17, 10, 30, tzinfo=UTC))
    for wrong in ("xx", "EN", "zh", "pt-BR", ""):
        with pytest.raises(UnsupportedLanguageError) as raised:
            chart.labels(wrong)
        assert isinstance(raised.value, InvalidOptionError)
        assert raised.value.supported == LANGUAGES
        assert "de, nl, es, fr, pt, it, ru, ja, zh-Hans" in str(raised.value)
    with pytest.raises(UnsupportedLanguageError):
        bodygraph.calculate_many(BIRTHS[:3]).to_pandas(lang="xx")


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_a_translated_table_says_what_each_charts_labels_say(
        lang: str, charts: list[Chart]) -> None:
    table = bodygraph.calculate_many(BIRTHS)
    frame = table.to_pandas(lang=lang)
    english = table.to_pandas()
    assert list(frame.columns) == list(english.columns)
    pairs = {"type": "type", "authority": "authority", "definition": "definition",
             "incarnation_cross": "incarnationCross", "strategy": "strategy",
             "signature": "signature", "not_self_theme": "notSelfTheme",
             "cognition": "cognition", "determination": "determination",
             "motivation": "motivation", "transference": "transference",
             "perspective": "perspective", "distraction": "distraction",
             "environment": "environment", "circuitries": "circuitries"}
    for i, chart in enumerate(charts):
        labels = chart.labels(lang)
        for column, key in pairs.items():
            assert frame[column].iloc[i] == labels[key]
        assert frame["centers"].iloc[i] == ";".join(
            labels["centers"][j] for j in np.argsort(chart.to_v2()["centers"]))
    for column in (*pairs, "centers"):
        assert frame[column].dtype == "category"
        assert len(frame[column].cat.categories) <= len(english[column].cat.categories)
    for column in ("profile", "variables", "channels", "personality_sun"):
        assert frame[column].equals(english[column])


def test_a_translated_column_translates_each_category_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bodygraph.catalog import translations

    table = bodygraph.calculate_many(BIRTHS)
    asked: list[int] = []

    def counting(texts: list[str], context: str, lang: str) -> list[str]:
        asked.append(len(texts))
        return translate_texts(texts, context, lang)

    monkeypatch.setattr(translations, "translate_texts", counting)
    table.to_pandas(lang="fr")
    coded = _coded(table)  # each column's table of texts, which its codes index
    assert asked == [len(coded[name][0]) for name in _WORD_COLUMNS]
    assert len(coded["incarnation_cross"][0]) < len(table)


def test_import_and_batches_load_no_catalog() -> None:
    code = ("import sys, datetime, bodygraph; "
            "bodygraph.calculate_many([datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)]); "
            "print(sorted(m for m in sys.modules if m.startswith('babel') or "
            "m == 'bodygraph.catalog.translations'))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.strip() == "[]"
