"""What scripts/test.sh runs before pytest (``python tests/compiled_engine.py``) leaves in
an empty numba cache every loop the tests run compiled, so that the pytest workers load it
instead of compiling it inside a test's time limit; a second process compiles nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "compiled_engine.py"

pytestmark = [
    pytest.mark.slow,
    # A compile from nothing: seconds of a core on a quiet machine, minutes on a loaded one.
    pytest.mark.timeout(900),
]


def test_the_warm_up_fills_an_empty_cache_and_later_processes_load_it(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    check = [sys.executable, "-c", "import compiled_engine; print(compiled_engine.is_cached())"]
    lookup = {**env, "PYTHONPATH": os.pathsep.join(
        [str(SCRIPT.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}
    assert subprocess.run(check, env=lookup, capture_output=True, text=True,
                          check=True).stdout == "False\n"
    first = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                           text=True, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout == "the fast engine is compiled and in numba's cache\n"
    assert subprocess.run(check, env=lookup, capture_output=True, text=True,
                          check=True).stdout == "True\n"
    files = {path: path.stat().st_mtime_ns for path in cache.rglob("*.nb[ic]")}
    assert any(path.name.startswith("loops.epochs_") for path in files)
    second = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                            text=True, check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    # Loaded, not compiled: numba wrote no file, and rewrote none.
    assert {path: path.stat().st_mtime_ns for path in cache.rglob("*.nb[ic]")} == files
