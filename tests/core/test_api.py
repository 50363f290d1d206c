"""The public API as a Python developer meets it: reprs, errors, version, dir()."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import version

import pytest

import bodygraph
from bodygraph import BodygraphError, InvalidInstantError, InvalidOptionError

BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)


def test_chart_repr_is_short_and_says_what_the_chart_is() -> None:
    chart = bodygraph.calculate(BIRTH)
    text = repr(chart)
    assert text == ("Chart(birth_utc=1980-01-03T08:30:00.000Z, node='true', type='Generator', "
                    "profile='3/5', authority='Emotional', "
                    "definition='Triple Split Definition')")
    assert len(chart.to_v2()) > 20  # the full detail stays one call away


def test_side_repr_lists_the_activations() -> None:
    side = bodygraph.calculate(BIRTH).personality
    text = repr(side)
    assert text.startswith("Side(sun=38.3, earth=39.3, north_node=59.1, ")
    assert text.endswith("pluto=32.1)") and len(text) < 250


def test_contract_writers_still_work_from_the_chart() -> None:
    chart = bodygraph.calculate(BIRTH)
    assert chart.to_v2()["birthDateUtc"] == "1980-01-03T08:30:00.000Z"
    assert chart.to_v1()["strategy"] == "Wait to Respond"
    assert chart.to_v2()["strategy"] == "To Respond"
    assert set(chart.to_v2_simple()) == {"type", "profile", "gates", "channelsShort", "centers"}
    assert chart.to_v1_simple()["channels_short"] == chart.to_v2_simple()["channelsShort"]


@pytest.mark.parametrize("call", [
    lambda: bodygraph.calculate(BIRTH, node="apparent"),  # type: ignore[arg-type]
    lambda: bodygraph.calculate_many([BIRTH], node="apparent"),  # type: ignore[arg-type]
    lambda: bodygraph.Calculator(engine="swiss"),  # type: ignore[arg-type]
])
def test_a_bad_option_is_a_value_error(call: object) -> None:
    with pytest.raises(InvalidOptionError) as caught:
        call()  # type: ignore[operator]
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, BodygraphError)
    assert not isinstance(caught.value, InvalidInstantError)
    assert "InvalidOptionError" not in str(caught.value)


def test_version_comes_from_the_package_metadata() -> None:
    assert bodygraph.__version__ == version("bodygraph")


def test_version_without_metadata_falls_back() -> None:
    code = ("import importlib.metadata as m\n"
            "def missing(name): raise m.PackageNotFoundError(name)\n"
            "m.version = missing\n"
            "import bodygraph; print(bodygraph.__version__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "0+unknown"


def test_dir_shows_the_public_names_only() -> None:
    assert dir(bodygraph) == sorted(bodygraph.__all__)
    assert "InvalidOptionError" in bodygraph.__all__
    for name in bodygraph.__all__:
        assert getattr(bodygraph, name) is not None


def test_the_utc_text_format_is_one_function() -> None:
    from bodygraph._time import utc_text

    assert utc_text(datetime(2001, 2, 3, 4, 5, 6, 789999, tzinfo=UTC)) == \
        "2001-02-03T04:05:06.789Z"
