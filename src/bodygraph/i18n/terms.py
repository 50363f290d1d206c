"""Every English term the library writes, each with its context (the PO ``msgctxt``) and a
note for translators, listed from the tables, the wording and the enums: the one
definition a catalog template is generated from (docs/translating.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bodygraph.catalog.tables import CENTER_NAMES, CIRCUITRY_ORDER, ColorWords, tables
from bodygraph.catalog.translations import (
    ANGLE_PATTERNS,
    CHANNEL_PATTERN,
    RELATION_WORDS,
    SIDE_WORDS,
    VARIABLE_WORDS,
    english_body_name,
)
from bodygraph.catalog.wording import SIGNATURE, STRATEGY
from bodygraph.model.chart import AUTHORITIES, BODIES, DEFINITIONS, TYPES
from bodygraph.relations.connection import ConnectionKind
from bodygraph.rules.text import color_phrase


@dataclass(frozen=True, slots=True)
class Term:
    """One translatable term: the PO ``msgctxt``, ``msgid`` and translator comment, and the
    ``msgid_plural`` of a message with a count (else empty)."""

    context: str
    english: str
    note: str = ""
    plural: str = ""


#: What each context holds, in template order (the glossary's sections).
CONTEXTS: dict[str, str] = {
    "type": "Type",
    "strategy": "Strategy",
    "authority": "Inner authority",
    "definition": "Definition",
    "signature": "Signature",
    "not-self theme": "Not-self theme",
    "profile line": "Profile line names",
    "center": "Centers",
    "circuitry": "Circuitry groups",
    "circuit": "Circuits",
    "channel": "Channel names",
    "channel title": "How a channel is written",
    "gate": "Gate names",
    "cross": "Incarnation cross names",
    "cross title": "How an incarnation cross is written",
    "variable": "The variables",
    "determination": "Determination",
    "cognition": "Cognition",
    "environment": "Environment",
    "motivation": "Motivation and transference",
    "perspective": "Perspective and distraction",
    "body": "Bodies",
    "side": "Sides",
    "connection": "Connection classes",
    "relation": "Relations",
}

_NAME_NOTE = ("Stands in '{pattern}': translate it in the form (article, preposition, "
              "case) that this phrase needs in your language.")


def color_phrases(words: dict[int, ColorWords]) -> list[str]:
    """The 12 phrases of a variable color table (each color with its left and right word),
    as a chart writes them."""
    return [color_phrase(words[color], arrow) for color in range(1, 7) for arrow in "LR"]


def _unique(values: Iterator[str] | list[str] | tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(values))


def terms() -> list[Term]:
    """Every term, in template order, each (context, English) once."""
    t = tables()
    v = t.variables
    lines = {line: name for profile, names in t.profile_names.items()
             for line, name in zip((int(p) for p in profile.split("/")), names, strict=True)}
    out: list[Term] = []
    out += [Term("type", k.value) for k in TYPES]
    out += [Term("strategy", s) for s in _unique(STRATEGY[k] for k in TYPES)]
    out += [Term("authority", a.value) for a in AUTHORITIES]
    out += [Term("definition", d.value) for d in DEFINITIONS]
    out += [Term("signature", s) for s in _unique(SIGNATURE[k][0] for k in TYPES)]
    out += [Term("not-self theme", s) for s in _unique(SIGNATURE[k][1] for k in TYPES)]
    out += [Term("profile line", lines[n], f"Line {n} of a profile.") for n in sorted(lines)]
    out += [Term("center", c, "One of the nine centers.") for c in CENTER_NAMES]
    out += [Term("circuitry", c) for c in CIRCUITRY_ORDER]
    out += [Term("circuit", c) for c in _unique(ch.circuit for ch in t.channels)]
    channel_note = _NAME_NOTE.format(pattern=CHANNEL_PATTERN)
    out += [Term("channel", ch.name, f"Channel {ch.short}. {channel_note}")
            for ch in sorted(t.channels, key=lambda c: c.gates)]
    out += [Term("channel title", CHANNEL_PATTERN,
                 "Keep {name}: the channel's name goes there.")]
    out += [Term("gate", g.name, f"Gate {g.number}.") for g in sorted(t.gates.values(),
                                                                      key=lambda g: g.number)]
    crosses = sorted(t.crosses.values(), key=lambda x: (x.personality_sun, x.angle))
    cross_note = _NAME_NOTE.format(pattern="... Cross of {name}")
    for name in _unique(x.name for x in crosses):
        where = ", ".join(f"{x.angle} {x.personality_sun}/{x.personality_earth}"
                          for x in crosses if x.name == name)
        out.append(Term("cross", name, f"{where}. {cross_note}"))
    out += [Term("cross title", pattern, "Keep {name}: the cross's name goes there.")
            for pattern in ANGLE_PATTERNS.values()]
    out += [Term("variable", w) for w in VARIABLE_WORDS]
    out += [Term("determination", p) for p in color_phrases(v.determination)]
    out += [Term("cognition", w) for w in _unique(v.cognition[i] for i in range(1, 7))]
    out += [Term("environment", p) for p in color_phrases(v.environment)]
    out += [Term("motivation", w) for w in _unique(v.motivation[i] for i in range(1, 7))]
    out += [Term("perspective", w) for w in _unique(v.perspective[i] for i in range(1, 7))]
    out += [Term("body", english_body_name(b.value), "A body of the solar system (the standard "
                  "astronomical name) or a lunar node.") for b in BODIES]
    out += [Term("side", w) for w in SIDE_WORDS]
    out += [Term("connection", k.value, "A class of channel between two people "
                  "(connection charts); lower case as in the contract.") for k in ConnectionKind]
    out += [Term("relation", w) for w in RELATION_WORDS]
    return out
