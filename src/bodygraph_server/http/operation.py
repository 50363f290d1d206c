"""An HTTP operation as data (method, path, body, answers, price, errors, handler): the app
mounts operations as its routes and :mod:`~bodygraph_server.http.openapi` documents them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bodygraph_server.http.errors import ERROR_TABLE, ErrorCode
from bodygraph_server.http.language import speaking
from bodygraph_server.policy.plans import Tier, tier_allows

if TYPE_CHECKING:
    from bodygraph_server.services import Services

Handler = Callable[[Request], Awaitable[Response]]
Running = Callable[["Services"], AbstractAsyncContextManager[None]]
"""What an operation needs running while the app serves (the MCP session manager),
entered in the app's lifespan once the services are up."""
Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
KeyHeader = Literal["bearer", "v1", "none"]
"""How the caller presents the API key: v2's ``Authorization: Bearer``, v1's
``HD-Api-Key``, or not at all (a public operation)."""
GeocodeKey = Literal["required", "optional", "none"]
"""Whether the operation reads ``HD-Geocode-Key``: always, when a birth is given by place
name, or never."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """A response an operation gives: what it is, its media type, the JSON Schema of its
    body (a ``$ref`` or inline) and its headers (OpenAPI header objects by name);
    ``also``: the schemas of the same answer in other media types, chosen by ``Accept``
    (:mod:`~bodygraph_server.http.negotiation`)."""

    description: str
    schema: Mapping[str, Any]
    media_type: str = "application/json"
    headers: Mapping[str, Any] = field(default_factory=dict)
    also: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """One operation: a charged POST, a free GET, a DELETE or a streamed download alike.

    ``cost`` is the credits a success takes (0: free); ``idempotent`` whether it reads
    ``Idempotency-Key``; ``request_body`` names the components schema of its JSON body
    (None: no body); ``error_codes`` are the contract codes it may answer, with
    ``status_overrides`` where an operation answers a code with another status;
    ``refusals`` documents answers outside the contract's error body (by status: the
    image route's). ``route_path`` is the Starlette path when one route serves several
    documented paths (``{image}`` for ``{template}.svg`` and ``{template}.png``);
    ``running`` what it needs running while the app serves (:data:`Running`).
    ``success_status`` is the status of ``success`` (202 for an accepted job);
    ``body_media_types`` the media types of the body ``request_body`` describes.
    """

    method: Method
    path: str
    summary: str
    description: str
    handler: Handler
    success: Answer
    tags: tuple[str, ...]
    key: KeyHeader = "none"
    cost: int = 0
    idempotent: bool = False
    request_body: str | None = None
    error_codes: tuple[ErrorCode, ...] = ()
    status_overrides: Mapping[ErrorCode, int] = field(default_factory=dict)
    geocode_key: GeocodeKey = "none"
    parameters: tuple[Mapping[str, Any], ...] = ()
    refusals: Mapping[int, Answer] = field(default_factory=dict)
    route_path: str = ""
    operation_id: str = ""
    running: Running | None = None
    success_status: int = 200
    body_media_types: tuple[str, ...] = ("application/json",)

    @property
    def legacy(self) -> bool:
        """Whether refusals take the v1 body (``HD-Api-Key`` operations)."""
        return self.key == "v1"

    @property
    def speaks(self) -> bool:
        """Whether it takes ``lang`` (every v2 operation: :mod:`~bodygraph_server.http.
        language`)."""
        return self.path.startswith("/v2/")

    @property
    def tiers(self) -> tuple[Tier, ...]:
        """The plan tiers that may call it (the policy decides: :mod:`~bodygraph_server.
        policy.plans`); every tier for a public operation."""
        if self.key == "none":
            return tuple(Tier)
        return tuple(tier for tier in Tier if tier_allows(tier, self.path))

    @property
    def identifier(self) -> str:
        """The OpenAPI ``operationId``: given, or made from the path."""
        return self.operation_id or self.path.strip("/").replace("/", "_").replace("-", "_")

    def status_of(self, code: ErrorCode) -> int:
        """The HTTP status this operation answers ``code`` with."""
        return self.status_overrides.get(code, ERROR_TABLE[code].status)


def _by_method(handlers: Mapping[str, Handler]) -> Handler:
    """One endpoint for several methods of one path (HEAD is served as GET)."""

    async def dispatch(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return dispatch


def routes_of(operations: Sequence[Operation]) -> list[BaseRoute]:
    """The Starlette routes of ``operations``, one per path (several methods of a path
    share it; so do operations with the same ``route_path``), in order."""
    handlers: dict[str, dict[str, Handler]] = {}
    for operation in operations:
        by_method = handlers.setdefault(operation.route_path or operation.path, {})
        if by_method.get(operation.method, operation.handler) is not operation.handler:
            raise ValueError(f"two handlers for {operation.method} {operation.path}")
        by_method[operation.method] = operation.handler
    for operation in operations:  # every v2 operation takes lang (http/language.py)
        by_method = handlers[operation.route_path or operation.path]
        if operation.speaks and by_method[operation.method] is operation.handler:
            by_method[operation.method] = speaking(operation.handler, operation.path,
                                                   operation.key != "none")
    return [
        Route(path, next(iter(by_method.values())) if len(by_method) == 1
              else _by_method(by_method), methods=list(by_method), name=path)
        for path, by_method in handlers.items()
    ]
