"""The stylesheet of a theme: every colour a CSS custom property with the theme's value.

Each rule reads ``var(--bodygraph-<name>, <colour>)``: the theme's colour unless a page
sets the custom property on the image or an ancestor (``--bodygraph-design-color`` for
``design_color``, ``--bodygraph-center-solar-plexus`` for a center). The renderer embeds
the sheet scoped to ``:where(#<root id>)`` (no specificity, so it touches only its own
image and any page rule outranks it); :meth:`Theme.to_css` scopes it to ``.bodygraph``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bodygraph.catalog.tables import CENTER_NAMES

if TYPE_CHECKING:
    from bodygraph.render.theme import Theme

SOURCE_CLASSES: tuple[str, ...] = ("design", "personality", "transit", "person-a", "person-b")
"""Classes of the activation sources, in the order their rules are written (a person's
colour wins over design/personality in a connection)."""

INKS: tuple[str, ...] = ("text", "background", "black", "white")
"""Fallback colours of gate numbers and dot rings, by class suffix (``ink-text``,
``ring-black``)."""

_VAR_WITH_FALLBACK = re.compile(r"var\(--bodygraph-[a-z0-9-]+,(#[0-9a-f]{3,6}|none)\)")


def var_name(field: str) -> str:
    """The custom property of a theme colour field or center (``design_color`` ->
    ``--bodygraph-design-color``, ``Solar Plexus`` -> ``--bodygraph-center-solar-plexus``)."""
    if field in CENTER_NAMES:
        return "--bodygraph-center-" + field.lower().replace(" ", "-")
    return "--bodygraph-" + field.replace("_", "-")


def resolve_vars(css_or_svg: str) -> str:
    """Replace every ``var(--bodygraph-x, colour)`` by its colour (for renderers such as
    cairosvg that do not know custom properties)."""
    return _VAR_WITH_FALLBACK.sub(r"\1", css_or_svg)


def ink_colour(theme: Theme, ink: str) -> str:
    """The colour of a fallback ink by name (:data:`INKS`)."""
    return {"text": theme.text_color, "background": theme.background,
            "black": "#000000", "white": "#ffffff"}[ink]


def stylesheet(theme: Theme, scope: str) -> str:
    """Rules for every element the renderer draws, each selector under ``scope``."""

    def v(field: str) -> str:
        value = theme.centers.of(field) if field in CENTER_NAMES else getattr(theme, field)
        return f"var({var_name(field)},{value})"

    s = f"{scope} "
    rules = [
        f"{scope}{{font-family:{theme.font_css}}}",
        f"{s}.background{{fill:{v('background')}}}",
        f"{s}.center{{fill:{v('open_center')};stroke:{v('center_outline')}}}",
        *(f'{s}.center.defined[data-center="{n}"]{{fill:{v(n)}}}' for n in CENTER_NAMES),
        f"{s}.channel-outline{{stroke:{v('channel_outline')}}}",
        f"{s}.channel-half.inactive,{s}.cue{{stroke:{v('channel_empty')}}}",
    ]
    for cls in SOURCE_CLASSES:
        c = v(f"{cls.replace('-', '_')}_color")
        rules += [
            f"{s}.channel-half.{cls},{s}.stripe.{cls}{{stroke:{c}}}",
            f"{s}.gate-dot.{cls}{{fill:{c};stroke:{c}}}",
            f"{s}.activations.{cls} text{{fill:{c}}}",
            f"{s}.activations.{cls} .planet,{s}.activations.{cls} .rule{{stroke:{c}}}",
        ]
        if cls in ("design", "personality"):
            rules.append(f"{s}.variable-arrow.{cls}{{fill:{c}}}")
    rules += [
        f"{s}.gate-number{{fill:{v('gate_text')}}}",
        f"{s}.gate.active .gate-number{{fill:{v('gate_active_text')}}}",
    ]
    for ink in INKS:
        colour = v("text_color") if ink == "text" else (
            v("background") if ink == "background" else ink_colour(theme, ink))
        rules += [
            f"{s}.gate .gate-number.ink-{ink}{{fill:{colour}}}",
            f"{s}.gate-dot.ring-{ink}{{stroke:{colour}}}",
            f"{s}.variable-arrow.ink-{ink}{{fill:{colour}}}",
        ]
    rules += [
        f"{s}.gate .gate-number.halo{{fill:none}}",
        f"{s}.gate .gate-number.halo-black{{stroke:#000000}}",
        f"{s}.gate .gate-number.halo-white{{stroke:#ffffff}}",
        f"{s}.header .value,{s}.legend text,{s}.summary{{fill:{v('text_color')}}}",
        f"{s}.header .label,{s}.muted{{fill:{v('muted_text')}}}",
    ]
    return "\n".join(rules) + "\n"
