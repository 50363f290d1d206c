"""``bodygraph hologenetic``: the hologenetic profile (the Gene Keys profile) of one birth, as
text or JSON, with the user's own label pack where given."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Final

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.columns import pad
from bodygraph.cli.options import (
    Subparsers,
    add_calculation_options,
    exit_status,
    usage_error,
)
from bodygraph.cli.relations_options import command_parser
from bodygraph.cli.report import body_label
from bodygraph.errors import InvalidOptionError
from bodygraph.relations.labels import hologenetic_labels, hologenetic_words
from bodygraph.rules.hologenetic import (
    SEQUENCES,
    HologeneticProfile,
    LabelPack,
    SphereSource,
    hologenetic_profile,
    label_pack_from_json,
)

EXAMPLE: Final = "bodygraph hologenetic --utc 1980-01-03T08:30:00Z"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Add ``bodygraph hologenetic ...`` to the ``bodygraph`` command line, its help in
    ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "hologenetic", lang,
        tr.pgettext("help", "the hologenetic profile (Gene Keys spheres) of one birth"),
        tr.pgettext("help", "The hologenetic profile of one birth: each sphere is the key "
                    "(gate) and line of one activation of the chart (docs/conventions.md)."),
        [f"{EXAMPLE} --json", "bodygraph hologenetic --date 1990-05-14 --time 08:30 "
         "--tz Europe/Berlin --labels my-labels.json"],
        exit_status(lang),
    )
    add_birth_options(parser, lang)
    out = parser.add_argument_group(tr.pgettext("help", "output"))
    out.add_argument("--json", action="store_true",
                     help=tr.pgettext("help", "print {shape}").format(
                         shape='{"activation": {...}, "venus": {...}, "pearl": {...}}'))
    out.add_argument("--labels", metavar="FILE",
                     help=tr.pgettext("help", "your label pack (JSON: texts by key number and "
                                      "sphere) to show"))
    add_calculation_options(parser.add_argument_group(tr.pgettext("help", "calculation")), lang)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph hologenetic``."""
    labels = _labels(args.labels) if args.labels else None
    profile = hologenetic_profile(chart_from_args(args))
    if args.json:
        lang = args.lang if args.lang_asked else None
        print(json.dumps(profile_json(profile, labels, lang), indent=2, ensure_ascii=False))
    else:
        print(profile_text(profile, labels, args.lang))
    return 0


def _labels(path: str) -> LabelPack:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise usage_error("error", "--labels {path}: no such file", path=path) from None
    try:
        return label_pack_from_json(text)
    except InvalidOptionError as exc:
        raise usage_error("error", "--labels {path}: {reason}", path=path, reason=exc) from None


def profile_json(profile: HologeneticProfile, labels: LabelPack | None,
                 lang: str | None = None) -> dict[str, object]:
    """The profile's JSON; with a label pack or a language, a ``labels`` member holds the
    texts of each sphere (``{"lifesWork": {"sphere": ..., "key": {...}}}``): the pack's,
    else the sphere's title in ``lang``."""
    out: dict[str, object] = dict(profile.to_dict())
    if labels is None and lang is None:
        return out
    titles = hologenetic_labels(profile, lang or SOURCE_LANGUAGE)
    spheres: dict[str, dict[str, object]] = {}
    for sphere in profile.spheres:
        key = sphere.source.key
        given = labels.spheres.get(key) if labels is not None else None
        entry: dict[str, object] = {
            "sphere": given if given is not None or lang is None else titles[key]["sphere"]}
        if labels is not None:
            entry["key"] = dict(labels.key_labels(sphere.key))
        spheres[key] = entry
    out["labels"] = spheres
    return out


def _source_text(source: SphereSource, said: dict[str, str], lang: str) -> str:
    """The activation a sphere is, ``personality sun`` (in English the body's code, as in
    the JSON; in another language its name)."""
    body = source.body.value if lang == SOURCE_LANGUAGE else body_label(source.body, lang)
    return f"{said[source.side]} {body}"


def profile_text(profile: HologeneticProfile, labels: LabelPack | None,
                 lang: str = SOURCE_LANGUAGE) -> str:
    """The profile for a reader: each sequence, its spheres and the labels given, the
    words in ``lang``."""
    said = hologenetic_words(lang)
    rows = [said["title"]]
    for sequence in SEQUENCES:
        rows += ["", f"  {said[sequence]}"]
        for sphere in profile.spheres:
            if sphere.source.sequence != sequence:
                continue
            key = sphere.source.key
            title = said["pearl sphere" if key == "pearl" else key]
            source = _source_text(sphere.source, said, lang)
            rows.append(f"    {pad(title, 12)} {sphere!s:>5}   ({source})")
            if labels is not None:
                if key in labels.spheres:
                    rows.append(f"      {labels.spheres[key]}")
                rows += [f"      {name}: {text}"
                         for name, text in labels.key_labels(sphere.key).items()]
    return "\n".join(rows)
