"""Find and open the JPL kernel.

Order of precedence: an explicit path, then the ``BODYGRAPH_EPHEMERIS``
environment variable, then the DE440 excerpt shipped with the package
(1800-01-01..2200-01-01). Nothing is ever downloaded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jplephem.spk import SPK

from bodygraph.errors import EphemerisError

ENV_VARIABLE = "BODYGRAPH_EPHEMERIS"
KERNEL_NAME = "de440-1800-2200.bsp"

#: NAIF ids of the segments a chart needs: (center, target) pairs.
REQUIRED_SEGMENTS: tuple[tuple[int, int], ...] = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 9), (0, 10),
    (3, 301), (3, 399),
)


def shipped_kernel() -> Path:
    """The path of the excerpt we ship: inside the installed package, or in the repo."""
    here = Path(__file__).resolve().parent.parent  # the bodygraph package
    candidates = (
        here / "data" / "ephemeris" / KERNEL_NAME,  # wheel install
        here.parent.parent / "data" / "ephemeris" / KERNEL_NAME,  # source checkout
    )
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise EphemerisError(
        f"the shipped ephemeris {KERNEL_NAME} is missing (looked in "
        + ", ".join(str(c) for c in candidates)
        + f"); reinstall bodygraph or set {ENV_VARIABLE} to a JPL .bsp kernel"
    )


def resolve_kernel_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The kernel to use: ``path``, else ``$BODYGRAPH_EPHEMERIS``, else the shipped one."""
    chosen = path if path is not None else os.environ.get(ENV_VARIABLE) or None
    if chosen is None:
        return shipped_kernel()
    resolved = Path(chosen).expanduser()
    if not resolved.is_file():
        raise EphemerisError(f"ephemeris kernel not found: {resolved}")
    return resolved.resolve()


@dataclass(frozen=True, slots=True)
class KernelInfo:
    """What a kernel covers: the TDB Julian dates every required segment spans."""

    path: Path
    first_jd: float
    last_jd: float


@cache
def kernel_info(path: Path) -> KernelInfo:
    """Check that ``path`` has every segment a chart needs and return its coverage."""
    try:
        spk = SPK.open(str(path))
    except (OSError, ValueError) as exc:
        raise EphemerisError(f"cannot open ephemeris kernel {path}: {exc}") from exc
    try:
        spans: dict[tuple[int, int], tuple[float, float]] = {}
        for segment in spk.segments:
            key = (segment.center, segment.target)
            first, last = spans.get(key, (segment.start_jd, segment.end_jd))
            spans[key] = (min(first, segment.start_jd), max(last, segment.end_jd))
    finally:
        spk.close()
    missing = [pair for pair in REQUIRED_SEGMENTS if pair not in spans]
    if missing:
        names = ", ".join(f"{c}->{t}" for c, t in missing)
        raise EphemerisError(f"ephemeris kernel {path} lacks required segments: {names}")
    first = max(spans[pair][0] for pair in REQUIRED_SEGMENTS)
    last = min(spans[pair][1] for pair in REQUIRED_SEGMENTS)
    return KernelInfo(path, first, last)
