"""The outer ASGI middleware: request ids, admission of the API key under ``/v1`` and
``/v2`` before routing, rate-limit and caching headers, and the last-resort 500 (the rules:
docs/api.md, "Order of checks", "Response headers", "Limits")."""

from __future__ import annotations

import hashlib
import logging
import traceback
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bodygraph_server.billing.accounts import Denial, Denied, Principal, RateDecision
from bodygraph_server.billing.principals import denied as denial
from bodygraph_server.billing.ratelimit import LIMIT, WINDOW_SECONDS, rate_limit_headers
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.http.envelope import error_response
from bodygraph_server.http.error_words import named_language, spoken
from bodygraph_server.http.errors import ApiError, ErrorCode, outage_error
from bodygraph_server.services import services_of

LOG = logging.getLogger("bodygraph_server")

REQUEST_ID_HEADER = "X-Request-Id"
ADMISSION_KEY = "bodygraph.admission"
REQUEST_ID_KEY = "bodygraph.request_id"


class Credential(Enum):
    """What the request presented instead of a usable key."""

    MISSING = "missing"
    MALFORMED = "malformed"
    DUPLICATE = "duplicate"


KEY_HEADERS = {"v1": "hd-api-key", "v2": "authorization"}
"""The header that carries the API key, per version."""
NO_STORE = {"Cache-Control": "no-store"}
NOSNIFF = {"X-Content-Type-Options": "nosniff"}


KEYED_PATHS = {"/mcp": "v2"}
"""Paths outside ``/v1`` and ``/v2`` that take an API key, and the version whose header
carries it (the remote MCP endpoint: ``Authorization: Bearer``)."""


def answer_headers(request_id: str, version: str | None) -> dict[str, str]:
    """The headers every answer carries (docs/api.md, "Response headers"): its request
    id, ``nosniff`` and, under an API ``version``, ``no-store``."""
    headers = {REQUEST_ID_HEADER: request_id, **NOSNIFF}
    if version is not None:
        headers.update(NO_STORE)
    return headers


def api_version(path: str) -> str | None:
    """``"v1"`` or ``"v2"`` for paths under those prefixes (and :data:`KEYED_PATHS`),
    else None."""
    for version in ("v1", "v2"):
        if path == f"/{version}" or path.startswith(f"/{version}/"):
            return version
    return KEYED_PATHS.get(path)


def read_credential(headers: Headers, version: str) -> str | Credential:
    """The API key of the request: v2 ``Authorization: Bearer <key>``, v1 ``HD-Api-Key``.

    Absent or blank -> MISSING; the header given more than once -> DUPLICATE; a v2
    Authorization header of another form -> MALFORMED.
    """
    name = KEY_HEADERS[version]
    values = headers.getlist(name)
    if len(values) > 1:
        return Credential.DUPLICATE
    raw = values[0].strip() if values else ""
    if version == "v1":
        return raw or Credential.MISSING
    if not raw:
        return Credential.MISSING
    scheme, _, token = raw.partition(" ")
    if scheme.lower() != "bearer":
        return Credential.MALFORMED
    return token.strip() or Credential.MISSING


@dataclass(frozen=True, slots=True)
class Admission:
    """The outcome of authentication and rate counting for one API request."""

    credential: str | Credential
    principal: Principal | None
    denied: Denied | None
    decision: RateDecision
    headers: dict[str, str]

    def auth_error(self) -> ApiError | None:
        """The authentication refusal, if any (first in the order of checks)."""
        if self.credential is Credential.MISSING:
            return ApiError(ErrorCode.API_KEY_MISSING)
        if self.credential is Credential.DUPLICATE:
            return ApiError(
                ErrorCode.UNAUTHORIZED, "Send the API key in exactly one header line"
            )
        if self.credential is Credential.MALFORMED:
            return ApiError(
                ErrorCode.UNAUTHORIZED, "Authorization header must be 'Bearer <API_KEY>'"
            )
        if self.denied is not None:
            return ApiError(ErrorCode(self.denied.reason.value), self.denied.message)
        return None


def _anonymous_partition(client: tuple[str, int] | None) -> str:
    host = client[0] if client else "unknown"
    return "anon:" + hashlib.sha256(host.encode("utf-8")).hexdigest()


async def admit(requests: RequestBook, credential: str | Credential, client: Any) -> Admission:
    """Authenticate and count the request: a valid key's in its window, an unknown key's
    in the client address's window of failed authentications."""
    book = requests.book
    principal: Principal | None = None
    denied: Denied | None = None
    counted: RateDecision | None = None
    if isinstance(credential, str):
        outcome, counted = await requests.admit(credential)  # key, then rate limit
        if isinstance(outcome, Principal):
            principal = outcome
        else:
            denied = outcome
    if denied is not None and denied.reason is Denial.API_KEY_INVALID:
        address = client[0] if client else "unknown"
        failures = await requests.count_auth_failure(address)
        if not failures.allowed:
            headers = rate_limit_headers(failures, _anonymous_partition(client))
            return Admission(credential=credential, principal=None,
                             denied=denial(Denial.RATE_LIMIT_EXCEEDED), decision=failures,
                             headers=headers)
    if principal is not None:
        if counted is None:  # pragma: no cover - Bookkeeper.admit counts every principal
            raise RuntimeError("a principal without a rate decision")
        decision = counted
        headers = book.rate_headers(principal, decision)
    else:
        decision = RateDecision(
            allowed=True,
            limit=LIMIT,
            window_seconds=WINDOW_SECONDS,
            remaining=LIMIT,
            reset_seconds=WINDOW_SECONDS,
        )
        headers = rate_limit_headers(decision, _anonymous_partition(client))
    return Admission(credential=credential, principal=principal, denied=denied,
                     decision=decision, headers=headers)


def admission_of(scope: Scope) -> Admission:
    """The admission the gate made for this request."""
    admission = scope.get(ADMISSION_KEY)
    if not isinstance(admission, Admission):
        raise RuntimeError("request was not admitted by the gate")
    return admission


def request_id_of(scope: Scope) -> str:
    """The id of the request being served."""
    return str(scope.get(REQUEST_ID_KEY, ""))


def admitted(scope: Scope, path: str) -> Principal:
    """The caller of a keyed operation at ``path``, refused in the documented order
    (docs/api.md, "Order of checks"): authentication, tier (ACCESS_DENIED), rate limit
    (RATE_LIMIT_EXCEEDED with Retry-After)."""
    admission = admission_of(scope)
    error = admission.auth_error()
    if error is not None:
        raise error
    principal = admission.principal
    if principal is None:  # pragma: no cover - auth_error covers every anonymous case
        raise ApiError(ErrorCode.UNAUTHORIZED)
    denied = services_of(scope).book.authorize(principal, path)  # pure: no I/O
    if denied is not None:
        raise ApiError(ErrorCode.ACCESS_DENIED, denied.message)
    if not admission.decision.allowed:
        raise ApiError(
            ErrorCode.RATE_LIMIT_EXCEEDED,
            headers={"Retry-After": str(admission.decision.reset_seconds)},
        )
    return principal


def log_unexpected(request_id: str, exc: BaseException) -> None:
    """Log an unexpected failure: id, type and stack only (no exception text, which may
    hold the caller's birth data)."""
    stack = "".join(traceback.format_tb(exc.__traceback__))
    LOG.error(
        "request %s failed: %s.%s\n%s",
        request_id,
        type(exc).__module__,
        type(exc).__qualname__,
        stack,
    )


def internal_error(request_id: str) -> ApiError:
    """INTERNAL_ERROR naming the request id."""
    return ApiError(
        ErrorCode.INTERNAL_ERROR, f"Internal server error (request id {request_id})"
    )


class Gate:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        scope[REQUEST_ID_KEY] = request_id
        version = api_version(scope["path"])
        started = False
        extra: dict[str, str] = {}

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers.update(answer_headers(request_id, version))
                for name, value in extra.items():
                    if name.lower() == "retry-after" and message["status"] != 429:
                        continue
                    headers[name] = value
            await send(message)

        try:
            if version is not None:
                services = services_of(scope)
                credential = read_credential(Headers(scope=scope), version)
                admission = await admit(services.requests, credential, scope.get("client"))
                scope[ADMISSION_KEY] = admission
                extra.update(admission.headers)
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            if started:
                raise
            error = outage_error(exc)  # the database is down: 503, not 500
            if error is None:
                log_unexpected(request_id, exc)
                error = internal_error(request_id)
            error = spoken(error, named_language(scope))  # a ?lang= (not v1)
            response = error_response(error, legacy=version == "v1")
            await response(scope, receive, send_with_headers)
