"""The one-line summaries of the astrology tools, for an assistant to quote, in the tool's
``lang`` (sentences of the catalogs' context ``mcp``; instants as the command line writes
them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bodygraph.catalog.translations import (
    SOURCE_LANGUAGE,
    body_name,
    listed,
    pgettext,
    sign_names,
)
from bodygraph.relations.labels import hologenetic_words, house_system_name, side_name
from bodygraph.rules.hologenetic import HologeneticProfile
from bodygraph_mcp.summaries import say, when

__all__ = ["astro_summary", "hologenetic_summary", "when"]


def hologenetic_summary(profile: HologeneticProfile, born: datetime,
                        lang: str = SOURCE_LANGUAGE) -> str:
    """Every sphere with its key.line, sequence by sequence, and the birth."""
    titles = hologenetic_words(lang)
    sequences: dict[str, list[str]] = {}
    for sphere in profile.spheres:
        key = sphere.source.key
        title = (sphere.source.title if lang == SOURCE_LANGUAGE
                 else titles["pearl sphere" if key == "pearl" else key])
        sequences.setdefault(sphere.source.sequence, []).append(f"{title} {sphere}")
    spheres = "; ".join(listed(titled, lang) for titled in sequences.values())
    return say(lang, pgettext("mcp", "Hologenetic profile: {spheres}. Born {when}."),
                spheres=spheres, when=when(born))


def longitude_text(value: float, lang: str = SOURCE_LANGUAGE) -> str:
    """``12°06'49" Capricorn`` of a longitude in degrees (the sign in ``lang``)."""
    arcsec = int(value * 3600) % (360 * 3600)
    sign, within = divmod(arcsec, 30 * 3600)
    return (f"{within // 3600}°{within % 3600 // 60:02d}'{within % 60:02d}\" "
            f"{sign_names(lang)[sign]}")


def astro_summary(data: dict[str, Any], born: datetime, lang: str = SOURCE_LANGUAGE,
                  note: str | None = None) -> str:
    """The personality and design Sun and Moon, the angles and the houses' system (and
    ``note``, the houses' note in ``lang``, else ``data``'s)."""
    parts = []
    for side in ("personality", "design"):
        for body in ("sun", "moon"):
            position = data["activations"][side][body]
            place = longitude_text(position["longitude"], lang)
            named = (f"{side} {body}" if lang == SOURCE_LANGUAGE
                     else f"{side_name(side, lang)} {body_name(body, lang)}")
            parts.append(say(lang, pgettext("mcp", "{body} {position} retrograde"),
                              body=named, position=place) if position["retrograde"]
                         else f"{named} {place}")
    text = say(lang, pgettext("mcp", "Zodiac positions born {when}: {positions}."),
                when=when(born), positions=listed(parts, lang))
    if data["angles"] is None:
        return text + " " + say(lang, pgettext(
            "mcp", "No angles or houses: the birth has no place."))
    houses = data["houses"]
    system = (houses["system"] if lang == SOURCE_LANGUAGE
              else house_system_name(houses["system"], lang))
    text += " " + say(lang, pgettext(
        "mcp", "Ascendant {ascendant}, Midheaven {midheaven}; {system} houses."),
        ascendant=longitude_text(data["angles"]["ascendant"], lang),
        midheaven=longitude_text(data["angles"]["midheaven"], lang), system=system)
    if not houses["note"]:
        return text
    return text + " " + say(lang, pgettext("mcp", "Note: {note}."),
                             note=note or houses["note"])
