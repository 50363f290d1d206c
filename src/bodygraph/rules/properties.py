"""Every derived property of a chart, from its 26 activations.

The rules are those of ``docs/conventions.md``; the names come from the tables.
"""

from __future__ import annotations

from datetime import datetime

from bodygraph.catalog.tables import Channel, ColorWords, tables
from bodygraph.catalog.wording import SIGNATURE, STRATEGY
from bodygraph.model.chart import (
    DEFINITIONS,
    GATE_ORDER,
    Activation,
    Authority,
    Chart,
    ChartType,
    Definition,
    NodeKind,
    Side,
)
from bodygraph.rules.graph import CenterGraph, center_graph, defined_channels
from bodygraph.rules.text import (
    circuitry_text,
    color_phrase,
    incarnation_cross,
    profile_text,
    variables_text,
)

MOTORS: tuple[str, ...] = ("Sacral", "Solar Plexus", "Ego", "Root")


def chart_type(graph: CenterGraph) -> ChartType:
    """Type from the defined centers and their connections."""
    defined = graph.defined
    if not defined:
        return ChartType.REFLECTOR
    motor_to_throat = any(graph.connected(m, "Throat") for m in MOTORS)
    if "Sacral" in defined:
        return ChartType.MANIFESTING_GENERATOR if motor_to_throat else ChartType.GENERATOR
    return ChartType.MANIFESTOR if motor_to_throat else ChartType.PROJECTOR


def authority(graph: CenterGraph, kind: ChartType) -> Authority:
    """Inner authority: the first rule that holds."""
    defined = graph.defined
    if "Solar Plexus" in defined:
        return Authority.EMOTIONAL
    if "Sacral" in defined:
        return Authority.SACRAL
    if "Spleen" in defined:
        return Authority.SPLENIC
    if "Ego" in defined:
        if graph.connected("Ego", "Throat"):
            return Authority.EGO_MANIFESTED
        return Authority.EGO_PROJECTED
    if graph.connected("G", "Throat"):
        return Authority.SELF_PROJECTED
    if kind is ChartType.REFLECTOR:
        return Authority.LUNAR
    return Authority.SOUNDING_BOARD


def definition(graph: CenterGraph) -> Definition:
    """Definition from the number of separate groups of defined centers."""
    return DEFINITIONS[len(graph.components)]


def profile(personality: Side, design: Side) -> str:
    """``"<personality sun line>/<design sun line>"``."""
    return profile_text(personality.sun.line, design.sun.line)


def cross(personality: Side, design: Side, profile: str) -> str:
    """The incarnation cross of the chart (see :func:`bodygraph.rules.text.incarnation_cross`)."""
    return incarnation_cross(profile, personality.sun.gate, personality.earth.gate,
                             design.sun.gate, design.earth.gate)


def variables(personality: Side, design: Side) -> str:
    """Arrows, e.g. ``"PRL DRL"``."""
    return variables_text(personality.sun.arrow, personality.north_node.arrow,
                          design.sun.arrow, design.north_node.arrow)


def _color_phrase(words: dict[int, ColorWords], activation: Activation) -> str:
    return color_phrase(words[activation.color], activation.arrow)


def circuitries(channels: tuple[Channel, ...]) -> str:
    """The circuitry groups of the defined channels, once each, in fixed order."""
    return circuitry_text({c.circuitry for c in channels})


#: Side attributes in GATE_ORDER (a Side's field is named after its body's v1 key).
_GATE_ORDER_FIELDS: tuple[str, ...] = tuple(body.v1_key for body in GATE_ORDER)


def gate_list(personality: Side, design: Side) -> tuple[int, ...]:
    """Gates in order of first appearance, personality then design, in GATE_ORDER."""
    seen: dict[int, None] = {}
    for side in (personality, design):
        for name in _GATE_ORDER_FIELDS:
            seen.setdefault(getattr(side, name).gate, None)
    return tuple(seen)


def build_chart(
    birth_utc: datetime,
    design_utc: datetime,
    node: NodeKind,
    personality: Side,
    design: Side,
) -> Chart:
    """Derive every property of a chart from its two sides."""
    gates = gate_list(personality, design)
    channels = defined_channels(gates)
    graph = center_graph(channels)
    kind = chart_type(graph)
    profile_text = profile(personality, design)
    v = tables().variables
    signature, not_self = SIGNATURE[kind]
    return Chart(
        birth_utc=birth_utc,
        design_utc=design_utc,
        node=node,
        personality=personality,
        design=design,
        type=kind,
        authority=authority(graph, kind),
        definition=definition(graph),
        profile=profile_text,
        channels=channels,
        centers=tuple(sorted(graph.defined)),
        gates=gates,
        incarnation_cross=cross(personality, design, profile_text),
        strategy=STRATEGY[kind],
        signature=signature,
        not_self_theme=not_self,
        cognition=v.cognition[design.sun.tone],
        determination=_color_phrase(v.determination, design.sun),
        variables=variables(personality, design),
        motivation=v.motivation[personality.sun.color],
        transference=v.transference[personality.sun.color],
        perspective=v.perspective[personality.north_node.color],
        distraction=v.distraction[personality.north_node.color],
        environment=_color_phrase(v.environment, design.north_node),
        circuitries=circuitries(channels),
    )
