"""The phrases of a chart, written once for the one-chart path
(:mod:`bodygraph.rules.properties`) and the many-chart path (:mod:`bodygraph.columnar`):
profile, incarnation cross, variables, the color phrases and the circuitries; and
:func:`code_texts`, the same phrases as lookup tables for arrays of codes."""

from __future__ import annotations

from collections.abc import Container, Sequence
from functools import cache

import numpy as np

from bodygraph._typing import ObjectArray
from bodygraph.catalog.tables import (
    CENTER_NAMES,
    CIRCUITRY_ORDER,
    ColorWords,
    lower_leading_the,
    tables,
)
from bodygraph.catalog.wording import SIGNATURE, STRATEGY
from bodygraph.model.chart import AUTHORITIES, DEFINITIONS, TYPES, arrow, gate_line


def profile_text(personality_line: int, design_line: int) -> str:
    """``"<personality sun line>/<design sun line>"``, e.g. ``"3/5"``."""
    return f"{personality_line}/{design_line}"


def incarnation_cross(profile: str, personality_sun: int, personality_earth: int,
                      design_sun: int, design_earth: int) -> str:
    """The cross written with its angle (from the profile), its name (from the angle and the
    personality sun gate) and the chart's four gates:
    ``"Right Angle Cross of the Sphinx (13/7 | 1/2)"``."""
    t = tables()
    angle = t.profile_angles[profile]
    name = t.crosses[(angle, personality_sun)].name
    return (f"{angle} Cross of {lower_leading_the(name)} "
            f"({personality_sun}/{personality_earth} | {design_sun}/{design_earth})")


def variables_text(personality_sun: str, personality_node: str, design_sun: str,
                   design_node: str) -> str:
    """The four arrows (``"L"`` or ``"R"``) written as ``"PRL DRL"``."""
    return f"P{personality_sun}{personality_node} D{design_sun}{design_node}"


def color_phrase(words: ColorWords, arrow: str) -> str:
    """A variable color with the word of its arrow: ``"Left Hot"``-like phrases."""
    return f"{words.left if arrow == 'L' else words.right} {words.name}"


def circuitry_text(present: Container[str]) -> str:
    """The circuitry groups present, once each, in ``CIRCUITRY_ORDER``, comma-separated."""
    return ", ".join(name for name in CIRCUITRY_ORDER if name in present)


def lookup(values: Sequence[str]) -> ObjectArray:
    """Texts as a numpy object array, to index with arrays of codes."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _bits(mask: int, names: Sequence[str]) -> list[str]:
    return [name for i, name in enumerate(names) if mask >> i & 1]


@cache
def code_texts() -> dict[str, ObjectArray]:
    """Every phrase as an array indexed by codes, for N charts at once
    (:meth:`bodygraph.columnar.ChartTable.columns`): ``centers`` and ``circuitries`` by
    their bitmask, ``gate_line`` by ``(gate - 1) * 6 + line - 1``, ``profile`` by
    ``(personality line - 1) * 6 + design line - 1``, ``variables`` by the four arrows
    as bits (1: right; personality sun first), the color phrases by ``(color - 1) * 2 +
    right``, type words by type code, the others by color or tone - 1."""
    v = tables().variables
    six = range(1, 7)
    arrows = [arrow(tone) for tone in (1, 4)]  # index 0: left, 1: right
    return {
        "centers": lookup([";".join(sorted(_bits(m, CENTER_NAMES)))
                           for m in range(1 << len(CENTER_NAMES))]),
        "circuitries": lookup([circuitry_text(_bits(m, CIRCUITRY_ORDER))
                               for m in range(1 << len(CIRCUITRY_ORDER))]),
        "gate_line": lookup([gate_line(g, n) for g in range(1, 65) for n in six]),
        "profile": lookup([profile_text(p, d) for p in six for d in six]),
        "variables": lookup([variables_text(*(arrows[code >> k & 1] for k in (3, 2, 1, 0)))
                             for code in range(16)]),
        "type": lookup([k.value for k in TYPES]),
        "authority": lookup([a.value for a in AUTHORITIES]),
        "definition": lookup([d.value for d in DEFINITIONS]),
        "strategy": lookup([STRATEGY[k] for k in TYPES]),
        "signature": lookup([SIGNATURE[k][0] for k in TYPES]),
        "not_self_theme": lookup([SIGNATURE[k][1] for k in TYPES]),
        "determination": lookup([color_phrase(v.determination[c], a) for c in six
                                 for a in arrows]),
        "environment": lookup([color_phrase(v.environment[c], a) for c in six
                               for a in arrows]),
        **{name: lookup([getattr(v, name)[i] for i in six]) for name in (
            "cognition", "motivation", "transference", "perspective", "distraction")},
    }
