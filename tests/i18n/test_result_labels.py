"""``bodygraph.i18n.labels.labels_of``: the words of chart JSON in a language under the
same keys, equal to ``Chart.labels`` for a chart; lists keep their positions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES, term
from bodygraph.errors import UnsupportedLanguageError
from bodygraph.i18n.labels import labels_of


def some_charts() -> list[bodygraph.Chart]:
    start = datetime(1950, 1, 1, tzinfo=UTC)
    return [bodygraph.calculate(start + timedelta(days=397 * i, hours=7 * i))
            for i in range(40)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_charts_labels_are_chart_labels(lang: str) -> None:
    for chart in some_charts():
        assert labels_of(chart.to_v2(), lang) == chart.labels(lang)


def test_nested_lists_keep_positions_and_codes_are_left_out() -> None:
    data = {"results": [{"type": "Projector", "gates": ["1"]}, {"errorCode": "X"}],
            "groups": [[{"centers": ["Head"]}], []], "gates": ["1", "2"], "count": 3}
    assert labels_of(data, "de") == {
        "results": [{"type": term("type", "Projector", "de")}, {}],
        "groups": [[{"centers": [term("center", "Head", "de")]}], {}]}
    # a relation's keys are its result's labels(lang), not this
    assert labels_of({"changes": [{"side": "design", "body": "northNode"}]}, "de") == {}
    assert labels_of([{"at": "x"}, {"at": "y"}], "fr") == [{}, {}]
    assert labels_of({"solarReturn": "2024"}, "ja") == {}
    # a text that is not one of the catalogs' words is left as it is or left out
    assert labels_of({"incarnationCross": "not a cross"}, "de") == {}


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(UnsupportedLanguageError):
        labels_of({"type": "Projector"}, "xx")
