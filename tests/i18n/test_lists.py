"""Lists in readable text are joined as the language joins them (the catalog's ``, ``
of context ``cli``: ``、`` in Japanese and Chinese); JSON values keep theirs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import bodygraph
from bodygraph.catalog.translations import catalog, listed, term

BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)


def _joiner(lang: str) -> str:
    return catalog(lang).pgettext("cli", ", ")


def test_japanese_and_chinese_join_a_list_with_their_own_mark() -> None:
    assert _joiner("ja") == "、" and _joiner("zh-Hans") == "、"
    assert _joiner("en") == ", " and _joiner("de") == ", "
    assert listed(["a", "b", "c"], "ja") == "a、b、c"
    assert listed([], "ja") == ""


@pytest.mark.parametrize("lang", ["ja", "zh-Hans", "de"])
def test_the_chart_s_centers_are_listed_in_the_language(lang: str) -> None:
    from bodygraph.cli.report import render_text

    chart = bodygraph.calculate(BIRTH)
    text = render_text(chart, lang)
    centers = [term("center", c, lang) for c in chart.centers]
    assert len(centers) > 1
    assert _joiner(lang).join(centers) in text
    if lang != "de":
        assert ", ".join(centers) not in text


def test_the_mcp_summary_lists_in_the_language() -> None:
    from bodygraph.relations import transit
    from bodygraph_mcp.summaries import transit_summary

    chart = bodygraph.calculate(BIRTH)
    result = transit(datetime(2024, 3, 20, tzinfo=UTC), natal=chart)
    said = transit_summary(result, "ja")
    sun, earth = (term("body", b, "ja") for b in ("Sun", "Earth"))
    assert f": {sun} " in said and f"、{earth} " in said
    assert ", " not in said


def test_json_labels_keep_their_comma() -> None:
    chart = bodygraph.calculate(BIRTH)
    labels = chart.labels("ja")
    english = chart.to_v2()["circuitries"]
    assert ", " in english
    assert labels["circuitries"] == ", ".join(
            term("circuitry", w, "ja") for w in english.split(", "))
