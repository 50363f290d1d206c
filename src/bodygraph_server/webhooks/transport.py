"""An httpx transport that connects only to public addresses: the host of every
connection is resolved once more, checked (:func:`~.policy.public_addresses`) and
connected to by the address checked, so a name cannot resolve elsewhere in between."""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from functools import cache

import httpcore
import httpx

from bodygraph_server.webhooks.policy import Resolver, public_addresses, system_resolve


class PublicOnlyBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network, with TCP connections to public addresses only."""

    def __init__(self, resolve: Resolver = system_resolve) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._resolve = resolve

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
                          ) -> httpcore.AsyncNetworkStream:
        addresses = await public_addresses(host, port, self._resolve)
        return await self._inner.connect_tcp(addresses[0], port, timeout=timeout,
                                             local_address=local_address,
                                             socket_options=socket_options)

    async def connect_unix_socket(
            self, path: str, timeout: float | None = None,
            socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("webhooks are sent over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@cache
def tls_context() -> ssl.SSLContext:
    """The webhook senders' TLS context (httpx's default, without the environment's CA
    settings), made once per process like ``geocoding.tls_context``: loading the CA bundle
    costs CPU (docs/performance.md), paid by every app's sender otherwise (an app restart,
    every test's app)."""
    return httpx.create_ssl_context(trust_env=False)


def public_only_transport(resolve: Resolver = system_resolve) -> httpx.AsyncHTTPTransport:
    """httpx's transport over :class:`PublicOnlyBackend` (TLS still checks the
    certificate against the URL's host name). httpx has no argument for the network
    backend: its connection pool is replaced by an equal one that has it."""
    transport = httpx.AsyncHTTPTransport(verify=tls_context(), trust_env=False)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=tls_context(),
        max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0,
        network_backend=PublicOnlyBackend(resolve))
    return transport
