"""Time the parts of the compiled engine, per evaluation, in compiled loops over random
instants, beside the whole engine per chart.

    .venv/bin/python benchmarks/engine_parts.py [--instants 200000]

Rows (us per evaluation; a chart takes each part the number of times shown):

* ``frames`` (x4 per chart: birth and the three Sun samples; the design's are
  interpolated): TDB - TT, the nutation in longitude, the precession rows;
* ``nutation`` alone (inside ``frames``);
* ``segment states`` (x2): the 12 segments' positions and velocities at one instant;
* ``epoch, 10 bodies + node`` (x2): segment states, then per body light time, the
  retarded position, deflection and aberration, and the longitude;
* ``epoch, Sun only`` (x3): the same for the Sun (the design samples);
* ``chart`` : ``loops.epochs`` per chart (both epochs and the design instant).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bodygraph._time import TT
from bodygraph._typing import FloatArray, IntArray
from bodygraph.ephemeris.fast.apparent import FRAME_SIZE, NO_NODE, TRUE_NODE, epoch, frames
from bodygraph.ephemeris.fast.chebyshev import segment_state
from bodygraph.ephemeris.fast.engine import FastEngine
from bodygraph.ephemeris.fast.frames import nutation
from bodygraph.ephemeris.fast.jit import compiled, kernel
from bodygraph.ephemeris.kernel import shipped_kernel


@kernel
def _frames(whole: FloatArray, fraction: FloatArray, table: FloatArray) -> float:
    frame = np.empty(FRAME_SIZE)
    total = 0.0
    for i in range(whole.shape[0]):
        frames(whole[i], fraction[i], table, frame)
        total += frame[1]
    return total


@kernel
def _nutation(t: FloatArray, table: FloatArray) -> float:
    total = 0.0
    for i in range(t.shape[0]):
        total += nutation(t[i], table)
    return total


@kernel
def _states(coefficients: FloatArray, segments: FloatArray, needed: IntArray,
            whole: FloatArray, fraction: FloatArray) -> float:
    state = np.zeros((segments.shape[0], 6))
    total = 0.0
    for i in range(whole.shape[0]):
        for s in needed:
            segment_state(coefficients, segments, s, whole[i], fraction[i], state[s], True)
        total += state[0, 0]
    return total


@kernel
def _epochs(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
            needed: IntArray, whole: FloatArray, fraction: FloatArray, frame: FloatArray,
            bodies: int, node: int) -> float:
    work = np.zeros((segments.shape[0] + 6, 6))
    out = np.zeros((11, 1))
    none = np.empty((3, 10, 0))
    total = 0.0
    for i in range(whole.shape[0]):
        epoch(coefficients, segments, chains, needed, whole[i], fraction[i], frame, bodies,
              node, work, out, none, 0)
        total += out[0, 0]
    return total


def _time(run: object, *args: object) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        run(*args)  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instants", type=int, default=200_000)
    n = parser.parse_args().instants
    engine = FastEngine(shipped_kernel(), mode="compiled")
    rng = np.random.default_rng(1)
    jd = np.sort(rng.uniform(2378496.5 + 100.0, 2524593.5 - 5.0, n))
    whole, fraction = np.floor(jd), jd - np.floor(jd)
    t = ((whole - 2451545.0) + fraction) / 36525.0
    frame = np.empty(FRAME_SIZE)
    compiled(frames)(whole[0], fraction[0], engine.nutation, frame)
    c, s, ch = engine.coefficients, engine.segments, engine.chains
    runs = {
        "frames": (compiled(_frames), whole, fraction, engine.nutation),
        "nutation": (compiled(_nutation), t, engine.nutation),
        "segment states": (compiled(_states), c, s, engine.every, whole, fraction),
        "epoch, 10 bodies + node": (compiled(_epochs), c, s, ch, engine.every, whole,
                                    fraction, frame, 10, TRUE_NODE),
        "epoch, Sun only": (compiled(_epochs), c, s, ch, engine.sun, whole, fraction,
                            frame, 1, NO_NODE),
    }
    for function, *args in runs.values():
        function(*(a[:10] if isinstance(a, np.ndarray) and a.shape == (n,) else a
                   for a in args))  # compile or load first
    print(f"{n:,} instants, CPU time, best of 3; load average {os.getloadavg()[0]:.2f}")
    for name, (function, *args) in runs.items():
        print(f"{name:28s} {_time(function, *args) / n * 1e6:7.2f} us")
    births = TT(whole, fraction)
    engine.epochs(TT(whole[:10], fraction[:10]), "true")
    print(f"{'chart (loops.epochs)':28s} "
          f"{_time(engine.epochs, births, 'true') / n * 1e6:7.2f} us")


if __name__ == "__main__":
    main()
