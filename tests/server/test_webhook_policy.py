"""The callback URL policy: https only, and a host that names or resolves to a private,
loopback or link-local address is refused, unless the operator allows both."""

from __future__ import annotations

import pytest

from bodygraph_server.webhooks.policy import (
    CallbackRefusal,
    CallbackURLError,
    check_callback_url,
    refused_address,
)

pytestmark = pytest.mark.anyio


def resolving_to(*addresses: str):  # type: ignore[no-untyped-def]
    """A resolver that names ``addresses`` for every host (the machine has no DNS of the
    internet), recording what it was asked."""
    asked: list[tuple[str, int]] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return list(addresses)

    resolve.asked = asked  # type: ignore[attr-defined]
    return resolve


async def refusal(url: str, allow_private: bool = False,
                  resolve: object = None) -> CallbackURLError:
    with pytest.raises(CallbackURLError) as caught:
        if resolve is None:
            await check_callback_url(url, allow_private=allow_private)
        else:
            await check_callback_url(url, allow_private=allow_private,
                                     resolve=resolve)  # type: ignore[arg-type]
    return caught.value


@pytest.mark.parametrize("url", [
    "", "hooks.example.com/done", "example.com", "ftp://example.com/x", "https://",
    "https:///path", "mailto:someone@example.com", "https://exa mple.com/",
    "https://example.com:99999/", "https://example.com:port/", "https://user:pw@example.com/",
    "https://example.com/\nx", "https://example.com/" + "a" * 2048])
async def test_not_a_url(url: str) -> None:
    for allowed in (False, True):
        error = await refusal(url, allow_private=allowed)
        assert error.reason is CallbackRefusal.NOT_A_URL
        assert str(error).startswith("callbackUrl ")


async def test_https_required_unless_allowed() -> None:
    public = resolving_to("93.184.215.14")
    error = await refusal("http://hooks.example.com/done", resolve=public)
    assert error.reason is CallbackRefusal.NOT_HTTPS
    assert str(error) == "callbackUrl must use https"
    assert public.asked == []  # type: ignore[attr-defined]
    url = "http://hooks.example.com/done"
    assert await check_callback_url(url, allow_private=True, resolve=public) == url


async def test_a_public_host_is_accepted_and_resolved_on_its_port() -> None:
    public = resolving_to("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c")
    url = "https://hooks.example.com:8443/done?job=1"
    assert await check_callback_url(url, allow_private=False, resolve=public) == url
    assert public.asked == [("hooks.example.com", 8443)]  # type: ignore[attr-defined]
    assert await check_callback_url("https://93.184.215.14/x", allow_private=False) == (
        "https://93.184.215.14/x")


@pytest.mark.parametrize(("host", "kind"), [
    ("10.0.0.7", "private"), ("10.255.1.1", "private"), ("172.16.5.4", "private"),
    ("192.168.1.20", "private"), ("127.0.0.1", "loopback"), ("127.45.0.3", "loopback"),
    ("169.254.169.254", "link-local"), ("[::1]", "loopback"), ("[fe80::1]", "link-local"),
    ("[fd00::5]", "private"), ("[::ffff:127.0.0.1]", "loopback"),
    ("[::ffff:10.1.2.3]", "private"), ("0.0.0.0", "private"), ("100.64.0.1", "non-public")])
async def test_a_private_address_is_refused(host: str, kind: str) -> None:
    error = await refusal(f"https://{host}/hook")
    assert error.reason is CallbackRefusal.PRIVATE_ADDRESS
    assert f"resolves to a {kind} address" in str(error)
    assert await check_callback_url(f"https://{host}/hook", allow_private=True) == (
        f"https://{host}/hook")


async def test_a_name_resolving_to_loopback_is_refused() -> None:
    error = await refusal("https://localhost:8443/hook")  # the system's own resolver
    assert error.reason is CallbackRefusal.PRIVATE_ADDRESS
    assert "'localhost' resolves to a loopback address" in str(error)


@pytest.mark.parametrize("addresses", [("10.0.0.1",), ("93.184.215.14", "127.0.0.1"),
                                       ("169.254.0.9",), ("fe80::1%1",)])
async def test_a_name_with_any_private_address_is_refused(addresses: tuple[str, ...]) -> None:
    error = await refusal("https://hooks.example.com/x", resolve=resolving_to(*addresses))
    assert error.reason is CallbackRefusal.PRIVATE_ADDRESS
    assert "'hooks.example.com' resolves to a" in str(error)


async def test_a_name_that_does_not_resolve() -> None:
    error = await refusal("https://no-such-host.invalid/hook")
    assert error.reason is CallbackRefusal.UNRESOLVABLE
    assert str(error) == "callbackUrl host 'no-such-host.invalid' could not be resolved"
    error = await refusal("https://hooks.example.com/x", resolve=resolving_to())
    assert error.reason is CallbackRefusal.UNRESOLVABLE


def test_public_addresses() -> None:
    for address in ("93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"):
        assert refused_address(address) is None
