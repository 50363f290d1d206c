"""What the relation tools return: exactly the JSON of the matching ``bodygraph`` command
with ``--json`` (the same builders: the results' ``to_dict``), described here as typed
dictionaries for the tools' output schemas, and a one-line summary as the text content.

``calendar`` is the one exception: structured content must be an object, so its list of
ingresses is under ``ingresses``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from typing_extensions import TypedDict

#: "gate.line" of each of the 13 bodies, by contract name (sun, earth, northNode, ...).
Activations = dict[str, str]


def relation_result(data: Mapping[str, Any], summary: str) -> CallToolResult:
    """``data`` as the structured content and ``summary`` as the text content."""
    return CallToolResult(content=[TextContent(type="text", text=summary)],
                          structured_content=dict(data))


class CompositeOutput(TypedDict):
    """A chart of a set of gates (a transit's overlay, a connection's composite)."""

    type: str
    definition: str
    authority: str
    centers: list[str]
    channelsShort: list[str]


class NatalTransitOutput(TypedDict):
    """What the transit does to the natal chart."""

    completedChannels: list[str]
    newCenters: list[str]
    overlay: CompositeOutput


class TransitOutput(TypedDict):
    """``bodygraph transit --json``."""

    at: str
    activations: Activations
    gates: list[str]
    channelsShort: list[str]
    natal: NatalTransitOutput | None


class HeldChannel(TypedDict):
    """A channel one person has whole (``person``: 1 or 2)."""

    channel: str
    person: Literal[1, 2]


class ConnectionOutput(TypedDict):
    """``bodygraph connection --json``."""

    electromagnetic: list[str]
    companionship: list[str]
    dominance: list[HeldChannel]
    compromise: list[HeldChannel]
    composite: CompositeOutput


class PentaOutput(TypedDict):
    """``bodygraph penta --json``."""

    members: list[str]
    gates: list[str]
    channels: list[str]


_ChangeBase = TypedDict("_ChangeBase", {"at": str, "side": Literal["personality", "design"],
                                        "body": str, "from": str, "to": str})
_SegmentBase = TypedDict("_SegmentBase", {"from": str, "to": str, "type": str, "profile": str,
                                          "authority": str, "definition": str,
                                          "incarnationCross": str})


class LineChange(_ChangeBase):
    """One activation changing line at a birth instant (``from`` and ``to``: gate.line)."""


class Segment(_SegmentBase):
    """A span of birth instants with one chart."""


_SensitivityBase = TypedDict("_SensitivityBase", {"from": str, "to": str,
                                                  "changes": list[LineChange],
                                                  "segments": list[Segment]})


class SensitivityOutput(_SensitivityBase):
    """``bodygraph sensitivity --json``."""


class CyclesOutput(TypedDict):
    """``bodygraph cycles --json``."""

    solarReturn: str
    saturnReturn: list[str]
    uranusOpposition: list[str]


class Ingress(TypedDict):
    """A body entering a gate (and line), gate and line as numeric text."""

    at: str
    body: str
    gate: str
    line: str


class CalendarOutput(TypedDict):
    """``bodygraph calendar --json`` under ``ingresses``."""

    ingresses: list[Ingress]
