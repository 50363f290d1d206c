"""The fast engine against the Skyfield reference on random instants: prints the table
of docs/accuracy.md ("Agreement with the reference").

    .venv/bin/python scripts/engine_agreement.py            # 5,000 instants, seed 2026
    .venv/bin/python scripts/engine_agreement.py 500 --seed 1

Instants are uniform in TT over the shipped kernel (1800-2200, a day's margin at each
end). Differences are absolute, in milliarcseconds. The second table takes away the
difference between the nutation models (IAU 2000B here, IAU 2000A in Skyfield).
"""

from __future__ import annotations

import argparse

import numpy as np

from bodygraph._time import TT
from bodygraph.ephemeris.fast.engine import FastEngine
from bodygraph.ephemeris.fast.frames import centuries, nutation_longitude
from bodygraph.ephemeris.kernel import shipped_kernel
from bodygraph.ephemeris.reference import ENGINE_BODIES, SkyfieldEngine

FIRST_JD, LAST_JD = 2378496.5 + 1.0, 2524593.5 - 1.0


def milliarcseconds(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| of two longitude arrays (degrees), wrapped, in mas."""
    out: np.ndarray = np.abs((a - b + 180.0) % 360.0 - 180.0) * 3.6e6
    return out


def row(name: str, error: np.ndarray) -> str:
    return (f"| {name} | {error.max():.3f} | {np.percentile(error, 99):.2f} | "
            f"{np.median(error):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    jd = np.random.default_rng(args.seed).uniform(FIRST_JD, LAST_JD, args.count)
    tt = TT(np.floor(jd), jd - np.floor(jd))
    kernel = shipped_kernel()
    fast, reference = FastEngine(kernel), SkyfieldEngine(kernel)
    try:
        print(f"{args.count:,} instants, seed {args.seed}; fast minus Skyfield, mas\n")
        print("| rows | max | 99th percentile | median |\n| --- | --- | --- | --- |")
        ours = {node: fast.longitudes(tt, node) for node in ("true", "mean")}
        for node in ("true", "mean"):
            error = milliarcseconds(ours[node], reference.longitudes(tt, node))
            print(row(f"every body, {node} node", error))
        print(row("`sun_longitude`", milliarcseconds(fast.sun_longitude(tt),
                                                     reference.sun_longitude(tt))))
        from skyfield.nutationlib import iau2000a_radians

        full, _ = iau2000a_radians(tt.time())
        model = np.degrees(nutation_longitude(centuries(tt.whole, tt.fraction)) - full)
        residual = milliarcseconds(ours["true"] - model, reference.longitudes(tt, "true"))
        print("\nWith the IAU 2000B - 2000A difference taken away, max per body (mas):\n")
        print("| " + " | ".join(ENGINE_BODIES) + " |")
        print("|" + " --- |" * len(ENGINE_BODIES))
        print("| " + " | ".join(f"{x:.4f}" for x in residual.max(axis=1)) + " |")
    finally:
        reference.close()


if __name__ == "__main__":
    main()
