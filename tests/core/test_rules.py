"""The derivation rules of conventions.md on hand-built activation sets."""

from __future__ import annotations

import gc
import itertools
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph.catalog.tables import Channel, tables
from bodygraph.model.chart import Authority, Body, ChartType, Definition
from bodygraph.rules.graph import center_graph
from bodygraph.rules.properties import build_chart

from .builders import BIRTH, DESIGN, chart, side


@pytest.mark.parametrize(
    ("gates", "kind", "authority"),
    [
        ([1], ChartType.REFLECTOR, Authority.LUNAR),
        ([5, 15], ChartType.GENERATOR, Authority.SACRAL),
        ([34, 20], ChartType.MANIFESTING_GENERATOR, Authority.SACRAL),
        # Sacral reaches the Throat only through the G center: still a motor connection.
        ([5, 15, 1, 8], ChartType.MANIFESTING_GENERATOR, Authority.SACRAL),
        ([6, 59], ChartType.GENERATOR, Authority.EMOTIONAL),
        ([21, 45], ChartType.MANIFESTOR, Authority.EGO_MANIFESTED),
        # Root -> Spleen -> Throat: a motor connected by a path of two channels.
        ([54, 32, 16, 48], ChartType.MANIFESTOR, Authority.SPLENIC),
        ([35, 36], ChartType.MANIFESTOR, Authority.EMOTIONAL),
        ([7, 31], ChartType.PROJECTOR, Authority.SELF_PROJECTED),
        ([25, 51], ChartType.PROJECTOR, Authority.EGO_PROJECTED),
        # Ego connected to the Throat through the G center: Ego Manifested, a Manifestor.
        ([25, 51, 7, 31], ChartType.MANIFESTOR, Authority.EGO_MANIFESTED),
        ([57, 10], ChartType.PROJECTOR, Authority.SPLENIC),
        ([47, 64], ChartType.PROJECTOR, Authority.SOUNDING_BOARD),
        ([43, 23, 64, 47], ChartType.PROJECTOR, Authority.SOUNDING_BOARD),
        # Root defined alone with the Sacral: no Throat connection.
        ([3, 60], ChartType.GENERATOR, Authority.SACRAL),
    ],
)
def test_type_and_authority(gates: list[int], kind: ChartType, authority: Authority) -> None:
    c = chart(gates)
    assert c.type is kind
    assert c.authority is authority


def test_root_to_throat_through_solar_plexus_without_sacral_is_manifestor() -> None:
    c = chart([19, 49, 35, 36])  # Root-SP, SP-Throat
    assert c.type is ChartType.MANIFESTOR
    assert c.authority is Authority.EMOTIONAL


@pytest.mark.parametrize(
    ("gates", "definition"),
    [
        ([1], Definition.NONE),
        ([47, 64], Definition.SINGLE),
        ([47, 64, 43, 23, 8, 1], Definition.SINGLE),
        ([47, 64, 57, 10], Definition.SPLIT),
        ([47, 64, 57, 10, 3, 60], Definition.TRIPLE_SPLIT),
        ([47, 64, 57, 10, 3, 60, 21, 45], Definition.QUAD_SPLIT),
    ],
)
def test_definition_counts(gates: list[int], definition: Definition) -> None:
    assert chart(gates).definition is definition


def test_reflector_has_nothing_defined() -> None:
    c = chart([1])
    assert c.centers == ()
    assert c.channels == ()
    assert c.circuitries == ""
    assert c.strategy == "Wait a Lunar Cycle"
    assert (c.signature, c.not_self_theme) == ("Surprise", "Disappointment")


@pytest.mark.parametrize(
    ("kind", "strategy", "signature", "not_self"),
    [
        ([5, 15], "To Respond", "Satisfaction", "Frustration"),
        ([34, 20], "To Respond", "Satisfaction", "Frustration"),
        ([7, 31], "Wait for the Invitation", "Success", "Bitterness"),
        ([21, 45], "To Inform", "Peace", "Anger"),
    ],
)
def test_strategy_and_signature(
    kind: list[int], strategy: str, signature: str, not_self: str
) -> None:
    c = chart(kind)
    assert (c.strategy, c.signature, c.not_self_theme) == (strategy, signature, not_self)


def test_v1_strategy_wording() -> None:
    assert chart([5, 15]).to_v1()["strategy"] == "Wait to Respond"
    assert chart([34, 20]).to_v1()["strategy"] == "Wait to Respond"
    assert chart([7, 31]).to_v1()["strategy"] == "Wait for the Invitation"


ALL_PROFILES = [p for p in tables().profile_angles]


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_every_profile_and_angle(profile: str) -> None:
    p_line, d_line = (int(x) for x in profile.split("/"))
    angle = tables().profile_angles[profile]
    for cross in (x for x in tables().crosses.values() if x.angle == angle):
        personality = side([cross.personality_sun, cross.personality_earth], line=p_line)
        design = side([cross.design_sun, cross.design_earth], line=d_line)
        c = build_chart(BIRTH, DESIGN, "true", personality, design)
        assert c.profile == profile
        assert c.incarnation_cross == cross.display


def test_cross_examples_of_conventions() -> None:
    right = build_chart(BIRTH, DESIGN, "true", side([38, 39], line=3), side([48, 21], line=5))
    assert right.incarnation_cross == "Right Angle Cross of Tension (38/39 | 48/21)"
    juxta = build_chart(BIRTH, DESIGN, "true", side([53, 54], line=4), side([42, 32], line=1))
    assert juxta.incarnation_cross == "Juxtaposition Cross of Beginnings (53/54 | 42/32)"


def test_cross_shows_the_charts_own_design_gates() -> None:
    # The name follows the personality sun; the parentheses show this chart's gates.
    c = build_chart(BIRTH, DESIGN, "true", side([38, 39], line=3), side([57, 51], line=5))
    assert c.incarnation_cross == "Right Angle Cross of Tension (38/39 | 57/51)"


@pytest.mark.parametrize(("p_sun", "p_node", "d_sun", "d_node"),
                         list(itertools.product((1, 3, 4, 6), repeat=4))[::7])
def test_variables_arrows(p_sun: int, p_node: int, d_sun: int, d_node: int) -> None:
    arrow = {1: "L", 3: "L", 4: "R", 6: "R"}
    c = build_chart(BIRTH, DESIGN, "true", side([1], tone=p_sun, node_tone=p_node),
                    side([1], line=3, tone=d_sun, node_tone=d_node))
    assert c.variables == f"P{arrow[p_sun]}{arrow[p_node]} D{arrow[d_sun]}{arrow[d_node]}"


@pytest.mark.parametrize("color", range(1, 7))
@pytest.mark.parametrize("tone", range(1, 7))
def test_color_and_tone_names(color: int, tone: int) -> None:
    v = tables().variables
    c = build_chart(
        BIRTH, DESIGN, "true",
        side([1], color=color, tone=tone, node_color=color, node_tone=tone),
        side([1], line=3, color=color, tone=tone, node_color=color, node_tone=tone),
    )
    words = "left" if tone <= 3 else "right"
    determination, environment = v.determination[color], v.environment[color]
    assert c.determination == f"{getattr(determination, words)} {determination.name}"
    assert c.environment == f"{getattr(environment, words)} {environment.name}"
    assert c.cognition == v.cognition[tone]
    assert c.motivation == v.motivation[color]
    assert c.transference == v.motivation[(color + 2) % 6 + 1]
    assert c.perspective == v.perspective[color]
    assert c.distraction == v.perspective[(color + 2) % 6 + 1]


def test_known_variable_phrases() -> None:
    c = build_chart(BIRTH, DESIGN, "true", side([1]),
                    side([1], line=3, color=6, tone=5, node_color=3, node_tone=2))
    assert c.determination == "Indirect Light"
    assert c.environment == "Wet Kitchens"
    c = build_chart(BIRTH, DESIGN, "true", side([1]),
                    side([1], line=3, color=3, tone=2, node_color=1, node_tone=1))
    assert c.determination == "Hot Thirst"
    assert c.environment == "Selective Caves"


def test_circuitry_grouping_and_order() -> None:
    # 34-20 Individual (Integration), 13-33 Collective Abstract, 37-40 Tribal, 5-15 Logic.
    c = chart([37, 40, 13, 33, 5, 15, 34, 20])
    assert c.circuitries == "Individual, Collective Logic, Collective Abstract, Tribal"
    assert chart([37, 40]).circuitries == "Tribal"
    assert chart([37, 40, 6, 59]).circuitries == "Tribal"


def test_list_orders() -> None:
    c = chart([6, 59, 13, 33, 10, 57])
    assert [ch.short for ch in c.channels] == ["10-57", "13-33", "6-59"]
    data = c.to_v2()
    assert data["channelsShort"] == ["10-57", "13-33", "6-59"]
    assert data["channelsLong"] == [
        "The Channel of Perfected Form (10-57)",
        "The Channel of the Prodigal (13-33)",
        "The Channel of Intimacy (6-59)",
    ]
    assert c.to_v1()["channels_long"] == [
        "Perfected Form (10-57)", "The Prodigal (13-33)", "Intimacy (6-59)",
    ]
    assert data["centers"] == sorted(data["centers"])
    assert data["centers"] == ["G", "Sacral", "Solar Plexus", "Spleen", "Throat"]


def test_gates_in_order_of_first_appearance_mars_before_venus() -> None:
    # BODIES order: sun earth nn sn moon mercury VENUS MARS ...; gates list uses mars first.
    personality = side([1, 2, 3, 50, 4, 49, 5, 35, 6, 36, 7, 13, 8])
    design = side([1, 9, 10, 11, 12, 16, 15, 14, 17, 18, 19, 20, 21], line=3)
    c = build_chart(BIRTH, DESIGN, "true", personality, design)
    assert personality[Body.VENUS].gate == 5 and personality[Body.MARS].gate == 35
    assert c.gates[:13] == (1, 2, 3, 50, 4, 49, 35, 5, 6, 36, 7, 13, 8)
    assert c.gates[13:] == (9, 10, 11, 12, 16, 14, 15, 17, 18, 19, 20, 21)
    assert c.to_v2()["gates"] == [str(g) for g in c.gates]


def test_v1_keys() -> None:
    v1 = chart([5, 15]).to_v1()
    assert set(v1["activations"]["design"]) >= {"north_node", "south_node"}
    assert "northNode" not in v1["activations"]["personality"]
    assert v1["birth_date_UTC"] == "2000-01-01T12:00:00.000Z"
    simple = chart([5, 15]).to_v1_simple()
    assert set(simple) == {"type", "profile", "gates", "channels_short", "centers"}
    assert set(chart([5, 15]).to_v2_simple()) == {
        "type", "profile", "gates", "channelsShort", "centers",
    }


def _components_by_closure(channels: list[Channel]) -> tuple[frozenset[str], ...]:
    """Connected centers by definition: start with each channel's pair and merge any two
    groups that share a center until none do; ordered by their alphabetically first."""
    groups = [set(channel.centers) for channel in channels]
    merged = True
    while merged:
        merged = False
        for first, second in itertools.combinations(range(len(groups)), 2):
            if groups[first] & groups[second]:
                groups[first] |= groups.pop(second)
                merged = True
                break
    return tuple(frozenset(group) for group in sorted(groups, key=min))


@given(st.lists(st.sampled_from(tables().channels), unique=True, max_size=36))
def test_the_center_graph_is_the_connected_groups_of_the_channels(
        channels: list[Channel]) -> None:
    expected = _components_by_closure(channels)
    assert center_graph(channels).components == expected
    assert center_graph(reversed(channels)).components == expected


def test_the_center_graph_keeps_nothing_per_channel_set() -> None:
    """A long-running worker sees ever new channel sets: nothing may be kept for each
    (it was an unbounded cache keyed by them)."""
    channels = tables().channels
    sets = [[c for i, c in enumerate(channels) if seed >> (i % 20) & 1 or i == seed % 36]
            for seed in range(1, 5001)]
    center_graph(sets[0])  # what is made once (the centers' bits)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for chosen in sets:
            center_graph(chosen)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 16_384, f"{kept} bytes kept after 5,000 channel sets"
