"""Connection charts: how two people's gates meet in each of the 36 channels.

For a channel with gates (x, y), person 1 holding gates ``a`` and person 2 ``b``:

- *electromagnetic*: each has a different one of its two gates, neither has both;
- *companionship*: both have the whole channel;
- *dominance*: one has the whole channel, the other neither gate;
- *compromise*: one has the whole channel, the other exactly one of its gates;
- otherwise (one gate, the same gate, or none) the channel is in no class.

The composite is the chart of the union of both gate sets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Literal

from bodygraph.catalog.tables import Channel, tables
from bodygraph.catalog.translations import channel_text
from bodygraph.model.chart import Chart
from bodygraph.relations.composite import Composite, composite, short_names
from bodygraph.relations.labels import channel_labels

Person = Literal[1, 2]
_OTHER: dict[Person, Person] = {1: 2, 2: 1}


class ConnectionKind(StrEnum):
    """The four classes of a channel between two people."""

    ELECTROMAGNETIC = "electromagnetic"
    COMPANIONSHIP = "companionship"
    DOMINANCE = "dominance"
    COMPROMISE = "compromise"


@dataclass(frozen=True, slots=True)
class ChannelLink:
    """One channel's class; ``person`` (1 or 2) is the one who has the whole channel in
    a dominance or compromise, None in the other classes."""

    channel: Channel
    kind: ConnectionKind
    person: Person | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"channel": "lower-higher", "person": 1 | 2}``."""
        return {"channel": self.channel.short, "person": self.person}

    def labels(self, lang: str) -> dict[str, Any]:
        """``{"channel": name}``: the channel's name in ``lang`` (as ``channelsLong``)."""
        return {"channel": channel_text(self.channel.name, self.channel.short, lang)}


def classify(channel: Channel, a: frozenset[int], b: frozenset[int]) -> ChannelLink | None:
    """The class of ``channel`` between gate sets ``a`` (person 1) and ``b`` (person 2)."""
    ends = frozenset(channel.gates)
    in_a, in_b = ends & a, ends & b
    if len(in_a) == 2 and len(in_b) == 2:
        return ChannelLink(channel, ConnectionKind.COMPANIONSHIP)
    if len(in_a) == 1 and len(in_b) == 1:
        return ChannelLink(channel, ConnectionKind.ELECTROMAGNETIC) if in_a != in_b else None
    sides: tuple[tuple[Person, frozenset[int], frozenset[int]], ...] = (
        (1, in_a, in_b), (2, in_b, in_a))
    for person, whole, other in sides:
        if len(whole) == 2:
            kind = ConnectionKind.DOMINANCE if not other else ConnectionKind.COMPROMISE
            return ChannelLink(channel, kind, person)
    return None


@dataclass(frozen=True, slots=True)
class Connection:
    """The connection of two charts: every classified channel and the composite."""

    #: the channels in a class, by short name (as ``Chart.channels``)
    links: tuple[ChannelLink, ...]
    composite: Composite

    def _of(self, kind: ConnectionKind) -> tuple[ChannelLink, ...]:
        return tuple(link for link in self.links if link.kind is kind)

    @property
    def electromagnetic(self) -> tuple[Channel, ...]:
        """Channels each person completes for the other."""
        return tuple(link.channel for link in self._of(ConnectionKind.ELECTROMAGNETIC))

    @property
    def companionship(self) -> tuple[Channel, ...]:
        """Channels both people have whole."""
        return tuple(link.channel for link in self._of(ConnectionKind.COMPANIONSHIP))

    @property
    def dominance(self) -> tuple[ChannelLink, ...]:
        """Channels one person has whole and the other not at all."""
        return self._of(ConnectionKind.DOMINANCE)

    @property
    def compromise(self) -> tuple[ChannelLink, ...]:
        """Channels one person has whole and the other by one gate."""
        return self._of(ConnectionKind.COMPROMISE)

    def kind(self, channel: Channel | str) -> ConnectionKind | None:
        """The class of a channel (a Channel or its short name), None if in no class."""
        short = channel if isinstance(channel, str) else channel.short
        return next((link.kind for link in self.links if link.channel.short == short), None)

    def swapped(self) -> Connection:
        """The same connection with persons 1 and 2 exchanged."""
        return Connection(
            tuple(link if link.person is None else replace(link, person=_OTHER[link.person])
                  for link in self.links),
            self.composite,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph connection --json``."""
        return {
            "electromagnetic": short_names(self.electromagnetic),
            "companionship": short_names(self.companionship),
            "dominance": [link.to_dict() for link in self.dominance],
            "compromise": [link.to_dict() for link in self.compromise],
            "composite": self.composite.to_dict(),
        }

    def labels(self, lang: str) -> dict[str, Any]:
        """The words of :meth:`to_dict` in ``lang`` under its keys: the channels' names
        and the composite's words."""
        return {
            "electromagnetic": channel_labels(self.electromagnetic, lang),
            "companionship": channel_labels(self.companionship, lang),
            "dominance": [link.labels(lang) for link in self.dominance],
            "compromise": [link.labels(lang) for link in self.compromise],
            "composite": self.composite.labels(lang),
        }


def connection_of_gates(a: Iterable[int], b: Iterable[int]) -> Connection:
    """The connection of two gate sets (person 1 has ``a``, person 2 ``b``)."""
    first, second = frozenset(a), frozenset(b)
    channels = sorted(tables().channels, key=lambda c: c.short)
    links = tuple(link for link in (classify(c, first, second) for c in channels) if link)
    return Connection(links, composite(first | second))


def connection(a: Chart, b: Chart) -> Connection:
    """The connection chart of two people: ``a`` is person 1, ``b`` person 2.

    >>> from datetime import datetime, timezone
    >>> import bodygraph
    >>> one = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
    >>> two = bodygraph.calculate(datetime(1985, 7, 9, 14, 0, tzinfo=timezone.utc))
    >>> bodygraph.connection(one, two).composite.type.value
    'Manifesting Generator'
    """
    return connection_of_gates(a.gates, b.gates)
