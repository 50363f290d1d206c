"""The outermost middleware: a request whose ``Host`` is not one of the service's own is
refused (400, the contract's error body, in the language of a ``?lang=``) before anything
else, the health checks aside (Starlette's ``TrustedHostMiddleware`` decides; docs/api.md)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import error_response
from bodygraph_server.http.error_words import named_language, spoken
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import answer_headers, api_version

ACCEPTED_KEY = "bodygraph.host_accepted"
UNCHECKED_PATHS = ("/health", "/health/live")
MESSAGE = pgettext("service error", "The Host header does not name this service; the "
                   "operator can allow it with --allowed-hosts / BODYGRAPH_ALLOWED_HOSTS")
LOGGED_HOSTS = 100
"""How many distinct refused hosts are logged (once each), so a flood cannot fill the log."""
LOG = logging.getLogger("bodygraph_server")


class TrustedHosts:
    """See the module docstring."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self._logged: set[str] = set()
        self._check = TrustedHostMiddleware(self._accepted, allowed_hosts=list(allowed_hosts),
                                            www_redirect=False)

    async def _accepted(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[ACCEPTED_KEY] = True
        await self.app(scope, receive, send)

    def _log_refusal(self, host: str) -> None:
        if host in self._logged or len(self._logged) >= LOGGED_HOSTS:
            return
        self._logged.add(host)
        LOG.warning("refused Host %r (not in --allowed-hosts / BODYGRAPH_ALLOWED_HOSTS); "
                    "each refused host is logged once", host[:100])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in UNCHECKED_PATHS:
            await self.app(scope, receive, send)
            return

        async def send_unless_refused(message: Message) -> None:
            if scope.get(ACCEPTED_KEY):  # the app's own messages; the refusal's are dropped
                await send(message)

        await self._check(scope, receive, send_unless_refused)
        if not scope.get(ACCEPTED_KEY):
            self._log_refusal(Headers(scope=scope).get("host", ""))
            version = api_version(scope["path"])  # the gate's headers: it is not reached
            error = spoken(ApiError(ErrorCode.INVALID_REQUEST_BODY, MESSAGE, status=400,
                                    headers=answer_headers(uuid.uuid4().hex, version)),
                           named_language(scope))
            response = error_response(error, legacy=version == "v1")
            await response(scope, receive, send)
