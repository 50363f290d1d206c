"""Every script in examples/ runs and prints what it promises.

Each runs in this process, as ``python examples/NAME.py`` would run it (as ``__main__``,
warnings as errors under the suite's ``filterwarnings``): a new Python process per
script spent most of its time importing numpy and numba and loading the compiled engine
again, which is not what these tests are about (tests/core/test_cli.py runs the real
console script in a new process)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
EXPECTED = {
    "one_chart.py": ["Type:       Generator", "Right Angle Cross of Tension (38/39 | 48/21)"],
    "several_births.py": ["Ada", "Grace", "Alan", "Margaret", "Tim", "Cross of"],
    "activations_to_base.py": ["design instant: 1990-02-14", "personality sun", "pluto"],
}


def test_every_example_is_covered() -> None:
    assert {p.name for p in SCRIPTS} >= set(EXPECTED)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(script), run_name="__main__")  # an error or a warning raises here
    out = capsys.readouterr().out
    assert out  # every example prints what it found
    for expected in EXPECTED.get(script.name, []):
        assert expected in out
