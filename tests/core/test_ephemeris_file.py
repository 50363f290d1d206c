"""The shipped kernel is the documented one, and a built wheel carries it."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bodygraph.ephemeris.kernel import REQUIRED_SEGMENTS, kernel_info, shipped_kernel

ROOT = Path(__file__).resolve().parents[2]


def test_checksum_matches_the_readme() -> None:
    readme = (ROOT / "data" / "ephemeris" / "README.md").read_text("utf-8")
    documented = re.search(r"\| ([0-9a-f]{64}) \|", readme)
    assert documented is not None
    digest = hashlib.sha256(shipped_kernel().read_bytes()).hexdigest()
    assert digest == documented.group(1)


def test_coverage_is_1800_to_2200() -> None:
    info = kernel_info(shipped_kernel())
    assert info.first_jd == pytest.approx(2378496.5)  # 1800-01-01
    assert info.last_jd == pytest.approx(2524593.5)  # 2200-01-01
    assert len(REQUIRED_SEGMENTS) == 12


@pytest.mark.slow
def test_a_built_wheel_carries_the_kernel(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path),
         str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next(tmp_path.glob("bodygraph-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "bodygraph/data/ephemeris/de440-1800-2200.bsp" in names
    assert "bodygraph/data/hd-tables.json" in names
    assert "bodygraph/py.typed" in names
    assert "bodygraph/data/gazetteer.bin" in names
    assert "bodygraph_server/data/plans.json" in names
    assert "bodygraph_server/py.typed" in names
    assert any(n.startswith("bodygraph/model/schemas/") for n in names)
