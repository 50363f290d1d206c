"""What the translated words cost; prints a table.

    .venv/bin/python benchmarks/i18n_bench.py            # 100,000 charts
    .venv/bin/python benchmarks/i18n_bench.py --quick    # 10,000, a smoke test

Rows (wall-clock seconds; each import row is the median of 5 new processes):

* ``import bodygraph`` - a new process that imports the library (no catalog is loaded);
* ``import + calculate_many(1)`` - the same, then one chart of a batch (no catalog either);
* ``load one catalog`` - ``de`` in a new process: the PO file compiled in memory (a source
  checkout, with Babel) and the compiled ``.mo`` (a wheel install, built by the build);
* ``to_pandas()`` / ``to_pandas(lang="de")`` - the table of N charts, English and German
  (the translated columns map each distinct value once: their categories);
* ``labels("de")`` per chart - ``Chart.labels`` of one chart, the first language load aside.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import bodygraph

ROOT = Path(__file__).resolve().parent.parent


def _process(code: str, env: dict[str, str] | None = None, runs: int = 5) -> float:
    """The median wall-clock time of ``python -c code`` in new processes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _in_process(code: str) -> float:
    """The time one statement of ``code`` takes inside a new process (printed by it)."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 charts")
    count = 10_000 if parser.parse_args().quick else 100_000
    print("| what | seconds |\n| --- | --- |")
    print(f"| import bodygraph | {_process('import bodygraph'):.3f} |")
    batch = ("import datetime, bodygraph; bodygraph.calculate_many("
             "[datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)])")
    print(f"| import + calculate_many(1) | {_process(batch):.3f} |")
    load = ("import time, bodygraph.catalog.translations as t; s = time.perf_counter(); "
            "t.catalog('de'); print(time.perf_counter() - s)")
    print(f"| load one catalog: PO compiled in memory | {_in_process(load):.3f} |")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "build_catalogs.py"), out],
                       check=True, capture_output=True)
        compiled = (
            "import time, gettext; s = time.perf_counter(); "
            f"gettext.GNUTranslations(open({out!r} + '/de/LC_MESSAGES/bodygraph.mo', 'rb'))"
            "; print(time.perf_counter() - s)")
        print(f"| load one catalog: compiled .mo | {_in_process(compiled):.4f} |")
    births = [datetime(1950, 1, 1, tzinfo=UTC) + timedelta(hours=7 * i) for i in range(count)]
    table = bodygraph.calculate_many(births)
    table.to_pandas()  # warm: the code tables of the columns
    for lang in ("en", "de"):
        start = time.perf_counter()
        table.to_pandas(lang=lang)
        print(f"| to_pandas(lang={lang!r}), {count:,} charts | "
              f"{time.perf_counter() - start:.3f} |")
    charts = list(table[:1000])
    charts[0].labels("de")
    start = time.perf_counter()
    for chart in charts:
        chart.labels("de")
    print(f"| labels('de'), per chart | {(time.perf_counter() - start) / len(charts):.6f} |")


if __name__ == "__main__":
    main()
