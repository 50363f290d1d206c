"""Columnar charts: :class:`ChartTable`, what :func:`bodygraph.calculate_many` returns.

A table holds N charts as numpy arrays (time last, like the engines): the two instants,
the 2 x 13 longitudes and their gate, line, color, tone and base, and the properties
that follow from the defined channels (type, authority, definition, centers,
circuitries), computed once per distinct set of channels with the very functions that
build a single :class:`~bodygraph.model.chart.Chart`. Iterating a table yields the same
``Chart`` objects :func:`bodygraph.calculate` returns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware
from bodygraph.catalog.tables import (
    CENTER_NAMES,
    CIRCUITRY_ORDER,
    Channel,
    lower_leading_the,
    tables,
)
from bodygraph.model.chart import (
    BODIES,
    Activation,
    Authority,
    Body,
    Chart,
    ChartType,
    Definition,
    NodeKind,
    Side,
)
from bodygraph.rules.graph import center_graph
from bodygraph.rules.properties import DEFINITIONS as GROUP_DEFINITIONS
from bodygraph.rules.properties import (
    MOTORS,
    SIGNATURE,
    STRATEGY,
    authority,
    build_chart,
    chart_type,
    definition,
)
from bodygraph.rules.wheel import opposite, positions, to_units

if TYPE_CHECKING:
    import pandas

    from bodygraph.calculator import Epochs

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]

SIDES: tuple[str, str] = ("personality", "design")
TYPES: tuple[ChartType, ...] = tuple(ChartType)
AUTHORITIES: tuple[Authority, ...] = tuple(Authority)
DEFINITIONS: tuple[Definition, ...] = tuple(Definition)

#: The flat columns of :meth:`ChartTable.columns`, in order (the batch output's columns).
ACTIVATION_COLUMNS: tuple[str, ...] = tuple(
    f"{side}_{body.v1_key}" for side in SIDES for body in BODIES
)
COLUMNS: tuple[str, ...] = (
    "birth_utc", "design_utc", "node", "type", "profile", "authority", "definition",
    "incarnation_cross", "variables", "centers", "channels", "strategy", "signature",
    "not_self_theme", "cognition", "determination", "motivation", "transference",
    "perspective", "distraction", "environment", "circuitries", *ACTIVATION_COLUMNS,
)


@cache
def _channels() -> tuple[Channel, ...]:
    """The 36 channels in table order: bit i of a channel mask is channel i."""
    return tables().channels


@cache
def _channel_gates() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    low = np.array([1 << (c.gates[0] - 1) for c in _channels()], dtype=np.uint64)
    high = np.array([1 << (c.gates[1] - 1) for c in _channels()], dtype=np.uint64)
    return low, high


def channel_masks(gates: IntArray) -> IntArray:
    """Bitmask of the defined channels of each chart from its gates, shape (26, N)."""
    bits = np.left_shift(np.uint64(1), (gates - 1).astype(np.uint64))
    activated = np.bitwise_or.reduce(bits, axis=0)
    low, high = _channel_gates()
    defined = ((activated[None, :] & low[:, None]) != 0) & ((activated[None, :] & high[:, None])
                                                              != 0)
    weights = np.left_shift(np.int64(1), np.arange(len(low), dtype=np.int64))
    out: IntArray = (defined.astype(np.int64) * weights[:, None]).sum(axis=0)
    return out


@dataclass(frozen=True, slots=True)
class ChannelSetProperties:
    """What follows from one set of defined channels (arrays of N charts)."""

    type: npt.NDArray[np.int8]  # index into TYPES
    authority: npt.NDArray[np.int8]  # index into AUTHORITIES
    definition: npt.NDArray[np.int8]  # index into DEFINITIONS
    centers: npt.NDArray[np.int16]  # bit i: CENTER_NAMES[i] defined
    circuitries: npt.NDArray[np.int8]  # bit i: CIRCUITRY_ORDER[i] present


@cache
def _channel_centers() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], IntArray]:
    """Per channel: the index in CENTER_NAMES of its two centers, and its circuitry bit."""
    a = np.array([CENTER_NAMES.index(c.centers[0]) for c in _channels()], dtype=np.intp)
    b = np.array([CENTER_NAMES.index(c.centers[1]) for c in _channels()], dtype=np.intp)
    circuit = np.array([1 << CIRCUITRY_ORDER.index(c.circuitry) for c in _channels()],
                       dtype=np.int64)
    return a, b, circuit


#: Up to this many charts, properties come from a per-channel-set cache of the scalar
#: rules: the vectorized path costs a fixed ~1,000 small numpy calls whatever N is.
SMALL_BATCH = 64


@lru_cache(maxsize=1 << 16)
def _mask_properties(mask: int) -> tuple[int, int, int, int, int]:
    """The properties of one channel set by the rules of :mod:`bodygraph.rules.properties`."""
    chosen = tuple(c for i, c in enumerate(_channels()) if mask >> i & 1)
    graph = center_graph(chosen)
    kind = chart_type(graph)
    centers = sum(1 << CENTER_NAMES.index(name) for name in graph.defined)
    circuits = 0
    for channel in chosen:
        circuits |= 1 << CIRCUITRY_ORDER.index(channel.circuitry)
    return (TYPES.index(kind), AUTHORITIES.index(authority(graph, kind)),
            DEFINITIONS.index(definition(graph)), centers, circuits)


def channel_set_properties(masks: IntArray) -> ChannelSetProperties:
    """Type, authority, definition, centers and circuitries of N channel masks at once:
    from a cache of the scalar rules for small batches, vectorized for large ones."""
    if masks.shape[0] > SMALL_BATCH:
        return vectorized_channel_set_properties(masks)
    rows = np.array([_mask_properties(int(m)) for m in masks], dtype=np.int64).reshape(-1, 5)
    return ChannelSetProperties(
        type=rows[:, 0].astype(np.int8),
        authority=rows[:, 1].astype(np.int8),
        definition=rows[:, 2].astype(np.int8),
        centers=rows[:, 3].astype(np.int16),
        circuitries=rows[:, 4].astype(np.int8),
    )


def vectorized_channel_set_properties(masks: IntArray) -> ChannelSetProperties:
    """:func:`channel_set_properties` for N masks in one pass of array operations.

    The rules are those of :mod:`bodygraph.rules.properties` (which the tests hold this
    against): connectivity is found by propagating the smallest center index along the
    defined channels until nothing changes.
    """
    a, b, circuit = _channel_centers()
    n = masks.shape[0]
    on = (masks[None, :] >> np.arange(len(a), dtype=np.int64)[:, None]) & 1 == 1  # (36, N)
    defined = np.zeros((len(CENTER_NAMES), n), dtype=bool)
    for i in range(len(a)):
        defined[a[i]] |= on[i]
        defined[b[i]] |= on[i]
    label = np.repeat(np.arange(len(CENTER_NAMES), dtype=np.int8)[:, None], n, axis=1)
    for _ in range(len(CENTER_NAMES)):
        changed = False
        for i in range(len(a)):
            low = np.minimum(label[a[i]], label[b[i]])
            for end in (a[i], b[i]):
                update = on[i] & (low < label[end])
                if update.any():
                    label[end] = np.where(update, low, label[end])
                    changed = True
        if not changed:
            break
    c = {name: i for i, name in enumerate(CENTER_NAMES)}

    def connected(x: str, y: str) -> npt.NDArray[np.bool_]:
        out: npt.NDArray[np.bool_] = defined[c[x]] & defined[c[y]] & (
            label[c[x]] == label[c[y]])
        return out

    def has(name: str) -> npt.NDArray[np.bool_]:
        out: npt.NDArray[np.bool_] = defined[c[name]]
        return out

    motor_to_throat = np.zeros(n, dtype=bool)
    for motor in MOTORS:
        motor_to_throat |= connected(motor, "Throat")
    none = ~defined.any(axis=0)
    kind = np.select(
        [none, has("Sacral") & motor_to_throat, has("Sacral"), motor_to_throat],
        [TYPES.index(t) for t in (ChartType.REFLECTOR, ChartType.MANIFESTING_GENERATOR,
                                  ChartType.GENERATOR, ChartType.MANIFESTOR)],
        TYPES.index(ChartType.PROJECTOR),
    )
    inner = np.select(
        [has("Solar Plexus"), has("Sacral"), has("Spleen"),
         has("Ego") & connected("Ego", "Throat"), has("Ego"), connected("G", "Throat"), none],
        [AUTHORITIES.index(x) for x in (
            Authority.EMOTIONAL, Authority.SACRAL, Authority.SPLENIC, Authority.EGO_MANIFESTED,
            Authority.EGO_PROJECTED, Authority.SELF_PROJECTED, Authority.LUNAR)],
        AUTHORITIES.index(Authority.SOUNDING_BOARD),
    )
    roots = (defined & (label == np.arange(len(CENTER_NAMES))[:, None])).sum(axis=0)
    groups = np.array([DEFINITIONS.index(d) for d in GROUP_DEFINITIONS], dtype=np.int8)[roots]
    weights = np.left_shift(1, np.arange(len(CENTER_NAMES)))[:, None]
    return ChannelSetProperties(
        type=kind.astype(np.int8),
        authority=inner.astype(np.int8),
        definition=groups,
        centers=(defined * weights).sum(axis=0).astype(np.int16),
        circuitries=np.bitwise_or.reduce(np.where(on, circuit[:, None], 0), axis=0).astype(
            np.int8),
    )


@dataclass(frozen=True, slots=True)
class ChartTable:
    """N charts as columns.

    ``longitude``, ``gate``, ``line``, ``color``, ``tone`` and ``base`` have shape
    (2, 13, N): side (personality, design) x body (``bodygraph.model.chart.BODIES`` order) x
    chart. ``channel_mask`` has bit i set when channel i of ``tables().channels`` is
    defined; ``type``, ``authority`` and ``definition`` index ``TYPES``,
    ``AUTHORITIES`` and ``DEFINITIONS``.
    """

    node: NodeKind
    birth_utc: npt.NDArray[np.datetime64]  # datetime64[us], UTC (UT1 before 1972)
    design_utc: npt.NDArray[np.datetime64]
    longitude: FloatArray
    gate: npt.NDArray[np.int16]
    line: npt.NDArray[np.int16]
    color: npt.NDArray[np.int16]
    tone: npt.NDArray[np.int16]
    base: npt.NDArray[np.int16]
    channel_mask: IntArray
    type: npt.NDArray[np.int8]
    authority: npt.NDArray[np.int8]
    definition: npt.NDArray[np.int8]
    centers: npt.NDArray[np.int16]  # bit i set: CENTER_NAMES[i] is defined
    circuitries: npt.NDArray[np.int8]  # bit i set: CIRCUITRY_ORDER[i] is present

    def __len__(self) -> int:
        return int(self.birth_utc.shape[0])

    def __iter__(self) -> Iterator[Chart]:
        for i in range(len(self)):
            yield self.chart(i)

    def __getitem__(self, index: int) -> Chart:
        return self.chart(index)

    def _side(self, side: int, i: int) -> Side:
        s, n = side, i
        return Side(*(
            Activation(body, float(self.longitude[s, b, n]), int(self.gate[s, b, n]),
                        int(self.line[s, b, n]), int(self.color[s, b, n]),
                        int(self.tone[s, b, n]), int(self.base[s, b, n]))
            for b, body in enumerate(BODIES)
        ))

    def chart(self, i: int) -> Chart:
        """The i-th chart as a :class:`Chart` (exactly what ``calculate`` returns)."""
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        birth = to_aware(self.birth_utc[i])
        design = to_aware(self.design_utc[i])
        return build_chart(birth, design, self.node, self._side(0, i), self._side(1, i))

    def slice(self, start: int, stop: int) -> ChartTable:
        """Charts ``start:stop`` as a new table (views, no copies)."""
        part = slice(start, stop)
        return ChartTable(
            self.node, self.birth_utc[part], self.design_utc[part],
            self.longitude[..., part], self.gate[..., part], self.line[..., part],
            self.color[..., part], self.tone[..., part], self.base[..., part],
            self.channel_mask[part], self.type[part], self.authority[part],
            self.definition[part], self.centers[part], self.circuitries[part],
        )

    @staticmethod
    def concat(parts: Sequence[ChartTable]) -> ChartTable:
        """One table from several of the same node kind."""
        if not parts:
            raise ValueError("concat needs at least one table")
        node = parts[0].node
        if any(p.node != node for p in parts):
            raise ValueError("cannot concatenate tables of different node kinds")
        def join(name: str, axis: int = -1) -> Any:
            return np.concatenate([getattr(p, name) for p in parts], axis=axis)

        return ChartTable(
            node, join("birth_utc"), join("design_utc"), join("longitude"), join("gate"),
            join("line"), join("color"), join("tone"), join("base"), join("channel_mask"),
            join("type"), join("authority"), join("definition"), join("centers"),
            join("circuitries"),
        )

    @staticmethod
    def empty(node: NodeKind = "true") -> ChartTable:
        """A table of no charts."""
        times = np.empty(0, dtype="datetime64[us]")
        small = np.empty((2, len(BODIES), 0), dtype=np.int16)
        codes = np.empty(0, dtype=np.int8)
        return ChartTable(node, times, times, np.empty((2, len(BODIES), 0)), small, small,
                          small, small, small, np.empty(0, dtype=np.int64), codes, codes,
                          codes, np.empty(0, dtype=np.int16), codes)

    def columns(self) -> dict[str, npt.NDArray[Any]]:
        """The flat columns of ``COLUMNS``: instants as datetime64[us], the rest as
        arrays of str (centers and channels ``;``-joined, activations ``gate.line``)."""
        return _columns(self)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per chart with the keys of ``COLUMNS`` (instants as ISO 8601 text)."""
        columns = self.columns()
        columns["birth_utc"] = _iso(columns["birth_utc"])
        columns["design_utc"] = _iso(columns["design_utc"])
        names = list(columns)
        return [dict(zip(names, row, strict=True))
                for row in zip(*(columns[n].tolist() for n in names), strict=True)]

    def to_pandas(self) -> pandas.DataFrame:
        """A pandas DataFrame of :meth:`columns` (needs pandas: ``bodygraph[pandas]``)."""
        import pandas

        columns = self.columns()
        frame = pandas.DataFrame({name: columns[name] for name in COLUMNS})
        for name in ("birth_utc", "design_utc"):
            frame[name] = frame[name].dt.tz_localize("UTC")
        return frame


def _iso(values: npt.NDArray[Any]) -> ObjectArray:
    text = np.datetime_as_string(values.astype("datetime64[us]"), unit="us")
    out: ObjectArray = np.array([t + "Z" for t in text.tolist()], dtype=object)
    return out


def build_table(birth_utc: npt.NDArray[np.datetime64], design_utc: npt.NDArray[np.datetime64],
                epochs: Epochs, node: NodeKind) -> ChartTable:
    """A table from the engine's output (see :meth:`bodygraph.Calculator.epochs_micros`)."""
    longitude = np.stack([epochs.personality, epochs.design_longitudes])  # (2, 13, N)
    units = to_units(longitude)
    for body in (Body.EARTH, Body.SOUTH_NODE):
        row = BODIES.index(body)
        units[:, row] = opposite(units[:, row - 1])
    wheel = positions(units)
    gate = wheel.gate.astype(np.int16)
    masks = channel_masks(gate.reshape(26, -1).astype(np.int64))
    found = channel_set_properties(masks)
    return ChartTable(
        node, birth_utc.astype("datetime64[us]"), design_utc.astype("datetime64[us]"),
        longitude, gate, wheel.line.astype(np.int16), wheel.color.astype(np.int16),
        wheel.tone.astype(np.int16), wheel.base.astype(np.int16), masks,
        found.type, found.authority, found.definition, found.centers, found.circuitries,
    )


# -- flat columns -------------------------------------------------------------------------

def _lookup(values: Sequence[str]) -> ObjectArray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


@cache
def _short_names() -> tuple[tuple[int, str], ...]:
    """(bit, short name) of every channel, in the order of ``Chart.channels``."""
    return tuple(sorted(((i, c.short) for i, c in enumerate(_channels())),
                        key=lambda item: item[1]))


def _mask_text(mask: int) -> str:
    """``;``-joined short names of the channels of a mask, as ``Chart.channels``."""
    return ";".join(name for bit, name in _short_names() if mask >> bit & 1)


@cache
def _center_texts() -> ObjectArray:
    """``;``-joined defined centers (alphabetical, as ``Chart.centers``) per center mask."""
    return _lookup([";".join(sorted(name for i, name in enumerate(CENTER_NAMES) if m >> i & 1))
                    for m in range(1 << len(CENTER_NAMES))])


@cache
def _circuitry_texts() -> ObjectArray:
    """``Chart.circuitries`` per circuitry mask."""
    return _lookup([", ".join(name for i, name in enumerate(CIRCUITRY_ORDER) if m >> i & 1)
                    for m in range(1 << len(CIRCUITRY_ORDER))])


@cache
def _gate_line_text() -> ObjectArray:
    """"gate.line" for index (gate - 1) * 6 + (line - 1)."""
    return _lookup([f"{g}.{n}" for g in range(1, 65) for n in range(1, 7)])


@cache
def _profile_text() -> ObjectArray:
    return _lookup([f"{p}/{d}" for p in range(1, 7) for d in range(1, 7)])


def _arrow(tone: npt.NDArray[np.int16]) -> npt.NDArray[np.bool_]:
    """True for a left arrow (tones 1-3), as ``Activation.arrow``."""
    out: npt.NDArray[np.bool_] = tone <= 3
    return out


def _color_phrases(words: dict[int, Any]) -> ObjectArray:
    """Phrase for index (color - 1) * 2 + (0 left, 1 right), as properties._color_phrase."""
    return _lookup([f"{(w.left if arrow == 0 else w.right)} {w.name}"
                    for c in range(1, 7) for w in (words[c],) for arrow in (0, 1)])


def _cross_texts(table: ChartTable) -> ObjectArray:
    t = tables()
    sun, earth = BODIES.index(Body.SUN), BODIES.index(Body.EARTH)
    profiles = _profile_text()[(table.line[0, sun] - 1) * 6 + (table.line[1, sun] - 1)]
    rows = zip(profiles.tolist(), table.gate[0, sun].tolist(), table.gate[0, earth].tolist(),
               table.gate[1, sun].tolist(), table.gate[1, earth].tolist(), strict=True)
    out = []
    for profile_text, ps, pe, ds, de in rows:
        angle = t.profile_angles[profile_text]
        name = t.crosses[(angle, ps)].name
        out.append(f"{angle} Cross of {lower_leading_the(name)} ({ps}/{pe} | {ds}/{de})")
    return _lookup(out)


def _columns(table: ChartTable) -> dict[str, npt.NDArray[Any]]:
    t = tables()
    v = t.variables
    sun, node = BODIES.index(Body.SUN), BODIES.index(Body.NORTH_NODE)
    p_sun = (table.gate[0, sun], table.line[0, sun], table.color[0, sun], table.tone[0, sun])
    d_sun = (table.gate[1, sun], table.line[1, sun], table.color[1, sun], table.tone[1, sun])
    p_node_color, p_node_tone = table.color[0, node], table.tone[0, node]
    d_node_color, d_node_tone = table.color[1, node], table.tone[1, node]
    kinds = [TYPES[k] for k in range(len(TYPES))]
    arrows = np.array(["R", "L"], dtype=object)
    variables = ("P" + arrows[_arrow(p_sun[3]).astype(int)] + arrows[_arrow(p_node_tone).astype(
        int)] + " D" + arrows[_arrow(d_sun[3]).astype(int)]
        + arrows[_arrow(d_node_tone).astype(int)])
    distinct, index = np.unique(table.channel_mask, return_inverse=True)
    channels = _lookup([_mask_text(m) for m in distinct.tolist()])
    centers = _center_texts()[table.centers]
    circuitry = _circuitry_texts()[table.circuitries]
    columns: dict[str, npt.NDArray[Any]] = {
        "birth_utc": table.birth_utc,
        "design_utc": table.design_utc,
        "node": np.full(len(table), table.node, dtype=object),
        "type": _lookup([k.value for k in kinds])[table.type],
        "profile": _profile_text()[(p_sun[1] - 1) * 6 + (d_sun[1] - 1)],
        "authority": _lookup([a.value for a in AUTHORITIES])[table.authority],
        "definition": _lookup([d.value for d in DEFINITIONS])[table.definition],
        "incarnation_cross": _cross_texts(table),
        "variables": variables.astype(object),
        "centers": centers,
        "channels": channels[index.reshape(-1)],
        "strategy": _lookup([STRATEGY[k] for k in kinds])[table.type],
        "signature": _lookup([SIGNATURE[k][0] for k in kinds])[table.type],
        "not_self_theme": _lookup([SIGNATURE[k][1] for k in kinds])[table.type],
        "cognition": _lookup([v.cognition[i] for i in range(1, 7)])[d_sun[3] - 1],
        "determination": _color_phrases(v.determination)[
            (d_sun[2] - 1) * 2 + (~_arrow(d_sun[3])).astype(int)],
        "motivation": _lookup([v.motivation[i] for i in range(1, 7)])[p_sun[2] - 1],
        "transference": _lookup([v.transference[i] for i in range(1, 7)])[p_sun[2] - 1],
        "perspective": _lookup([v.perspective[i] for i in range(1, 7)])[p_node_color - 1],
        "distraction": _lookup([v.distraction[i] for i in range(1, 7)])[p_node_color - 1],
        "environment": _color_phrases(v.environment)[
            (d_node_color - 1) * 2 + (~_arrow(d_node_tone)).astype(int)],
        "circuitries": circuitry,
    }
    text = _gate_line_text()
    for s, side in enumerate(SIDES):
        for b, body in enumerate(BODIES):
            columns[f"{side}_{body.v1_key}"] = text[(table.gate[s, b] - 1) * 6
                                                    + (table.line[s, b] - 1)]
    return columns

