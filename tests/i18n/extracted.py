"""The code's marked messages, extracted once per test process: each
:func:`bodygraph.i18n.template.messages` reads every source file (a quarter of a second)."""

from __future__ import annotations

from functools import cache

from bodygraph.i18n import template
from bodygraph.i18n.terms import Term


@cache
def _messages() -> tuple[Term, ...]:
    return tuple(template.messages())


@cache
def _all_messages() -> tuple[Term, ...]:
    return tuple(template.all_messages())


def messages() -> list[Term]:
    """:func:`bodygraph.i18n.template.messages`, extracted by this process once."""
    return list(_messages())


def all_messages() -> list[Term]:
    """:func:`bodygraph.i18n.template.all_messages`, extracted by this process once."""
    return list(_all_messages())
