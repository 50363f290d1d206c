"""Readable text of transits, connections and pentas (``bodygraph transit`` etc.), and
of the instants the time searches find, in any of the catalogs' languages."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bodygraph.catalog.tables import Channel, reading_order
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, listed, term
from bodygraph.cli.columns import pad
from bodygraph.cli.report import _cell, body_label, channel_name, utc_seconds_text
from bodygraph.model.chart import Side
from bodygraph.relations import Composite
from bodygraph.relations.common import to_second

INDENT = " " * 22


def rounded_seconds_text(instant: datetime) -> str:
    """A found instant for a reader, rounded to the nearest second (:func:`utc_seconds_text`
    truncates): ``2024-03-20 03:06:00 UTC``."""
    return utc_seconds_text(to_second(instant))


def row(heading: str, value: str) -> str:
    """A line of a property and its value: ``"  Gates               1, 2"``."""
    return f"  {pad(heading, 19)} {value}"


def none_word(lang: str) -> str:
    """``none`` in ``lang``."""
    return catalog(lang).pgettext("cli", "none")


def channel_lines(channels: Iterable[Channel], lang: str = SOURCE_LANGUAGE) -> str:
    """One channel a line (short name and name) in reading order, or ``none``."""
    return ("\n" + INDENT).join(f"{c.short:<6} {channel_name(c.name, lang)}"
                                for c in sorted(channels, key=reading_order)) or none_word(lang)


def side_lines(side: Side, lang: str = SOURCE_LANGUAGE) -> list[str]:
    """The 13 activations, one a line."""
    return [f"  {pad(body_label(a.body, lang), 19)} {_cell(a)}" for a in side]


def composite_text(chart: Composite, lang: str = SOURCE_LANGUAGE) -> str:
    """``"Generator, Split Definition, Emotional authority"``."""
    return catalog(lang).pgettext("cli", "{type}, {definition}, {authority} authority").format(
        type=term("type", chart.type.value, lang),
        definition=term("definition", chart.definition.value, lang),
        authority=term("authority", chart.authority.value, lang))


def composite_lines(title: str, chart: Composite, lang: str = SOURCE_LANGUAGE) -> list[str]:
    """Type, definition, authority, centers and channels of a composite (``title``: its
    heading, already in ``lang``)."""
    tr = catalog(lang)
    centers = listed((term("center", c, lang) for c in chart.centers), lang)
    return [
        row(title, composite_text(chart, lang)),
        row(tr.pgettext("cli", "Centers"), centers or tr.pgettext("cli", "none defined")),
        row(tr.pgettext("cli", "Channels"), channel_lines(chart.channels, lang)),
    ]
