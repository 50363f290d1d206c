"""The words of chart JSON (``to_v2()`` and the lists holding it) in a language, under the
same keys (a list keeps its positions), by the catalogs; numbers and codes are left out:
the service's ``labels`` where it has no library result to ask (docs/languages.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

Translator = Callable[[str], str]
Labels = dict[str, Any] | list[Any]

_SHORT = re.compile(r"\((?P<short>\d+-\d+)\)$")


@cache
def _translators(lang: str) -> dict[str, Translator]:
    """The word keys of a chart's ``to_v2()`` and how each value is translated."""
    from bodygraph.catalog.tables import tables
    from bodygraph.catalog.translations import WORD_FIELDS, channel_text, word_translator

    channels = {channel.short: channel for channel in tables().channels}

    def channel(text: str) -> str:
        found = _SHORT.search(text)
        if found is None:
            raise ValueError(f"not a channel: {text!r}")
        named = channels[found["short"]]
        return channel_text(named.name, named.short, lang)

    words: dict[str, Translator] = {
        key: word_translator(context, lang) for key, context in WORD_FIELDS.items()
        if context is not None}
    words["centers"] = word_translator("center", lang)
    words["incarnationCross"] = word_translator("cross", lang)
    words["channelsLong"] = channel
    return words


def _memoized(translate: Translator) -> Translator:
    """``translate`` remembering each text's answer (a result repeats its words: the same
    types and centers in a thousand charts); a text it refuses is remembered as such."""
    seen: dict[str, str | None] = {}

    def once(text: str) -> str:
        if text not in seen:
            try:
                seen[text] = translate(text)
            except (KeyError, ValueError):
                seen[text] = None
        found = seen[text]
        if found is None:
            raise ValueError(f"not one of the catalogs' words: {text!r}")
        return found

    return once


def _word(translate: Translator, value: object) -> Any:
    """A word value (a text, or a list of texts) translated; None when it is neither, or
    not one of the catalogs' words."""
    try:
        if isinstance(value, str):
            return translate(value)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [translate(item) for item in value]
    except (KeyError, ValueError):
        return None
    return None


def _walk(value: object, words: dict[str, Translator]) -> Labels | None:
    """The labels of a JSON value; None where it holds no words."""
    if isinstance(value, list):
        if not any(isinstance(item, dict | list) for item in value):
            return None  # texts and numbers outside a word key: no words
        items = [_walk(item, words) for item in value]
        if all(item is None for item in items):
            return None
        return [{} if item is None else item for item in items]
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for key, member in value.items():
        translate = words.get(key)
        label = None if translate is None else _word(translate, member)
        if label is None and isinstance(member, dict | list):
            label = _walk(member, words)
        if label is not None:
            out[key] = label
    return out or None


def labels_of(data: object, lang: str, *,
              more: Mapping[str, Translator] | None = None) -> Labels:
    """The labels of ``data`` in ``lang`` (one of :func:`bodygraph.languages`; else
    :class:`~bodygraph.UnsupportedLanguageError`): an object for an object (``{}`` without
    words), a list of the same length for a list. For a chart's ``to_v2()`` it equals
    :meth:`Chart.labels <bodygraph.Chart.labels>`; the other results' words are their own
    ``labels(lang)``, not this."""
    from bodygraph.catalog.translations import catalog

    catalog(lang)  # checks the code
    words = {key: _memoized(translate)
             for key, translate in {**_translators(lang), **(more or {})}.items()}
    found = _walk(data, words)
    if found is not None:
        return found
    return [{} for _ in data] if isinstance(data, list) else {}
