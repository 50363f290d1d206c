"""bodygraph: exact, fast Human Design charts from JPL ephemerides.

>>> from datetime import datetime, timezone
>>> import bodygraph
>>> chart = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
>>> chart.personality.sun.gate
38
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from bodygraph.calculator import Calculator, calculate, calculate_many
from bodygraph.errors import (
    BodygraphError,
    EphemerisError,
    InvalidInstantError,
    InvalidOptionError,
    OutOfRangeError,
    UnsupportedLanguageError,
)
from bodygraph.model.chart import (
    Activation,
    Authority,
    Body,
    Chart,
    ChartType,
    Definition,
    NodeKind,
    Side,
)

# Heavier parts (tables of many charts, places, time zones) load on first use, so that
# `import bodygraph` and one chart stay fast.
_LAZY = {
    "ChartTable": "bodygraph.columnar",
    "calculate_local": "bodygraph.geo.local",
    "calculate_at_place": "bodygraph.geo.local",
    "LocalChart": "bodygraph.geo.local",
    "WallTime": "bodygraph.geo.timezones",
    "languages": "bodygraph.catalog.translations",
    "LANGUAGES": "bodygraph.catalog.translations",
    **dict.fromkeys(("transit", "transit_many", "connection", "connection_many", "penta",
                     "Transit", "TransitTable", "Connection", "ConnectionTable", "Penta",
                     "Composite", "sensitivity", "sensitivity_many", "solar_return",
                     "solar_returns", "saturn_returns", "uranus_oppositions", "calendar",
                     "Sensitivity", "SensitivityTable", "LineChange", "Segment", "Ingress"),
                    "bodygraph.relations"),
    **dict.fromkeys(("HologeneticProfile", "LabelPack", "hologenetic_profile",
                     "hologenetic_table", "label_pack_from_json"), "bodygraph.rules.hologenetic"),
    **dict.fromkeys(("AstroTable", "astro", "astro_table"), "bodygraph.relations.astro"),
}

if TYPE_CHECKING:
    __version__: str
    from bodygraph.catalog.translations import LANGUAGES, languages
    from bodygraph.columnar import ChartTable
    from bodygraph.geo.local import LocalChart, calculate_at_place, calculate_local
    from bodygraph.geo.timezones import WallTime
    from bodygraph.relations import (
        Composite,
        Connection,
        ConnectionTable,
        Ingress,
        LineChange,
        Penta,
        Segment,
        Sensitivity,
        SensitivityTable,
        Transit,
        TransitTable,
        calendar,
        connection,
        connection_many,
        penta,
        saturn_returns,
        sensitivity,
        sensitivity_many,
        solar_return,
        solar_returns,
        transit,
        transit_many,
        uranus_oppositions,
    )
    from bodygraph.relations.astro import AstroTable, astro, astro_table
    from bodygraph.rules.hologenetic import (
        HologeneticProfile,
        LabelPack,
        hologenetic_profile,
        hologenetic_table,
        label_pack_from_json,
    )


@cache
def _version() -> str:
    """The installed version (importlib.metadata: tens of milliseconds, so on first use)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bodygraph")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bodygraph' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    """The public names only (those of ``__all__``)."""
    return sorted(__all__)

__all__ = [
    "LANGUAGES",
    "Activation",
    "AstroTable",
    "Authority",
    "Body",
    "BodygraphError",
    "Calculator",
    "Chart",
    "ChartTable",
    "ChartType",
    "Composite",
    "Connection",
    "ConnectionTable",
    "Definition",
    "EphemerisError",
    "HologeneticProfile",
    "Ingress",
    "InvalidInstantError",
    "InvalidOptionError",
    "LabelPack",
    "LineChange",
    "LocalChart",
    "NodeKind",
    "OutOfRangeError",
    "Penta",
    "Segment",
    "Sensitivity",
    "SensitivityTable",
    "Side",
    "Transit",
    "TransitTable",
    "UnsupportedLanguageError",
    "WallTime",
    "__version__",
    "astro",
    "astro_table",
    "calculate",
    "calculate_at_place",
    "calculate_local",
    "calculate_many",
    "calendar",
    "connection",
    "connection_many",
    "hologenetic_profile",
    "hologenetic_table",
    "label_pack_from_json",
    "languages",
    "penta",
    "saturn_returns",
    "sensitivity",
    "sensitivity_many",
    "solar_return",
    "solar_returns",
    "transit",
    "transit_many",
    "uranus_oppositions",
]
