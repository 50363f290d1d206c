"""Themes are data: colours, fonts and which parts of the image to show.

A :class:`Theme` is frozen and validated on construction; :meth:`Theme.from_dict`
reads a (possibly partial) JSON object on top of a base theme and
:meth:`Theme.to_dict` writes the full object back; :meth:`Theme.preset` gives one of
the shipped themes (:data:`PRESET_NAMES`). :meth:`Theme.to_css` gives the stylesheet
(every colour a CSS custom property, see :mod:`bodygraph.render.css`) that re-themes
any rendered bodygraph when injected after it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, cast

from bodygraph.catalog.tables import CENTER_NAMES
from bodygraph.render.css import stylesheet
from bodygraph.render.errors import ThemeError
from bodygraph.render.presets import PRESETS

PlanetLabels = Literal["symbol", "name"]
Variant = Literal["full", "compact"]
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)
"""The shipped themes: ``light`` (the default), ``dark``, ``print``, ``high-contrast``."""

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_FONT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 \-]{0,47}")
GENERIC_FAMILIES: frozenset[str] = frozenset(
    {"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui"}
)


COLOR_FIELDS: tuple[str, ...] = (
    "design_color", "personality_color", "channel_outline", "channel_empty", "open_center",
    "center_outline", "gate_text", "gate_active_text", "text_color", "muted_text",
    "transit_color", "person_a_color", "person_b_color",
)
"""The theme fields that hold a ``#rgb``/``#rrggbb`` colour (besides ``background``)."""


def center_slug(name: str) -> str:
    """A center's name without spaces, as used in element ids (``SolarPlexus``)."""
    return name.replace(" ", "")


def _check_color(field: str, value: object, *, allow_none: bool = False) -> str:
    if allow_none and value == "none":
        return "none"
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        allowed = "'#rgb', '#rrggbb' or 'none'" if allow_none else "'#rgb' or '#rrggbb'"
        raise ThemeError(field, f"{value!r} is not a colour ({allowed})")
    return value.lower()


@dataclass(frozen=True, slots=True)
class CenterColors:
    """Fill colour of each center when it is defined."""

    head: str = "#f4c95d"
    ajna: str = "#7cb77f"
    throat: str = "#c49a6c"
    g: str = "#f4c95d"
    ego: str = "#e07a6a"
    sacral: str = "#e07a6a"
    solar_plexus: str = "#c49a6c"
    spleen: str = "#c49a6c"
    root: str = "#c49a6c"

    def __post_init__(self) -> None:
        for f in fields(self):
            colour = _check_color(f"centers.{_center_name(f.name)}", getattr(self, f.name))
            object.__setattr__(self, f.name, colour)

    def of(self, center: str) -> str:
        """The colour of a center by its name (``"Solar Plexus"``)."""
        value: str = getattr(self, _field_name(center))
        return value

    def to_dict(self) -> dict[str, str]:
        """``{center name: colour}`` in the order of :data:`CENTER_NAMES`."""
        return {name: self.of(name) for name in CENTER_NAMES}


def _field_name(center: str) -> str:
    if center not in CENTER_NAMES:
        raise ThemeError("centers", f"unknown center {center!r}")
    return center.lower().replace(" ", "_")


def _center_name(field: str) -> str:
    return {_field_name(n): n for n in CENTER_NAMES}[field]


@dataclass(frozen=True, slots=True)
class Theme:
    """How a bodygraph looks. The defaults are the ``light`` preset.

    Colours are ``#rgb`` or ``#rrggbb`` (``background`` may also be ``"none"``);
    ``font_family`` is a list of family names ending in a generic family
    (``sans-serif`` ...), so an image never depends on an installed font.
    ``gate_text`` and ``gate_active_text`` are the preferred colours of gate numbers:
    where one has less than 4.5:1 contrast on what lies under it, the renderer uses
    ``text_color``, ``background``, black or white instead (the first that reads).
    """

    name: str = "light"
    background: str = "#ffffff"
    design_color: str = "#c62828"
    personality_color: str = "#1f2328"
    channel_outline: str = "#b4bac2"
    channel_empty: str = "#ffffff"
    open_center: str = "#ffffff"
    center_outline: str = "#5b6470"
    gate_text: str = "#4a515b"
    gate_active_text: str = "#ffffff"
    text_color: str = "#1f2328"
    muted_text: str = "#6b7380"
    transit_color: str = "#1565c0"
    person_a_color: str = "#1565c0"
    person_b_color: str = "#ad1457"
    centers: CenterColors = CenterColors()
    font_family: tuple[str, ...] = ("DejaVu Sans", "Helvetica", "Arial", "sans-serif")
    show_design: bool = True
    show_personality: bool = True
    show_summary: bool = False
    show_gate_numbers: bool = True
    show_header: bool = True
    show_legend: bool = True
    planet_labels: PlanetLabels = "symbol"
    variant: Variant = "full"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not 1 <= len(self.name) <= 80:
            raise ThemeError("name", "must be text of 1 to 80 characters")
        # Colours are stored in lower case, so equal themes compare equal.
        object.__setattr__(
            self, "background", _check_color("background", self.background, allow_none=True)
        )
        for name in COLOR_FIELDS:
            object.__setattr__(self, name, _check_color(name, getattr(self, name)))
        if not isinstance(self.centers, CenterColors):
            raise ThemeError("centers", "must be a CenterColors")
        _check_fonts(self.font_family)
        for flag in FLAG_FIELDS:
            if not isinstance(getattr(self, flag), bool):
                raise ThemeError(flag, "must be true or false")
        if self.planet_labels not in ("symbol", "name"):
            raise ThemeError("planet_labels", "must be 'symbol' or 'name'")
        if self.variant not in ("full", "compact"):
            raise ThemeError("variant", "must be 'full' (columns, header, legend) or 'compact'")

    @classmethod
    def preset(cls, name: str) -> Theme:
        """A shipped theme by name (:data:`PRESET_NAMES`); raises :class:`ThemeError`."""
        if name not in PRESETS:
            raise ThemeError("preset", f"unknown theme {name!r}; one of {', '.join(PRESETS)}")
        return cls.from_dict({"name": name, **PRESETS[name]}, base=cls())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base: Theme | None = None) -> Theme:
        """A theme from a JSON object; missing keys keep the value of ``base`` (default theme).

        Raises :class:`ThemeError` for unknown keys and invalid values.
        """
        if not isinstance(data, Mapping):
            raise ThemeError(None, "a theme must be a JSON object")
        start = base if base is not None else cls()
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ThemeError(unknown[0], "unknown theme field")
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key == "centers":
                changes[key] = _centers_from(value, start.centers)
            elif key == "font_family":
                changes[key] = _fonts_from(value)
            elif key in COLOR_FIELDS:
                changes[key] = _check_color(key, value)
            elif key == "background":
                changes[key] = _check_color(key, value, allow_none=True)
            else:
                changes[key] = value
        return replace(start, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The full theme as a JSON-ready object (``from_dict(to_dict())`` is identity)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "centers":
                out[f.name] = value.to_dict()
            elif f.name == "font_family":
                out[f.name] = list(value)
            else:
                out[f.name] = value
        return out

    def color_of(self, side: str) -> str:
        """Colour of ``"design"``, ``"personality"``, ``"transit"``, ``"person-a"`` or
        ``"person-b"``."""
        value: str = getattr(self, f"{side.replace('-', '_')}_color")
        return value

    @property
    def font_css(self) -> str:
        """The ``font-family`` value, names with spaces quoted."""
        return ",".join(f"'{f}'" if " " in f else f for f in self.font_family)

    def to_css(self, scope: str = ".bodygraph") -> str:
        """A stylesheet that gives any rendered bodygraph this theme's colours and fonts.

        Rules are scoped to ``scope`` (by default the ``.bodygraph`` root class, which
        outranks the stylesheet each image embeds) and use only the classes the renderer
        writes; every colour is ``var(--bodygraph-..., <this theme's colour>)``, so a page
        can still override single colours (see ``docs/render.md``).
        """
        return stylesheet(self, scope)


def _check_fonts(value: object) -> tuple[str, ...]:
    if (
        not isinstance(value, tuple)
        or not value
        or len(value) > 8
        or not all(isinstance(f, str) and _FONT.fullmatch(f) for f in value)
    ):
        raise ThemeError(
            "font_family", "must be 1 to 8 family names (letters, digits, spaces, hyphens)"
        )
    if value[-1] not in GENERIC_FAMILIES:
        raise ThemeError(
            "font_family", f"must end with a generic family ({', '.join(sorted(GENERIC_FAMILIES))})"
        )
    return cast(tuple[str, ...], value)


def _fonts_from(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list | tuple):
        raise ThemeError("font_family", "must be a list of family names")
    return _check_fonts(tuple(value))


def _centers_from(value: object, base: CenterColors) -> CenterColors:
    if not isinstance(value, Mapping):
        raise ThemeError("centers", "must be an object {center name: colour}")
    changes = {
        _field_name(str(name)): _check_color(f"centers.{name}", colour)
        for name, colour in value.items()
    }
    return replace(base, **changes)


FLAG_FIELDS: tuple[str, ...] = (
    "show_design", "show_personality", "show_summary", "show_gate_numbers", "show_header",
    "show_legend",
)
"""The theme's true/false fields."""

DEFAULT_THEME = Theme()
"""The default theme (the ``light`` preset): traditional center colours, red design, black
personality, on white."""


#: The font families tried first for the languages whose words the theme's Latin fonts
#: lack (Debian's fonts-noto-cjk; docs/render.md); a renderer that reads only the first
#: family (cairosvg) then finds the glyphs, and a browser falls back to the theme's own.
SCRIPT_FONTS: dict[str, str] = {"ja": "Noto Sans CJK JP", "zh-Hans": "Noto Sans CJK SC"}


def theme_for_language(theme: Theme, lang: str) -> Theme:
    """``theme`` with its language's font first (:data:`SCRIPT_FONTS`), or unchanged."""
    family = SCRIPT_FONTS.get(lang)
    if family is None or theme.font_family[0] == family:
        return theme
    return Theme.from_dict({"font_family": [family, *theme.font_family]}, base=theme)
