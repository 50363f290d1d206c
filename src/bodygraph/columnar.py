"""Columnar charts: :class:`ChartTable`, what :func:`bodygraph.calculate_many` returns.

A table holds N charts as numpy arrays (time last, like the engines): the two instants,
the 2 x 13 longitudes and their gate, line, color, tone and base, and the properties
that follow from the defined channels (type, authority, definition, centers,
circuitries; :mod:`bodygraph.rules.vectorized`). Iterating a table yields the same
``Chart`` objects :func:`bodygraph.calculate` returns; the flat text columns use the
phrases of :mod:`bodygraph.rules.text`, as a chart does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware
from bodygraph._typing import CodeArray, FloatArray, IntArray, Micros, ObjectArray, SmallIntArray
from bodygraph.catalog.tables import tables
from bodygraph.model.chart import BODIES, Activation, Body, Chart, NodeKind, Side, arrow
from bodygraph.rules.activations import body_positions
from bodygraph.rules.properties import build_chart
from bodygraph.rules.text import code_texts, incarnation_cross, lookup
from bodygraph.rules.vectorized import channel_masks, channel_set_properties

if TYPE_CHECKING:
    import pandas

SIDES: tuple[str, str] = ("personality", "design")

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
#: The columns :meth:`ChartTable.to_pandas` translates, with the catalog context of their
#: words (``centers``: ``;``-joined center names; ``cross``: written from its parts).
_WORD_COLUMNS: dict[str, str] = {
    "type": "type", "authority": "authority", "definition": "definition",
    "incarnation_cross": "cross", "centers": "centers", "strategy": "strategy",
    "signature": "signature", "not_self_theme": "not-self theme", "cognition": "cognition",
    "determination": "determination", "motivation": "motivation",
    "transference": "motivation", "perspective": "perspective", "distraction": "perspective",
    "environment": "environment", "circuitries": "circuitry",
}
#: The columns of :meth:`ChartTable.to_pandas` that stay plain (the rest are categorical).
_INSTANT_COLUMNS: tuple[str, str] = ("birth_utc", "design_utc")


@dataclass(frozen=True, slots=True, repr=False)
class ChartTable:
    """N charts as columns.

    ``longitude``, ``gate``, ``line``, ``color``, ``tone`` and ``base`` have shape
    (2, 13, N): side (personality, design) x body (``bodygraph.model.chart.BODIES`` order) x
    chart. ``channel_mask`` has bit i set when channel i of ``tables().channels`` is
    defined; ``type``, ``authority`` and ``definition`` index ``TYPES``,
    ``AUTHORITIES`` and ``DEFINITIONS`` of :mod:`bodygraph.model.chart`.

    Select charts as in numpy: ``table[3]`` is one :class:`Chart`; ``table[10:20]``,
    ``table[[0, 5]]`` and ``table[table.type == 0]`` are tables.
    """

    node: NodeKind
    birth_utc: Micros  # datetime64[us], UTC (UT1 before 1972)
    design_utc: Micros
    longitude: FloatArray
    gate: SmallIntArray
    line: SmallIntArray
    color: SmallIntArray
    tone: SmallIntArray
    base: SmallIntArray
    channel_mask: IntArray
    type: CodeArray
    authority: CodeArray
    definition: CodeArray
    centers: SmallIntArray  # bit i set: CENTER_NAMES[i] is defined
    circuitries: CodeArray  # bit i set: CIRCUITRY_ORDER[i] is present

    def __len__(self) -> int:
        return int(self.birth_utc.shape[0])

    def __repr__(self) -> str:
        """How many charts, of which node, born when; the arrays are one attribute away."""
        span = "" if not len(self) else (
            f", births {np.datetime_as_string(self.birth_utc.min(), unit='ms')}Z"
            f" .. {np.datetime_as_string(self.birth_utc.max(), unit='ms')}Z")
        return f"ChartTable({len(self)} charts, node={self.node!r}{span})"

    def __iter__(self) -> Iterator[Chart]:
        for i in range(len(self)):
            yield self.chart(i)

    @overload
    def __getitem__(self, index: int | np.integer[Any]) -> Chart: ...

    @overload
    def __getitem__(self, index: slice | Sequence[int] | Sequence[bool] | npt.NDArray[Any],
                    ) -> ChartTable: ...

    def __getitem__(self, index: Any) -> Chart | ChartTable:
        """As numpy: an integer gives one :class:`Chart`; a slice, an array (or list) of
        integers or a boolean mask of ``len(table)`` gives a :class:`ChartTable` (a slice
        shares the arrays, the others copy)."""
        if isinstance(index, int | np.integer):
            return self.chart(int(index))
        if not isinstance(index, slice):
            index = _selection(index, len(self))
        return ChartTable(self.node, *(getattr(self, name)[..., index] for name in _ARRAYS))

    def chart(self, i: int) -> Chart:
        """The i-th chart as a :class:`Chart` (exactly what ``calculate`` returns)."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"chart {i} is out of range for a table of {len(self)} charts")
        return build_chart(to_aware(self.birth_utc[i]), to_aware(self.design_utc[i]),
                           self.node, side_at(self, (0, slice(None), i)),
                           side_at(self, (1, slice(None), i)))

    def slice(self, start: int, stop: int) -> ChartTable:
        """Charts ``start:stop`` as a new table (views, no copies): ``table[start:stop]``."""
        return self[start:stop]

    @staticmethod
    def concat(parts: Sequence[ChartTable]) -> ChartTable:
        """One table from several of the same node kind."""
        if not parts:
            raise ValueError("concat needs at least one table")
        node = parts[0].node
        if any(p.node != node for p in parts):
            raise ValueError("cannot concatenate tables of different node kinds")
        return ChartTable(node, *(np.concatenate([getattr(p, name) for p in parts], axis=-1)
                                  for name in _ARRAYS))

    @staticmethod
    def empty(node: NodeKind = "true") -> ChartTable:
        """A table of no charts."""
        times, longitudes = np.empty(0, dtype="datetime64[us]"), np.empty((len(BODIES), 0))
        return build_table(times, times, longitudes, longitudes, node)

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

    def to_pandas(self, lang: str = "en") -> pandas.DataFrame:
        """A pandas DataFrame of :meth:`columns` (needs pandas: ``bodygraph[pandas]``):
        instants as ``datetime64[us, UTC]``, every text column categorical (they repeat:
        a few dozen distinct values each for most).

        ``lang`` (one of :func:`bodygraph.languages`) writes the word columns in that
        language, as :meth:`Chart.labels <bodygraph.Chart.labels>` does: each distinct
        value is translated once, then the column's codes index the translations."""
        import pandas

        from bodygraph.catalog.translations import SOURCE_LANGUAGE, translate_texts

        coded = _coded(self)
        if lang != SOURCE_LANGUAGE:
            for name, context in _WORD_COLUMNS.items():
                texts, codes = coded[name]
                coded[name] = (lookup(translate_texts(texts.tolist(), context, lang)), codes)
        return pandas.DataFrame({
            name: pandas.Series(getattr(self, name)).dt.tz_localize("UTC")
            if name in _INSTANT_COLUMNS else _categorical(*coded[name]) for name in COLUMNS
        })


#: The per-chart arrays of a table (every field but ``node``), chart index last.
_WHEEL = ("longitude", "gate", "line", "color", "tone", "base")


def side_at(columns: object, key: tuple[int | slice, ...]) -> Side:
    """The 13 activations in the wheel columns of ``columns`` (:data:`_WHEEL`) at ``key``,
    an index with ``slice(None)`` on the body axis (the ``BODIES`` order)."""
    values = (getattr(columns, name)[key].tolist() for name in _WHEEL)
    return Side(*(Activation(body, *row) for body, *row in zip(BODIES, *values, strict=True)))


_ARRAYS: tuple[str, ...] = tuple(f.name for f in fields(ChartTable) if f.name != "node")


def _selection(index: Any, size: int) -> npt.NDArray[np.intp] | npt.NDArray[np.bool_]:
    """An array of chart positions or a boolean mask of ``size``, as numpy takes them."""
    chosen = np.asarray(index)
    if chosen.ndim == 1 and chosen.dtype == np.bool_:
        if chosen.shape[0] != size:
            raise IndexError(f"a boolean mask of {chosen.shape[0]} values for {size} charts")
        return chosen
    if chosen.ndim != 1 or not (chosen.size == 0 or np.issubdtype(chosen.dtype, np.integer)):
        raise IndexError("select charts with an int, a slice, or a 1-d array of ints or bools")
    out: npt.NDArray[np.intp] = chosen.astype(np.intp)
    return out


def _iso(values: npt.NDArray[Any]) -> ObjectArray:
    text = np.datetime_as_string(values.astype("datetime64[us]"), unit="us")
    out: ObjectArray = np.array([t + "Z" for t in text.tolist()], dtype=object)
    return out


def build_table(birth_utc: Micros, design_utc: Micros, personality: FloatArray,
                design: FloatArray, node: NodeKind) -> ChartTable:
    """A table from the births, the design instants and the (13, N) longitudes of both
    sides in ``BODIES`` order."""
    longitude = np.stack([personality, design])  # (2, 13, N)
    wheel = body_positions(longitude)
    gate = wheel.gate.astype(np.int16)
    masks = channel_masks(gate.reshape(26, -1).astype(np.int64))
    found = channel_set_properties(masks)
    return ChartTable(
        node, birth_utc.astype("datetime64[us]"), design_utc.astype("datetime64[us]"),
        longitude, gate, wheel.line.astype(np.int16), wheel.color.astype(np.int16),
        wheel.tone.astype(np.int16), wheel.base.astype(np.int16), masks,
        found.type, found.authority, found.definition, found.centers, found.circuitries,
    )


# -- flat columns: each text is looked up in a table of every value it can take ------------

@cache
def _short_names() -> tuple[tuple[int, str], ...]:
    """(bit, short name) of every channel, in the order of ``Chart.channels``."""
    return tuple(sorted(((i, c.short) for i, c in enumerate(tables().channels)),
                        key=lambda item: item[1]))


def _mask_text(mask: int) -> str:
    """``;``-joined short names of the channels of a mask, as ``Chart.channels``."""
    return ";".join(name for bit, name in _short_names() if mask >> bit & 1)


def _right(tone: SmallIntArray) -> IntArray:
    """1 where a tone's arrow is right, 0 where left (as ``Activation.arrow``)."""
    out: IntArray = (lookup([arrow(t) for t in range(1, 7)])[tone - 1] == "R").astype(np.int64)
    return out


def _cross(table: ChartTable, profile: IntArray) -> tuple[ObjectArray, IntArray]:
    """The crosses, written once per distinct (profile, four gates) of the table."""
    sun, earth = BODIES.index(Body.SUN), BODIES.index(Body.EARTH)
    key = profile.astype(np.int64)
    for gate in (table.gate[0, sun], table.gate[0, earth], table.gate[1, sun],
                 table.gate[1, earth]):
        key = key * 64 + (gate - 1)
    distinct, index = np.unique(key, return_inverse=True)
    profiles = code_texts()["profile"]
    texts = []
    for value in distinct.tolist():
        gates = [(value >> shift & 63) + 1 for shift in (18, 12, 6, 0)]
        texts.append(incarnation_cross(profiles[value >> 24], *gates))
    return lookup(texts), index.reshape(-1)


def _coded(table: ChartTable) -> dict[str, tuple[ObjectArray, npt.NDArray[Any]]]:
    """Every text column as (the texts it can hold, the index of each chart's text)."""
    t = code_texts()
    sun, node = BODIES.index(Body.SUN), BODIES.index(Body.NORTH_NODE)
    color, tone = table.color, table.tone  # [side, body]: side 0 personality, 1 design
    arrows = (_right(tone[0, sun]) << 3 | _right(tone[0, node]) << 2 | _right(tone[1, sun]) << 1
              | _right(tone[1, node]))
    profile = (table.line[0, sun] - 1) * 6 + (table.line[1, sun] - 1)
    distinct, channels = np.unique(table.channel_mask, return_inverse=True)
    coded: dict[str, tuple[ObjectArray, npt.NDArray[Any]]] = {
        "node": (lookup([table.node]), np.zeros(len(table), dtype=np.intp)),
        "type": (t["type"], table.type),
        "profile": (t["profile"], profile),
        "authority": (t["authority"], table.authority),
        "definition": (t["definition"], table.definition),
        "incarnation_cross": _cross(table, profile),
        "variables": (t["variables"], arrows),
        "centers": (t["centers"], table.centers),
        "channels": (lookup([_mask_text(m) for m in distinct.tolist()]), channels.reshape(-1)),
        "strategy": (t["strategy"], table.type),
        "signature": (t["signature"], table.type),
        "not_self_theme": (t["not_self_theme"], table.type),
        "cognition": (t["cognition"], tone[1, sun] - 1),
        "determination": (t["determination"], (color[1, sun] - 1) * 2 + _right(tone[1, sun])),
        "motivation": (t["motivation"], color[0, sun] - 1),
        "transference": (t["transference"], color[0, sun] - 1),
        "perspective": (t["perspective"], color[0, node] - 1),
        "distraction": (t["distraction"], color[0, node] - 1),
        "environment": (t["environment"], (color[1, node] - 1) * 2 + _right(tone[1, node])),
        "circuitries": (t["circuitries"], table.circuitries),
    }
    for s, side in enumerate(SIDES):
        for b, body in enumerate(BODIES):
            coded[f"{side}_{body.v1_key}"] = (t["gate_line"], (table.gate[s, b] - 1) * 6
                                              + (table.line[s, b] - 1))
    return coded


def _columns(table: ChartTable) -> dict[str, npt.NDArray[Any]]:
    coded = _coded(table)
    return {name: getattr(table, name) if name in _INSTANT_COLUMNS
            else coded[name][0][coded[name][1]] for name in COLUMNS}


def _categorical(texts: ObjectArray, codes: npt.NDArray[Any]) -> pandas.Categorical:
    """A categorical column from its texts and codes (texts may repeat: the categories are
    the distinct texts)."""
    import pandas

    categories, inverse = np.unique(texts, return_inverse=True)
    return pandas.Categorical.from_codes(inverse.reshape(-1)[codes], categories)
