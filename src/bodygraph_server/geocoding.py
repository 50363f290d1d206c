"""The service's Google geocoding: one keep-alive ``httpx.AsyncClient`` per worker.

The library's :class:`~bodygraph.geo.places.google.GoogleGeocoder` sends each request
through urllib, which opens a new TCP and TLS connection every time (about 100 ms to
Google before the query even starts). The service instead hands it :class:`HttpxAdapter`,
a geopy asynchronous transport over one shared :class:`httpx.AsyncClient`, so that
requests reuse kept-alive connections and run on the event loop without a thread.
Everything else (the query, the key handling, the mapping of outcomes to the contract's
codes) is the library's.

:class:`SharedClient` creates the client on first use, on the worker's event loop, and
closes it when the app shuts down (:meth:`SharedClient.aclose`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

import httpx
from geopy.adapters import AdapterHTTPError, BaseAsyncAdapter
from geopy.exc import GeocoderParseError, GeocoderTimedOut, GeocoderUnavailable

from bodygraph.geo.places.base import DEFAULT_TIMEOUT
from bodygraph.geo.places.google import GoogleGeocoder, check_denied
from bodygraph.geo.places.transport import with_key

MAX_CONNECTIONS = 100
"""Connections to the geocoding service one worker may hold."""
KEEPALIVE_CONNECTIONS = 20
"""Idle connections one worker keeps open."""
KEEPALIVE_SECONDS = 60.0
"""How long an idle connection is kept."""


class HttpxAdapter(BaseAsyncAdapter):  # type: ignore[misc]
    """geopy's asynchronous transport over a shared client; the caller's key goes into
    the URL only as the request is sent (geopy logs the placeholder)."""

    def __init__(self, *, proxies: Any, ssl_context: Any, client: httpx.AsyncClient,
                 key: str, param: str = "key") -> None:
        super().__init__(proxies=proxies, ssl_context=ssl_context)
        self._client = client
        self._key = key
        self._param = param

    def __repr__(self) -> str:
        return f"{type(self).__name__}(param={self._param!r}, key=***)"

    async def get_text(self, url: str, *, timeout: float, headers: Mapping[str, str]) -> str:
        """One GET (see :class:`geopy.adapters.BaseAdapter`); errors never show the URL."""
        try:
            response = await self._client.get(
                with_key(url, self._param, self._key), timeout=timeout, headers=dict(headers)
            )
        except httpx.TimeoutException:
            raise GeocoderTimedOut("Service timed out") from None
        except httpx.HTTPError as exc:
            raise GeocoderUnavailable(
                f"the geocoding service could not be reached ({type(exc).__name__})"
            ) from None
        if response.status_code >= 400:
            raise AdapterHTTPError(
                f"Non-successful status code {response.status_code}",
                status_code=response.status_code,
                headers={name.lower(): value for name, value in response.headers.items()},
                text=response.text,
            )
        return response.text

    async def get_json(self, url: str, *, timeout: float, headers: Mapping[str, str]) -> Any:
        """One GET, decoded; a ``REQUEST_DENIED`` reply is an authentication failure."""
        text = await self.get_text(url, timeout=timeout, headers=headers)
        try:
            page = json.loads(text)
        except ValueError:
            raise GeocoderParseError("the geocoding service sent a reply that is not JSON") \
                from None
        return check_denied(page)


class SharedClient:
    """The worker's one :class:`httpx.AsyncClient`, made on first use."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The client (created now if there is none, or after :meth:`aclose`)."""
        if self._client is None:
            self._client = httpx.AsyncClient(
                limits=httpx.Limits(max_connections=MAX_CONNECTIONS,
                                    max_keepalive_connections=KEEPALIVE_CONNECTIONS,
                                    keepalive_expiry=KEEPALIVE_SECONDS),
                follow_redirects=False,
                trust_env=True,  # proxies and CA files from the environment, as urllib
            )
        return self._client

    @property
    def is_open(self) -> bool:
        """Whether a client exists (and is not closed)."""
        return self._client is not None

    def geocoder(self, key: str, *, domain: str = "maps.googleapis.com",
                 scheme: str = "https", timeout: float = DEFAULT_TIMEOUT) -> GoogleGeocoder:
        """A Google geocoder for one caller's key that sends through the shared client
        (``timeout``: seconds per request, the library's default)."""
        factory = partial(HttpxAdapter, client=self.client, key=key.strip())
        return GoogleGeocoder(key, domain=domain, scheme=scheme, timeout=timeout,
                              adapter_factory=factory)

    async def aclose(self) -> None:
        """Close the client and its connections (a later use makes a new one)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
