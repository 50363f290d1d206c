"""The contract's JSON objects: v2 ChartResult (camelCase) and v1 (snake_case)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from bodygraph.chart import Chart, Side
from bodygraph.properties import V1_STRATEGY
from bodygraph.tables import lower_leading_the


def utc_text(instant: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (milliseconds, UTC)."""
    moment = instant.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def channels_long_v2(chart: Chart) -> list[str]:
    """``The Channel of <name> (<a>-<b>)``, leading ``The`` of the name lower-cased."""
    return [f"The Channel of {lower_leading_the(c.name)} ({c.short})" for c in chart.channels]


def channels_long_v1(chart: Chart) -> list[str]:
    """``<name> (<a>-<b>)``."""
    return [f"{c.name} ({c.short})" for c in chart.channels]


def _side(side: Side, *, v1: bool) -> dict[str, str]:
    return {(a.body.v1_key if v1 else a.body.value): str(a) for a in side}


def to_v2(chart: Chart) -> dict[str, Any]:
    """The ChartResult ``data`` object of the v2 contract."""
    return {
        "type": chart.type.value,
        "profile": chart.profile,
        "channelsShort": [c.short for c in chart.channels],
        "centers": list(chart.centers),
        "strategy": chart.strategy,
        "authority": chart.authority.value,
        "incarnationCross": chart.incarnation_cross,
        "definition": chart.definition.value,
        "signature": chart.signature,
        "notSelfTheme": chart.not_self_theme,
        "cognition": chart.cognition,
        "determination": chart.determination,
        "variables": chart.variables,
        "motivation": chart.motivation,
        "transference": chart.transference,
        "perspective": chart.perspective,
        "distraction": chart.distraction,
        "environment": chart.environment,
        "circuitries": chart.circuitries,
        "channelsLong": channels_long_v2(chart),
        "gates": [str(g) for g in chart.gates],
        "activations": {
            "design": _side(chart.design, v1=False),
            "personality": _side(chart.personality, v1=False),
        },
        "birthDateUtc": utc_text(chart.birth_utc),
    }


def to_v2_simple(chart: Chart) -> dict[str, Any]:
    """The v2 simplified chart: same names and types as ChartResult."""
    return {
        "type": chart.type.value,
        "profile": chart.profile,
        "gates": [str(g) for g in chart.gates],
        "channelsShort": [c.short for c in chart.channels],
        "centers": list(chart.centers),
    }


def to_v1(chart: Chart) -> dict[str, Any]:
    """The legacy v1 flat object: snake_case, v1 strategy and channel wordings."""
    return {
        "type": chart.type.value,
        "profile": chart.profile,
        "channels_short": [c.short for c in chart.channels],
        "centers": list(chart.centers),
        "strategy": V1_STRATEGY[chart.type],
        "authority": chart.authority.value,
        "incarnation_cross": chart.incarnation_cross,
        "definition": chart.definition.value,
        "signature": chart.signature,
        "not_self_theme": chart.not_self_theme,
        "cognition": chart.cognition,
        "determination": chart.determination,
        "variables": chart.variables,
        "motivation": chart.motivation,
        "transference": chart.transference,
        "perspective": chart.perspective,
        "distraction": chart.distraction,
        "environment": chart.environment,
        "circuitries": chart.circuitries,
        "channels_long": channels_long_v1(chart),
        "gates": [str(g) for g in chart.gates],
        "activations": {
            "design": _side(chart.design, v1=True),
            "personality": _side(chart.personality, v1=True),
        },
        "birth_date_UTC": utc_text(chart.birth_utc),
    }


def to_v1_simple(chart: Chart) -> dict[str, Any]:
    """The legacy v1 simplified object."""
    return {
        "type": chart.type.value,
        "profile": chart.profile,
        "gates": [str(g) for g in chart.gates],
        "channels_short": [c.short for c in chart.channels],
        "centers": list(chart.centers),
    }


@cache
def _schema_text(name: str) -> str:
    return resources.files("bodygraph").joinpath(f"schemas/{name}").read_text("utf-8")


def json_schema(name: str = "chart-result") -> dict[str, Any]:
    """A JSON Schema the project keeps: ``chart-result``, ``chart-simple-result``,
    ``v1-bodygraph`` or ``v1-bodygraph-simple`` (draft 2020-12)."""
    schema: dict[str, Any] = json.loads(_schema_text(f"{name}.schema.json"))
    return schema
