"""The answers of a birth-time sensitivity search: line changes and the segments between
them, for one birth (:class:`Sensitivity`) and as columns for many
(:class:`SensitivityTable`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NamedTuple

import numpy as np

from bodygraph._time import aware_list
from bodygraph._typing import IntArray, Micros, ObjectArray, SmallIntArray
from bodygraph.catalog.translations import body_name
from bodygraph.model.chart import (
    BODIES,
    Authority,
    Body,
    ChartType,
    Definition,
    NodeKind,
    gate_line,
)
from bodygraph.relations.columns import Rows
from bodygraph.relations.common import instant_text
from bodygraph.relations.labels import chart_words, side_name

SideName = Literal["personality", "design"]
SIDE_NAMES: tuple[SideName, SideName] = ("personality", "design")
#: The segment properties, as columns of :meth:`bodygraph.ChartTable.columns`.
SEGMENT_COLUMNS: tuple[str, ...] = ("type", "profile", "authority", "definition",
                                    "incarnation_cross")


class GateLine(NamedTuple):
    """A gate and line, written ``gate.line``."""

    gate: int
    line: int

    def __str__(self) -> str:
        return gate_line(self.gate, self.line)


@dataclass(frozen=True, slots=True)
class LineChange:
    """The instant (of birth) at which one of the 26 activations enters another line."""

    at: datetime
    side: SideName
    body: Body
    before: GateLine
    after: GateLine

    def to_dict(self) -> dict[str, str]:
        """``{"at", "side", "body", "from", "to"}``, the instant to the second."""
        return {"at": instant_text(self.at), "side": self.side, "body": self.body.value,
                "from": str(self.before), "to": str(self.after)}

    def labels(self, lang: str) -> dict[str, str]:
        """``{"side", "body"}``: their names in ``lang``."""
        return {"side": side_name(self.side, lang), "body": body_name(self.body, lang)}


@dataclass(frozen=True, slots=True)
class Segment:
    """A span of birth instants with one chart: no activation changes line inside it."""

    start: datetime
    end: datetime
    type: ChartType
    profile: str
    authority: Authority
    definition: Definition
    incarnation_cross: str

    def to_dict(self) -> dict[str, str]:
        """``{"from", "to", "type", "profile", "authority", "definition",
        "incarnationCross"}``, instants to the second."""
        return {"from": instant_text(self.start), "to": instant_text(self.end),
                "type": self.type.value, "profile": self.profile,
                "authority": self.authority.value, "definition": self.definition.value,
                "incarnationCross": self.incarnation_cross}

    def labels(self, lang: str) -> dict[str, str]:
        """``{"type", "authority", "definition", "incarnationCross"}`` in ``lang``."""
        return chart_words(lang, type=self.type, authority=self.authority,
                           definition=self.definition, cross=self.incarnation_cross)


@dataclass(frozen=True, slots=True)
class Sensitivity:
    """Every line change in ``[start, end]`` around a birth, in time order, and the
    segments between them (from ``start`` to the first change, ..., to ``end``)."""

    birth: datetime
    start: datetime
    end: datetime
    changes: tuple[LineChange, ...]
    segments: tuple[Segment, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph sensitivity --json``."""
        return {"from": instant_text(self.start), "to": instant_text(self.end),
                "changes": [c.to_dict() for c in self.changes],
                "segments": [s.to_dict() for s in self.segments]}

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys (lists of the same
        length)."""
        return {"changes": [c.labels(lang) for c in self.changes],
                "segments": [s.labels(lang) for s in self.segments]}


@dataclass(frozen=True, slots=True)
class SensitivityTable(Rows[Sensitivity]):
    """The sensitivity of N births as columns (time last). Changes: ``change_birth``
    (index of the birth), ``change_at`` (UTC), ``change_side`` (0 personality,
    1 design), ``change_body`` (index in ``BODIES``), gate and line before and after, in
    time order within each birth. Segments: ``segment_birth``, ``segment_start``,
    ``segment_end`` and ``segment_columns`` (the ``SEGMENT_COLUMNS`` of their charts)."""

    node: NodeKind
    birth: Micros
    start: Micros
    end: Micros
    change_birth: IntArray
    change_at: Micros
    change_side: SmallIntArray
    change_body: SmallIntArray
    before_gate: SmallIntArray
    before_line: SmallIntArray
    after_gate: SmallIntArray
    after_line: SmallIntArray
    segment_birth: IntArray
    segment_start: Micros
    segment_end: Micros
    segment_columns: dict[str, ObjectArray]

    def __len__(self) -> int:
        return int(self.birth.shape[0])

    def row(self, i: int) -> Sensitivity:
        """The birth's sensitivity at index ``i``."""
        c0, c1 = np.searchsorted(self.change_birth, [i, i + 1])
        s0, s1 = np.searchsorted(self.segment_birth, [i, i + 1])
        columns = {name: values[s0:s1].tolist() for name, values in
                   self.segment_columns.items()}
        changes = tuple(
            LineChange(at, SIDE_NAMES[side], BODIES[body], GateLine(bg, bl), GateLine(ag, al))
            for at, side, body, bg, bl, ag, al in zip(
                aware_list(self.change_at[c0:c1]), self.change_side[c0:c1].tolist(),
                self.change_body[c0:c1].tolist(), self.before_gate[c0:c1].tolist(),
                self.before_line[c0:c1].tolist(), self.after_gate[c0:c1].tolist(),
                self.after_line[c0:c1].tolist(), strict=True))
        segments = tuple(
            Segment(start, end, ChartType(kind), profile, Authority(authority),
                    Definition(definition), cross)
            for start, end, kind, profile, authority, definition, cross in zip(
                aware_list(self.segment_start[s0:s1]),
                aware_list(self.segment_end[s0:s1]), *(columns[name] for name in
                                                         SEGMENT_COLUMNS), strict=True))
        birth, start, end = aware_list(np.array([self.birth[i], self.start[i], self.end[i]]))
        return Sensitivity(birth, start, end, changes, segments)
