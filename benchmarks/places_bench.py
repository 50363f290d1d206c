"""Time and memory of the offline geocoder, each figure from fresh processes.

    .venv/bin/python benchmarks/places_bench.py [--runs 3]
    .venv/bin/python benchmarks/places_bench.py --junk [--runs 3]

Scenarios (each run in a new interpreter, after ``import bodygraph.geo.places``):

* ``first use``: an empty per-user cache: the index is unpacked and cached;
* ``cached``: a fresh process with the cache filled (the usual case on a server);
* ``no cache``: ``BODYGRAPH_CACHE_DIR=""``: every process unpacks in memory.

Printed: the first lookup of a big city and of a small town, the first miss with
suggestions, then warm figures (mean lookup, median miss) and resident memory added by the
gazetteer (VmRSS after the lookups and misses minus VmRSS after the import) and its peak.

``--junk``: the worst cases of a location text in one warm process (``min_population=500``,
the fullest dataset): long junk, many tokens, repeated separators, random letters, and the
short texts of few letters that share bigrams with the most names (the costliest found by
a search over random ones). Printed per case: the median and the worst wall time of
``--runs`` x 5 lookups, the CPU time, and the names compared exactly (``difflib``).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CITY = "Paris, France"
TOWN = "Oberammergau, Germany"
MISSES = ["Amsterdma, Netherlands", "Berlni", "Sna Francisco", "Muenchn", "Rmoe",
          "Qxzvkjwqpl"]


def _status(field: str) -> float:
    """A VmRSS-like field of /proc/self/status in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(first: str) -> None:
    """Measure one fresh process; ``first`` is what it looks up first."""
    from bodygraph.geo.places import LocationNotFoundError, OfflineGeocoder

    geocoder = OfflineGeocoder()
    base = _status("VmRSS")
    figures: dict[str, float] = {}

    def timed(query: str) -> float:
        started = time.perf_counter()
        with contextlib.suppress(LocationNotFoundError):
            geocoder.geocode(query)
        return time.perf_counter() - started

    figures["first"] = timed(first)
    if first != MISSES[0]:
        figures["first_miss"] = timed(MISSES[0])
    for query in (CITY, TOWN):
        timed(query)
    figures["warm_lookup"] = min(
        statistics.mean(timed(q) for q in (CITY, TOWN, "Springfield, IL", "東京") * 50)
        for _ in range(3))
    figures["warm_miss"] = statistics.median(timed(q) for q in MISSES * 3)
    figures["warm_miss_max"] = max(timed(q) for q in MISSES)
    figures["rss_added"] = _status("VmRSS") - base
    figures["rss_peak_added"] = _status("VmHWM") - base
    print(json.dumps(figures))


def junk_cases(seed: int = 7) -> dict[str, str]:
    """Location texts built to cost the most (each at most 200 characters)."""
    rng = random.Random(seed)

    def letters(alphabet: str, size: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(size))

    cases = {
        "200 x": "x" * 200,
        "200 random letters": letters("abcdefghijklmnopqrstuvwxyz", 200),
        "200 letters and blanks": letters("aeinorst ", 200),
        "66 tokens 'ab'": "ab " * 66,
        "50 parts 'ab,'": ", ".join(["ab"] * 50),
        "'ab, ab'": "ab, ab",
        "199 dashes + a": "-" * 199 + "a",
        "100 '. '": ". " * 100,
        "33 x 'saint '": "saint " * 33,
        "180 Cyrillic": "москва" * 30,
        "200 CJK": "東京" * 100,
    }
    geocoder = _junk_geocoder()
    for alphabet in ("an", "aeinorst"):
        for size in (3, 6, 12, 20):
            texts = [letters(alphabet, size) for _ in range(40)]
            cases[f"worst of 40: {size} of '{alphabet}'"] = max(
                texts, key=lambda text: _timed(geocoder, text)[0])
    return cases


def _junk_geocoder() -> Any:
    from bodygraph.geo.places import OfflineGeocoder

    geocoder = OfflineGeocoder(min_population=500)
    geocoder.prepare()
    return geocoder


def _timed(geocoder: Any, text: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of one lookup, and the names compared exactly."""
    compared = [0]
    original = difflib.SequenceMatcher.set_seq1

    def counting(self: Any, name: Any) -> None:
        compared[0] += 1
        original(self, name)

    difflib.SequenceMatcher.set_seq1 = counting  # type: ignore[method-assign]
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        geocoder.geocode(text)
    except Exception as exc:
        if not hasattr(exc, "code"):
            raise
    finally:
        difflib.SequenceMatcher.set_seq1 = original  # type: ignore[method-assign]
    return time.perf_counter() - wall, time.process_time() - cpu, compared[0]


def junk(runs: int) -> None:
    """Print the cost of each junk case."""
    geocoder = _junk_geocoder()
    print(f"{'case':<32} {'median ms':>9} {'worst ms':>9} {'CPU ms':>7} {'compared':>8}")
    for name, text in junk_cases().items():
        timings = [_timed(geocoder, text) for _ in range(runs * 5)]
        walls = [wall * 1e3 for wall, _, _ in timings]
        cpu = statistics.median(cpu * 1e3 for _, cpu, _ in timings)
        print(f"{name:<32} {statistics.median(walls):>9.2f} {max(walls):>9.2f} {cpu:>7.2f} "
              f"{timings[0][2]:>8}")
    print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f})")


def run(first: str, cache: str | None) -> dict[str, float]:
    env = dict(os.environ)
    if cache is None:
        env["BODYGRAPH_CACHE_DIR"] = ""
    else:
        env["BODYGRAPH_CACHE_DIR"] = cache
    done = subprocess.run([sys.executable, __file__, "--child", first], env=env, check=True,
                          capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="offline geocoder figures")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--junk", action="store_true", help="the worst location texts")
    args = parser.parse_args()
    if args.junk:
        junk(args.runs)
        return
    if args.child:
        child(args.child)
        return
    rows: list[tuple[str, str, list[dict[str, float]]]] = []
    for first in (CITY, TOWN, MISSES[0]):
        fresh = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as empty:
                fresh.append(run(first, empty))
        rows.append(("first use", first, fresh))
    with tempfile.TemporaryDirectory() as shared:
        run(CITY, shared)  # fills the cache
        run(MISSES[0], shared)
        for first in (CITY, TOWN, MISSES[0]):
            rows.append(("cached", first, [run(first, shared) for _ in range(args.runs)]))
    for first in (CITY, MISSES[0]):
        rows.append(("no cache", first, [run(first, None) for _ in range(args.runs)]))

    print(f"{'scenario':<10} {'first query':<24} {'first s':>8} {'1st miss s':>10} "
          f"{'warm ms':>8} {'miss ms':>8} {'miss max':>8} {'RSS MB':>7} {'peak MB':>8}")
    for scenario, first, results in rows:
        def median(key: str, scale: float = 1.0, results: list[dict[str, float]] = results) -> str:
            values = [r[key] * scale for r in results if key in r]
            return f"{statistics.median(values):.3f}" if values else "-"
        print(f"{scenario:<10} {first:<24} {median('first'):>8} {median('first_miss'):>10} "
              f"{median('warm_lookup', 1e3):>8} {median('warm_miss', 1e3):>8} "
              f"{median('warm_miss_max', 1e3):>8} {median('rss_added'):>7} "
              f"{median('rss_peak_added'):>8}")
    print(f"(median of {args.runs} fresh processes each; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
