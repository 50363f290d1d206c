"""``bodygraph chart --svg PATH --theme NAME`` writes the chart in a shipped theme."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import bodygraph
from bodygraph.cli.main import main
from bodygraph.render import PRESET_NAMES, Theme, svg

CHART = ["chart", "--utc", "1980-01-03T08:30:00Z"]


@pytest.mark.parametrize("preset", [*PRESET_NAMES, None])
def test_chart_svg_in_each_preset(preset: str | None, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "chart.svg"
    theme_args = ["--theme", preset] if preset else []
    assert main([*CHART, "--svg", str(path), *theme_args]) == 0
    expected = svg(bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC)),
                   Theme.preset(preset or "light"))
    assert path.read_text(encoding="utf-8") == expected
    capsys.readouterr()


def test_unknown_theme_is_a_clear_error(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CHART, "--svg", str(tmp_path / "x.svg"), "--theme", "sepia"]) == 2
    err = capsys.readouterr().err
    assert "--theme 'sepia' is not a theme; use one of light, dark, print, high-contrast" in err
    assert not (tmp_path / "x.svg").exists()
