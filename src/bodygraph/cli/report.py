"""A chart as readable text for the terminal, in any of the catalogs' languages."""

from __future__ import annotations

from datetime import UTC, datetime

from bodygraph.catalog.tables import CENTER_NAMES, reading_order, tables
from bodygraph.catalog.translations import (
    CHANNEL_PATTERN,
    SOURCE_LANGUAGE,
    body_name,
    catalog,
    listed,
    term,
)
from bodygraph.cli.columns import display_width, pad
from bodygraph.model.chart import BODIES, Activation, Body, Chart


def _cell(a: Activation) -> str:
    return f"{a.gate:>2}.{a.line}  c{a.color} t{a.tone} b{a.base}  {a.longitude:9.5f}°"


def body_label(body: Body, lang: str = SOURCE_LANGUAGE) -> str:
    """A body's name in ``lang``: ``"North Node"``, ``"Nordknoten"``."""
    return body_name(body, lang)


def utc_seconds_text(instant: datetime) -> str:
    """An instant for a reader: ``YYYY-MM-DD HH:MM:SS UTC``."""
    return instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def channel_name(name: str, lang: str) -> str:
    """A channel's name from the tables in ``lang``: the English name as the tables write
    it, a translation in its language's channel pattern (``Kanal der Intimität``)."""
    if lang == SOURCE_LANGUAGE:
        return name
    return term("channel title", CHANNEL_PATTERN, lang).format(name=term("channel", name, lang))


def render_text(chart: Chart, lang: str = SOURCE_LANGUAGE) -> str:
    """A readable multi-line summary: properties, centers, channels (in reading order),
    both columns, every word in ``lang``."""
    tr = catalog(lang)
    words = chart.labels(lang)
    profile_name = " / ".join(term("profile line", n, lang)
                              for n in tables().profile_names[chart.profile])
    defined = set(chart.centers)
    open_centers = [term("center", c, lang) for c in CENTER_NAMES if c not in defined]
    none = tr.pgettext("cli", "none")
    width = max(11, *(display_width(body_label(body, lang)) for body in BODIES))

    def variable(name: str) -> str:  # English writes them in lower case here
        text = term("variable", name, lang)
        return text.lower() if lang == SOURCE_LANGUAGE else text

    def heading(word: str) -> str:
        return "  " + pad(word, 14) + " "

    title, birth, design = (tr.pgettext("cli", "Human Design chart"),
                            tr.pgettext("cli", "birth"), tr.pgettext("cli", "design"))
    rows = [
        f"{title}   {birth} {utc_seconds_text(chart.birth_utc)}   "
        f"{design} {utc_seconds_text(chart.design_utc)}",
        "",
        heading(tr.pgettext("cli", "Type")) + words["type"],
        heading(tr.pgettext("cli", "Strategy")) + words["strategy"],
        heading(tr.pgettext("cli", "Authority")) + words["authority"],
        heading(tr.pgettext("cli", "Profile")) + f"{chart.profile} ({profile_name})",
        heading(tr.pgettext("cli", "Definition")) + words["definition"],
        heading(tr.pgettext("cli", "Cross")) + words["incarnationCross"],
        heading(tr.pgettext("cli", "Signature")) + f"{words['signature']}   "
        + tr.pgettext("cli", "not-self theme: {theme}").format(theme=words["notSelfTheme"]),
        heading(tr.pgettext("cli", "Variables")) + chart.variables,
        "    " + listed((f"{variable(name)} {words[name.lower()]}"
                           for name in ("Determination", "Cognition", "Environment")), lang),
        f"    {variable('Motivation')} {words['motivation']} "
        f"({variable('Transference')} {words['transference']}), "
        f"{variable('Perspective')} {words['perspective']} "
        f"({variable('Distraction')} {words['distraction']})",
        heading(tr.pgettext("cli", "Circuitries")) + (words["circuitries"] or "-"),
        heading(tr.pgettext("cli", "Centers")) + (
            listed(words["centers"], lang) or tr.pgettext("cli", "none defined")),
        heading(tr.pgettext("cli", "Open")) + (listed(open_centers, lang) or none),
        heading(tr.pgettext("cli", "Channels")) + (
            ("\n" + " " * 17).join(f"{c.short:<6} {channel_name(c.name, lang)}"
                                    for c in sorted(chart.channels, key=reading_order))
            or none
        ),
        "",
        f"  {'':<{width}} {pad(term('side', 'Design', lang), 34)} "
        f"{pad(term('side', 'Personality', lang), 34)}",
    ]
    for body in BODIES:
        rows.append(
            f"  {pad(body_label(body, lang), width)} {_cell(chart.design[body]):<34} "
            f"{_cell(chart.personality[body]):<34}"
        )
    rows.append("\n  " + tr.pgettext("cli", "node: {node}").format(node=chart.node))
    return "\n".join(rows)
