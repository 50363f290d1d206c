"""Measure agreement with the Swiss Ephemeris on a large random sample; print Markdown.

Usage::

    python scripts/accuracy_report.py [COUNT] [--engine fast|skyfield]

The figures in docs/accuracy.md come from this script. The same comparison, on
2,000 births, runs in the test suite (tests/core/test_accuracy.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bodygraph.calculator import Calculator  # noqa: E402
from bodygraph.model.chart import BODIES  # noqa: E402
from tests.core.swiss_reference import (  # noqa: E402
    OPPOSITE,
    TOLERANCE_ARCSEC,
    compare,
    random_instants,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, nargs="?", default=10_000)
    parser.add_argument("--engine", default=None, help="fast or skyfield (default: the default)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with Calculator(engine=args.engine) if args.engine else Calculator() as calc:
        instants = random_instants(args.count, args.seed, calc.first_birth, calc.last_birth)
        true_node = compare(calc, instants, "true")
        mean_node = compare(calc, instants[: max(1, args.count // 10)], "mean")
    elapsed = time.perf_counter() - started
    print(f"Sample: {args.count} random births, {calc.first_birth:%Y-%m-%d} to "
          f"{calc.last_birth:%Y-%m-%d}, seed {args.seed}, both epochs ({elapsed:.0f} s).\n")
    print("| body | birth epochs: max abs (arcsec) | mean | design epochs: max abs | "
          "tolerance (birth) |")
    print("|---|---|---|---|---|")
    for body in BODIES:
        if body in OPPOSITE:
            continue
        d = np.array(true_node.differences[body])
        print(f"| {body.value} | {np.max(np.abs(d)):.3f} | {np.mean(d):+.3f} | "
              f"{true_node.max_abs(body, design=True):.3f} | {TOLERANCE_ARCSEC[body]} |")
    mean = np.array(mean_node.differences[BODIES[2]])
    print(f"| northNode (mean) | {np.max(np.abs(mean)):.3f} | {np.mean(mean):+.3f} | "
          f"{mean_node.max_abs(BODIES[2], design=True):.3f} | 5.0 |")
    behind = np.abs(true_node.behind_sun)
    if behind.size:
        print(f"\nPlanets within 0.3° of the Sun (possibly behind its disk; kept apart above): "
              f"{behind.size} positions, max |difference| {behind.max():.3f} arcsec.")
    design = np.abs(true_node.design_seconds)
    residual = np.abs(true_node.design_residual_seconds)
    print(f"\nDesign instant: max |difference| {design.max():.3f} s (mean {design.mean():.3f} s); "
          f"after removing the two theories' Sun difference: max {residual.max() * 1000:.2f} ms.")
    print(f"gate.line compared: {true_node.compared}, skipped near a line boundary: "
          f"{true_node.skipped} ({100 * true_node.skipped / true_node.compared:.2f} %), "
          f"mismatches: {len(true_node.mismatches)}")
    for line in true_node.mismatches[:20]:
        print("  mismatch:", line)
    return 1 if true_node.mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
