"""The default install has no numba (it is the ``fast`` extra): a process where ``import
numba`` fails computes every chart with the plain-Python kernels, bit for bit the table the
compiled engine makes, and ``bodygraph batch`` works there (with a one-line note)."""

from __future__ import annotations

import csv
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bodygraph.calculator import Calculator
from bodygraph.cli.main import main
from bodygraph.ephemeris.fast import jit
from bodygraph.ephemeris.fast.engine import FastEngine
from bodygraph.ephemeris.kernel import shipped_kernel
from bodygraph.errors import EphemerisError

from .helpers import assert_same_table, random_births

#: Run in a fresh process: numba cannot be imported in any thread.
_WITHOUT_NUMBA = """
import pickle, sys
class NoNumba:
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] == "numba":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NoNumba())
import numpy as np
import bodygraph
from bodygraph.cli.main import main
births, table_file, source, target = sys.argv[1:]
table = bodygraph.calculate_many(np.load(births), workers=2)
with open(table_file, "wb") as out:
    pickle.dump(table, out)
status = main(["batch", source, "-o", target, "--no-progress"])
import contextlib, io
calendar = io.StringIO()
with contextlib.redirect_stdout(calendar):
    main(["calendar", *CALENDAR])
with open(target + ".calendar.json", "w") as out:
    out.write(calendar.getvalue())
print(status, "numba" in sys.modules)
"""

#: A day's line ingresses of the Sun and the Moon (the command line's arguments).
CALENDAR = ["--from", "2024-01-22", "--to", "2024-01-22", "--body", "sun,moon", "--level",
            "line", "--json"]

#: Places for the batch's local times (their zones come from timezonefinder, also
#: without numba).
_PLACES = [(52.52, 13.405), (40.7128, -74.006), (-33.8688, 151.2093), (35.6762, 139.6503),
           (19.4326, -99.1332), (28.6139, 77.209)]


def _batch_input(path: Path, count: int) -> Path:
    rng = np.random.default_rng(7)
    days = rng.integers(0, 200 * 365, count)
    minutes = rng.integers(0, 24 * 60, count)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "time", "lat", "lng"])
        for i in range(count):
            day = np.datetime64("1900-01-01") + np.timedelta64(int(days[i]), "D")
            lat, lng = _PLACES[i % len(_PLACES)]
            writer.writerow([str(day), f"{minutes[i] // 60:02d}:{minutes[i] % 60:02d}", lat, lng])
    return path


def test_without_numba_the_charts_are_the_compiled_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    births = random_births(120, seed=16)
    np.save(tmp_path / "births.npy", births)
    source = _batch_input(tmp_path / "in.csv", 60)
    done = subprocess.run(
        [sys.executable, "-c", f"CALENDAR = {CALENDAR!r}\n{_WITHOUT_NUMBA}",
         str(tmp_path / "births.npy"),
         str(tmp_path / "table.pickle"), str(source), str(tmp_path / "plain.csv")],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "False"]  # every row charted; numba never loaded
    notes = [line for line in done.stderr.splitlines() if "bodygraph[fast]" in line]
    assert [note.split(" makes ")[1] for note in notes] == [
        "batch much faster", "calendar much faster"]
    assert all(note.startswith("note: numba is not installed") for note in notes)
    with (tmp_path / "table.pickle").open("rb") as handle:
        plain = pickle.load(handle)

    compiled = Calculator(engine=FastEngine(shipped_kernel(), mode="compiled"))
    assert_same_table(plain, compiled.calculate_many(births))
    assert main(["batch", str(source), "-o", str(tmp_path / "compiled.csv"),
                 "--no-progress"]) == 0
    assert "bodygraph[fast]" not in capsys.readouterr().err  # numba is installed here
    assert (tmp_path / "plain.csv").read_bytes() == (tmp_path / "compiled.csv").read_bytes()
    assert main(["calendar", *CALENDAR]) == 0
    compiled_calendar = capsys.readouterr().out
    assert json.loads(compiled_calendar)  # the Moon changes line several times a day
    assert (tmp_path / "plain.csv.calendar.json").read_text() == compiled_calendar


def test_the_compiled_mode_without_numba_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jit, "_COMPILED", {})
    monkeypatch.setattr(jit, "_UNAVAILABLE", ["not installed"])
    assert not jit.can_compile()
    assert jit.fastest(jit.kernel) is jit.kernel  # any function: the plain form comes back
    with pytest.raises(EphemerisError, match=r"pip install 'bodygraph\[fast\]'"):
        jit.compiled(jit.kernel)
