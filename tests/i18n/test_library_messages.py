"""Every message the library raises to a user is in the catalogs: each raise site's text
(a literal or an f-string) read from the source and matched against the patterns of
``bodygraph.catalog.said``; a new message without its pattern fails here."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bodygraph.catalog.said import LIBRARY_MESSAGES, said

SRC = Path(__file__).resolve().parents[2] / "src" / "bodygraph"
#: Stands for a value an f-string fills in.
HOLE = "\ue000"
#: Which arguments of an error class hold a message (by position or keyword); any other
#: class: its first argument and ``reason``.
MESSAGE_ARGUMENTS: dict[str, tuple[int | str, ...]] = {
    "EmptyCellError": (),  # a column's name; its message is made in __init__
    "LocationNotFoundError": ("reason",),  # the first is the place asked for
    "OutOfRangeError": ("reaching", "remedy"),  # instants; explain() words it (below)
    "UnsupportedLanguageError": (),  # the code asked for; said in English (below)
}
#: Messages no user of the command line, the service or the MCP tools meets, so left in
#: English: a Python caller's mistake (the command line, service and MCP tools check or
#: build these values first), a damaged install or an internal failure. By file and text
#: (HOLE for a value).
NOT_FOR_USERS: frozenset[tuple[str, str]] = frozenset({
    # A Python caller's mistake: the command line, service and tools never pass these.
    ("_time.py", f"{HOLE} has no time zone: pass an aware datetime (for example "
                 "datetime(..., tzinfo=timezone.utc))"),
    ("geo/birthtime.py", f"pass the birth date as a date, not a datetime: {HOLE}"),
    ("geo/birthtime.py", "the birth time must be local wall time without a zone: the zone "
                         "comes from the place"),
    ("geo/local.py", f"a place must be a location text or a Place, not {HOLE}"),
    ("geo/places/base.py", f"a location must be text, not {HOLE}"),
    ("geo/timezones.py", f"a local wall time must be a datetime, not {HOLE}"),
    ("geo/timezones.py", "the local wall time must be naive: the zone comes from the place"),
    ("relations/astro.py", "give the latitude and the longitude together"),
    ("relations/astro.py", "give the latitudes and the longitudes together"),
    ("relations/astro.py", f"give one latitude and one longitude per birth ({HOLE})"),
    ("relations/columns.py", f"cannot join tables of different {HOLE}"),
    ("relations/connection_table.py", f"connection_many needs tables of the same length, "
                                      f"not {HOLE} and {HOLE} (or one chart against a table)"),
    ("relations/rectification.py", "give one end, one set of constraints (or one for all) "
                                   "and one zone (or one for all) for each start"),
    ("relations/transit_table.py", "completes() needs a table of transits over a natal chart"),
    ("dask.py", f"cannot read the birth instants: {HOLE}"),
    ("ephemeris/fast/engine.py", "node must be 'true' or 'mean', not None"),
    # A Python caller's option: the command line offers these as choices (--node,
    # --engine), the service and tools pass fixed values.
    *((where, f"node must be 'true' or 'mean', not {HOLE}") for where in (
        "calculator.py", "ephemeris/fast/engine.py", "relations/transit.py")),
    ("calculator.py", f"unknown engine {HOLE}: use 'fast' or 'skyfield'"),
    ("calculator.py", f"workers must be a whole number >= 1, not {HOLE}"),
    ("ephemeris/fast/engine.py", f"mode must be 'auto', 'compiled' or 'plain', not {HOLE}"),
    ("ephemeris/fast/jit.py", f"the compiled engine needs numba ({HOLE}): {HOLE}"),
    ("relations/calendar.py", f"level must be 'gate' or 'line', not {HOLE}"),
    # The drawing's input: built from charts by the command line, service and tools.
    *(("render/model.py", text) for text in (
        f"{HOLE} must hold the 13 bodies in contract order (sun, earth, northNode, ...)",
        f"gate must be 1..64, not {HOLE}", f"line must be 1..6, not {HOLE}",
        f"unknown centers: {HOLE}", f"variables must look like 'PLR DRL', not {HOLE}",
        f"centers {HOLE} are not the centers the gates define {HOLE}",
        "each side needs 13 (gate, line) pairs")),
    ("render/overlay.py", f"{HOLE} must be 1 to 24 ASCII letters, digits, spaces or .,'- "
                          f"starting with a letter or digit, not {HOLE}"),
    ("render/overlay.py", "a transit needs 13 (gate, line) pairs, sun to pluto"),
    ("render/overlay.py", "transit must hold the 13 bodies in contract order"),
    ("render/wheel.py", f"{HOLE} must hold 13 finite longitudes in degrees"),
    # The shipped layout and themes (the command line takes a preset's name only).
    *(("render/geometry.py", text) for text in (
        "cannot split an empty polyline", f"layout: {HOLE} must be [x, y]",
        "layout: centers must be exactly the nine centers",
        "layout: gates must be exactly 1..64", f"layout: routes for unknown channels {HOLE}")),
    # Internal failures: the range is checked before, the request carries its key.
    ("ephemeris/fast/engine.py", "the design instant did not converge"),
    ("ephemeris/fast/engine.py", f"an instant lies outside the kernel {HOLE} (TDB JD {HOLE} "
                                 f"to {HOLE})"),
    ("geo/places/transport.py", "internal error: the geocoding request carries no key slot"),
    ("batch/resolve.py", "no geocoder"),
    # Said in English on purpose: the catalogs cannot be read, the language is unknown.
    ("catalog/translations.py", f"the {HOLE} catalog of this install is not compiled: "
                                "install Babel (pip install babel) or install bodygraph "
                                "from a wheel"),
    ("errors.py", f"unknown language {HOLE}: use one of {HOLE}"),
})
#: Error classes whose every message is left out: the renderer's themes (a Python
#: caller's own theme; the command line offers the shipped presets by name only).
NOT_FOR_USERS_CLASSES = frozenset({"ThemeError"})


def _error_classes(trees: dict[Path, ast.Module]) -> set[str]:
    """The names of ``BodygraphError`` and every class derived from it in the library."""
    found = {"BodygraphError"}
    classes = [node for tree in trees.values() for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef)]
    while True:
        more = {node.name for node in classes if node.name not in found
                and any(isinstance(b, ast.Name) and b.id in found for b in node.bases)}
        if not more:
            return found
        found |= more


def _text(node: ast.expr, constants: dict[str, ast.expr]) -> str | None:
    """The text ``node`` writes, HOLE for each value it fills in; None when it is not
    a literal, an f-string, a sum of those or a module's constant of one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v, constants) if isinstance(v, ast.Constant) else HOLE
                 for v in node.values]
        return "".join(p or "" for p in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # a value: HOLE
        return "".join(_text(side, constants) or HOLE for side in (node.left, node.right))
    if isinstance(node, ast.Name) and node.id in constants:
        return _text(constants[node.id], constants)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "_safe" and node.args):  # a key masked in a message
        return _text(node.args[0], constants)
    return None


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else None)


def raised_messages() -> Iterator[tuple[str, int, str | None, str]]:
    """Each message given to an error class of the library (or to ``super().__init__``
    in one): its file (under src/bodygraph), line, text (None when it is not literal)
    and source."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(SRC.rglob("*.py"))}
    errors = _error_classes(trees)
    for path, tree in trees.items():
        where = path.relative_to(SRC).as_posix()
        constants = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                     for t in node.targets if isinstance(t, ast.Name)}
        parameters: dict[int, set[str]] = {}  # a call's id -> its function's parameters
        for function in ast.walk(tree):  # outer functions first: the innermost one wins
            if isinstance(function, ast.FunctionDef):
                names = {a.arg for a in (*function.args.args, *function.args.kwonlyargs)}
                parameters.update((id(n), names) for n in ast.walk(function))
        for node in ast.walk(tree):
            name = _called(node) if isinstance(node, ast.Call) else None
            if name is None or name in NOT_FOR_USERS_CLASSES:
                continue
            assert isinstance(node, ast.Call)
            if name in errors:
                which = MESSAGE_ARGUMENTS.get(name, (0, "reason"))
            elif name == "__init__" and _in_error_class(tree, node, errors):
                which = (0,)
            else:
                continue
            given = [node.args[i] for i in which if isinstance(i, int) and i < len(node.args)]
            given += [k.value for k in node.keywords if k.arg in which]
            for argument in given:
                if isinstance(argument, ast.Name) and argument.id in parameters.get(
                        id(node), set()):
                    continue  # passed on: the caller's message is checked where it is
                yield where, node.lineno, _text(argument, constants), ast.unparse(argument)


def _in_error_class(tree: ast.Module, call: ast.Call, errors: set[str]) -> bool:
    return any(isinstance(c, ast.ClassDef) and c.name in errors - NOT_FOR_USERS_CLASSES
               and any(n is call for n in ast.walk(c)) for c in ast.walk(tree))


#: Messages made from pieces the scan cannot read (checked by exercising them below).
MADE_ELSEWHERE = frozenset({
    ("geo/places/base.py", "message"),  # LocationNotFoundError: test below
    ("errors.py", "self.explain(remedy=remedy)"),  # OutOfRangeError: test below
    ("batch/pool.py", "str(exc)"),  # a worker's error passed on with its message
})


def covered(text: str) -> bool:
    """Whether a pattern of the library's messages reads ``text`` (HOLE: any value)."""
    site = re.compile("".join(".*" if p == HOLE else re.escape(p)
                              for p in re.split(f"({HOLE})", text)), re.DOTALL)
    from bodygraph.catalog.translations import Counted

    forms = [english for m in LIBRARY_MESSAGES
             for english in ((m.singular, m.plural) if isinstance(m, Counted) else (m,))]
    for message in forms:
        relaxed = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(message))
        if re.fullmatch(relaxed, text, re.DOTALL) or site.fullmatch(
                re.sub(r"\{\w+\}", HOLE, message)):
            return True
    return False


def test_every_message_raised_to_a_user_has_a_pattern() -> None:
    """A message a user can meet is a pattern of ``LIBRARY_MESSAGES`` (and so in the
    catalogs: tests/i18n/test_catalogs.py); the others are listed here, with why."""
    seen = list(raised_messages())
    assert len(seen) > 120
    unknown = [f"{where}:{line}: {source}" for where, line, text, source in seen
               if text is None and (where, source) not in MADE_ELSEWHERE]
    missing = [f"{where}:{line}: {text!r}" for where, line, text, _ in seen
               if text is not None and (where, text) not in NOT_FOR_USERS
               and not covered(text)]
    assert unknown == [], "messages the scan cannot read:\n" + "\n".join(unknown)
    assert missing == [], "messages without a pattern in LIBRARY_MESSAGES:\n" + "\n".join(
        missing)
    texts = {(where, text) for where, _, text, _ in seen}
    assert texts >= NOT_FOR_USERS, "listed but no longer raised: " + repr(NOT_FOR_USERS - texts)


def test_a_new_message_without_a_pattern_fails_the_scan() -> None:
    """The scan's test cannot pass by accident: an unknown message is not covered, a
    known one with other values is."""
    assert not covered(f"the moon {HOLE} is made of cheese")
    assert covered(f"latitude {HOLE} is outside -90 to 90")
    assert covered(f"unknown type {HOLE}; use one of: {HOLE}")
    assert not covered("unknown type; use one of")


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_the_messages_made_in_the_errors_are_said(lang: str) -> None:
    """The messages the error classes compose themselves are read whole."""
    from bodygraph.batch.errors import EmptyCellError
    from bodygraph.errors import OutOfRangeError
    from bodygraph.geo.places.base import LocationNotFoundError

    first, last = datetime(1800, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)
    made = [
        EmptyCellError("tz"),
        LocationNotFoundError("Xyz"),
        LocationNotFoundError("Xyz", reason="no place of that name"),
        LocationNotFoundError("Xyz", ("Xyzzy, US",), reason="no place of that name"),
        LocationNotFoundError("Xyz", ("Xyzzy, US",)),
        OutOfRangeError(datetime(2300, 1, 1, tzinfo=UTC), first, last),
        OutOfRangeError(datetime(2300, 1, 1, tzinfo=UTC), first, last,
                        reaching="the calendar"),
        OutOfRangeError(datetime(2300, 1, 1, tzinfo=UTC), first, last,
                        reaching="the search",
                        remedy="use a calculator of a larger kernel (or BODYGRAPH_EPHEMERIS)"),
    ]
    for error in made:
        assert said(str(error), lang) != str(error), str(error)
