"""The result schemas of the relation operations, from the library's chart values and the
``to_dict()`` builders of ``bodygraph.relations`` (checked against real answers by tests)."""

from __future__ import annotations

from typing import Any

from bodygraph_server.resources.chart_values import (
    REF,
    chart_values,
    closed_object,
    distinct_array,
)
from bodygraph_server.resources.relations.bodies import PENTA_PEOPLE


def composite_schema() -> dict[str, Any]:
    """A composite chart (a transit's overlay, a connection's composite)."""
    v = chart_values()
    return closed_object({"type": v["type"], "definition": v["definition"],
                          "authority": v["authority"], "centers": v["centers"],
                          "channelsShort": v["channels"]})


def _held() -> dict[str, Any]:
    return distinct_array(closed_object({"channel": chart_values()["channel"],
                                         "person": {"type": "integer", "enum": [1, 2]}}))


def result_schemas() -> dict[str, Any]:
    """``Composite``, ``TransitResult``, ``ConnectionResult`` and ``PentaResult``."""
    from bodygraph.relations.penta import PENTA_CHANNEL_GATES, PENTA_GATES

    v = chart_values()
    composite = {"$ref": REF + "Composite"}
    natal = closed_object({"completedChannels": v["channels"], "newCenters": v["centers"],
                           "overlay": composite})
    penta_channels = sorted(f"{low}-{high}" for low, high in PENTA_CHANNEL_GATES)
    return {
        "Composite": composite_schema(),
        "TransitResult": closed_object({
            "at": v["instant"], "activations": v["side"], "gates": v["gates"],
            "channelsShort": v["channels"],
            "natal": {"oneOf": [natal, {"type": "null"}],
                      "description": "What the transit does to the natal chart; null "
                      "without a natal birth."},
        }),
        "ConnectionResult": closed_object({
            "electromagnetic": v["channels"], "companionship": v["channels"],
            "dominance": _held(), "compromise": _held(), "composite": composite,
        }),
        "PentaResult": closed_object({
            "members": {"type": "array", "items": v["instant"],
                        "minItems": PENTA_PEOPLE[0], "maxItems": PENTA_PEOPLE[1],
                        "description": "Birth instants (UTC), in order."},
            "gates": distinct_array({"type": "string", "enum": [str(g) for g in PENTA_GATES]}),
            "channels": distinct_array({"type": "string", "enum": penta_channels}),
        }),
    }
