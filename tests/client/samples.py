"""The births and the instant the extension tests use."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bodygraph_client import Birth

BERLIN = Birth.at(52.52, 13.405, "1990-07-15", "14:30")
PARIS = Birth.place(date(1985, 1, 2), "08:00", "Paris, France")
AT = datetime(2024, 3, 20, 3, 6, tzinfo=UTC)
