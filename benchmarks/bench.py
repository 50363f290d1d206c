"""Side-by-side timings of the ways to calculate charts; prints a table.

    .venv/bin/python benchmarks/bench.py            # the full run (about two minutes)
    .venv/bin/python benchmarks/bench.py --quick    # smaller sizes, for a smoke test

Rows:

* ``calculate`` - one chart at a time through ``bodygraph.calculate`` (fast engine, warm,
  compiled: ``Calculator.warm_up()`` first):
  the median of single calls;
* ``calculate_many`` - 1,000 and 100,000 random births (1800-2200) in one call;
* ``Skyfield per body`` - the reference engine (one Skyfield call per body per instant,
  ``Calculator(engine="skyfield")``), one chart at a time;
* ``pyswisseph loop`` - per chart: 11 ``swe.calc`` positions (Moshier), the design
  instant by ``swe.solcross``, 11 more positions and the gates through
  ``bodygraph.rules.wheel``; no chart properties, so it does less work than the others;
* ``import bodygraph`` - a fresh interpreter importing the package, less the
  interpreter's own start.

Times are wall-clock on one process (numpy's BLAS limited to one thread); CPU seconds
are shown beside them because shared machines steal time.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    name: str
    charts: int
    wall: float  # seconds for ``charts`` charts
    cpu: float

    @property
    def per_chart_ms(self) -> float:
        return self.wall / self.charts * 1e3

    @property
    def rate(self) -> float:
        return self.charts / self.wall


def timed(name: str, charts: int, work: Callable[[], object]) -> Row:
    """Run ``work`` once and time it."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return Row(name, charts, time.perf_counter() - wall, time.process_time() - cpu)


def births(count: int, seed: int = 7) -> np.ndarray:
    """Random datetime64[us] UTC births over the supported range."""
    from bodygraph.calculator import default_calculator

    calc = default_calculator(None)
    low = np.datetime64(calc.first_birth.replace(tzinfo=None), "us").astype(np.int64)
    high = np.datetime64(calc.last_birth.replace(tzinfo=None), "us").astype(np.int64)
    return np.random.default_rng(seed).integers(low, high, count).astype("datetime64[us]")


def aware(values: np.ndarray) -> list[datetime]:
    """datetime64 -> aware datetimes."""
    return [v.replace(tzinfo=UTC) for v in values.astype("datetime64[us]").tolist()]


def single_calls(count: int) -> Row:
    """``bodygraph.calculate`` one chart per call; the median call."""
    import bodygraph
    from bodygraph.calculator import default_calculator

    moments = aware(births(count, seed=3))
    default_calculator(None).warm_up()  # compiled, as in a long-running process
    bodygraph.calculate(moments[0])
    walls, cpus = [], []
    for moment in moments:
        wall, cpu = time.perf_counter(), time.process_time()
        bodygraph.calculate(moment)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return Row("calculate (median of single calls)", 1, statistics.median(walls),
               statistics.median(cpus))


def many(count: int) -> Row:
    """``calculate_many`` on ``count`` births."""
    from bodygraph.calculator import calculate_many

    values = births(count, seed=5)
    calculate_many(values[:100])
    return timed(f"calculate_many ({count:,})", count, lambda: calculate_many(values))


def skyfield(count: int) -> Row:
    """The reference engine, one chart at a time."""
    from bodygraph.calculator import Calculator

    with Calculator(engine="skyfield") as calc:
        moments = aware(births(count, seed=9))
        calc.calculate(moments[0])
        return timed("Skyfield per body (one chart a call)", count,
                     lambda: [calc.calculate(m) for m in moments])


def swiss(count: int) -> Row | None:
    """A per-chart pyswisseph loop (positions, design instant, gates)."""
    try:
        import swisseph as swe
    except ImportError:
        return None
    from bodygraph._time import utc_to_tt
    from bodygraph.rules.wheel import positions, to_units

    flags = swe.FLG_MOSEPH
    bodies = (swe.SUN, swe.MOON, swe.MERCURY, swe.VENUS, swe.MARS, swe.JUPITER, swe.SATURN,
              swe.URANUS, swe.NEPTUNE, swe.PLUTO, swe.TRUE_NODE)
    moments = aware(births(count, seed=11))
    instants = utc_to_tt(moments)
    jds = (instants.whole + instants.fraction).tolist()

    def one(jd_tt: float) -> object:
        birth = [swe.calc(jd_tt, b, flags)[0][0] for b in bodies]
        design_jd = swe.solcross(np.mod(birth[0] - 88.0, 360.0), jd_tt - 96.0, flags)
        design = [swe.calc(design_jd, b, flags)[0][0] for b in bodies]
        return positions(to_units(np.array(birth + design)))

    one(jds[0])
    return timed("pyswisseph loop (one chart a call)", count, lambda: [one(j) for j in jds])


def import_time() -> Row:
    """``import bodygraph`` in a fresh interpreter, less the interpreter's start."""
    def run(code: str) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            best = min(best, time.perf_counter() - start)
        return best

    cost = run("import bodygraph") - run("pass")
    return Row("import bodygraph (best of 5)", 1, cost, float("nan"))


def machine() -> str:
    """CPU, cores, Python and numpy versions."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu}, nproc {os.cpu_count()}, load average {load:.2f}; Python "
            f"{platform.python_version()}, numpy {np.__version__}")


def main() -> None:
    """Run every benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args()
    big = 10_000 if args.quick else 100_000
    rows = [import_time(), single_calls(50 if args.quick else 300), many(1_000), many(big),
            skyfield(3 if args.quick else 20)]
    sw = swiss(50 if args.quick else 1_000)
    if sw is not None:
        rows.append(sw)
    print(machine())
    print(f"{'benchmark':44} {'charts':>8} {'wall s':>9} {'cpu s':>9} {'ms/chart':>10} "
          f"{'charts/s':>10}")
    for row in rows:
        print(f"{row.name:44} {row.charts:>8,} {row.wall:>9.3f} {row.cpu:>9.3f} "
              f"{row.per_chart_ms:>10.3f} {row.rate:>10,.0f}")
    fast = next(r for r in rows if r.name.startswith("calculate_many") and r.charts == big)
    if sw is not None:
        print(f"calculate_many ({big:,}) / pyswisseph loop: {fast.rate / sw.rate:.1f}x")


if __name__ == "__main__":
    main()
