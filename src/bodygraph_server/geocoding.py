"""The service's Google geocoding: one keep-alive ``httpx.AsyncClient`` per worker, made on
first use and closed at shutdown, under the library's geocoder; and whether place names
need the caller's key (:func:`caller_key_required`; docs/api.md, docs/places.md)."""

from __future__ import annotations

import ssl
from functools import cache, partial
from typing import TYPE_CHECKING

from bodygraph.geo.places.base import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    import httpx

    from bodygraph.geo.places.google import GoogleGeocoder
    from bodygraph_server.settings import GeocoderName

MAX_CONNECTIONS = 100
"""Connections to the geocoding service one worker may hold."""
KEEPALIVE_CONNECTIONS = 20
"""Idle connections one worker keeps open."""
KEEPALIVE_SECONDS = 60.0
"""How long an idle connection is kept."""


def caller_key_required(geocoder: GeocoderName) -> bool:
    """Whether a place name needs the caller's ``HD-Geocode-Key``: with Google (the
    caller's own key pays for the lookup), not with the offline gazetteer, which has no
    key to use (there the header is optional and ignored; docs/api.md)."""
    return geocoder == "google"


@cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of the geocoding clients, made once per process: the one httpx
    makes by default (CA files from ``SSL_CERT_FILE`` or ``SSL_CERT_DIR``, else certifi's
    bundle), whose loading costs CPU (docs/performance.md), paid again by every client
    made after an app restart (and by every test's app) if not kept. httpx is imported here,
    with the first Google geocoding, as in :attr:`SharedClient.client`."""
    import httpx

    return httpx.create_ssl_context(trust_env=True)


class SharedClient:
    """The worker's one :class:`httpx.AsyncClient`, made on first use."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The client (created now if there is none, or after :meth:`aclose`)."""
        if self._client is None:
            # Imported with the first Google geocoding (as geopy and the transport are):
            # a worker that never geocodes with Google need not load httpx, a fifth of
            # its start (its package also loads its command line: click, rich, pygments).
            import httpx

            self._client = httpx.AsyncClient(
                limits=httpx.Limits(max_connections=MAX_CONNECTIONS,
                                    max_keepalive_connections=KEEPALIVE_CONNECTIONS,
                                    keepalive_expiry=KEEPALIVE_SECONDS),
                follow_redirects=False,
                verify=tls_context(),
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
        from bodygraph.geo.places.google import GoogleGeocoder  # geopy: only when used
        from bodygraph_server.geocoding_transport import HttpxAdapter

        factory = partial(HttpxAdapter, client=self.client, key=key.strip())
        return GoogleGeocoder(key, domain=domain, scheme=scheme, timeout=timeout,
                              adapter_factory=factory)

    async def aclose(self) -> None:
        """Close the client and its connections (a later use makes a new one)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
