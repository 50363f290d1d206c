"""A geopy transport that keeps a caller's key out of every log line.

geopy builds each request URL, logs it at debug level, then hands it to a transport
adapter. Most providers take their key as a URL parameter, so a geocoder built with the
real key would log it. Build the geopy geocoder with :data:`PLACEHOLDER` as its key and
:func:`keyed_adapter` as its ``adapter_factory``: geopy then logs the placeholder, and the
adapter puts the real key into the URL only as the request is sent.

The adapter is geopy's ``URLLibAdapter``: one request per call, bounded by the
geocoder's time-out, no retries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from geopy.adapters import URLLibAdapter

from bodygraph.geo.places.base import GeocodeFailedError

__all__ = ["PLACEHOLDER", "KeyedAdapter", "keyed_adapter", "with_key"]

#: What the geopy geocoder is given as its key.
PLACEHOLDER: Final = "bodygraph-caller-key"


def with_key(url: str, param: str, key: str) -> str:
    """``url`` with the placeholder value of query parameter ``param`` replaced by ``key``."""
    parts = urlsplit(url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    if (param, PLACEHOLDER) not in params:
        raise GeocodeFailedError("internal error: the geocoding request carries no key slot")
    params = [
        (name, key if (name, value) == (param, PLACEHOLDER) else value)
        for name, value in params
    ]
    return urlunsplit(parts._replace(query=urlencode(params)))


class KeyedAdapter(URLLibAdapter):  # type: ignore[misc]
    """geopy's urllib transport that swaps the real key in as each request goes out."""

    def __init__(self, *, proxies: Any, ssl_context: Any, key: str, param: str = "key") -> None:
        super().__init__(proxies=proxies, ssl_context=ssl_context)
        self._key = key
        self._param = param

    def __repr__(self) -> str:
        return f"{type(self).__name__}(param={self._param!r}, key=***)"

    def get_text(self, url: str, *, timeout: float, headers: Mapping[str, str]) -> str:
        """Send the request with the real key (see :class:`geopy.adapters.BaseAdapter`)."""
        text: str = super().get_text(
            with_key(url, self._param, self._key), timeout=timeout, headers=headers
        )
        return text


def keyed_adapter(
    key: str, param: str = "key", adapter: type[KeyedAdapter] = KeyedAdapter
) -> Callable[..., KeyedAdapter]:
    """An ``adapter_factory`` for a geopy geocoder built with :data:`PLACEHOLDER` as its key.

    ``param`` is the provider's name for the key's URL parameter (``key`` for Google,
    ``access_token`` for Mapbox, ``apiKey`` for HERE, ...).
    """
    return partial(adapter, key=key, param=param)
