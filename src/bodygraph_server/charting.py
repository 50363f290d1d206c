"""The one place where the service calls the library to make a chart: :class:`ChartSource`
and its real one, :class:`LibraryCharts` (geocoding, time zone, then a :class:`ChartBatcher`
computing concurrent requests' charts together; docs/performance.md says what it saves)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time
from functools import partial
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import anyio
import anyio.to_thread

from bodygraph_server.batching import Batcher
from bodygraph_server.geocoding import SharedClient

if TYPE_CHECKING:
    from bodygraph.geo.places.base import Geocoder, Place
    from bodygraph.model.chart import Chart
    from bodygraph_server.settings import GeocoderName

DEFAULT_MAX_BATCH = 48
DEFAULT_MAX_WAIT = 0.010


@dataclass(frozen=True, slots=True)
class PlacedChart:
    """The chart of a birth given by place name, and the place the name was taken for."""

    chart: Chart
    place: Place


class ChartSource(Protocol):
    """Makes charts from local birth data; raises the library's typed errors."""

    async def from_coordinates(
        self, birthdate: date, birthtime: time, lat: float, lng: float
    ) -> Chart:
        """The chart of a local birth time at a point (time zone from the point)."""
        ...

    async def from_place(
        self, birthdate: date, birthtime: time, place: str, geocode_key: str
    ) -> PlacedChart:
        """The chart of a local birth time at a named place, geocoded with the caller's
        key, and the place taken."""
        ...

    def upcoming(self) -> AbstractContextManager[None]:
        """Held by a request from admission until it asks for its chart (a hint for
        batching; may do nothing)."""
        ...


def _compute(instants: Sequence[datetime]) -> list[Chart | BaseException]:
    """The chart of every instant, or the library's error for it (blocking). A batch of
    one uses ``calculate`` (``calculate_many`` has a fixed cost per call that only pays off
    from two charts on). A failing batch is retried one instant at a time so that one bad
    instant fails only its request."""
    from bodygraph import calculate
    from bodygraph.calculator import calculate_many
    from bodygraph.errors import BodygraphError

    if len(instants) == 1:
        try:
            return [calculate(instants[0])]
        except BodygraphError as exc:
            return [exc]
    try:
        return list(calculate_many(list(instants)))
    except BodygraphError:
        pass
    outcomes: list[Chart | BaseException] = []
    for utc in instants:
        try:
            outcomes.append(calculate(utc))
        except BodygraphError as exc:
            outcomes.append(exc)
    return outcomes


class ChartBatcher(Batcher[datetime, "Chart"]):
    """Computes the charts of concurrent requests of one event loop together.

    The first waiting request with no batch in flight takes up to ``max_batch`` queued
    instants (its own included) and computes them on the event loop (the loop serves
    nothing else meanwhile, which under load costs less than handing the batch to a thread
    that must share the GIL with the loop; a batch's cost: docs/performance.md); requests
    arriving meanwhile queue up and form the next batch. Before starting, it waits up to
    ``max_wait`` seconds while announced requests (:meth:`upcoming`) are still on their
    way; with none announced it starts at once. A started batch runs to the end, so every
    queued request gets its answer.
    """

    def __init__(
        self, max_batch: int = DEFAULT_MAX_BATCH, max_wait: float = DEFAULT_MAX_WAIT
    ) -> None:
        super().__init__(max_batch)
        self.max_wait = max_wait
        self._upcoming = 0
        self._changed: anyio.Event | None = None

    def queue_changed(self) -> None:
        """Tell a gathering leader that the queue or the announced count changed."""
        changed = self._changed
        if changed is not None:
            self._changed = None
            changed.set()

    @contextmanager
    def upcoming(self) -> Iterator[None]:
        """Announce a request that will ask for a chart soon (it is being charged, geocoded
        or placed in its time zone); a starting batch waits up to ``max_wait`` seconds for
        announced requests, so that a busy service computes many charts per batch."""
        self._upcoming += 1
        try:
            yield
        finally:
            self._upcoming -= 1
            self.queue_changed()

    async def gather(self) -> None:
        """Wait (woken by each change, not polling) while announced requests are on their
        way, the batch is not full and ``max_wait`` has not passed."""
        with anyio.move_on_after(self.max_wait):
            while self._upcoming > 0 and self.queued() < self.max_batch:
                changed = self._changed = anyio.Event()
                await changed.wait()
        self._changed = None

    async def process(self, items: Sequence[datetime]) -> list[Chart | BaseException]:
        """The charts of a batch, computed on the event loop, not in a thread: the work is
        Python holding the GIL, so a thread adds a hand-off per batch and makes the loop
        and the bookkeeping thread wait for the GIL in 5 ms slices instead of running in
        between."""
        return _compute(items)

    async def chart(self, utc: datetime) -> Chart:
        """The chart of ``utc`` (an aware UTC datetime)."""
        return await self.submit(utc)


def _local_to_utc(birthdate: date, birthtime: time, lat: float, lng: float) -> datetime:
    from bodygraph.geo.timezones import local_to_utc

    return local_to_utc(datetime.combine(birthdate, birthtime), lat=lat, lng=lng).utc


class LibraryCharts:
    """:class:`ChartSource` backed by ``bodygraph.geo.places``, ``bodygraph.geo.timezones`` and
    ``bodygraph.calculate_many`` (the same charts as ``bodygraph.geo.local``).

    ``geocoder_url`` (``scheme://host:port``) points the Google geocoder at another
    server speaking the Google Geocoding API (tests use a local one). The Google
    geocoder's HTTP client is made on first use; :meth:`aclose` closes it (the app's
    lifespan does at shutdown).
    """

    def __init__(
        self, geocoder: GeocoderName, geocoder_url: str = "", *, max_batch: int = DEFAULT_MAX_BATCH
    ) -> None:
        self.geocoder = geocoder
        self.geocoder_url = geocoder_url
        self.batcher = ChartBatcher(max_batch)
        self.http = SharedClient()

    async def aclose(self) -> None:
        """Close the geocoding HTTP client (a later request opens a new one)."""
        await self.http.aclose()

    async def _google_to_utc(
        self, birthdate: date, birthtime: time, place: str, geocode_key: str
    ) -> tuple[datetime, Place]:
        if self.geocoder_url:
            parts = urlsplit(self.geocoder_url)
            geocoder = self.http.geocoder(geocode_key, domain=parts.netloc,
                                          scheme=parts.scheme)
        else:
            geocoder = self.http.geocoder(geocode_key)
        found = await geocoder.geocode_async(place)
        return _local_to_utc(birthdate, birthtime, found.lat, found.lng), found

    def _geocoder(self, geocode_key: str) -> Geocoder:
        from bodygraph.geo.places import geocoder_for

        return geocoder_for(self.geocoder, geocode_key)

    def _place_to_utc(
        self, birthdate: date, birthtime: time, place: str, geocode_key: str
    ) -> tuple[datetime, Place]:
        found = self._geocoder(geocode_key).geocode(place)
        return _local_to_utc(birthdate, birthtime, found.lat, found.lng), found

    async def from_coordinates(
        self, birthdate: date, birthtime: time, lat: float, lng: float
    ) -> Chart:
        """See :class:`ChartSource`."""
        return await self.batcher.chart(_local_to_utc(birthdate, birthtime, lat, lng))

    def upcoming(self) -> AbstractContextManager[None]:
        """See :meth:`ChartBatcher.upcoming`."""
        return self.batcher.upcoming()

    async def from_place(
        self, birthdate: date, birthtime: time, place: str, geocode_key: str
    ) -> PlacedChart:
        """See :class:`ChartSource`."""
        with self.batcher.upcoming():
            if self.geocoder == "google":
                utc, found = await self._google_to_utc(birthdate, birthtime, place,
                                                       geocode_key)
            else:
                utc, found = await anyio.to_thread.run_sync(
                    partial(self._place_to_utc, birthdate, birthtime, place=place,
                            geocode_key=geocode_key),
                    abandon_on_cancel=True,
                )
        return PlacedChart(await self.batcher.chart(utc), found)
