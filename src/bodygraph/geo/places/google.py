"""Google Maps Platform geocoding through geopy's ``GoogleV3``, with the caller's own key.

One :class:`GoogleGeocoder` holds one caller's key; make one per key (construction is
cheap) and never share a server-wide key. The key is sent to Google only as the ``key``
request parameter: geopy builds and logs the request URL with a placeholder in its place,
and the transport adapter (:mod:`bodygraph.geo.places.transport`) puts the real key in at the
moment the request is sent, so no log record, error message or ``repr`` made by geopy or
bodygraph holds it.

Each call makes exactly one HTTP request, bounded by ``timeout``; nothing is retried (the
contract leaves retrying to the client, and a refused key or a bad query would fail again).

``adapter_factory`` replaces the transport (a geopy adapter factory that puts the key in,
see :func:`~bodygraph.geo.places.transport.with_key`, and calls :func:`check_denied` on
each reply); with an asynchronous adapter (geopy's ``BaseAsyncAdapter``) use
:meth:`GoogleGeocoder.geocode_async`, which maps outcomes exactly as :meth:`geocode`.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from geopy.exc import (
    GeocoderAuthenticationFailure,
    GeocoderInsufficientPrivileges,
    GeocoderQuotaExceeded,
    GeocoderRateLimited,
    GeocoderTimedOut,
    GeopyError,
)
from geopy.geocoders import GoogleV3

from bodygraph.geo.coordinates import InvalidCoordinatesError
from bodygraph.geo.places.base import (
    DEFAULT_TIMEOUT,
    GeocodeFailedError,
    GeocodeKeyInvalidError,
    GeocodeKeyMissingError,
    GeocodeRateLimitedError,
    LocationNotFoundError,
    Place,
    check_location,
)
from bodygraph.geo.places.transport import PLACEHOLDER, KeyedAdapter, keyed_adapter

__all__ = ["DEFAULT_TIMEOUT", "GoogleGeocoder", "check_denied"]

_USER_AGENT = "bodygraph"


class _GoogleAdapter(KeyedAdapter):
    """The keyed transport, plus reporting ``REQUEST_DENIED`` as an authentication failure.

    geopy raises the same ``GeocoderQueryError`` for ``REQUEST_DENIED`` as for
    ``INVALID_REQUEST``, so the two could not be told apart afterwards; the adapter sees
    the raw reply and can.
    """

    def get_json(self, url: str, *, timeout: float, headers: Mapping[str, str]) -> Any:
        """Fetch and decode one reply (see :class:`geopy.adapters.BaseAdapter`)."""
        return check_denied(super().get_json(url, timeout=timeout, headers=headers))


def check_denied(page: Any) -> Any:
    """``page`` (a decoded reply), or geopy's authentication failure for a
    ``REQUEST_DENIED`` reply (which geopy would report like any invalid request)."""
    if isinstance(page, dict) and page.get("status") == "REQUEST_DENIED":
        raise GeocoderAuthenticationFailure(
            str(page.get("error_message") or "the geocoding key was refused")
        )
    return page


#: The network failures of a request in words, most specific first.
_NETWORK_FAILURES: tuple[tuple[type[BaseException], str], ...] = (
    (socket.gaierror, "name lookup failed"),
    (ConnectionRefusedError, "connection refused"),
    (ConnectionResetError, "connection reset"),
    (TimeoutError, "no answer in time"),
    (ssl.SSLError, "secure connection failed"),
    (OSError, "network error"),
)


def network_failure(exc: BaseException) -> str | None:
    """What went wrong on the network under ``exc`` (its causes, a URLError's reason), in
    words; None when it is not a network failure."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        reason = getattr(current, "reason", None)  # urllib's URLError wraps its OSError
        if isinstance(reason, BaseException):
            current = reason
        for kind, words in _NETWORK_FAILURES:
            if isinstance(current, kind):
                return words
        current = current.__cause__ or current.__context__
    return None


def _component(raw: Mapping[str, Any], kind: str, *, short: bool = False) -> str | None:
    for component in raw.get("address_components") or ():
        if kind in (component.get("types") or ()):
            value = component.get("short_name" if short else "long_name")
            return str(value) if value else None
    return None


def _place_from(raw: Mapping[str, Any], address: str, lat: float, lng: float) -> Place:
    name = None
    for kind in ("locality", "postal_town", "administrative_area_level_3",
                 "sublocality", "administrative_area_level_2", "natural_feature"):
        name = _component(raw, kind)
        if name:
            break
    place_id = raw.get("place_id")
    return Place(
        name=name or address,
        lat=lat,
        lng=lng,
        country=_component(raw, "country"),
        country_code=_component(raw, "country", short=True),
        region=_component(raw, "administrative_area_level_1"),
        source="google",
        identifier=str(place_id) if place_id else None,
    )


class GoogleGeocoder:
    """Geocode with the Google Geocoding API and one caller's key.

    ``domain`` and ``scheme`` say where the API lives (tests point them at a local
    server); ``timeout`` bounds each request in seconds; ``language`` asks for names in
    that language (``None``: Google's default). Safe to call from several threads.

    Outcomes map to the contract's codes: a refused or restricted key
    (``REQUEST_DENIED``, HTTP 401/403) -> ``GEOCODE_KEY_INVALID``; no result
    (``ZERO_RESULTS``) -> ``GEOCODE_LOCATION_NOT_FOUND``; ``OVER_QUERY_LIMIT``,
    ``OVER_DAILY_LIMIT``, HTTP 402/429 -> ``GEOCODE_RATE_LIMITED``; everything else
    (``INVALID_REQUEST``, ``UNKNOWN_ERROR``, HTTP errors, malformed replies, time-outs,
    network errors) -> ``GEOCODE_FAILED``.
    """

    def __init__(
        self,
        key: str,
        *,
        domain: str = "maps.googleapis.com",
        scheme: str = "https",
        timeout: float = DEFAULT_TIMEOUT,
        language: str | None = None,
        adapter_factory: Callable[..., Any] | None = None,
    ) -> None:
        if not isinstance(key, str) or not key.strip():
            raise GeocodeKeyMissingError("the Google geocoder needs the caller's geocoding key")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self._key = key.strip()
        self._domain = domain
        self._timeout = float(timeout)
        self._language = language
        self._client = GoogleV3(
            api_key=PLACEHOLDER,
            domain=domain,
            scheme=scheme,
            timeout=self._timeout,
            user_agent=_USER_AGENT,
            adapter_factory=adapter_factory or keyed_adapter(self._key, "key", _GoogleAdapter),
        )
        self.endpoint = f"{scheme}://{domain}{GoogleV3.api_path}"

    def __repr__(self) -> str:
        return f"GoogleGeocoder(endpoint={self.endpoint!r}, timeout={self._timeout}, key=***)"

    def _safe(self, text: str) -> str:
        return text.replace(self._key, "***")

    def geocode(self, query: str) -> Place:
        """Return the first place Google gives for ``query``.

        Raises :class:`~bodygraph.geo.places.LocationNotFoundError`,
        :class:`~bodygraph.geo.places.GeocodeKeyInvalidError`,
        :class:`~bodygraph.geo.places.GeocodeRateLimitedError` or
        :class:`~bodygraph.geo.places.GeocodeFailedError`.
        """
        text = check_location(query)
        with self._mapped():
            location = self._client.geocode(
                text, exactly_one=True, timeout=self._timeout, language=self._language
            )
        return self._place(location, text)

    async def geocode_async(self, query: str) -> Place:
        """:meth:`geocode` through an asynchronous adapter (``adapter_factory``)."""
        text = check_location(query)
        with self._mapped():
            location = await self._client.geocode(
                text, exactly_one=True, timeout=self._timeout, language=self._language
            )
        return self._place(location, text)

    @contextmanager
    def _mapped(self) -> Iterator[None]:
        """geopy's failures as the contract's errors."""
        try:
            yield
        except (GeocoderAuthenticationFailure, GeocoderInsufficientPrivileges) as exc:
            raise GeocodeKeyInvalidError(
                self._safe(f"the geocoding key was refused: {exc}")
            ) from exc
        except GeocoderRateLimited as exc:
            raise GeocodeRateLimitedError(
                self._safe(f"geocoding rate limit reached: {exc}"), exc.retry_after
            ) from exc
        except GeocoderQuotaExceeded as exc:
            raise GeocodeRateLimitedError(self._safe(f"geocoding quota reached: {exc}")) from exc
        except GeocoderTimedOut as exc:
            raise GeocodeFailedError(
                f"the geocoding service did not answer within {self._timeout:g} s"
            ) from exc
        except GeopyError as exc:
            unreachable = network_failure(exc)
            if unreachable is not None:
                raise GeocodeFailedError(
                    f"could not reach the geocoding service at {self._domain} ({unreachable})"
                ) from exc
            raise GeocodeFailedError(self._safe(f"geocoding failed: {exc}")) from exc
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise GeocodeFailedError("the geocoding service sent a malformed reply") from exc

    def _place(self, location: Any, text: str) -> Place:
        if location is None:
            raise LocationNotFoundError(text, reason="the geocoding service found no match")
        raw = location.raw if isinstance(location.raw, Mapping) else {}
        try:
            return _place_from(raw, str(location.address or text), location.latitude,
                               location.longitude)
        except (InvalidCoordinatesError, TypeError, AttributeError) as exc:
            raise GeocodeFailedError("the geocoding service sent a malformed reply") from exc
