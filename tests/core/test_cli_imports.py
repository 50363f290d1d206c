"""What a fresh ``bodygraph`` process imports: only the subcommand it runs, and the time
zone lookup without numba (each costs start-up time and memory; docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from bodygraph.geo.timezones import _NumbaHidden

#: One fresh process for both tests below: the chart command first (what it loaded is
#: printed before the zone lookup runs), then the zone of a place; a process each cost a
#: Python start and ``import bodygraph`` more.
_CODE = """
import contextlib, io, sys
from bodygraph.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(['chart', '--utc', '1980-01-03T08:30:00Z', '--json'])
print(*sys.modules)
from bodygraph.geo.timezones import zone_at
assert zone_at(52.52, 13.405) == 'Europe/Berlin'
from timezonefinder import utils
assert not utils.using_numba
print(*sys.modules)
"""


@pytest.fixture(scope="module")
def loaded() -> tuple[set[str], set[str]]:
    """The modules of a fresh process after a chart, and after the zone lookup too."""
    done = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True,
                          timeout=120, check=True)
    after_chart, after_zone = done.stdout.splitlines()
    return set(after_chart.split()), set(after_zone.split())


def test_a_chart_imports_no_other_subcommand(loaded: tuple[set[str], set[str]]) -> None:
    after_chart, _ = loaded
    assert "bodygraph.cli.chart" in after_chart
    others = {"batch", "transit", "connection", "penta", "sensitivity", "stability", "rectify",
              "cycles", "calendar"}
    assert not {f"bodygraph.cli.{name}" for name in others} & after_chart
    assert "bodygraph.batch" not in after_chart and "bodygraph.relations" not in after_chart


def test_the_zone_of_a_place_is_found_without_numba(loaded: tuple[set[str], set[str]]) -> None:
    _, after_zone = loaded
    assert "timezonefinder" in after_zone
    assert "numba" not in after_zone


def test_numba_is_hidden_from_the_importing_thread_only() -> None:
    hidden = _NumbaHidden()
    with pytest.raises(ModuleNotFoundError, match=r"numba\.core"):
        hidden.find_spec("numba.core", None)
    assert hidden.find_spec("numpy", None) is None
    elsewhere: list[object] = []
    thread = threading.Thread(target=lambda: elsewhere.append(hidden.find_spec("numba", None)))
    thread.start()
    thread.join()
    assert elsewhere == [None]
