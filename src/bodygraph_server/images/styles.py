"""Where the image route's styles come from: a :class:`TemplateSource` (the service's
template store backs it) behind a 24-hour :class:`StyleCache`."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from bodygraph.render import Theme

STYLE_TTL_SECONDS = 24 * 3600.0
STYLE_CACHE_ENTRIES = 10_000


class TemplateSource(Protocol):
    """Where template styles come from (the service's store backs it).

    ``style_for`` is blocking (it runs in a worker thread); it returns ``None`` for an
    unknown template and raises :class:`TemplateLookupError` when it cannot answer.
    """

    def style_for(self, template_id: UUID) -> Theme | None:
        """The theme of template ``template_id``, or ``None`` if there is no such template."""


class NoTemplates:
    """A source without templates: every image uses the default theme."""

    def style_for(self, template_id: UUID) -> Theme | None:
        """Always ``None``."""
        del template_id
        return None


@dataclass(frozen=True, slots=True)
class _Entry:
    theme: Theme | None
    expires: float


class StyleCache:
    """A bounded, time-limited cache in front of a :class:`TemplateSource`.

    Answers (including "no such template") are kept ``ttl`` seconds; at most
    ``max_entries`` are kept, the least recently used dropped first. Thread-safe.
    """

    def __init__(
        self,
        source: TemplateSource,
        *,
        ttl: float = STYLE_TTL_SECONDS,
        max_entries: int = STYLE_CACHE_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0 or max_entries < 1:
            raise ValueError("ttl and max_entries must be positive")
        self._source = source
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[UUID, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def style_for(self, template_id: UUID) -> Theme | None:
        """The cached theme, asking the source when absent or expired."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(template_id)
            if entry is not None and entry.expires > now:
                self._entries.move_to_end(template_id)
                return entry.theme
        theme = self._source.style_for(template_id)
        with self._lock:
            self._entries[template_id] = _Entry(theme, now + self._ttl)
            self._entries.move_to_end(template_id)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return theme

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)



def cached(templates: TemplateSource | None) -> StyleCache:
    """``templates`` behind a 24-hour :class:`StyleCache` (unless it already is one);
    ``None``: the default theme for every image."""
    source = templates if templates is not None else NoTemplates()
    return source if isinstance(source, StyleCache) else StyleCache(source)
