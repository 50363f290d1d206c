"""Which callback URLs the service calls: absolute https URLs whose host resolves to
public addresses only, unless the operator allows plain http and private networks
(``allow_private_callbacks``)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from enum import StrEnum
from urllib.parse import SplitResult, urlsplit

#: Longest callback URL accepted, in characters.
MAX_URL_LENGTH = 2048
#: Seconds a callback host's name may take to resolve.
RESOLVE_TIMEOUT = 5.0

#: Resolves ``(host, port)`` to the IP addresses it names (text).
Resolver = Callable[[str, int], Awaitable[list[str]]]


class CallbackRefusal(StrEnum):
    """Why a callback URL is refused."""

    NOT_A_URL = "not_a_url"
    NOT_HTTPS = "not_https"
    PRIVATE_ADDRESS = "private_address"
    UNRESOLVABLE = "unresolvable"


class CallbackURLError(ValueError):
    """A callback URL the service will not call; ``reason`` says why, the message says
    it to the caller."""

    def __init__(self, reason: CallbackRefusal, message: str) -> None:
        super().__init__(message)
        self.reason = reason


async def system_resolve(host: str, port: int) -> list[str]:
    """The addresses the system resolver gives for ``host`` (within
    :data:`RESOLVE_TIMEOUT`)."""
    loop = asyncio.get_running_loop()
    infos = await asyncio.wait_for(
        loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT)
    return [str(info[4][0]) for info in infos]


def parse_callback_url(url: str, *, allow_private: bool) -> SplitResult:
    """``url`` split, if it is an absolute http(s) URL with a host and no user name or
    password, and https unless ``allow_private``; else :class:`CallbackURLError`."""
    if not url or len(url) > MAX_URL_LENGTH or any(c.isspace() or ord(c) < 32 for c in url):
        raise CallbackURLError(
            CallbackRefusal.NOT_A_URL,
            f"callbackUrl must be an absolute URL of at most {MAX_URL_LENGTH} characters "
            "without spaces")
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number from 0 to 65535
    except ValueError:
        raise CallbackURLError(CallbackRefusal.NOT_A_URL,
                               "callbackUrl has an invalid port") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise CallbackURLError(CallbackRefusal.NOT_A_URL,
                               "callbackUrl must be an absolute URL like "
                               "https://example.com/hooks")
    if parts.username is not None or parts.password is not None:
        raise CallbackURLError(CallbackRefusal.NOT_A_URL,
                               "callbackUrl must not contain a user name or password")
    if parts.scheme.lower() != "https" and not allow_private:
        raise CallbackURLError(CallbackRefusal.NOT_HTTPS, "callbackUrl must use https")
    return parts


def refused_address(address: str) -> str | None:
    """What kind of non-public address ``address`` is (``"loopback"``, ``"link-local"``,
    ``"private"``, ``"non-public"``), or None for a public one."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_private:
        return "private"
    if not ip.is_global or ip.is_multicast:
        return "non-public"
    return None


async def check_callback_url(url: str, *, allow_private: bool,
                             resolve: Resolver = system_resolve) -> str:
    """``url`` if the service may call it (see the module); else
    :class:`CallbackURLError`. Its host is resolved (an address is taken as it is): every
    address it names must be public, unless ``allow_private``."""
    parts = parse_callback_url(url, allow_private=allow_private)
    if not allow_private:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        await public_addresses(parts.hostname or "", port, resolve)
    return url


async def public_addresses(host: str, port: int, resolve: Resolver = system_resolve) -> list[str]:
    """The addresses ``host`` names (itself if it is one, else what it resolves to), if
    every one is public; else :class:`CallbackURLError`."""
    addresses = await _addresses(host.strip("[]"), port, resolve)
    for address in addresses:
        kind = refused_address(address)
        if kind is not None:
            raise CallbackURLError(
                CallbackRefusal.PRIVATE_ADDRESS,
                f"callbackUrl host {host!r} resolves to a {kind} address ({address}); "
                "callbacks go to public addresses only")
    return addresses


async def _addresses(host: str, port: int, resolve: Resolver) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        addresses = await resolve(host, port)
    except (OSError, TimeoutError, UnicodeError):
        addresses = []
    if not addresses:
        raise CallbackURLError(CallbackRefusal.UNRESOLVABLE,
                               f"callbackUrl host {host!r} could not be resolved")
    return addresses
