"""What a fresh ``bodygraph`` process imports: only the subcommand it runs, and the time
zone lookup without numba (each costs start-up time and memory; docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from bodygraph.geo.timezones import _NumbaHidden


def _modules_after(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(*sys.modules)"],
                          capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


def test_a_chart_imports_no_other_subcommand() -> None:
    loaded = _modules_after(
        "import contextlib, io\nfrom bodygraph.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['chart', '--utc', '1980-01-03T08:30:00Z', '--json'])"
    )
    assert "bodygraph.cli.chart" in loaded
    others = {"batch", "transit", "connection", "penta", "sensitivity", "cycles", "calendar"}
    assert not {f"bodygraph.cli.{name}" for name in others} & loaded
    assert "bodygraph.batch" not in loaded and "bodygraph.relations" not in loaded


def test_the_zone_of_a_place_is_found_without_numba() -> None:
    loaded = _modules_after(
        "from bodygraph.geo.timezones import zone_at\n"
        "assert zone_at(52.52, 13.405) == 'Europe/Berlin'\n"
        "from timezonefinder import utils\nassert not utils.using_numba"
    )
    assert "timezonefinder" in loaded
    assert "numba" not in loaded


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
