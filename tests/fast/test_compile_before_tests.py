"""The fast engine's compiled code is in numba's cache before any test runs: a pytest
session whose cache lacks it compiles it first (tests/conftest.py, outside every test's
time limit), and the warm-up of scripts/test.sh (``python tests/compiled_engine.py``) then
finds everything the tests run compiled there and compiles nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parents[1]
SCRIPT = TESTS / "compiled_engine.py"
#: A quick test that needs no compiled code: the session around it is what is checked.
QUICK = "tests/fast/test_background_load.py::test_a_failed_step_is_raised_once_in_the_caller"

pytestmark = [
    pytest.mark.slow,
    # A compile from nothing: seconds of a core on a quiet machine, minutes on a loaded one.
    pytest.mark.timeout(900),
]


def test_a_session_compiles_into_an_empty_cache_first_and_the_warm_up_then_loads(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    check = [sys.executable, "-c", "import compiled_engine; print(compiled_engine.is_cached())"]
    lookup = {**env, "PYTHONPATH": os.pathsep.join(
        [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}
    assert subprocess.run(check, env=lookup, capture_output=True, text=True,
                          check=True).stdout == "False\n"
    session = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", QUICK],
        cwd=TESTS.parent, env=env, capture_output=True, text=True, check=False)
    assert session.returncode == 0, session.stdout + session.stderr
    assert "compiled the fast engine into numba's cache before the tests" in session.stdout
    assert subprocess.run(check, env=lookup, capture_output=True, text=True,
                          check=True).stdout == "True\n"
    files = {path: path.stat().st_mtime_ns for path in cache.rglob("*.nb[ic]")}
    assert any(path.name.startswith("loops.epochs_") for path in files)
    warm_up = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                             text=True, check=False)
    assert warm_up.returncode == 0, warm_up.stdout + warm_up.stderr
    assert warm_up.stdout == "the fast engine is compiled and in numba's cache\n"
    # Loaded, not compiled: numba wrote no file, and rewrote none.
    assert {path: path.stat().st_mtime_ns for path in cache.rglob("*.nb[ic]")} == files
