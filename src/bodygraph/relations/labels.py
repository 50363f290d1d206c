"""The words of the relations' JSON in a language: what each result's ``labels(lang)`` is
made of (docs/languages.md, "Labels of every result"); the catalogs are read on first use."""

from __future__ import annotations

from collections.abc import Iterable

from bodygraph.catalog.tables import Channel
from bodygraph.catalog.translations import (
    body_name,
    catalog,
    channel_text,
    cross_text,
    sign_names,
    term,
)
from bodygraph.model.chart import Authority, Body, ChartType, Definition
from bodygraph.rules.hologenetic import HologeneticProfile
from bodygraph.rules.zodiac import SIGNS


def ingress_labels(body: Body, lang: str) -> dict[str, str]:
    """The words of an ingress's JSON in ``lang``: ``{"body": name}``."""
    return {"body": body_name(body, lang)}


def side_name(side: str, lang: str) -> str:
    """``"personality"`` or ``"design"`` in ``lang``: ``"Persönlichkeit"``."""
    return term("side", side.capitalize(), lang)


def sign_name(sign: str, lang: str) -> str:
    """A zodiac sign's English name in ``lang``."""
    return sign_names(lang)[SIGNS.index(sign)]


def channel_labels(channels: Iterable[Channel], lang: str) -> list[str]:
    """Each channel as ``channelsLong`` writes it, in ``lang``: ``"Kanal der
    Initiation (25-51)"``."""
    return [channel_text(c.name, c.short, lang) for c in channels]


def center_labels(centers: Iterable[str], lang: str) -> list[str]:
    """Each center's name in ``lang``."""
    return [term("center", c, lang) for c in centers]


def chart_words(lang: str, *, type: ChartType, authority: Authority,
                definition: Definition, cross: str | None = None) -> dict[str, str]:
    """``{"type", "authority", "definition"}`` (and ``"incarnationCross"``) in ``lang``,
    the words of a segment, window or composite."""
    out = {"type": term("type", type.value, lang),
           "authority": term("authority", authority.value, lang),
           "definition": term("definition", definition.value, lang)}
    if cross is not None:
        out["incarnationCross"] = cross_text(cross, lang)
    return out


def cycle_names(lang: str) -> dict[str, str]:
    """The names of the cycles under their JSON keys, in ``lang``."""
    tr = catalog(lang)
    return {"solarReturn": tr.pgettext("cli", "Solar return"),
            "saturnReturn": tr.pgettext("cli", "Saturn return"),
            "uranusOpposition": tr.pgettext("cli", "Uranus opposition")}


def house_system_name(system: str, lang: str) -> str:
    """``"placidus"`` or ``"whole-sign"`` in ``lang`` (English keeps the code)."""
    tr = catalog(lang)
    return tr.pgettext("cli", "placidus") if system == "placidus" else tr.pgettext(
        "cli", "whole-sign")


def polar_note(latitude: str, lang: str) -> str:
    """Why whole-sign houses are given (beyond a polar circle), in ``lang``."""
    return catalog(lang).pgettext(
        "cli", "Placidus houses are undefined at latitude {latitude} (beyond the polar "
        "circle): whole-sign houses are given").format(latitude=latitude)


def hologenetic_words(lang: str) -> dict[str, str]:
    """The words of a hologenetic profile in ``lang``: its title, the sequences' titles and
    the spheres' titles (by their JSON keys), the sides."""
    tr = catalog(lang)
    return {
        "title": tr.pgettext("cli", "Hologenetic profile"),
        "activation": tr.pgettext("cli", "Activation sequence"),
        "venus": tr.pgettext("cli", "Venus sequence"),
        "pearl": tr.pgettext("cli", "Pearl sequence"),
        "lifesWork": tr.pgettext("cli", "Life's Work"),
        "evolution": tr.pgettext("cli", "Evolution"),
        "radiance": tr.pgettext("cli", "Radiance"),
        "purpose": tr.pgettext("cli", "Purpose"),
        "attraction": tr.pgettext("cli", "Attraction"),
        "iq": tr.pgettext("cli", "IQ"),
        "eq": tr.pgettext("cli", "EQ"),
        "sq": tr.pgettext("cli", "SQ"),
        "core": tr.pgettext("cli", "Core"),
        "vocation": tr.pgettext("cli", "Vocation"),
        "culture": tr.pgettext("cli", "Culture"),
        "brand": tr.pgettext("cli", "Brand"),
        "pearl sphere": tr.pgettext("cli", "Pearl"),
        "personality": tr.pgettext("cli", "personality"),
        "design": tr.pgettext("cli", "design"),
    }


def hologenetic_labels(profile: HologeneticProfile, lang: str) -> dict[str, dict[str, str]]:
    """The words of a hologenetic profile's JSON in ``lang``, by sphere key:
    ``{"lifesWork": {"sphere": "Lebenswerk"}, ...}`` (the pearl sphere is *Pearl*, not the
    sequence)."""
    titles = hologenetic_words(lang)
    return {s.source.key: {"sphere": titles["pearl sphere" if s.source.key == "pearl"
                                            else s.source.key]} for s in profile.spheres}
