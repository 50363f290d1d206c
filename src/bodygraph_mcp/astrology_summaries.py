"""The one-line summaries of the astrology tools, for an assistant to quote (instants as
the command line writes them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bodygraph.cli.relations_text import rounded_seconds_text as when
from bodygraph.rules.hologenetic import HologeneticProfile
from bodygraph.rules.zodiac import SIGNS

__all__ = ["astro_summary", "hologenetic_summary", "when"]


def hologenetic_summary(profile: HologeneticProfile, born: datetime) -> str:
    """Every sphere with its key.line, sequence by sequence, and the birth."""
    sequences: dict[str, list[str]] = {}
    for sphere in profile.spheres:
        sequences.setdefault(sphere.source.sequence, []).append(
            f"{sphere.source.title} {sphere}")
    listed = "; ".join(", ".join(spheres) for spheres in sequences.values())
    return f"Hologenetic profile: {listed}. Born {when(born)}."


def longitude_text(value: float) -> str:
    """``12°06'49" Capricorn`` of a longitude in degrees."""
    arcsec = int(value * 3600) % (360 * 3600)
    sign, within = divmod(arcsec, 30 * 3600)
    return f"{within // 3600}°{within % 3600 // 60:02d}'{within % 60:02d}\" {SIGNS[sign]}"


def astro_summary(data: dict[str, Any], born: datetime) -> str:
    """The personality and design Sun and Moon, the angles and the houses' system."""
    parts = []
    for side in ("personality", "design"):
        for body in ("sun", "moon"):
            position = data["activations"][side][body]
            mark = " retrograde" if position["retrograde"] else ""
            parts.append(f"{side} {body} {longitude_text(position['longitude'])}{mark}")
    text = f"Zodiac positions born {when(born)}: {', '.join(parts)}."
    if data["angles"] is None:
        return text + " No angles or houses: the birth has no place."
    houses = data["houses"]
    text += (f" Ascendant {longitude_text(data['angles']['ascendant'])}, Midheaven "
             f"{longitude_text(data['angles']['midheaven'])}; {houses['system']} houses.")
    return text + (f" Note: {houses['note']}." if houses["note"] else "")
