"""Write a render input (a chart, a transit over a chart, a connection) as an SVG document.

Output is deterministic: the same input and theme give the same bytes (fixed element
order, coordinates rounded to two decimals, no time stamps). Every id starts with the
render's own prefix (:func:`id_prefix`, a hash of what is drawn and of the theme), so two
different images inlined in one page never share an id, and the embedded stylesheet is
scoped to the image's root. Stable classes and ``data-*`` attributes are for styling;
colours are also written as presentation attributes for viewers without CSS.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from bodygraph.catalog.tables import CENTER_NAMES, Channel, tables
from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.render import panels
from bodygraph.render.arrows import variable_arrows
from bodygraph.render.geometry import (
    Layout,
    layout,
    num,
    polyline_path,
)
from bodygraph.render.marks import dot, half, number_ink
from bodygraph.render.model import RenderInput
from bodygraph.render.overlay import ConnectionInput, TransitInput
from bodygraph.render.scene import Scene, scene_of
from bodygraph.render.theme import DEFAULT_THEME, Theme, center_slug, theme_for_language

MARGIN = 24.0
GAP = 6.0
OUTLINE_WIDTH = 11.0
LEGEND_GAP = 10.0
COMPACT_CROP = (18.0, 8.0)  # graph units cut from each side, and from top and bottom, in
# the compact variant (the graph spans x 30..490, y 18..820: 12 and 10 units are left)


@dataclass(frozen=True, slots=True)
class Sizes:
    """Gate dot radius and gate number size: larger in the compact variant."""

    dot: float
    number: float


FULL = Sizes(dot=8.5, number=10.0)
COMPACT = Sizes(dot=9.5, number=13.0)


@dataclass(frozen=True, slots=True)
class Frame:
    """Where the parts sit on the canvas (canvas units = CSS pixels)."""

    width: float
    height: float
    graph_x: float
    graph_y: float
    left_x: tuple[float, ...]
    right_x: tuple[float, ...]
    header_y: float | None
    legend_y: float | None
    summary_y: float | None


def _columns(scene: Scene, theme: Theme) -> tuple[list[int], list[int]]:
    """Indices of the sources whose columns show, left and right of the graph."""
    if theme.variant == "compact":
        return [], []
    shown = {"design": theme.show_design, "personality": theme.show_personality}
    keep = [i for i, s in enumerate(scene.sources) if shown.get(s.classes.split()[-1], True)]
    return ([i for i in keep if scene.sources[i].left],
            [i for i in keep if not scene.sources[i].left])


def frame(scene: Scene, theme: Theme, geo: Layout) -> Frame:
    """Canvas size and the origin of each part."""
    compact = theme.variant == "compact"
    left, right = _columns(scene, theme)
    if compact:
        crop_x, crop_y = COMPACT_CROP
        x, y = -crop_x, -crop_y
        width = geo.width - 2 * crop_x
        bottom = geo.height - 2 * crop_y
        lefts: tuple[float, ...] = ()
        rights: tuple[float, ...] = ()
    else:
        lefts = tuple(MARGIN + i * (panels.COLUMN + GAP) for i in range(len(left)))
        x = MARGIN + len(left) * (panels.COLUMN + GAP)
        rights = tuple(x + geo.width + GAP + i * (panels.COLUMN + GAP)
                       for i in range(len(right)))
        width = x + geo.width + len(right) * (GAP + panels.COLUMN) + MARGIN
        y = MARGIN / 2
        bottom = 0.0
    inner = width - 2 * MARGIN
    header_y = None
    if theme.show_header and not compact:
        header_y = MARGIN
        y = header_y + panels.header_height(scene, inner)
    if not compact:
        bottom = y + geo.height
    legend_y = None
    if theme.show_legend and not compact:
        legend_y = bottom + LEGEND_GAP
        bottom = legend_y + panels.legend_height(scene, inner)
    summary_y = None
    if theme.show_summary:
        summary_y = bottom + 6
        bottom = summary_y + len(panels.summary_lines(scene, inner)) * panels.SUMMARY_LINE + 6
    return Frame(width, bottom + MARGIN / 2, x, y, lefts, rights, header_y, legend_y,
                 summary_y)


def id_prefix(scene: Scene, theme: Theme) -> str:
    """``bg-`` and 12 hex digits of a hash of the scene and the theme."""
    seed = scene.key + "\n" + json.dumps(theme.to_dict(), sort_keys=True)
    return "bg-" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:12]


def render_svg(data: RenderInput | TransitInput | ConnectionInput,
               theme: Theme | None = None, *, lang: str = SOURCE_LANGUAGE) -> str:
    """The SVG document of a bodygraph (UTF-8 text, ends with a newline), its words in
    ``lang`` (one of :func:`bodygraph.languages`; what is drawn is the same in all)."""
    theme = theme_for_language(theme if theme is not None else DEFAULT_THEME, lang)
    scene = scene_of(data, lang)
    geo = layout()
    fr = frame(scene, theme, geo)
    pid = id_prefix(scene, theme)
    sizes = COMPACT if theme.variant == "compact" else FULL
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" id="{pid}" '
           f'class="bodygraph {scene.kind} {theme.variant}" '
           f'width="{num(fr.width)}" height="{num(fr.height)}" '
           f'viewBox="0 0 {num(fr.width)} {num(fr.height)}" role="img" '
           f'aria-labelledby="{pid}-title {pid}-desc" '
           f"font-family={quoteattr(theme.font_css)}>",
           f'<title id="{pid}-title">{escape(scene.title)}</title>',
           f'<desc id="{pid}-desc">{escape(scene.description)}</desc>',
           f"<style>\n{theme.to_css(f':where(#{pid})')}</style>"]
    w = out.append
    if theme.background != "none":
        w(f'<rect class="background" x="0" y="0" width="{num(fr.width)}" '
          f'height="{num(fr.height)}" fill="{theme.background}"/>')
    if fr.header_y is not None:
        out.extend(panels.header(scene, theme, MARGIN, fr.header_y, fr.width - 2 * MARGIN, pid))
    w(f'<g id="{pid}-graph" class="graph" '
      f'transform="translate({num(fr.graph_x)} {num(fr.graph_y)})">')
    w(f'<g id="{pid}-channels" class="channels">')
    for channel in _channel_order(scene):
        out.extend(_channel(channel, scene, theme, geo, pid))
    w(f'</g>\n<g id="{pid}-centers" class="centers">')
    for name in CENTER_NAMES:
        out.extend(_center(name, scene, theme, geo, pid, sizes))
    w("</g>")
    if scene.variables is not None:
        out.extend(variable_arrows(scene.variables, theme, pid, lang))
    w("</g>")
    left, right = _columns(scene, theme)
    for i, x in [*zip(left, fr.left_x, strict=True), *zip(right, fr.right_x, strict=True)]:
        out.extend(panels.column(scene.sources[i], theme, x, fr.graph_y, pid,
                                 scene.body_names))
    if fr.legend_y is not None:
        out.extend(panels.legend(scene, theme, MARGIN, fr.legend_y, fr.width - 2 * MARGIN, pid))
    if fr.summary_y is not None:
        out.extend(panels.summary(scene, theme, fr.width / 2, fr.summary_y,
                                  fr.width - 2 * MARGIN))
    w("</svg>")
    return "\n".join(out) + "\n"


def _channel_order(scene: Scene) -> list[Channel]:
    """Inactive channels first, then hanging gates, then defined ones (drawn on top)."""
    def rank(channel: Channel) -> int:
        return sum(g in scene.gate_sources for g in channel.gates)

    return sorted(tables().channels, key=lambda c: (rank(c), c.gates))


def _channel(channel: Channel, scene: Scene, theme: Theme, geo: Layout, pid: str) -> list[str]:
    points = geo.channel_points(channel)
    halves = geo.channel_halves[channel.short]
    states = [scene.state(g) for g in channel.gates]
    state = "defined" if all(states) else "partial" if any(states) else "inactive"
    low, high = channel.gates
    lines = [
        f'<g id="{pid}-channel-{low}-{high}" class="channel {state}" '
        f'data-channel="{channel.short}">',
        f'<path class="channel-outline" d="{polyline_path(points)}" fill="none" '
        f'stroke="{theme.channel_outline}" stroke-width="{num(OUTLINE_WIDTH)}" '
        f'stroke-linecap="round" stroke-linejoin="round"/>',
    ]
    for gate, side, part in zip(channel.gates, states, halves, strict=True):
        lines.extend(half(gate, side, scene.gate_sources.get(gate, ()), part, theme))
    lines.append("</g>")
    return lines


def _center(name: str, scene: Scene, theme: Theme, geo: Layout, pid: str,
            sizes: Sizes) -> list[str]:
    defined = name in scene.graph.defined
    state = "defined" if defined else "open"
    fill = theme.centers.of(name) if defined else theme.open_center
    slug = center_slug(name)
    d = geo.center_paths[name]
    lines = [
        f'<g id="{pid}-center-group-{slug}" class="center-group {state}" data-center="{name}">',
        f'<path id="{pid}-center-{slug}" class="center {state}" data-center="{name}" '
        f'd="{d}" fill="{fill}" stroke="{theme.center_outline}" '
        f'stroke-width="{"2.6" if defined else "1.4"}" stroke-linejoin="round"/>',
    ]
    for gate in tables().centers[name].gates:
        lines.extend(_gate(gate, scene, theme, geo, pid, sizes, fill))
    lines.append("</g>")
    return lines


def _gate(gate: int, scene: Scene, theme: Theme, geo: Layout, pid: str, sizes: Sizes,
          under: str) -> list[str]:
    x, y = geo.gates[gate]
    sources = scene.gate_sources.get(gate, ())
    state = scene.state(gate)
    head = f'<g id="{pid}-gate-{gate}" class="gate{" active " + state if state else ""}"'
    head += f' data-gate="{gate}"'
    if sources:
        head += f' data-sources="{" ".join(s.key for s in sources)}"'
    if not sources and not theme.show_gate_numbers:
        return [head + "/>"]
    lines = [head + ">"]
    if sources:
        lines.extend(dot(sources, x, y, sizes.dot, theme, under))
    if theme.show_gate_numbers:
        if sources:
            backs = [theme.color_of(s.colour) for s in sources]
            ink, colour, halo = number_ink(theme, theme.gate_active_text, backs)
            weight = ' font-weight="bold"'
        else:
            ink, colour, halo = number_ink(theme, theme.gate_text, [under])
            weight = ""
        place = (f'x="{num(x)}" y="{num(y + sizes.number * 0.36)}" text-anchor="middle" '
                 f'font-size="{num(sizes.number)}"{weight}')
        if halo is not None:
            lines.append(f'<text class="gate-number halo halo-{halo[0]}" {place} fill="none" '
                         f'stroke="{halo[1]}" stroke-width="3" stroke-linejoin="round" '
                         f'aria-hidden="true">{gate}</text>')
        lines.append(f'<text class="gate-number{ink}" {place} fill="{colour}">{gate}</text>')
    lines.append("</g>")
    return lines
