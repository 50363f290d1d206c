"""The four variable arrows beside the head: left of it the design's (top: design Sun,
determination; bottom: design nodes, environment), right of it the personality's (top:
personality Sun, motivation; bottom: personality nodes, perspective). An arrow points
left for tones 1-3 and right for tones 4-6, as the chart's ``variables`` string says."""

from __future__ import annotations

from typing import Final, Literal
from xml.sax.saxutils import escape

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, term
from bodygraph.render.color import readable
from bodygraph.render.geometry import num
from bodygraph.render.theme import Theme

#: Each arrow: its name, side, the index of its letter in ``"PLR DRL"``, its centre in
#: graph units (the head spans x 202..318, y 18..108).
ARROWS: Final[tuple[tuple[str, str, int, float, float], ...]] = (
    ("determination", "design", 5, 148.0, 44.0),
    ("environment", "design", 6, 148.0, 84.0),
    ("motivation", "personality", 1, 372.0, 44.0),
    ("perspective", "personality", 2, 372.0, 84.0),
)
#: The words of the arrows' titles.
TITLES: Final = {"determination": "Determination", "environment": "Environment",
                 "motivation": "Motivation", "perspective": "Perspective"}
POINTS: Final = {"L": "points left (tone 1-3)", "R": "points right (tone 4-6)"}
SIDE_WORDS: Final = {"design": "design", "personality": "personality"}
SOURCES: Final = {"determination": "Sun", "environment": "nodes", "motivation": "Sun",
                  "perspective": "nodes"}
#: Shaft length, shaft thickness, head length and head width, graph units.
LENGTH, SHAFT, HEAD, WIDTH = 44.0, 5.0, 13.0, 15.0


def arrow_path(x: float, y: float, direction: Literal["L", "R"]) -> str:
    """Path data of one filled arrow centred on ``(x, y)``, its tip on the side named."""
    sign = -1.0 if direction == "L" else 1.0
    tail, tip = x - sign * LENGTH / 2, x + sign * LENGTH / 2
    base = tip - sign * HEAD
    points = [(tail, y - SHAFT / 2), (base, y - SHAFT / 2), (base, y - WIDTH / 2), (tip, y),
              (base, y + WIDTH / 2), (base, y + SHAFT / 2), (tail, y + SHAFT / 2)]
    head, *rest = points
    return (f"M{num(head[0])} {num(head[1])}" + "".join(f"L{num(a)} {num(b)}" for a, b in rest)
            + "Z")


def arrow_title(name: str, side: str, direction: str, lang: str) -> str:
    """An arrow's title in ``lang``: ``"Determination (design Sun): points left (tone 1-3)"``."""
    tr = catalog(lang)
    points = (tr.pgettext("image", "points left (tone 1-3)") if direction == "L"
              else tr.pgettext("image", "points right (tone 4-6)"))
    source = (term("body", "Sun", lang) if SOURCES[name] == "Sun"
              else tr.pgettext("image", "nodes"))
    words = (tr.pgettext("image", "design") if side == "design"
             else tr.pgettext("image", "personality"))
    title = term("variable", TITLES[name], lang)
    return f"{title} ({words} {source}): {points}"


def variable_arrows(variables: str, theme: Theme, pid: str,
                    lang: str = SOURCE_LANGUAGE) -> list[str]:
    """The ``<g class="variables">`` group of the four arrows (graph coordinates); each
    arrow's colour is its side's, or the first ink that reads on the background."""
    background = theme.background if theme.background != "none" else "#ffffff"
    out = [f'<g id="{pid}-variables" class="variables" data-variables="{variables}">']
    for name, side, letter, x, y in ARROWS:
        direction: Literal["L", "R"] = "L" if variables[letter] == "L" else "R"
        ink, colour = readable([(side, theme.color_of(side)), ("text", theme.text_color)],
                               [background])
        classes = f"variable-arrow {side}" + ("" if ink == side else f" ink-{ink}")
        out.append(
            f'<path id="{pid}-arrow-{name}" class="{classes}" data-variable="{name}" '
            f'data-arrow="{direction}" d="{arrow_path(x, y, direction)}" fill="{colour}">'
            f"<title>{escape(arrow_title(name, side, direction, lang))}</title></path>")
    out.append("</g>")
    return out
