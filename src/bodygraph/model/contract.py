"""The contract's JSON objects: v2 ChartResult (camelCase) and v1 (snake_case)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from bodygraph._time import utc_text
from bodygraph.catalog.tables import lower_leading_the
from bodygraph.catalog.wording import V1_STRATEGY

if TYPE_CHECKING:  # the chart imports this module: a runtime import would be a cycle
    from collections.abc import Callable

    from bodygraph.model.chart import Chart, Side

    Field = tuple[str, str, Callable[[Chart], Any], Callable[[Chart], Any]]


def channels_long_v2(chart: Chart) -> list[str]:
    """``The Channel of <name> (<a>-<b>)``, leading ``The`` of the name lower-cased."""
    return [f"The Channel of {lower_leading_the(c.name)} ({c.short})" for c in chart.channels]


def channels_long_v1(chart: Chart) -> list[str]:
    """``<name> (<a>-<b>)``."""
    return [f"{c.name} ({c.short})" for c in chart.channels]


def _side(side: Side, *, v1: bool) -> dict[str, str]:
    return {(a.body.v1_key if v1 else a.body.value): str(a) for a in side}


def _shorts(chart: Chart) -> list[str]:
    return [c.short for c in chart.channels]


def _gates(chart: Chart) -> list[str]:
    return [str(g) for g in chart.gates]


def _activations(chart: Chart, *, v1: bool) -> dict[str, dict[str, str]]:
    return {"design": _side(chart.design, v1=v1), "personality": _side(chart.personality, v1=v1)}


#: Every field of the full chart, in output order: (v2 name, v1 name, v2 value, v1 value).
FULL_FIELDS: tuple[Field, ...] = (
    ("type", "type", lambda c: c.type.value, lambda c: c.type.value),
    ("profile", "profile", lambda c: c.profile, lambda c: c.profile),
    ("channelsShort", "channels_short", _shorts, _shorts),
    ("centers", "centers", lambda c: list(c.centers), lambda c: list(c.centers)),
    ("strategy", "strategy", lambda c: c.strategy, lambda c: V1_STRATEGY[c.type]),
    ("authority", "authority", lambda c: c.authority.value, lambda c: c.authority.value),
    ("incarnationCross", "incarnation_cross",
     lambda c: c.incarnation_cross, lambda c: c.incarnation_cross),
    ("definition", "definition", lambda c: c.definition.value, lambda c: c.definition.value),
    ("signature", "signature", lambda c: c.signature, lambda c: c.signature),
    ("notSelfTheme", "not_self_theme", lambda c: c.not_self_theme, lambda c: c.not_self_theme),
    ("cognition", "cognition", lambda c: c.cognition, lambda c: c.cognition),
    ("determination", "determination", lambda c: c.determination, lambda c: c.determination),
    ("variables", "variables", lambda c: c.variables, lambda c: c.variables),
    ("motivation", "motivation", lambda c: c.motivation, lambda c: c.motivation),
    ("transference", "transference", lambda c: c.transference, lambda c: c.transference),
    ("perspective", "perspective", lambda c: c.perspective, lambda c: c.perspective),
    ("distraction", "distraction", lambda c: c.distraction, lambda c: c.distraction),
    ("environment", "environment", lambda c: c.environment, lambda c: c.environment),
    ("circuitries", "circuitries", lambda c: c.circuitries, lambda c: c.circuitries),
    ("channelsLong", "channels_long", channels_long_v2, channels_long_v1),
    ("gates", "gates", _gates, _gates),
    ("activations", "activations",
     lambda c: _activations(c, v1=False), lambda c: _activations(c, v1=True)),
    ("birthDateUtc", "birth_date_UTC",
     lambda c: utc_text(c.birth_utc), lambda c: utc_text(c.birth_utc)),
)

#: The fields of the simplified chart, in output order (v2 names).
SIMPLE_FIELDS: tuple[str, ...] = ("type", "profile", "gates", "channelsShort", "centers")


def _write(chart: Chart, *, v1: bool, only: tuple[str, ...] | None = None) -> dict[str, Any]:
    fields = FULL_FIELDS if only is None else tuple(
        next(f for f in FULL_FIELDS if f[0] == name) for name in only
    )
    return {f[1] if v1 else f[0]: (f[3] if v1 else f[2])(chart) for f in fields}


def to_v2(chart: Chart) -> dict[str, Any]:
    """The ChartResult ``data`` object of the v2 contract."""
    return _write(chart, v1=False)


def to_v2_simple(chart: Chart) -> dict[str, Any]:
    """The v2 simplified chart: same names and types as ChartResult."""
    return _write(chart, v1=False, only=SIMPLE_FIELDS)


def to_v1(chart: Chart) -> dict[str, Any]:
    """The legacy v1 flat object: snake_case, v1 strategy and channel wordings."""
    return _write(chart, v1=True)


def to_v1_simple(chart: Chart) -> dict[str, Any]:
    """The legacy v1 simplified object."""
    return _write(chart, v1=True, only=SIMPLE_FIELDS)


@cache
def _schema_text(name: str) -> str:
    return resources.files("bodygraph").joinpath(f"model/schemas/{name}").read_text("utf-8")


def json_schema(name: str = "chart-result") -> dict[str, Any]:
    """A JSON Schema the project keeps: ``chart-result``, ``chart-simple-result``,
    ``v1-bodygraph`` or ``v1-bodygraph-simple`` (draft 2020-12)."""
    schema: dict[str, Any] = json.loads(_schema_text(f"{name}.schema.json"))
    return schema
