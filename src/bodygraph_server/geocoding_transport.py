"""geopy's asynchronous transport over the service's shared :class:`httpx.AsyncClient`
(:mod:`bodygraph_server.geocoding`); a module of its own so that geopy is imported only
when a request is geocoded through Google (docs/performance.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
from geopy.adapters import AdapterHTTPError, BaseAsyncAdapter
from geopy.exc import GeocoderParseError, GeocoderTimedOut, GeocoderUnavailable

from bodygraph.geo.places.google import check_denied
from bodygraph.geo.places.transport import with_key


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
