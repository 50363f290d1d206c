"""The one-line summaries of the relation tools, for an assistant to quote. Instants are
written as the command line writes them (``2024-03-20 03:06:00 UTC``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from bodygraph.catalog.tables import Channel
from bodygraph.cli.cycles import Cycles
from bodygraph.cli.relations_text import composite_text, rounded_seconds_text
from bodygraph.model.chart import gate_line
from bodygraph.relations import ChannelLink, Connection, Penta, Transit
from bodygraph.relations.calendar import Ingress
from bodygraph.relations.segments import Sensitivity
from bodygraph.render.model import placements
from bodygraph.render.scene import side_text

#: An instant to the second, rounded, as the command line writes it: ``2024-03-20 03:06:00 UTC``.
when = rounded_seconds_text


def _listed(items: Iterable[str]) -> str:
    return ", ".join(items) or "none"


def _channels(channels: Iterable[Channel]) -> str:
    return _listed(c.short for c in channels)


def _held(links: Iterable[ChannelLink]) -> str:
    return _listed(f"{link.channel.short} (person {link.person})" for link in links)


def transit_summary(result: Transit) -> str:
    """The 13 activations and the channels; over a natal chart what the transit adds."""
    text = (f"{side_text(f'Transit at {when(result.at)}', placements(result.activations))} "
            f"It defines the channels {_channels(result.channels)}.")
    if result.natal is not None:
        natal = result.natal
        text += (f" Over the natal chart it completes {_channels(natal.completed_channels)} "
                 f"and newly defines {', '.join(natal.new_centers) or 'no center'}; "
                 f"together: {composite_text(natal.overlay)}.")
    return text


def connection_summary(result: Connection) -> str:
    """The channels of each class and the composite."""
    return (f"Connection of person 1 and person 2: electromagnetic "
            f"{_channels(result.electromagnetic)}; companionship "
            f"{_channels(result.companionship)}; dominance {_held(result.dominance)}; "
            f"compromise {_held(result.compromise)}; composite "
            f"{composite_text(result.composite)}.")


def penta_summary(result: Penta) -> str:
    """The penta gates the group has and lacks, and its penta channels."""
    return (f"Penta of {len(result.members)} members: penta gates "
            f"{_listed(str(g) for g in result.gates)} (missing "
            f"{_listed(str(g) for g in result.missing_gates)}); penta channels "
            f"{_channels(result.channels)}.")


def sensitivity_summary(result: Sensitivity) -> str:
    """How many line changes, and the segment the given birth lies in."""
    here = next((s for s in result.segments if s.start <= result.birth <= s.end), None)
    text = (f"From {when(result.start)} to {when(result.end)}: {len(result.changes)} line "
            f"changes, {len(result.segments)} segments.")
    if here is not None:
        text += (f" The birth lies in {when(here.start)} to {when(here.end)}: "
                 f"{here.profile} {here.type.value}, {here.authority.value} authority, "
                 f"{here.definition.value}, {here.incarnation_cross}.")
    return text


def _instants(instants: Sequence[datetime]) -> str:
    return _listed(when(t) for t in instants)


def cycles_summary(result: Cycles) -> str:
    """The solar return of the year, the Saturn return and Uranus opposition passes."""
    return (f"Solar return {result.year}: {when(result.solar)}; Saturn return: "
            f"{_instants(result.saturn)}; Uranus opposition: {_instants(result.uranus)}.")


def calendar_summary(found: Sequence[Ingress], first: str, last: str) -> str:
    """How many ingresses, and the first few."""
    shown = "; ".join(f"{when(i.at)} {i.body.value} enters {gate_line(i.gate, i.line)}"
                      for i in found[:5])
    more = f"; ... {len(found) - 5} more" if len(found) > 5 else ""
    return (f"{len(found)} ingresses from {first} to {last}"
            + (f": {shown}{more}." if found else "."))
