"""The one-line summaries of the relation tools, for an assistant to quote, in the tool's
``lang`` (sentences of the catalogs' context ``mcp``, the terms the tables'). Instants are
written as the command line writes them (``2024-03-20 03:06:00 UTC``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from bodygraph.catalog.tables import Channel
from bodygraph.catalog.translations import (
    SOURCE_LANGUAGE,
    Counted,
    body_name,
    catalog,
    counted,
    cross_text,
    listed,
    pgettext,
    term,
)
from bodygraph.cli.relations_text import composite_text, rounded_seconds_text
from bodygraph.model.chart import gate_line
from bodygraph.relations import ChannelLink, Connection, Penta, Transit
from bodygraph.relations.calendar import Ingress
from bodygraph.relations.cycles import Cycles
from bodygraph.relations.segments import Sensitivity
from bodygraph.render.model import placements
from bodygraph.render.scene import side_text

#: An instant to the second, rounded, as the command line writes it: ``2024-03-20 03:06:00 UTC``.
when = rounded_seconds_text


def say(lang: str, message: str, **fields: object) -> str:
    """The catalog's ``message`` (context ``mcp``) in ``lang``, filled with ``fields``."""
    return catalog(lang).pgettext("mcp", message).format(**fields)


def _counted(lang: str, message: Counted, n: int, **fields: object) -> str:
    """The form of a message with a count for ``n`` in ``lang``, filled with ``fields``."""
    return message.said(lang, n).format(**fields)


def _listed(items: Iterable[str], lang: str) -> str:
    return listed(items, lang) or say(lang, pgettext("mcp", "none"))


def _channels(channels: Iterable[Channel], lang: str) -> str:
    return _listed((c.short for c in channels), lang)


def _held(links: Iterable[ChannelLink], lang: str) -> str:
    return _listed((say(lang, pgettext("mcp", "{channel} (person {person})"),
                         channel=link.channel.short, person=link.person)
                    for link in links), lang)


def transit_summary(result: Transit, lang: str = SOURCE_LANGUAGE) -> str:
    """The 13 activations and the channels; over a natal chart what the transit adds."""
    title = catalog(lang).pgettext("cli", "Transit at {instant}").format(
        instant=when(result.at))
    text = (f"{side_text(title, placements(result.activations), lang)} "
            + say(lang, pgettext("mcp", "It defines the channels {channels}."),
                   channels=_channels(result.channels, lang)))
    if result.natal is not None:
        natal = result.natal
        centers = listed((term("center", c, lang) for c in natal.new_centers), lang)
        text += " " + say(lang, pgettext(
            "mcp", "Over the natal chart it completes {channels} and newly defines "
            "{centers}; together: {composite}."),
            channels=_channels(natal.completed_channels, lang),
            centers=centers or say(lang, pgettext("mcp", "no center")),
            composite=composite_text(natal.overlay, lang))
    return text


def connection_summary(result: Connection, lang: str = SOURCE_LANGUAGE) -> str:
    """The channels of each class and the composite."""
    return say(lang, pgettext(
        "mcp", "Connection of person 1 and person 2: electromagnetic {electromagnetic}; "
        "companionship {companionship}; dominance {dominance}; compromise {compromise}; "
        "composite {composite}."),
        electromagnetic=_channels(result.electromagnetic, lang),
        companionship=_channels(result.companionship, lang),
        dominance=_held(result.dominance, lang), compromise=_held(result.compromise, lang),
        composite=composite_text(result.composite, lang))


def penta_summary(result: Penta, lang: str = SOURCE_LANGUAGE) -> str:
    """The penta gates the group has and lacks, and its penta channels."""
    return _counted(lang, counted(
        "mcp", "Penta of {count} member: penta gates {gates} (missing {missing}); penta "
        "channels {channels}.", "Penta of {count} members: penta gates {gates} (missing "
        "{missing}); penta channels {channels}.", "count"), len(result.members),
        count=len(result.members), gates=_listed((str(g) for g in result.gates), lang),
        missing=_listed((str(g) for g in result.missing_gates), lang),
        channels=_channels(result.channels, lang))


def sensitivity_summary(result: Sensitivity, lang: str = SOURCE_LANGUAGE) -> str:
    """How many line changes, and the segment the given birth lies in."""
    here = next((s for s in result.segments if s.start <= result.birth <= s.end), None)
    text = say(lang, pgettext("mcp", "From {start} to {end}: {changes}, {segments}."),
                start=when(result.start), end=when(result.end),
                changes=_counted(lang, counted("mcp", "{count} line change",
                                               "{count} line changes", "count"),
                                 len(result.changes), count=len(result.changes)),
                segments=_counted(lang, counted("mcp", "{count} segment", "{count} segments",
                                                "count"),
                                  len(result.segments), count=len(result.segments)))
    if here is not None:
        text += " " + say(lang, pgettext(
            "mcp", "The birth lies in {start} to {end}: {profile} {type}, {authority} "
            "authority, {definition}, {cross}."),
            start=when(here.start), end=when(here.end), profile=here.profile,
            type=term("type", here.type.value, lang),
            authority=term("authority", here.authority.value, lang),
            definition=term("definition", here.definition.value, lang),
            cross=cross_text(here.incarnation_cross, lang))
    return text


def _instants(instants: Sequence[datetime], lang: str) -> str:
    return _listed((when(t) for t in instants), lang)


def cycles_summary(result: Cycles, lang: str = SOURCE_LANGUAGE) -> str:
    """The solar return of the year, the Saturn return and Uranus opposition passes."""
    return say(lang, pgettext(
        "mcp", "Solar return {year}: {solar}; Saturn return: {saturn}; Uranus opposition: "
        "{uranus}."),
        year=result.year, solar=when(result.solar), saturn=_instants(result.saturn, lang),
        uranus=_instants(result.uranus, lang))


def calendar_summary(found: Sequence[Ingress], first: str, last: str,
                     lang: str = SOURCE_LANGUAGE) -> str:
    """How many ingresses, and the first few."""
    shown = "; ".join(say(lang, pgettext("mcp", "{instant} {body} enters {gate}"),
                           instant=when(i.at), gate=gate_line(i.gate, i.line),
                           body=i.body.value if lang == SOURCE_LANGUAGE
                           else body_name(i.body, lang))
                      for i in found[:5])
    more = (say(lang, pgettext("mcp", "; ... {count} more"), count=len(found) - 5)
            if len(found) > 5 else "")
    how_many = _counted(lang, counted("mcp", "{count} ingress from {first} to {last}",
                                      "{count} ingresses from {first} to {last}", "count"),
                        len(found), count=len(found), first=first, last=last)
    return how_many + (f": {shown}{more}." if found else ".")
