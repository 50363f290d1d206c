"""The one adapter from the library's relation results to what the renderer draws: a
transit over its natal chart (:func:`transit_input`) and two persons' connection
(:func:`connection_input`). The command line, the MCP server and the service's render
links all draw these.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from bodygraph.render.model import RenderInput, placements
from bodygraph.render.overlay import ConnectionInput, TransitInput

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.relations import Transit

#: The labels of the two persons of a connection image (as the text and JSON say them).
PERSON_LABELS = ("Person 1", "Person 2")


def transit_label(day: date) -> str:
    """The label of a transit image: ``Transit YYYY-MM-DD`` (the transit's UTC date)."""
    return f"Transit {day:%Y-%m-%d}"


def transit_day(label: str) -> date | None:
    """The date of a :func:`transit_label`; ``None`` for any other text."""
    try:
        day = date.fromisoformat(label.removeprefix("Transit "))
    except ValueError:
        return None
    return day if transit_label(day) == label else None


def transit_input(natal: Chart, result: Transit) -> TransitInput:
    """The renderer's picture of a transit over its natal chart: the natal placements
    and the transit's 13 activations, labelled with the transit's date."""
    return TransitInput(RenderInput.from_chart(natal), placements(result.activations),
                        label=transit_label(result.at.date()))


def connection_input(first: Chart, second: Chart) -> ConnectionInput:
    """The renderer's picture of two persons' connection, person 1 and person 2."""
    return ConnectionInput(RenderInput.from_chart(first), RenderInput.from_chart(second),
                           *PERSON_LABELS)
