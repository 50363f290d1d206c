"""The JSON Schemas of the extensions' ``data`` objects (``components.schemas``).

They are assembled from the definitions the answers come from: each value a relation
writes in a chart's format (a gate, a ``gate.line``, a channel's short name, a center, a
type, a definition, an authority, an instant) takes its schema from the library's
ChartResult schema (``bodygraph.model.contract.json_schema``), the member names from the
``to_dict()`` builders of ``bodygraph.relations`` (checked against real answers by the
tests), and the penta's gates and channels from ``bodygraph.relations.penta``. A batch slot
is a ChartResult or an error.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from bodygraph_server.http.extension_fields import BATCH_BIRTHS, PENTA_PEOPLE, request_schemas

EXTENSION_TYPES: tuple[str, ...] = (
    "TransitResult", "ConnectionResult", "PentaResult", "SensitivityResult", "CyclesResult",
    "CalendarResult", "ChartBatchResult",
)
"""The envelope ``type`` of each extension (each has an ``...Envelope`` schema)."""

_REF = "#/components/schemas/"


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "required": list(properties), "properties": properties}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items, "uniqueItems": True}


@cache
def _chart_values() -> dict[str, Any]:
    """The value schemas of the chart's formats, from the ChartResult schema."""
    from bodygraph.model.contract import json_schema

    chart = json_schema("chart-result")["properties"]
    return {
        "gates": chart["gates"],
        "channels": chart["channelsShort"],
        "channel": chart["channelsShort"]["items"],
        "centers": chart["centers"],
        "side": chart["activations"]["properties"]["personality"],
        "instant": chart["birthDateUtc"],
        "type": chart["type"], "definition": chart["definition"],
        "authority": chart["authority"], "profile": chart["profile"],
        "cross": chart["incarnationCross"],
        "gateLine": chart["activations"]["properties"]["personality"]["properties"]["sun"],
        "gate": chart["gates"]["items"],
    }


def composite_schema() -> dict[str, Any]:
    """A composite chart (a transit's overlay, a connection's composite)."""
    v = _chart_values()
    return _object({"type": v["type"], "definition": v["definition"],
                    "authority": v["authority"], "centers": v["centers"],
                    "channelsShort": v["channels"]})


def _held() -> dict[str, Any]:
    return _array(_object({"channel": _chart_values()["channel"],
                           "person": {"type": "integer", "enum": [1, 2]}}))


def _time_schemas() -> dict[str, Any]:
    """``SensitivityResult``, ``CyclesResult`` and ``CalendarResult``."""
    from bodygraph.model.chart import BODIES

    v = _chart_values()
    body = {"type": "string", "enum": [b.value for b in BODIES]}
    instants = {"type": "array", "items": v["instant"]}
    change = _object({"at": v["instant"], "side": {"enum": ["personality", "design"]},
                      "body": body, "from": v["gateLine"], "to": v["gateLine"]})
    segment = _object({"from": v["instant"], "to": v["instant"], "type": v["type"],
                       "profile": v["profile"], "authority": v["authority"],
                       "definition": v["definition"], "incarnationCross": v["cross"]})
    ingress = _object({"at": v["instant"], "body": body, "gate": v["gate"],
                       "line": {"type": "string", "pattern": "^[1-6]$"}})
    return {
        "SensitivityResult": _object({
            "from": v["instant"], "to": v["instant"],
            "changes": {"type": "array", "items": change},
            "segments": {"type": "array", "items": segment, "minItems": 1},
        }),
        "CyclesResult": _object({"solarReturn": v["instant"], "saturnReturn": instants,
                                 "uranusOpposition": instants}),
        "CalendarResult": {"type": "array", "items": ingress},
    }


def extension_schemas() -> dict[str, Any]:
    """The request bodies (:func:`~bodygraph_server.http.extension_fields.request_schemas`),
    ``Composite``, ``TransitResult``, ``ConnectionResult``, ``PentaResult``,
    ``BatchSlotError`` and ``ChartBatchResult``."""
    from bodygraph.relations.penta import PENTA_CHANNEL_GATES, PENTA_GATES

    v = _chart_values()
    composite = {"$ref": _REF + "Composite"}
    natal = _object({"completedChannels": v["channels"], "newCenters": v["centers"],
                     "overlay": composite})
    penta_channels = sorted(f"{low}-{high}" for low, high in PENTA_CHANNEL_GATES)
    slot_error = _object({"errorCode": {"type": "string"}, "message": {"type": "string"}})
    return {
        **request_schemas(),
        "Composite": composite_schema(),
        "TransitResult": _object({
            "at": v["instant"], "activations": v["side"], "gates": v["gates"],
            "channelsShort": v["channels"],
            "natal": {"oneOf": [natal, {"type": "null"}],
                      "description": "What the transit does to the natal chart; null "
                      "without a natal birth."},
        }),
        "ConnectionResult": _object({
            "electromagnetic": v["channels"], "companionship": v["channels"],
            "dominance": _held(), "compromise": _held(), "composite": composite,
        }),
        "PentaResult": _object({
            "members": {"type": "array", "items": v["instant"],
                        "minItems": PENTA_PEOPLE[0], "maxItems": PENTA_PEOPLE[1],
                        "description": "Birth instants (UTC), in order."},
            "gates": _array({"type": "string", "enum": [str(g) for g in PENTA_GATES]}),
            "channels": _array({"type": "string", "enum": penta_channels}),
        }),
        **_time_schemas(),
        "BatchSlotError": slot_error,
        "ChartBatchResult": _object({
            "results": {"type": "array", "minItems": BATCH_BIRTHS[0],
                        "maxItems": BATCH_BIRTHS[1],
                        "items": {"oneOf": [{"$ref": _REF + "ChartResult"},
                                            {"$ref": _REF + "BatchSlotError"}]},
                        "description": "One slot per birth, in input order."},
        }),
    }
