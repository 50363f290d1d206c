"""Every script in examples/ runs and prints what it promises."""

from __future__ import annotations

import subprocess
import sys
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
def test_example_runs(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-W", "error", str(script)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    for expected in EXPECTED.get(script.name, []):
        assert expected in result.stdout
