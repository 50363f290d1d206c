"""The JSON Schemas the result schemas are built from: the library's own
(``bodygraph.model.contract.json_schema``) and the chart's value schemas taken from them."""

from __future__ import annotations

from functools import cache
from typing import Any

REF = "#/components/schemas/"


def embedded(name: str) -> dict[str, Any]:
    """A library JSON Schema made fit for ``components.schemas``."""
    from bodygraph.model.contract import json_schema

    schema = dict(json_schema(name))
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    return schema


def closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly ``properties``, all required."""
    return {"type": "object", "additionalProperties": False,
            "required": list(properties), "properties": properties}


def distinct_array(items: dict[str, Any]) -> dict[str, Any]:
    """An array of distinct ``items``."""
    return {"type": "array", "items": items, "uniqueItems": True}


@cache
def chart_values() -> dict[str, Any]:
    """The value schemas of the chart's formats (a gate, a ``gate.line``, a channel's
    short name, a center, a type, ... an instant), from the ChartResult schema."""
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
