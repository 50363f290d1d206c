"""Themes: data in, data out, validated with typed errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph.catalog.tables import CENTER_NAMES
from bodygraph.errors import BodygraphError
from bodygraph.render import DEFAULT_THEME, PRESET_NAMES, CenterColors, Theme, ThemeError
from bodygraph.render.theme import COLOR_FIELDS, FLAG_FIELDS

hex6 = st.text("0123456789abcdefABCDEF", min_size=6, max_size=6).map(lambda s: "#" + s)
hex3 = st.text("0123456789abcdef", min_size=3, max_size=3).map(lambda s: "#" + s)
colour = st.one_of(hex6, hex3)


@st.composite
def theme_dicts(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name in COLOR_FIELDS:
        if draw(st.booleans()):
            data[name] = draw(colour)
    if draw(st.booleans()):
        data["background"] = draw(st.one_of(colour, st.just("none")))
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(CENTER_NAMES), unique=True))
        data["centers"] = {n: draw(colour) for n in names}
    for flag in FLAG_FIELDS:
        if draw(st.booleans()):
            data[flag] = draw(st.booleans())
    if draw(st.booleans()):
        data["planet_labels"] = draw(st.sampled_from(["symbol", "name"]))
    if draw(st.booleans()):
        data["variant"] = draw(st.sampled_from(["full", "compact"]))
    if draw(st.booleans()):
        data["font_family"] = draw(st.sampled_from(
            [["Georgia", "serif"], ["monospace"], ["Open Sans", "Arial", "sans-serif"]]))
    return data


@given(theme_dicts())
def test_from_dict_to_dict_round_trip(data: dict[str, Any]) -> None:
    theme = Theme.from_dict(data)
    out = theme.to_dict()
    assert Theme.from_dict(out) == theme
    for key, value in data.items():
        if key == "centers":
            for name, c in value.items():
                assert out["centers"][name] == c.lower()
        elif isinstance(value, str) and value.startswith("#"):
            assert out[key] == value.lower()
        else:
            assert out[key] == value


def test_default_theme_is_complete_and_json_ready() -> None:
    out = DEFAULT_THEME.to_dict()
    assert set(out["centers"]) == set(CENTER_NAMES)
    assert out["design_color"] == "#c62828"
    assert Theme.from_dict({}) == DEFAULT_THEME


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"design_color": "red"}, "design_color"),
        ({"design_color": "#12345"}, "design_color"),
        ({"personality_color": "#ggg"}, "personality_color"),
        ({"open_center": "none"}, "open_center"),
        ({"background": "url(http://x)"}, "background"),
        ({"text_color": 123}, "text_color"),
        ({"centers": {"Sacral": "#xyz"}}, "centers.Sacral"),
        ({"centers": {"Heart": "#fff"}}, "centers"),
        ({"centers": ["#fff"]}, "centers"),
        ({"font_family": ["Arial;}</style><script>", "sans-serif"]}, "font_family"),
        ({"font_family": ["Arial"]}, "font_family"),
        ({"font_family": []}, "font_family"),
        ({"show_design": "yes"}, "show_design"),
        ({"planet_labels": "glyph"}, "planet_labels"),
        ({"variant": "tiny"}, "variant"),
        ({"show_legend": 1}, "show_legend"),
        ({"name": ""}, "name"),
        ({"colour": "#fff"}, "colour"),
    ],
)
def test_bad_values_raise_typed_errors(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ThemeError) as info:
        Theme.from_dict(data)
    assert info.value.field == field
    assert isinstance(info.value, BodygraphError) and isinstance(info.value, ValueError)


def test_direct_construction_is_validated_and_normalised() -> None:
    with pytest.raises(ThemeError):
        Theme(design_color="crimson")
    with pytest.raises(ThemeError):
        CenterColors(head="#12")
    assert Theme(design_color="#ABCDEF").design_color == "#abcdef"
    assert Theme(design_color="#ABCDEF") == Theme(design_color="#abcdef")
    assert hash(Theme()) == hash(DEFAULT_THEME)


def test_from_dict_builds_on_a_base() -> None:
    base = Theme.from_dict({"design_color": "#111111", "show_summary": False})
    theme = Theme.from_dict({"personality_color": "#222222"}, base=base)
    assert (theme.design_color, theme.personality_color, theme.show_summary) == (
        "#111111", "#222222", False)


def test_css_carries_every_colour_and_quotes_font_names() -> None:
    theme = Theme.from_dict({"design_color": "#010203", "centers": {"G": "#0a0b0c"},
                             "font_family": ["Open Sans", "sans-serif"]})
    css = theme.to_css()
    assert "var(--bodygraph-design-color,#010203)" in css
    assert '.center.defined[data-center="G"]{fill:var(--bodygraph-center-g,#0a0b0c)}' in css
    assert "font-family:'Open Sans',sans-serif" in css
    assert '[data-center="Solar Plexus"]{fill:var(--bodygraph-center-solar-plexus,' in css
    assert ".bodygraph .activations.design .planet,.bodygraph .activations.design .rule" in css
    assert "url(" not in css and "@import" not in css
    with pytest.raises(ThemeError):
        Theme.from_dict("not a mapping")  # type: ignore[arg-type]


def test_presets_are_shipped_named_and_distinct() -> None:
    assert PRESET_NAMES == ("light", "dark", "print", "high-contrast")
    themes = [Theme.preset(name) for name in PRESET_NAMES]
    assert [t.name for t in themes] == list(PRESET_NAMES)
    assert Theme.preset("light") == DEFAULT_THEME == Theme()
    assert len({(t.background, t.design_color, t.personality_color) for t in themes}) == 4
    for theme in themes:
        assert Theme.from_dict(theme.to_dict()) == theme
    # Print is black and white: no colour anywhere (greys only).
    printed = Theme.preset("print").to_dict()
    colours = [v for k, v in printed.items() if k in COLOR_FIELDS or k == "background"]
    colours += list(printed["centers"].values())
    assert all(c[1:3] == c[3:5] == c[5:7] for c in colours)
    with pytest.raises(ThemeError, match="one of light, dark, print, high-contrast"):
        Theme.preset("sepia")


def test_a_preset_is_a_starting_point() -> None:
    theme = Theme.from_dict({"design_color": "#123456"}, base=Theme.preset("dark"))
    assert theme.design_color == "#123456"
    assert theme.background == Theme.preset("dark").background


def test_old_theme_objects_still_load() -> None:
    """Themes stored before header, legend, variant and overlay colours existed."""
    old = {key: value for key, value in DEFAULT_THEME.to_dict().items()
           if key not in {"show_header", "show_legend", "variant", "transit_color",
                          "person_a_color", "person_b_color"}}
    old["name"] = "default"
    theme = Theme.from_dict(old)
    assert theme.show_header and theme.variant == "full"
