"""What the sync and async clients share: headers, the Idempotency-Key, the retry
decision, the rate-limit state and reading answers. No I/O here."""

from __future__ import annotations

import json
import uuid
from typing import Any, TypeVar

import httpx

from bodygraph_client.calls import Call
from bodygraph_client.errors import ServerError, ServiceUnreachable, api_error
from bodygraph_client.limits import RateLimit, RetryPolicy, retry_after

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
"""Where ``bodygraph-server serve`` listens by default."""
DEFAULT_TIMEOUT = 30.0
"""Seconds for connecting, sending and each read."""
USER_AGENT = "bodygraph-client/0.1.0"


class Core:
    """The state and rules of one client: keys, retry policy, rate-limit state."""

    def __init__(
        self, api_key: str, geocode_key: str | None, retry: RetryPolicy | None
    ) -> None:
        if not api_key:
            raise ValueError("an API key is needed (the service's Bearer key)")
        self.api_key = api_key
        self.geocode_key = geocode_key
        self.retry = retry or RetryPolicy()
        self.rate_limit = RateLimit()

    def request(self, http: httpx.Client | httpx.AsyncClient, call: Call[Any]) -> httpx.Request:
        """The HTTP request of ``call``; a charged call gets a fresh Idempotency-Key, which
        its retries (the same request sent again) keep."""
        endpoint = call.endpoint
        headers = {"Content-Type": "application/json"} if endpoint.method == "POST" else {}
        if endpoint.legacy:
            headers["HD-Api-Key"] = self.api_key
        else:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if endpoint.geocoded and self.geocode_key is not None:
            headers["HD-Geocode-Key"] = self.geocode_key
        if endpoint.charged or endpoint.replayable:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if endpoint.method == "GET":
            return http.build_request("GET", endpoint.path, params=dict(call.params),
                                      headers=headers)
        content = json.dumps(dict(call.body), separators=(",", ":")).encode("utf-8")
        return http.build_request("POST", endpoint.path, params=dict(call.params) or None,
                                  content=content, headers=headers)

    def auth_headers(self) -> dict[str, str]:
        """The v2 bearer header."""
        return {"Authorization": f"Bearer {self.api_key}"}

    def check(self, response: httpx.Response) -> httpx.Response:
        """``response`` if it is a 2xx answer (read), else its error."""
        if response.is_success:
            return response
        raise api_error(response.status_code, response.content, response.reason_phrase,
                        retry_after(response.headers))

    def retry_delay(self, response: httpx.Response, retries_done: int) -> float | None:
        """Records the rate-limit headers; the wait before retrying, or ``None``."""
        self.rate_limit = self.rate_limit.updated(response.headers)
        return self.retry.delay(response.status_code, retry_after(response.headers),
                                retries_done)

    def lost_answer_delay(self, retries_done: int) -> float | None:
        """The wait before sending a replayable request again whose answer never came
        (the backoff steps of the retry rules), or ``None`` for no more tries."""
        backoff = self.retry.backoff
        return backoff[retries_done] if retries_done < len(backoff) else None

    def result(self, call: Call[T], response: httpx.Response) -> T:
        """The typed result of a 2xx answer; the matching error otherwise."""
        if response.is_success:
            try:
                return call.read(response.json())
            except (ValueError, KeyError, TypeError):
                raise ServerError(
                    f"the answer of {call.endpoint.path} is not the JSON the contract "
                    "describes", status=response.status_code,
                ) from None
        raise api_error(response.status_code, response.content, response.reason_phrase,
                        retry_after(response.headers))


class ClientBase:
    """What both clients expose besides their methods."""

    _core: Core

    @property
    def rate_limit(self) -> RateLimit:
        """The rate-limit state as of the last answer."""
        return self._core.rate_limit


def http_options(base_url: str, timeout: float) -> dict[str, Any]:
    """The httpx client options both clients use."""
    return {"base_url": base_url, "timeout": timeout, "headers": {"User-Agent": USER_AGENT}}


def unreachable(base_url: httpx.URL, exc: httpx.TransportError) -> ServiceUnreachable:
    """The error of a request that got no answer."""
    kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "failed"
    return ServiceUnreachable(f"the request to {base_url} {kind}: {exc or type(exc).__name__}")
